/// Pass 1: program-scope declarations — types, enums, aliases, `constant` globals,
/// `constexpr sampler`s and function signatures.
extension Checker {
    /// A parameter after type resolution.
    struct ResolvedParameter {
        var name: String?
        var type: KType
        var isReference: Bool
        var isConst: Bool
        /// Its index in the function declaration's `parameters` (not a copy of that
        /// declaration: copying one retains its name, type, sizes, default and attributes).
        var index: Int
    }

    /// A function body waiting for pass 2.
    struct PendingDefinition {
        var declaration: FunctionDeclaration
        var signature: Int
        var functionID: FunctionID
        /// Index among the top-level declarations (names declared after it are not visible).
        var declarationIndex: Int
        /// Signatures with `order <= position` are visible in the body (declared before it).
        var position: Int
        var parameters: [ResolvedParameter]
    }

    /// Declares everything at program scope in order; returns the definitions to check.
    /// `firstIndex`: the index of `declarations.first` among the unit's declarations.
    func declareAll(_ declarations: ArraySlice<Declaration>, from firstIndex: Int) -> [PendingDefinition] {
        var pending: [PendingDefinition] = []
        for (offset, declaration) in declarations.enumerated() {
            declarationIndex = firstIndex + offset
            switch declaration {
            case .structure(let s): declareStruct(s)
            case .enumeration(let e): declareEnum(e)
            case .typeAlias(let a): declareAlias(a)
            case .variable(let v): declareGlobal(v)
            case .function(let f):
                if let definition = declareFunction(f) { pending.append(definition) }
            case .usingNamespace(let name, let range):
                if name != "metal" && name != "SwiftUI" && name != "std" {
                    warning("unknown namespace '\(name)' in using-directive (ignored)", at: range)
                }
            }
        }
        return pending
    }

    // MARK: Types

    /// Resolves a spelled type to its value type, ignoring `*`/`&` and address spaces
    /// (callers handle indirection). Reports unknown or unsupported types.
    func resolveType(_ name: TypeName) -> KType? {
        var path = name.path[...]
        while path.count > 1, sameSpelling(path.first!, "metal") || sameSpelling(path.first!, "simd") { path = path.dropFirst() }
        let base = path.last ?? ""
        if path.count > 1, sameSpelling(path.first!, "SwiftUI") {
            guard base == "Layer" else {
                error("no type named '\(base)' in namespace 'SwiftUI'", at: name.range)
                return nil
            }
            return .layer
        }
        switch Spelling(base) {
        case "Layer" where path.count == 1:
            return .layer
        case "texture2d":
            return resolveTexture(name)
        case "vec":
            guard name.genericArguments.count == 2, case .type(let element) = name.genericArguments[0],
                  case .expression(let size) = name.genericArguments[1] else {
                error("'vec' needs an element type and a size: vec<float, 3>", at: name.range)
                return nil
            }
            guard let elementType = resolveType(element) else { return nil }
            guard case .scalar(let kind) = elementType else {
                error("vector element type must be a scalar, not '\(spell(elementType))'", at: element.range)
                return nil
            }
            guard let n = constantInteger(size, what: "vector size") else { return nil }
            guard (2...4).contains(n) else {
                error("vector size must be 2, 3 or 4, not \(n)", at: size.range)
                return nil
            }
            return .vector(kind, Int(n))
        case "array":
            guard name.genericArguments.count == 2, case .type(let element) = name.genericArguments[0],
                  case .expression(let size) = name.genericArguments[1] else {
                error("'array' needs an element type and a size: array<float, 4>", at: name.range)
                return nil
            }
            guard let elementType = resolveType(element), let n = arraySize(size) else { return nil }
            return .array(elementType, n)
        case "auto":
            error("'auto' is only allowed for an initialized local variable", at: name.range)
            return nil
        default:
            break
        }
        if !name.genericArguments.isEmpty {
            unsupported("template type '\(base)<…>'", at: name.range)
            return nil
        }
        if path.count == 1, let type = typeNames[base] {
            if reportIfDeclaredLater(base, at: name.range, what: "unknown type name") { return nil }
            return type
        }
        if path.count == 1, let type = TypeResolver.builtinType(named: base) { return type }
        if path.count == 1, poisonedNames.contains(base) { return nil }
        if let what = TypeResolver.unsupportedTypes[base] {
            unsupported(what, at: name.range)
            return nil
        }
        error("unknown type name '\(path.joined(separator: "::"))'", at: name.range)
        return nil
    }

