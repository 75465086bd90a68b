/// Entry points: `[[stitchable]]` SwiftUI effects classified by signature (language.md §5),
/// and Metal `vertex` / `fragment` functions with their attributes.
extension Checker {
    static let parameterAttributes = Set([
        "position", "stage_in", "vertex_id", "instance_id", "buffer", "texture", "sampler", "attribute",
        "flat", "user", "color", "center_perspective", "center_no_perspective", "sample_perspective", "front_facing",
    ]).union(KernelInput.allCases.map(\.rawValue))

    func classifyEntry(_ declaration: FunctionDeclaration, function: CheckedFunction, functionID: FunctionID) {
        let isStitchable = declaration.attributes.contains { $0.name == "stitchable" }
        let kind: EntryKind
        let firstUserArgument: Int
        switch declaration.qualifier {
        case .vertex, .fragment:
            if isStitchable {
                error("[[stitchable]] cannot be combined with '\(declaration.qualifier.rawValue)'", at: declaration.nameRange)
                return
            }
            kind = declaration.qualifier == .vertex ? .vertex : .fragment
            firstUserArgument = 0
            guard checkStageFunction(declaration, function: function, kind: kind) else { return }
        case .kernel:
            if isStitchable {
                error("[[stitchable]] cannot be combined with 'kernel'", at: declaration.nameRange)
                return
            }
            kind = .kernel
            firstUserArgument = 0
            guard checkKernelFunction(declaration, function: function) else { return }
        case .none:
            guard isStitchable else { return }
            guard let (effect, first) = stitchableKind(declaration, function: function) else { return }
            kind = effect
            firstUserArgument = first
        }
        if (overloads[declaration.name]?.count ?? 0) > 1 {
            error("entry point '\(declaration.name)' cannot be overloaded", at: declaration.nameRange)
            return
        }
        let parsed = ArgumentDocParser.parse(declaration.documentation)
        for problem in parsed.problems {
            warning(problem, at: declaration.nameRange)
        }
        // A handful of names: searched in order, not hashed into a set.
        let userArguments = parsed.docs.isEmpty ? [] : function.parameters.dropFirst(firstUserArgument).map { $0.name }
        var docs: [ArgumentDoc] = []
        for doc in parsed.docs {
            if userArguments.contains(where: { sameSpelling($0, doc.name) }) {
                docs.append(doc)
            } else {
                let suggestion = Self.closestName(to: doc.name, among: userArguments)
                warning("'@arg \(doc.name)' does not name an argument of '\(declaration.name)'" + (suggestion.map { "; did you mean '\($0)'?" } ?? ""),
                        at: declaration.nameRange)
            }
        }
        entries.append(EntryInfo(function: functionID, kind: kind, firstUserArgument: firstUserArgument, argumentDocs: docs,
                                 bindings: EntryBinding.of(function, kind: kind, firstUserArgument: firstUserArgument)))
    }

    // MARK: SwiftUI effects

    private static let effectSignatures = [
        Diagnostic.Note(message: "distortion effect: float2 f(float2 position, args…)", range: nil),
        Diagnostic.Note(message: "color effect: half4 f(float2 position, half4 color, args…)", range: nil),
        Diagnostic.Note(message: "layer effect: half4 f(float2 position, SwiftUI::Layer layer, args…)", range: nil),
        Diagnostic.Note(message: "shape fill: half4 f(float2 position, args…)", range: nil),
    ]

