/// Calls: user functions and builtins by overload resolution (candidates ranked by
/// conversion cost, as C++ does, with notes on every near miss), recursion detection
/// through the call graph, and the methods of textures and layers.
extension Checker {
    /// One function a call could mean: a user overload or a builtin overload.
    struct CallCandidate {
        enum Target {
            case user(Int)
            case builtin(BuiltinOverload)
        }
        var target: Target
        var parameters: [KType]
        var references: [Bool]
        var defaults: [TypedExpression?]
        var result: KType
        var noteRange: SourceRange?
        var name: String

        var requiredCount: Int { defaults.firstIndex(where: { $0 != nil }) ?? parameters.count }

        /// `float smoothstep(float, float, float)` for notes (built only when reporting).
        func description(_ spell: (KType) -> String) -> String {
            let list = parameters.enumerated().map { index, type in
                references[index] ? "thread \(spell(type)) &" : spell(type)
            }
            return "\(spell(result)) \(name)(\(list.joined(separator: ", ")))"
        }
    }

    /// MSL functions outside Kiln's subset, with what to call them in the error.
    static let unsupportedFunctions: [String: String] = [
        "threadgroup_barrier": "threadgroup barriers", "simdgroup_barrier": "simdgroup barriers",
        "as_type": "'as_type' bit casts",
    ]

    func checkCall(_ callee: Expression, _ arguments: [Expression], range: SourceRange) -> TypedExpression? {
        switch callee.kind {
        case .member(let base, let name, let nameRange, let arrow):
            guard let object = checkExpression(base) else { _ = checkArguments(arguments); return nil }
            return methodCall(object, name: name, nameRange: nameRange, arrow: arrow, arguments, range: range)
        case .identifier(let fullPath):
            var path = fullPath[...]
            // `metal::`, and the `fast::` / `precise::` math namespaces: `precise::` picks the
            // binary64 version where the plain one is binary32 (language.md §7).
            var precise = false
            while path.count > 1, let first = path.first, first == "metal" || first == "fast" || first == "precise" {
                precise = first == "precise"
                path = path.dropFirst()
            }
            if precise, path.count == 1, let name = path.first, Builtin(rawValue: "precise::" + name) != nil {
                guard let values = checkArguments(arguments) else { return nil }
                return callFunction("precise::" + name, nameRange: callee.range, values, range: range)
            }
            guard path.count == 1, let name = path.first else {
                if path.count == 2, path.first == "SwiftUI" {
                    error("'\(fullPath.joined(separator: "::"))' is not a function", at: callee.range)
                } else {
                    error("use of undeclared identifier '\(fullPath.joined(separator: "::"))'", at: callee.range)
                }
                _ = checkArguments(arguments)
                return nil
            }
            let local = current.isFunction ? scope.lookup(name) : nil
            if local == nil, typeNames[name] != nil || TypeResolver.builtinType(named: name) != nil {
                if typeNames[name] != nil, reportIfDeclaredLater(name, at: callee.range, what: "use of undeclared identifier") { return nil }
                guard let type = typeNames[name] ?? TypeResolver.builtinType(named: name), let values = checkArguments(arguments) else { return nil }
                return construct(type, values, range: range, typeRange: callee.range)
            }
            if let local, current.poisonedVariables.contains(local) {
                _ = checkArguments(arguments)
                return nil
            }
            if let local {
                error("called object type '\(spell(current.variables[local].type))' is not a function", at: callee.range,
                      notes: [.init(message: "'\(name)' is the local variable declared here (it hides the function)",
                                    range: current.variables[local].range)])
                _ = checkArguments(arguments)
                return nil
            }
            if name == "discard_fragment" {
                error("discard_fragment() is a statement; call it on its own: 'discard_fragment();'", at: callee.range)
                return nil
            }
            if let what = Self.unsupportedFunctions[name] {
                unsupported(what, at: callee.range)
                _ = checkArguments(arguments)
                return nil
            }
            guard let values = checkArguments(arguments) else { return nil }
            return callFunction(name, nameRange: callee.range, values, range: range)
        default:
            guard let value = checkExpression(callee) else { return nil }
            error("called object type '\(spell(value.type))' is not a function", at: callee.range)
            return nil
        }
    }