    private func resolveTexture(_ name: TypeName) -> KType? {
        guard let first = name.genericArguments.first, case .type(let elementName) = first,
              name.genericArguments.count <= 2 else {
            error("'texture2d' needs an element type: texture2d<float> or texture2d<half>", at: name.range)
            return nil
        }
        guard let element = resolveType(elementName) else { return nil }
        guard case .scalar(let kind) = element, kind == .float || kind == .half else {
            unsupported("texture2d<\(spell(element))> (only float and half textures)", at: elementName.range)
            return nil
        }
        var access = TextureAccess.sample
        if name.genericArguments.count == 2 {
            let spelled: String
            switch name.genericArguments[1] {
            case .type(let t): spelled = t.baseName
            case .expression(let e):
                if case .identifier(let path) = e.kind { spelled = path.last ?? "" } else { spelled = "" }
            }
            switch spelled {
            case "sample": access = .sample
            case "read": access = .read
            case "write": access = .write
            case "read_write": access = .readWrite
            default:
                error("unknown texture access '\(spelled)'; expected access::sample, read, write or read_write", at: name.range)
                return nil
            }
        }
        return .texture(kind, access)
    }

    /// Evaluates an integer constant expression (in the current context).
    func constantInteger(_ expression: Expression, what: String) -> Int64? {
        guard let typed = checkExpression(expression) else { return nil }
        guard let kind = typed.type.scalarKind, typed.type.isScalar, kind.isInteger || kind == .bool,
              let value = constantValue(of: typed)?.integerValue else {
            error("\(what) is not an integer constant expression", at: expression.range)
            return nil
        }
        return value
    }

    /// The constant value of a checked expression, if it has one.
    func constantValue(of expression: TypedExpression) -> ConstantValue? {
        let globals = globalConstants
        let locals = current.constantLocals
        let evaluator = ConstantEvaluator(globalValue: { globals[$0] }, variableValue: { locals[$0] })
        return evaluator.evaluate(expression)
    }

    /// Largest array (in 32-bit components) one variable may hold: a hostile `float a[1<<20][1<<20]`
    /// must not reach the compiler, which allocates registers per component.
    static let maxArrayComponents = 1 << 16

    /// An array dimension: a positive integer constant.
    func arraySize(_ expression: Expression) -> Int? {
        guard let n = constantInteger(expression, what: "array size") else { return nil }
        guard n > 0 else {
            error("array size must be positive, not \(n)", at: expression.range)
            return nil
        }
        guard n <= 1 << 20 else {
            error("array size \(n) is too large", at: expression.range)
            return nil
        }
        return Int(n)
    }

    /// Wraps `base` in array types for `name[a][b]` (outermost first, as C reads it).
    /// A `nil` size takes its length from the initializer list, if any.
    func arrayType(_ base: KType, sizes: [Expression?], initializer: Initializer?, at range: SourceRange) -> KType? {
        var type = base
        for (index, size) in sizes.enumerated().reversed() {
            if let size {
                guard let n = arraySize(size) else { return nil }
                type = .array(type, n)
            } else if index == 0, case .list(let items, _)? = initializer {
                guard !items.isEmpty else {
                    error("zero-length arrays are not allowed", at: range)
                    return nil
                }
                type = .array(type, items.count)
            } else {
                error("definition of variable with array type needs an explicit size or an initializer", at: range)
                return nil
            }
            if type.componentCount(structs: structs) > Self.maxArrayComponents {
                error("array of type '\(spell(type))' is too large: Kiln allows at most \(Self.maxArrayComponents) components per variable", at: range)
                return nil
            }
        }
        return type
    }

    /// Attribute text as `CheckedParameter`/`StructInfo` record it: `position`, `buffer(0)`, `user(uv)`.
    /// An attribute as a typed fact (`[[buffer(2)]]` → `.buffer(2)`).
    func entryAttribute(_ attribute: Attribute) -> EntryAttribute {
        let argument = attribute.arguments.isEmpty
            ? nil : attribute.arguments.map(TypeResolver.expressionSpelling).joined(separator: ", ")
        return EntryAttribute(name: attribute.name, argument: argument)
    }

    // MARK: Structs, enums, aliases

    private func declareName(_ name: String, at range: SourceRange) -> Bool {
        if typeNames[name] != nil || TypeResolver.builtinType(named: name) != nil {
            error("redefinition of '\(name)'", at: range)
            return false
        }
        return true
    }