    /// The effect kind of a `[[stitchable]]` function and its first user argument, or an error saying why none fits.
    private func stitchableKind(_ declaration: FunctionDeclaration, function: CheckedFunction) -> (EntryKind, Int)? {
        let parameters = function.parameters
        let float2 = KType.vector(.float, 2), half4 = KType.vector(.half, 4)
        let name = declaration.name
        guard function.returnType == float2 || function.returnType == half4 else {
            error("[[stitchable]] function '\(name)' matches no SwiftUI shader kind: it must return float2 (distortion) or half4 (color, layer, shape), not '\(spell(function.returnType))'",
                  at: declaration.returnType.range, notes: Self.effectSignatures)
            return nil
        }
        guard let first = parameters.first, first.type == float2, !first.isReference else {
            error("[[stitchable]] function '\(name)' matches no SwiftUI shader kind: its first parameter must be 'float2 position'",
                  at: parameters.first?.range ?? declaration.nameRange, notes: Self.effectSignatures)
            return nil
        }
        let kind: EntryKind
        let firstUserArgument: Int
        if function.returnType == float2 {
            (kind, firstUserArgument) = (.distortion, 1)
        } else if parameters.count > 1, parameters[1].type == half4, !parameters[1].isReference {
            (kind, firstUserArgument) = (.color, 2)
        } else if parameters.count > 1, parameters[1].type == .layer {
            (kind, firstUserArgument) = (.layer, 2)
        } else {
            (kind, firstUserArgument) = (.shape, 1)
        }
        var ok = true
        var index = firstUserArgument
        while index < parameters.count {
            let parameter = parameters[index]
            defer { index += 1 }
            // Spelled only for an error: made for every parameter, the interpolation was ~1 % of
            // a median compile (docs/benchmarks.md, "thirty-seventh session").
            var argument: String { "argument '\(parameter.name)' of [[stitchable]] function '\(name)'" }
            if parameter.type == .layer {
                if kind == .distortion {
                    error("SwiftUI::Layer cannot be an \(argument): a distortion effect (float2 result) gets no layer; a layer effect returns half4 and takes SwiftUI::Layer as its second parameter",
                          at: parameter.range, notes: Self.effectSignatures)
                } else {
                    error("SwiftUI::Layer must be the second parameter of a layer effect, but it is parameter \(index + 1) of '\(name)', so '\(name)' matches no SwiftUI shader kind",
                          at: parameter.range,
                          notes: [.init(message: "layer effect: half4 f(float2 position, SwiftUI::Layer layer, args…)", range: nil)])
                }
                ok = false
                continue
            }
            if parameter.isReference {
                error("\(argument) cannot be a reference: SwiftUI passes arguments by value", at: parameter.range)
                ok = false
                continue
            }
            switch parameter.type {
            case .scalar(.float), .scalar(.half), .vector(.float, _), .vector(.half, _):
                continue
            case .pointer(let pointee, let space) where pointee == .float || pointee == half4:
                guard space == .device || space == .constant else {
                    error("\(argument) must be 'device const \(spell(pointee)) *'", at: parameter.range)
                    ok = false
                    continue
                }
                guard index + 1 < parameters.count, parameters[index + 1].type == .int else {
                    error("\(argument) must be followed by an 'int' count (SwiftUI's .\(pointee == .float ? "floatArray" : "colorArray") passes both)",
                          at: parameter.range,
                          fixIt: .init(range: SourceRange(at: parameter.range.end), replacement: ", int count"))
                    ok = false
                    continue
                }
                index += 1  // the count
            case .texture(.half, .sample):
                continue
            case .texture:
                error("\(argument) must be 'texture2d<half>': SwiftUI passes images (.image) as half textures", at: parameter.range)
                ok = false
            case .scalar(.int), .scalar(.uint):
                error("\(argument) has type '\(spell(parameter.type))': SwiftUI has no integer argument; an 'int' is only allowed as the count after a 'device const float *' or 'device const half4 *'",
                      at: parameter.range)
                ok = false
            default:
                error("\(argument) has type '\(parameter.typeSpelling)', which SwiftUI cannot pass; use float, half, floatN, halfN, device const float * / half4 * with an int count, or texture2d<half>",
                      at: parameter.range)
                ok = false
            }
        }
        return ok ? (kind, firstUserArgument) : nil
    }

    // MARK: vertex and fragment

    private func checkStageFunction(_ declaration: FunctionDeclaration, function: CheckedFunction, kind: EntryKind) -> Bool {
        var ok = checkMetalParameters(declaration, function: function, kind: kind)
        let returnType = function.returnType
        switch (kind, returnType) {
        case (.fragment, .vector(.float, 4)), (.fragment, .vector(.half, 4)), (.fragment, .void), (.vertex, .vector(.float, 4)):
            break
        case (.fragment, .structure(let index)):
            if !structs[index].fields.contains(where: { $0.attributes.contains { $0.name == "color" } }) {
                error("a fragment function returning a struct needs a member marked [[color(0)]]", at: declaration.returnType.range)
                ok = false
            }
        case (.vertex, .structure(let index)):
            if !structs[index].fields.contains(where: { $0.attributes.contains(.position) && $0.type == .vector(.float, 4) }) {
                error("a vertex function must return a struct with a 'float4' member marked [[position]]", at: declaration.returnType.range)
                ok = false
            }
        default:
            error("\(kind.rawValue) function '\(declaration.name)' cannot return '\(spell(returnType))'", at: declaration.returnType.range,
                  notes: [.init(message: kind == .vertex ? "return float4 or a struct with a [[position]] member"
                                                         : "return float4, half4 or a struct with [[color(0)]]", range: nil)])
            ok = false
        }
        return ok
    }