    /// The candidates for `name`: visible user overloads, then builtin overloads.
    private func candidates(named name: String) -> [CallCandidate] {
        var result: [CallCandidate] = []
        if current.isFunction {
            for index in overloads[name] ?? [] where signatures[index].order <= current.visiblePosition {
                let signature = signatures[index]
                result.append(CallCandidate(target: .user(index), parameters: signature.parameterTypes,
                                            references: signature.mutableReferences, defaults: signature.defaults,
                                            result: signature.returnType, noteRange: signature.nameRange, name: name))
            }
        }
        for overload in BuiltinOverloads.overloads(named: name) {
            result.append(CallCandidate(target: .builtin(overload), parameters: overload.parameters,
                                        references: overload.referenceParameters, defaults: overload.noDefaults,
                                        result: overload.result, noteRange: nil, name: name))
        }
        return result
    }

    /// Conversion costs of `arguments` against `candidate`, or the reason it is not viable.
    private func costs(of candidate: CallCandidate, _ arguments: [TypedExpression]) -> Result<[Int], ViabilityProblem> {
        guard arguments.count <= candidate.parameters.count, arguments.count >= candidate.requiredCount else {
            return .failure(.arity)
        }
        var costs: [Int] = []
        for (index, argument) in arguments.enumerated() {
            let parameter = candidate.parameters[index]
            if candidate.references[index] {
                guard argument.type == parameter else { return .failure(.argument(index)) }
                guard assignabilityProblem(argument) == nil else { return .failure(.notLvalue(index)) }
                costs.append(0)
            } else {
                guard let cost = Self.conversionCost(from: argument.type, to: parameter) else { return .failure(.argument(index)) }
                costs.append(cost)
            }
        }
        return .success(costs)
    }

    /// (worst, total) conversion cost of `arguments` (whose types are `types`) for one
    /// signature, `nil` if not viable.
    @inline(__always)
    private func rank(_ arguments: [TypedExpression], _ types: [KType], _ parameters: [KType], _ references: [Bool],
                      required: Int) -> (Int, Int)? {
        guard types.count <= parameters.count, types.count >= required else { return nil }
        var worst = 0, total = 0
        for index in types.indices {
            let cost: Int
            if references[index] {
                guard types[index] == parameters[index], assignabilityProblem(arguments[index]) == nil else { return nil }
                cost = 0
            } else {
                guard let c = Self.conversionCost(from: types[index], to: parameters[index]) else { return nil }
                cost = c
            }
            worst = max(worst, cost)
            total += cost
        }
        return (worst, total)
    }

    enum ViabilityProblem: Error {
        case arity
        case argument(Int)
        case notLvalue(Int)
    }