    private func declareStruct(_ declaration: StructDeclaration) {
        guard declareName(declaration.name, at: declaration.nameRange) else { return }
        var fields: [StructInfo.Field] = []
        var seen: [String: SourceRange] = [:]
        var ok = true
        for field in declaration.fields {
            if let previous = seen[field.name] {
                error("duplicate member '\(field.name)'", at: field.nameRange,
                      notes: [.init(message: "previous declaration is here", range: previous)])
                ok = false
                continue
            }
            seen[field.name] = field.nameRange
            guard var type = resolveType(field.type) else { ok = false; continue }
            if field.type.indirection != .none {
                unsupported("pointer and reference members", at: field.type.range)
                ok = false
                continue
            }
            switch type {
            case .void, .texture, .sampler, .layer, .pointer:
                unsupported("a member of type '\(spell(type))' in a struct", at: field.type.range)
                ok = false
                continue
            default: break
            }
            guard let arrayed = arrayType(type, sizes: field.arraySizes.map { $0 }, initializer: nil, at: field.nameRange) else {
                ok = false
                continue
            }
            type = arrayed
            fields.append(.init(name: field.name, type: type, attributes: field.attributes.map(entryAttribute)))
        }
        guard ok else {
            poisonedNames.insert(declaration.name)
            return
        }
        typeNames[declaration.name] = .structure(structs.count)
        noteDeclared(declaration.name, at: declaration.nameRange)
        structs.append(StructInfo(name: declaration.name, fields: fields, range: declaration.range, structs: structs))
    }

    private func declareEnum(_ declaration: EnumDeclaration) {
        guard declareName(declaration.name, at: declaration.nameRange) else { return }
        var underlying = ScalarKind.int
        if let spelled = declaration.underlyingType {
            guard let type = resolveType(spelled) else { return }
            guard case .scalar(let kind) = type, kind.isInteger else {
                error("underlying type of an enum must be an integer type, not '\(spell(type))'", at: spelled.range)
                return
            }
            underlying = kind
        }
        var cases: [String: ConstantValue] = [:]
        var next: Int64 = 0
        var visibleForValues: [String] = []
        for item in declaration.cases {
            if cases[item.name] != nil || (!declaration.isScoped && enumConstants[item.name] != nil) {
                error("redefinition of enumerator '\(item.name)'", at: item.range)
                continue
            }
            if let valueExpression = item.value {
                guard let value = constantInteger(valueExpression, what: "enumerator value") else { continue }
                next = value
            }
            let value = ConstantValue.int(Int32(truncatingIfNeeded: next)).converted(to: underlying)
            cases[item.name] = value
            // Earlier enumerators are visible, unqualified, in later values (also for `enum class`).
            if enumConstants[item.name] == nil {
                enumConstants[item.name] = value
                if !declaration.isScoped { noteDeclared(item.name, at: item.range) }
                if declaration.isScoped { visibleForValues.append(item.name) }
            }
            next += 1
        }
        for name in visibleForValues { enumConstants[name] = nil }
        enumCases[declaration.name] = cases
        typeNames[declaration.name] = .scalar(underlying)
        noteDeclared(declaration.name, at: declaration.nameRange)
    }

    private func declareAlias(_ declaration: TypeAliasDeclaration) {
        guard let type = resolveType(declaration.type) else { return }
        if declaration.type.indirection != .none {
            unsupported("pointer and reference type aliases", at: declaration.type.range)
            return
        }
        if let existing = typeNames[declaration.name] {
            if existing != type { error("redefinition of '\(declaration.name)' with a different type", at: declaration.nameRange) }
            return
        }
        if TypeResolver.builtinType(named: declaration.name) != nil {
            error("cannot redefine built-in type '\(declaration.name)'", at: declaration.nameRange)
            return
        }
        typeNames[declaration.name] = type
        noteDeclared(declaration.name, at: declaration.nameRange)
    }

    // MARK: Globals