    /// The parameters of a `vertex`, `fragment` or `kernel` function: each attribute is
    /// one this kind of function takes, on a parameter of a type it fits; a parameter
    /// without one is a resource or a reference (bound to the next buffer slot).
    private func checkMetalParameters(_ declaration: FunctionDeclaration, function: CheckedFunction, kind: EntryKind) -> Bool {
        var ok = true
        for (parameter, spelled) in zip(function.parameters, declaration.parameters) {
            let names = spelled.attributes.map { $0.name }
            let isPointer = { if case .pointer = parameter.type { return true }; return false }()
            // A buffer is a `constant` or `device` pointer or reference: a `thread` one would
            // point at nothing the draw binds (the compiler once made an unverifiable library
            // of one: a fuzz finding).
            let threadSpace = { if case .pointer(_, .thread) = parameter.type { return true }; return false }()
                || (parameter.isReference && spelled.type.addressSpace == .thread)
            let threadBuffer = threadSpace
                ? "parameter '\(parameter.name)' of \(kind.rawValue) function '\(declaration.name)' is a 'thread' "
                  + "\(isPointer ? "pointer" : "reference"): a buffer the draw binds is 'constant' or 'device'"
                : nil
            for attribute in spelled.attributes where !Self.parameterAttributes.contains(attribute.name) {
                unsupported("the attribute [[\(attribute.name)]]", at: attribute.range)
                ok = false
            }
            func fail(_ message: String) {
                error(message, at: parameter.range)
                ok = false
            }
            if case .texture(_, let access) = parameter.type, access.canWrite, kind != .kernel {
                unsupported("writable textures (access::\(access.rawValue)) outside kernel functions", at: parameter.range)
                ok = false
                continue
            }
            let kernelInput = names.lazy.compactMap(KernelInput.init(rawValue:)).first
            let stageOnly = ["stage_in", "vertex_id", "instance_id", "position"].first { names.contains($0) }
            if let input = kernelInput {
                guard kind == .kernel else { fail("[[\(input.rawValue)]] is only available in kernel functions"); continue }
                switch parameter.type {
                case .scalar(.uint), .scalar(.ushort), .vector(.uint, _), .vector(.ushort, _): break
                default: fail("a [[\(input.rawValue)]] parameter must be uint, uint2, uint3 (or ushort…), not '\(spell(parameter.type))'")
                }
                if parameter.isReference { fail("a [[\(input.rawValue)]] parameter is passed by value") }
            } else if let stageOnly, kind == .kernel {
                fail("[[\(stageOnly)]] is not available in kernel functions")
            } else if names.contains("stage_in") {
                // A fragment function may take its input as one float vector: with a vertex
                // stage that only outputs a position (a full-screen pass), that is the position.
                switch parameter.type {
                case .structure: break
                case .vector(let scalar, _) where kind == .fragment && scalar.isFloat: break
                default: fail("a [[stage_in]] parameter must be a struct (or, in a fragment function, a float vector), not '\(spell(parameter.type))'")
                }
            } else if names.contains("buffer") {
                if !isPointer && !parameter.isReference {
                    fail("a [[buffer(n)]] parameter must be a pointer or reference ('constant T &' or 'constant T *')")
                } else if let threadBuffer {
                    fail(threadBuffer)
                }
            } else if names.contains("texture") {
                if case .texture = parameter.type {} else { fail("a [[texture(n)]] parameter must be a texture2d") }
            } else if names.contains("sampler") {
                if parameter.type != .sampler { fail("a [[sampler(n)]] parameter must be a sampler") }
            } else if names.contains("vertex_id") || names.contains("instance_id") {
                if kind != .vertex { fail("[[vertex_id]] and [[instance_id]] are only available in vertex functions") }
                if parameter.type != .uint && parameter.type != .scalar(.ushort) { fail("a [[vertex_id]] or [[instance_id]] parameter must be 'uint'") }
            } else if names.contains("position") {
                if kind != .fragment || parameter.type != .vector(.float, 4) { fail("a [[position]] parameter must be a float4 of a fragment function") }
            } else if kind == .kernel, let other = names.first {
                fail("[[\(other)]] is not available in kernel functions")
            } else {
                switch parameter.type {
                case .texture, .sampler:
                    break
                case .layer:
                    fail("SwiftUI::Layer is only available in [[stitchable]] layer effects")
                default:
                    if let threadBuffer {
                        fail(threadBuffer)
                        break
                    }
                    if parameter.isReference || isPointer {
                        break  // bound to the next buffer slot
                    }
                    let example = kind == .kernel ? "[[thread_position_in_grid]]" : "[[stage_in]]"
                    fail("parameter '\(parameter.name)' of \(kind.rawValue) function '\(declaration.name)' needs an attribute such as \(example) or [[buffer(n)]]")
                }
            }
        }
        return ok
    }

    // MARK: kernel

    /// A `kernel void` function: its parameters are grid positions (`KernelInput`
    /// attributes), textures, samplers and buffers; preview runs it over a grid the size
    /// of the frame and shows its first writable texture (docs/language.md, "Kernel functions").
    private func checkKernelFunction(_ declaration: FunctionDeclaration, function: CheckedFunction) -> Bool {
        var ok = true
        if function.returnType != .void {
            error("kernel function '\(declaration.name)' must return 'void', not '\(spell(function.returnType))'",
                  at: declaration.returnType.range)
            ok = false
        }
        if !checkMetalParameters(declaration, function: function, kind: .kernel) { ok = false }
        if !function.parameters.contains(where: { if case .texture(_, let access) = $0.type { access.canWrite } else { false } }) {
            error("kernel function '\(declaration.name)' writes no texture, so there is nothing to preview", at: declaration.nameRange,
                  notes: [.init(message: "Kiln previews a kernel by running it over the frame and showing its first 'texture2d<half, access::write>'",
                                range: nil)])
            ok = false
        }
        return ok
    }
}