    /// Overload resolution (C++'s ranking, simplified): the viable candidate whose worst
    /// argument conversion is cheapest wins, then the one with the cheapest total; a user
    /// function beats a builtin with the same costs; any other tie is ambiguous.
    ///
    /// Ranking runs on every call, so it allocates nothing; candidates are materialized
    /// (`candidates(named:)`) only to explain a failure.
    func callFunction(_ name: String, nameRange: SourceRange, _ arguments: [TypedExpression], range: SourceRange) -> TypedExpression? {
        let argumentShapes = ScalarShapeCode.signature(of: arguments)
        let (builtins, ranking) = BuiltinOverloads.overloads(named: name, rankedFor: argumentShapes)
        let users = current.isFunction && overloadNameLengths & Self.lengthBit(of: name) != 0 ? (overloads[name] ?? []) : []
        let visible = current.visiblePosition

        var bestCost = (Int.max, Int.max)
        var bestUser: Int? = nil, bestBuiltin: Int? = nil
        var ties = 0, userTies = 0
        func consider(_ cost: (Int, Int), user: Int?, builtin: Int?) {
            if cost < bestCost {
                bestCost = cost
                bestUser = user
                bestBuiltin = builtin
                ties = 1
                userTies = user == nil ? 0 : 1
            } else if cost == bestCost {
                ties += 1
                if user != nil {
                    userTies += 1
                    if bestUser == nil { bestUser = user; bestBuiltin = nil }
                }
            }
        }
        // The argument types once, not once per candidate, and only when a candidate needs
        // them (a user function, a builtin without shape codes); candidates by index, not
        // copied (a copy of a `BuiltinOverload` retains and releases its three arrays, and
        // `max` has 28 overloads).
        lazy var types = arguments.map { $0.type }
        var anyVisible = false
        for index in users where signatures[index].order <= visible {
            anyVisible = true
            let required = signatures[index].defaults.firstIndex { $0 != nil } ?? signatures[index].parameterTypes.count
            if let cost = rank(arguments, types, signatures[index].parameterTypes, signatures[index].mutableReferences,
                               required: required) {
                consider(cost, user: index, builtin: nil)
            }
        }
        // Builtins by their shape codes when the arguments have them (scalars and vectors:
        // nearly every call): the ranking the process keeps for this signature, which is
        // what considering each candidate in order comes to — the first of the cheapest
        // becomes the best when it beats the users' best, and each ties with an equal one.
        // Otherwise candidate by candidate, through the buffer so reading one retains nothing.
        if let ranking {
            if ranking.ties > 0 {
                if ranking.cost < bestCost {
                    (bestCost, bestUser, bestBuiltin, ties, userTies) = (ranking.cost, nil, ranking.first, ranking.ties, 0)
                } else if ranking.cost == bestCost {
                    ties += ranking.ties
                }
            }
        } else {
            ScalarShapeCode.withCostTable { table in
                builtins.withUnsafeBufferPointer { candidates in
                    for index in candidates.indices {
                        let cost: (Int, Int)?
                        if let argumentShapes, let shapes = candidates[index].shapes {
                            cost = shapes.count == argumentShapes.count ? table.rank(argumentShapes, shapes) : nil
                        } else {
                            cost = rank(arguments, types, candidates[index].parameters, candidates[index].referenceParameters,
                                        required: candidates[index].parameters.count)
                        }
                        if let cost { consider(cost, user: nil, builtin: index) }
                    }
                }
            }
        }
        if !anyVisible && builtins.isEmpty {
            if poisonedNames.contains(name) { return nil }
            if !current.isFunction, overloads[name] != nil {
                unsupported("calling the function '\(name)' in a program-scope initializer", at: nameRange)
            } else if let index = overloads[name]?.first {
                error("use of function '\(name)' before its declaration", at: nameRange,
                      notes: [.init(message: "'\(name)' is declared here; declare a prototype above the caller", range: signatures[index].nameRange)])
            } else {
                reportUndeclared(name, range: nameRange, includeFunctions: true)
            }
            return nil
        }
        // A single user function among equally good candidates wins over builtins.
        let ambiguous = userTies == 1 ? false : ties > 1
        if ties == 0 || ambiguous {
            let all = candidates(named: name)
            var problems: [(CallCandidate, ViabilityProblem)] = []
            var tied: [CallCandidate] = []
            for candidate in all {
                switch costs(of: candidate, arguments) {
                case .failure(let problem): problems.append((candidate, problem))
                case .success(let costs):
                    if (costs.max() ?? 0, costs.reduce(0, +)) == bestCost { tied.append(candidate) }
                }
            }
            if ties == 0 {
                reportNoMatch(name, nameRange: nameRange, arguments, problems)
            } else {
                error("call to '\(name)' is ambiguous", at: nameRange,
                      notes: tied.prefix(8).map { .init(message: "candidate function: \($0.description(spell))", range: $0.noteRange) })
            }
            return nil
        }
        /// The arguments converted to the chosen signature's parameters, defaults appended:
        /// `arguments` itself when that changes nothing (most calls), a new array otherwise.
        func convertedArguments(_ parameters: [KType], _ references: [Bool], _ defaults: [TypedExpression?]) -> [TypedExpression]? {
            var values: [TypedExpression]?
            for (index, parameter) in parameters.enumerated() {
                let value: TypedExpression
                if index < arguments.count {
                    if references[index] {
                        value = arguments[index]
                    } else {
                        guard let converted = implicitlyConvert(arguments[index], to: parameter, context: .argument(index, name)) else { return nil }
                        value = converted
                    }
                } else if let defaultValue = defaults[index] {
                    value = defaultValue
                } else {
                    continue
                }
                if values == nil, index < arguments.count, value === arguments[index] { continue }
                if values == nil {
                    values = Array(arguments[..<min(index, arguments.count)])
                    values!.reserveCapacity(parameters.count)
                }
                values!.append(value)
            }
            return values ?? arguments
        }
        // The winner's fields are read where they are, not copied into a `CallCandidate`
        // (seven references retained and released per call).
        if bestUser == nil, let index = bestBuiltin {
            guard let values = convertedArguments(builtins[index].parameters, builtins[index].referenceParameters,
                                                  builtins[index].noDefaults) else { return nil }
            return TypedExpression(.builtin(builtins[index].builtin, values), type: builtins[index].result, range: range)
        }
        guard let index = bestUser else { return nil }
        guard let values = convertedArguments(signatures[index].parameterTypes, signatures[index].mutableReferences,
                                              signatures[index].defaults) else { return nil }
        let signature = signatures[index]
        guard let callee = signature.functionID else {
            error("function '\(name)' is declared but never defined", at: nameRange,
                  notes: [.init(message: "declared here", range: signature.nameRange)])
            return nil
        }
        guard noteCall(to: callee, name: name, at: nameRange) else { return nil }
        return TypedExpression(.call(callee, values), type: signature.returnType, range: range)
    }