    private func declareGlobal(_ declaration: VariableDeclaration) {
        if declaration.type.baseName == "sampler" {
            guard declaration.isConstexpr else {
                error("program-scope sampler must be declared 'constexpr'", at: declaration.type.range)
                return
            }
            for declarator in declaration.declarators {
                guard let state = samplerState(declarator) else { continue }
                addGlobal(GlobalInfo(name: declarator.name, type: .sampler, initializer: nil, sampler: state,
                                     range: declarator.nameRange))
            }
            return
        }
        if declaration.type.addressSpace != .constant && !declaration.isConstexpr {
            let space = declaration.type.addressSpace.map { "'\($0.rawValue)'" } ?? "no address space"
            error("program scope variable must reside in constant address space (it has \(space))",
                  at: declaration.type.range,
                  fixIt: declaration.type.addressSpace == nil ? .init(range: SourceRange(at: declaration.type.range.start), replacement: "constant ") : nil)
            return
        }
        if declaration.type.indirection != .none {
            unsupported("program-scope pointers and references", at: declaration.type.range)
            return
        }
        if declaration.type.baseName == "auto" {
            for declarator in declaration.declarators {
                guard case .expression(let e)? = declarator.initializer else {
                    error("declaration of variable '\(declarator.name)' with deduced type 'auto' requires an initializer", at: declarator.nameRange)
                    continue
                }
                guard let value = checkExpression(e) else { continue }
                finishGlobal(declarator, type: value.type, value: value)
            }
            return
        }
        guard let base = resolveType(declaration.type) else {
            for declarator in declaration.declarators { poisonedNames.insert(declarator.name) }
            return
        }
        for declarator in declaration.declarators {
            guard let type = arrayType(base, sizes: declarator.arraySizes, initializer: declarator.initializer, at: declarator.nameRange) else { continue }
            guard let initializer = declarator.initializer else {
                error("default initialization of an object of const type 'constant \(spell(type))'", at: declarator.nameRange,
                      fixIt: .init(range: SourceRange(at: declarator.range.end), replacement: " = 0"))
                continue
            }
            guard let value = checkInitializer(initializer, to: type, name: declarator.name) else {
                poisonedNames.insert(declarator.name)
                continue
            }
            finishGlobal(declarator, type: type, value: value)
        }
    }

    private func finishGlobal(_ declarator: Declarator, type: KType, value: TypedExpression) {
        let id = addGlobal(GlobalInfo(name: declarator.name, type: type, initializer: value, sampler: nil, range: declarator.nameRange))
        if let id, type.isScalar, let constant = constantValue(of: value) {
            globalConstants[id] = constant
        }
    }

    @discardableResult
    private func addGlobal(_ info: GlobalInfo) -> GlobalID? {
        if let previous = globalNames[info.name] {
            error("redefinition of '\(info.name)'", at: info.range,
                  notes: [.init(message: "previous definition is here", range: globals[previous].range)])
            return nil
        }
        let id = globals.count
        globals.append(info)
        globalNames[info.name] = id
        noteDeclared(info.name, at: info.range)
        return id
    }

    // MARK: Samplers