    /// Records a call edge and reports recursion at the call that closes a cycle.
    private func noteCall(to callee: FunctionID, name: String, at range: SourceRange) -> Bool {
        guard current.isFunction else { return true }
        let caller = current.functionID
        // One report per cycle-closing edge: `fib(n - 1) + fib(n - 2)` is one mistake.
        // A struct, not `[caller, callee]`: an array key was an allocation and its hash at every
        // call of a user function. Nearly always nothing has been reported.
        let edge = CallEdge(caller: caller, callee: callee)
        if !reportedRecursion.isEmpty, reportedRecursion.contains(edge) { return false }
        if callee == caller {
            reportedRecursion.insert(edge)
            error("recursive call to '\(name)': recursion is not allowed in Metal shaders", at: range,
                  notes: [.init(message: "rewrite it as a loop", range: nil)])
            return false
        }
        // Tables indexed by function, not dictionaries: a hash less at each call.
        if caller >= callees.count { callees.append(contentsOf: repeatElement([], count: caller + 1 - callees.count)) }
        // One lookup that inserts: a known edge needs nothing more.
        guard callees[caller].insert(callee).inserted else { return true }
        if callee >= calledFunctions.count {
            calledFunctions.append(contentsOf: repeatElement(false, count: callee + 1 - calledFunctions.count))
        }
        calledFunctions[callee] = true
        // A cycle needs a path back to the caller, so the caller must already have been called
        // (only possible through a prototype); the common case skips the search.
        guard caller < calledFunctions.count, calledFunctions[caller] else { return true }
        // Does the callee (transitively) call the caller already? Then this call closes a cycle.
        var stack = [callee]
        var seen: Set<FunctionID> = [callee]
        while let function = stack.popLast() {
            guard function < callees.count else { continue }
            for next in callees[function] where !seen.contains(next) {
                if next == caller {
                    reportedRecursion.insert(edge)
                    error("call to '\(name)' makes '\(current.name)' indirectly recursive: recursion is not allowed in Metal shaders",
                          at: range)
                    return false
                }
                seen.insert(next)
                stack.append(next)
            }
        }
        return true
    }

    private func reportNoMatch(_ name: String, nameRange: SourceRange, _ arguments: [TypedExpression],
                               _ problems: [(CallCandidate, ViabilityProblem)]) {
        let given = "(" + arguments.map { spell($0.type) }.joined(separator: ", ") + ")"
        var notes: [Diagnostic.Note] = []
        let sameArity = problems.filter { if case .arity = $0.1 { return false }; return true }
        if sameArity.isEmpty {
            // Wrong argument count everywhere: one note per distinct arity.
            var seen: Set<Int> = []
            for (candidate, _) in problems where seen.insert(candidate.parameters.count).inserted {
                let count = candidate.parameters.count, required = candidate.requiredCount
                let expected = required == count ? "\(count)" : "\(required) to \(count)"
                notes.append(.init(message: "candidate function not viable: requires \(expected) argument\(count == 1 ? "" : "s"), but \(arguments.count) \(arguments.count == 1 ? "was" : "were") provided: \(candidate.description(spell))",
                                   range: candidate.noteRange))
            }
        } else {
            for (candidate, problem) in sameArity.prefix(6) {
                switch problem {
                case .argument(let index):
                    notes.append(.init(message: "candidate function not viable: no known conversion from '\(spell(arguments[index].type))' to '\(spell(candidate.parameters[index]))' for argument \(index + 1): \(candidate.description(spell))",
                                       range: candidate.noteRange))
                case .notLvalue(let index):
                    notes.append(.init(message: "candidate function not viable: argument \(index + 1) must be an assignable variable (it is passed by reference): \(candidate.description(spell))",
                                       range: candidate.noteRange))
                case .arity:
                    break
                }
            }
            if sameArity.count > 6 {
                notes.append(.init(message: "\(sameArity.count - 6) more candidates not shown", range: nil))
            }
            if arguments.contains(where: { $0.type.isVector }) {
                notes.append(.init(message: "vector element types never convert implicitly; a half vector needs half arguments, a float vector float ones", range: nil))
            }
        }
        error("no matching function for call to '\(name)' with arguments \(given)", at: nameRange, notes: notes)
    }

    // MARK: Methods of textures and layers

    /// The `uint2` (or `int2`, `ushort2`) pixel coordinates of `read`/`write`, as `uint2`.
    private func textureCoordinates(_ expression: Expression, method: String) -> TypedExpression? {
        guard let coordinates = checkExpression(expression) else { return nil }
        guard case .vector(let k, 2) = coordinates.type, k.isInteger else {
            error("no matching member function for call to '\(method)': coordinates must be uint2 (or int2), not '\(spell(coordinates.type))'",
                  at: coordinates.range,
                  fixIt: .init(range: coordinates.range, replacement: "uint2(\(text(of: coordinates.range)))"))
            return nil
        }
        return convertElements(coordinates, to: .uint)
    }