    /// Evaluates `constexpr sampler s(filter::linear, address::repeat, …)` into a state
    /// (Metal's defaults: nearest, clamp_to_edge, normalized coordinates).
    func samplerState(_ declarator: Declarator) -> SamplerState? {
        var arguments: [Expression] = []
        switch declarator.initializer {
        case nil: break
        case .constructor(let args, _)?: arguments = args
        case .list(let items, let range)?:
            for item in items {
                guard case .expression(let e) = item else {
                    error("expected a sampler argument such as filter::linear", at: range)
                    return nil
                }
                arguments.append(e)
            }
        case .expression(let e)?:
            error("a constexpr sampler is initialized with arguments: sampler \(declarator.name)(filter::linear)", at: e.range)
            return nil
        }
        var state = SamplerState()
        var magnification: SamplerState.Filter?, minification: SamplerState.Filter?
        var sAddress: SamplerState.Address?, tAddress: SamplerState.Address?
        var ok = true
        for argument in arguments {
            guard case .identifier(let spelled) = argument.kind, spelled.count >= 2 else {
                if case .call = argument.kind {
                    // max_anisotropy(n), lod_clamp(a, b): no effect without mipmaps.
                    continue
                }
                error("expected a sampler argument such as filter::linear or address::repeat", at: argument.range)
                ok = false
                continue
            }
            var path = Array(spelled)
            while path.count > 2, path.first == "metal" { path.removeFirst() }
            let group = path[path.count - 2], value = path[path.count - 1]
            func filter() -> SamplerState.Filter? {
                switch value {
                case "nearest": return .nearest
                case "linear": return .linear
                default:
                    error("unknown sampler filter '\(value)'; expected nearest or linear", at: argument.range)
                    ok = false
                    return nil
                }
            }
            func address() -> SamplerState.Address? {
                if let address = SamplerState.Address(rawValue: value) { return address }
                if value == "clamp_to_border" {
                    unsupported("address::clamp_to_border (use clamp_to_zero)", at: argument.range)
                } else {
                    error("unknown sampler address mode '\(value)'", at: argument.range)
                }
                ok = false
                return nil
            }
            switch group {
            case "filter": if let f = filter() { magnification = f; minification = f }
            case "mag_filter": if let f = filter() { magnification = f }
            case "min_filter": if let f = filter() { minification = f }
            case "mip_filter": break  // Kiln textures have one level.
            case "address": if let a = address() { sAddress = a; tAddress = a }
            case "s_address": if let a = address() { sAddress = a }
            case "t_address": if let a = address() { tAddress = a }
            case "r_address": break  // 2D only.
            case "coord":
                switch value {
                case "normalized": state.normalized = true
                case "pixel": state.normalized = false
                default:
                    error("unknown sampler coordinate mode '\(value)'; expected normalized or pixel", at: argument.range)
                    ok = false
                }
            case "compare_func", "border_color":
                unsupported("sampler \(group)", at: argument.range)
                ok = false
            default:
                error("unknown sampler argument '\(path.joined(separator: "::"))'", at: argument.range)
                ok = false
            }
        }
        guard ok else { return nil }
        if let m = magnification ?? minification { state.filter = m }
        if let m = magnification, let n = minification, m != n {
            warning("Kiln samples with one filter; using mag_filter::\(m.rawValue) for minification too", at: declarator.nameRange)
        }
        if let a = sAddress ?? tAddress { state.address = a }
        if let s = sAddress, let t = tAddress, s != t {
            warning("Kiln uses one address mode for both axes; using \(s.rawValue)", at: declarator.nameRange)
        }
        return state
    }

    // MARK: Functions

    private func declareFunction(_ declaration: FunctionDeclaration) -> PendingDefinition? {
        if TypeResolver.builtinType(named: declaration.name) != nil || typeNames[declaration.name] != nil {
            error("redefinition of '\(declaration.name)' as a function", at: declaration.nameRange)
            return nil
        }
        var ok = true
        let returnType: KType?
        if declaration.returnType.baseName == "auto" {
            unsupported("deduced return type 'auto'", at: declaration.returnType.range)
            returnType = nil
        } else {
            returnType = resolveType(declaration.returnType)
            if declaration.returnType.indirection != .none {
                unsupported("returning pointers or references", at: declaration.returnType.range)
                ok = false
            }
        }
        var parameters: [ResolvedParameter] = []
        parameters.reserveCapacity(declaration.parameters.count)
        for (index, parameter) in declaration.parameters.enumerated() {
            guard let resolved = resolveParameter(parameter, index: index) else { ok = false; continue }
            parameters.append(resolved)
        }
        guard ok, let returnType else {
            poisonedNames.insert(declaration.name)
            return nil
        }
        if case .array = returnType {
            error("function cannot return array type '\(spell(returnType))'", at: declaration.returnType.range)
            return nil
        }

        // Default arguments: converted now (program scope), filled in at calls. Most functions
        // have none and no mutable reference parameter: those two arrays are then shared ones
        // of the right length (`Self.noDefaults`, `Self.noReferences`), not made per function.
        var defaults = parameters.count < Self.noDefaults.count ? Self.noDefaults[parameters.count]
                                                                 : Array(repeating: nil, count: parameters.count)
        var sawDefault = false
        for (index, parameter) in parameters.enumerated() {
            if let value = declaration.parameters[parameter.index].defaultValue {
                sawDefault = true
                defaults[index] = checkConverted(value, to: parameter.type, context: .initializing(parameter.name ?? "parameter"))
            } else if sawDefault {
                error("missing default argument on parameter '\(parameter.name ?? "")'", at: declaration.parameters[parameter.index].range)
            }
        }

        let types = parameters.map { $0.type }
        let mutableReferences = parameters.contains { $0.isReference && !$0.isConst } || parameters.count >= Self.noReferences.count
            ? parameters.map { $0.isReference && !$0.isConst } : Self.noReferences[parameters.count]
        var signatureIndex: Int
        let position: Int
        if let existing = overloads[declaration.name]?.first(where: { signatures[$0].parameterTypes == types }) {
            signatureIndex = existing
            position = signatures.count - 1
            let previous = signatures[existing]
            if previous.returnType != returnType {
                error("functions that differ only in their return type cannot be overloaded", at: declaration.nameRange,
                      notes: [.init(message: "previous declaration is here", range: previous.nameRange)])
                return nil
            }
            if previous.mutableReferences != mutableReferences {
                error("conflicting declaration of '\(declaration.name)': reference parameters differ", at: declaration.nameRange,
                      notes: [.init(message: "previous declaration is here", range: previous.nameRange)])
                return nil
            }
            if declaration.body != nil, previous.functionID != nil {
                error("redefinition of '\(declaration.name)'", at: declaration.nameRange,
                      notes: [.init(message: "previous definition is here", range: previous.nameRange)])
                return nil
            }
            for (index, value) in defaults.enumerated() where value != nil {
                if previous.defaults[index] != nil {
                    error("redefinition of default argument", at: declaration.parameters[parameters[index].index].range,
                          notes: [.init(message: "previous definition is here", range: previous.nameRange)])
                } else {
                    signatures[existing].defaults[index] = value
                }
            }
        } else {
            signatureIndex = signatures.count
            position = signatureIndex
            signatures.append(FunctionSignature(name: declaration.name, nameRange: declaration.nameRange, parameterTypes: types,
                                                mutableReferences: mutableReferences, defaults: defaults,
                                                returnType: returnType, order: signatureIndex, functionID: nil))
            overloads[declaration.name, default: []].append(signatureIndex)
            overloadNameLengths |= Self.lengthBit(of: declaration.name)
        }
        guard declaration.body != nil else { return nil }
        let functionID = definitionCount
        definitionCount += 1
        signatures[signatureIndex].functionID = functionID
        signatures[signatureIndex].nameRange = declaration.nameRange
        return PendingDefinition(declaration: declaration, signature: signatureIndex, functionID: functionID,
                                 declarationIndex: declarationIndex, position: position, parameters: parameters)
    }