    private func methodCall(_ object: TypedExpression, name: String, nameRange: SourceRange, arrow: Bool,
                            _ argumentExpressions: [Expression], range: SourceRange) -> TypedExpression? {
        switch object.type {
        case .layer:
            guard name == "sample" else {
                error("no member named '\(name)' in 'SwiftUI::Layer'", at: nameRange,
                      notes: [.init(message: "a layer offers sample(float2 position)", range: nil)])
                return nil
            }
            guard argumentExpressions.count == 1 else {
                error("no matching member function for call to 'sample': SwiftUI::Layer::sample takes one float2 position, \(argumentExpressions.count) arguments given",
                      at: nameRange)
                return nil
            }
            guard let position = checkConverted(argumentExpressions[0], to: .vector(.float, 2), context: .argument(0, "sample")) else { return nil }
            return TypedExpression(.layerSample(object, position), type: .vector(.half, 4), range: range)
        case .texture(let kind, let access):
            let result = KType.vector(kind, 4)
            switch name {
            case "sample":
                guard access == .sample else {
                    error("a texture with access::read cannot be sampled; use read(uint2) or declare it access::sample", at: nameRange)
                    return nil
                }
                guard argumentExpressions.count >= 2 else {
                    error("no matching member function for call to 'sample': texture2d::sample takes a sampler and float2 coordinates", at: nameRange)
                    return nil
                }
                if argumentExpressions.count > 2 {
                    unsupported("texture sample options (bias, level, gradient, offset)", at: argumentExpressions[2].range)
                    return nil
                }
                guard let source = samplerSource(argumentExpressions[0]),
                      let coordinates = checkConverted(argumentExpressions[1], to: .vector(.float, 2), context: .argument(1, "sample")) else { return nil }
                return TypedExpression(.textureSample(object, source, coordinates), type: result, range: range)
            case "read":
                guard access != .write else {
                    error("a texture with access::write cannot be read; declare it access::read_write", at: nameRange)
                    return nil
                }
                guard argumentExpressions.count == 1 else {
                    if argumentExpressions.count > 1 {
                        unsupported("texture read with a mip level", at: argumentExpressions[1].range)
                    } else {
                        error("no matching member function for call to 'read': texture2d::read takes uint2 coordinates", at: nameRange)
                    }
                    return nil
                }
                guard let coordinates = textureCoordinates(argumentExpressions[0], method: "read") else { return nil }
                return TypedExpression(.textureRead(object, coordinates), type: result, range: range)
            case "write":
                guard access.canWrite else {
                    error("a texture with access::\(access.rawValue) cannot be written; declare it access::write or access::read_write (in a kernel function)",
                          at: nameRange)
                    return nil
                }
                guard argumentExpressions.count == 2 else {
                    if argumentExpressions.count > 2 {
                        unsupported("texture write with a mip level", at: argumentExpressions[2].range)
                    } else {
                        error("no matching member function for call to 'write': texture2d::write takes a \(spell(result)) value and uint2 coordinates",
                              at: nameRange)
                    }
                    return nil
                }
                guard let value = checkConverted(argumentExpressions[0], to: result, context: .argument(0, "write")),
                      let coordinates = textureCoordinates(argumentExpressions[1], method: "write") else { return nil }
                return TypedExpression(.textureWrite(object, value, coordinates), type: .void, range: range)
            case "get_width", "get_height":
                if let extra = argumentExpressions.first {
                    guard let lod = checkExpression(extra), let value = constantValue(of: lod)?.integerValue, value == 0 else {
                        unsupported("texture mip levels (only level 0)", at: extra.range)
                        return nil
                    }
                }
                return TypedExpression(.textureSize(object, dimension: name == "get_width" ? 0 : 1), type: .uint, range: range)
            case "gather", "sample_compare", "get_num_mip_levels", "fence":
                unsupported("texture2d::\(name)", at: nameRange)
                return nil
            default:
                error("no member named '\(name)' in '\(spell(object.type))'", at: nameRange,
                      notes: [.init(message: "textures offer sample(s, uv), read(uint2), write(value, uint2), get_width() and get_height()", range: nil)])
                return nil
            }
        case .structure:
            unsupported("member functions ('\(name)')", at: nameRange)
            return nil
        default:
            error("member reference base type '\(spell(object.type))' has no member function '\(name)'", at: nameRange)
            return nil
        }
    }

    /// Where a `sample` call's sampler comes from: a constexpr sampler or a sampler parameter.
    private func samplerSource(_ expression: Expression) -> SamplerSource? {
        guard let value = checkExpression(expression) else { return nil }
        guard value.type == .sampler else {
            error("no viable conversion from '\(spell(value.type))' to 'sampler'", at: value.range)
            return nil
        }
        switch value.kind {
        case .global(let id):
            if let state = globals[id].sampler { return .constant(state) }
        case .variable(let id):
            if current.isFunction, let state = current.variables[id].sampler { return .constant(state) }
            if current.isFunction, id < current.parameterCount { return .parameter(id) }
        default:
            break
        }
        unsupported("this sampler expression; use a constexpr sampler or a sampler parameter", at: value.range)
        return nil
    }
}