    /// Shared arrays of 0…7 `nil` defaults and `false` reference flags (see `declareFunction`).
    static let noDefaults: [[TypedExpression?]] = (0..<8).map { Array(repeating: nil, count: $0) }
    static let noReferences: [[Bool]] = (0..<8).map { Array(repeating: false, count: $0) }

    private func resolveParameter(_ parameter: ParameterDeclaration, index: Int) -> ResolvedParameter? {
        let spelled = parameter.type
        if spelled.baseName == "auto" {
            unsupported("'auto' parameters (abbreviated templates)", at: spelled.range)
            return nil
        }
        guard var type = resolveType(spelled) else { return nil }
        if type == .void {
            error("parameter cannot have type 'void'", at: spelled.range)
            return nil
        }
        if !parameter.arraySizes.isEmpty {
            guard let arrayed = arrayType(type, sizes: parameter.arraySizes.map { $0 }, initializer: nil, at: parameter.range) else { return nil }
            type = arrayed
        }
        var isReference = false
        var isConst = spelled.isConst
        switch spelled.indirection {
        case .none:
            if let space = spelled.addressSpace, space != .thread {
                error("parameter of type '\(spell(type))' in the \(space.rawValue) address space must be a pointer or reference",
                      at: spelled.range)
                return nil
            }
        case .pointer:
            type = .pointer(type, spelled.addressSpace ?? .thread)
            // A `thread T *` points into the caller's locals: `isConst` says whether what it
            // points at is (`thread const T *`). Device and constant pointers are read-only.
            isConst = spelled.addressSpace == .thread || spelled.addressSpace == nil ? spelled.isConst : true
        case .reference:
            isReference = true
            if spelled.addressSpace == .constant { isConst = true }
            if spelled.addressSpace == .threadgroup {
                unsupported("threadgroup memory", at: spelled.range)
                return nil
            }
        }
        if spelled.addressSpace == .threadgroup {
            unsupported("threadgroup memory", at: spelled.range)
            return nil
        }
        return ResolvedParameter(name: parameter.name, type: type, isReference: isReference, isConst: isConst, index: index)
    }
}

extension KType {
    /// A scalar (including bool).
    var isScalar: Bool {
        if case .scalar = self { return true }
        return false
    }

    var isVector: Bool {
        if case .vector = self { return true }
        return false
    }

    /// Component count of a scalar (1) or vector (N); 0 otherwise.
    var vectorWidth: Int {
        switch self {
        case .scalar: return 1
        case .vector(_, let n): return n
        default: return 0
        }
    }
}
