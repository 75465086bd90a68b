/// Pass 2: function bodies — statements, local declarations and scopes.
extension Checker {
    /// Checks one function definition and appends it to `functions` (its `FunctionID` is
    /// its position among definitions); entries are classified afterwards.
    func checkDefinition(_ definition: PendingDefinition) {
        let declaration = definition.declaration
        let signature = signatures[definition.signature]
        let isStitchable = declaration.attributes.contains { $0.name == "stitchable" }
        current = FunctionContext(name: declaration.name, functionID: definition.functionID,
                                  declarationIndex: definition.declarationIndex, visiblePosition: definition.position,
                                  qualifier: declaration.qualifier, isStitchable: isStitchable,
                                  returnType: signature.returnType, parameterCount: definition.parameters.count,
                                  parameterSpellings: definition.parameters.map { TypeResolver.spelling(of: declaration.parameters[$0.index].type) })
        scope.reset()
        let errorsBefore = errorCount
        var parameters: [CheckedParameter] = []
        parameters.reserveCapacity(definition.parameters.count)
        // Room for the parameters and a typical body's locals at once, rather than doubling
        // from one (each step a copy).
        current.variables.reserveCapacity(definition.parameters.count + 16)
        for parameter in definition.parameters {
            let id = current.variables.count
            // The declaration's fields are read through the index, not from a `let` copy of it
            // (a copy retains its name, type, sizes, default and attributes).
            let range = declaration.parameters[parameter.index].nameRange ?? declaration.parameters[parameter.index].range
            current.variables.append(VariableInfo(name: parameter.name ?? "", type: parameter.type, isConst: parameter.isConst,
                                                   isReference: parameter.isReference, range: range))
            if let name = parameter.name, let previous = scope.declare(name, variable: id) {
                error("redefinition of parameter '\(name)'", at: range,
                      notes: [.init(message: "previous declaration is here", range: current.variables[previous].range)])
            }
            parameters.append(CheckedParameter(variable: id, name: parameter.name ?? "", type: parameter.type,
                                               typeSpelling: current.parameterSpellings[id],
                                               isReference: parameter.isReference,
                                               attributes: declaration.parameters[parameter.index].attributes.map(entryAttribute),
                                               range: declaration.parameters[parameter.index].range))
        }
        // The body shares the parameters' scope: redeclaring a parameter at its top level is an error, as in C++.
        let body = checkStatements(declaration.body?.statements ?? [])
        // (After an error a dropped `return` would make this warning a false alarm.)
        if signature.returnType != .void, errorCount == errorsBefore, !Self.alwaysReturns(body) {
            let end = declaration.body?.range.end ?? declaration.range.end
            let closing = SourceRange(start: SourceLocation(file: end.file, offset: max(0, end.offset - 1), line: end.line, column: max(1, end.column - 1)), end: end)
            warning("non-void function '\(declaration.name)' does not return a value in all control paths (Kiln returns zero)", at: closing)
        }
        let function = CheckedFunction(name: declaration.name, parameters: parameters, returnType: signature.returnType,
                                       variables: current.variables, body: body, range: declaration.range)
        if functions.count == definition.functionID {
            functions.append(function)
        }
        classifyEntry(declaration, function: function, functionID: definition.functionID)
        current = .programScope
        scope.reset()
    }

    /// True when every path through `statements` ends in `return` (or `discard_fragment()`).
    static func alwaysReturns(_ statements: [TypedStatement]) -> Bool {
        for statement in statements {
            switch statement.kind {
            case .returnValue, .discard:
                return true
            case .block(let inner):
                if alwaysReturns(inner) { return true }
            case .ifElse(_, let then, let otherwise):
                if alwaysReturns(then) && alwaysReturns(otherwise) { return true }
            case .loop(let condition, _, let body, _):
                // `for (;;)` / `while (true)` without a `break` never falls through.
                let infinite: Bool
                if let condition {
                    if case .constant(let value) = condition.kind { infinite = value.isTrue } else { infinite = false }
                } else {
                    infinite = true
                }
                if infinite && !containsBreak(body) { return true }
            case .switchOn(_, let cases):
                if cases.contains(where: \.isDefault), cases.allSatisfy({ alwaysReturns($0.body) }) { return true }
            default:
                break
            }
        }
        return false
    }

    /// Does a loop body contain a `break` that leaves this loop (not a nested loop or switch)?
    private static func containsBreak(_ statements: [TypedStatement]) -> Bool {
        statements.contains { statement in
            switch statement.kind {
            case .breakLoop: return true
            case .block(let inner): return containsBreak(inner)
            case .ifElse(_, let a, let b): return containsBreak(a) || containsBreak(b)
            default: return false
            }
        }
    }

    func checkStatements(_ statements: [Statement]) -> [TypedStatement] {
        var result: [TypedStatement] = []
        result.reserveCapacity(statements.count)
        for statement in statements {
            checkStatement(statement, into: &result)
        }
        return result
    }

    /// A sub-statement of `if`/loops: its own scope, as C++ has it.
    private func checkScoped(_ statement: Statement) -> [TypedStatement] {
        scope.push()
        defer { scope.pop() }
        if case .block(let block) = statement {
            return checkStatements(block.statements)
        }
        var result: [TypedStatement] = []
        checkStatement(statement, into: &result)
        return result
    }

    private func checkStatement(_ statement: Statement, into result: inout [TypedStatement]) {
        switch statement {
        case .block(let block):
            scope.push()
            let inner = checkStatements(block.statements)
            scope.pop()
            result.append(TypedStatement(.block(inner), range: block.range))

        case .declaration(let declaration):
            localDeclaration(declaration, into: &result)

        case .expression(let expression):
            if case .call(let callee, let arguments) = expression.kind, case .identifier(let path) = callee.kind,
               path.last == "discard_fragment", path.count == 1 || (path.count == 2 && path[0] == "metal"),
               scope.lookup("discard_fragment") == nil {
                if !arguments.isEmpty {
                    error("too many arguments to function call, expected 0, have \(arguments.count)", at: arguments[0].range)
                } else if current.isStitchable || current.qualifier == .vertex || current.qualifier == .kernel {
                    error("discard_fragment() is only allowed in fragment functions", at: callee.range,
                          notes: current.isStitchable
                            ? [.init(message: "a SwiftUI effect returns half4(0) for a transparent pixel", range: nil)] : [])
                } else {
                    result.append(TypedStatement(.discard, range: expression.range))
                }
                return
            }
            if let value = checkExpression(expression) {
                result.append(TypedStatement(.expression(value), range: expression.range))
            }

        case .ifStatement(let conditionExpression, let then, let otherwise, let range):
            let condition = checkCondition(conditionExpression, statement: "if")
            let thenBody = checkScoped(then)
            let elseBody = otherwise.map(checkScoped) ?? []
            if let condition {
                result.append(TypedStatement(.ifElse(condition: condition, then: thenBody, otherwise: elseBody), range: range))
            }

        case .forStatement(let initializer, let conditionExpression, let stepExpression, let body, let range):
            scope.push()
            var statements: [TypedStatement] = []
            if let initializer { checkStatement(initializer, into: &statements) }
            let condition = conditionExpression.map { checkCondition($0, statement: "for") }
            let step = stepExpression.map(checkExpression)
            let loopBody = checkLoopBody(body)
            scope.pop()
            if condition.map({ $0 != nil }) ?? true, step.map({ $0 != nil }) ?? true {
                statements.append(TypedStatement(.loop(condition: condition ?? nil, step: step ?? nil, body: loopBody, testFirst: true), range: range))
            }
            result.append(TypedStatement(.block(statements), range: range))

        case .whileStatement(let conditionExpression, let body, let range):
            let condition = checkCondition(conditionExpression, statement: "while")
            let loopBody = checkLoopBody(body)
            if let condition {
                result.append(TypedStatement(.loop(condition: condition, step: nil, body: loopBody, testFirst: true), range: range))
            }

        case .doWhileStatement(let body, let conditionExpression, let range):
            let loopBody = checkLoopBody(body)
            let condition = checkCondition(conditionExpression, statement: "do-while")
            if let condition {
                result.append(TypedStatement(.loop(condition: condition, step: nil, body: loopBody, testFirst: false), range: range))
            }

        case .switchStatement(let subject, let cases, let range):
            if let typed = checkSwitch(subject, cases, range: range) { result.append(typed) }

        case .breakStatement(let range):
            if current.breakableDepth == 0 {
                error("'break' statement not in loop or switch statement", at: range)
            } else {
                result.append(TypedStatement(.breakLoop, range: range))
            }

        case .continueStatement(let range):
            if current.loopDepth == 0 {
                error("'continue' statement not in loop statement", at: range)
            } else {
                result.append(TypedStatement(.continueLoop, range: range))
            }

        case .returnStatement(let expression, let range):
            guard current.isFunction else { return }
            let context = current
            if context.returnType == .void {
                if let expression {
                    guard let value = checkExpression(expression) else { return }
                    guard value.type == .void else {
                        error("void function '\(context.name)' should not return a value", at: value.range)
                        return
                    }
                    // `return voidCall();` evaluates the call, then returns.
                    result.append(TypedStatement(.expression(value), range: expression.range))
                }
                result.append(TypedStatement(.returnValue(nil), range: range))
                return
            }
            guard let expression else {
                error("non-void function '\(context.name)' should return a value of type '\(spell(context.returnType))'", at: range)
                return
            }
            if let value = checkConverted(expression, to: context.returnType, context: .returning(context.name)) {
                result.append(TypedStatement(.returnValue(value), range: range))
            }

        case .empty:
            break
        }
    }

    private func checkLoopBody(_ body: Statement) -> [TypedStatement] {
        current.loopDepth += 1
        current.breakableDepth += 1
        defer {
            current.loopDepth -= 1
            current.breakableDepth -= 1
        }
        return checkScoped(body)
    }

    // MARK: switch

    private func checkSwitch(_ subjectExpression: Expression, _ cases: [SwitchCase], range: SourceRange) -> TypedStatement? {
        var subject = checkExpression(subjectExpression)
        var subjectKind = ScalarKind.int
        if let value = subject {
            let promoted = promoteIntegral(value)
            if case .scalar(let kind) = promoted.type, kind == .int || kind == .uint {
                subject = promoted
                subjectKind = kind
            } else {
                error("statement requires expression of integer type ('\(spell(value.type))' invalid)", at: value.range)
                subject = nil
            }
        }
        current.breakableDepth += 1
        scope.push()
        var typedCases: [TypedSwitchCase] = []
        var seen: [Int64: SourceRange] = [:]
        var defaultRange: SourceRange?
        var ok = subject != nil
        for switchCase in cases {
            var values: [Int64] = []
            var isDefault = false
            for label in switchCase.labels {
                guard let label else {
                    if let previous = defaultRange {
                        error("multiple default labels in one switch", at: switchCase.range,
                              notes: [.init(message: "previous default label is here", range: previous)])
                        ok = false
                    }
                    defaultRange = switchCase.range
                    isDefault = true
                    continue
                }
                guard let typed = checkExpression(label) else { ok = false; continue }
                guard case .scalar(let kind) = typed.type, kind.isInteger || kind == .bool,
                      let constant = constantValue(of: typed) else {
                    error("case label is not an integer constant expression", at: label.range)
                    ok = false
                    continue
                }
                guard let value = constant.converted(to: subjectKind).integerValue else { continue }
                if let previous = seen[value] {
                    error("duplicate case value '\(value)'", at: label.range,
                          notes: [.init(message: "previous case defined here", range: previous)])
                    ok = false
                    continue
                }
                seen[value] = label.range
                values.append(value)
            }
            let body = checkStatements(switchCase.statements)
            typedCases.append(TypedSwitchCase(values: values, isDefault: isDefault, body: body))
        }
        scope.pop()
        current.breakableDepth -= 1
        guard ok, let subject else { return nil }
        return TypedStatement(.switchOn(subject, typedCases), range: range)
    }

    // MARK: Local declarations

    private func localDeclaration(_ declaration: VariableDeclaration, into result: inout [TypedStatement]) {
        guard current.isFunction else { return }
        let spelled = declaration.type
        if spelled.addressSpace == .threadgroup || spelled.addressSpace == .device {
            unsupported("local variables in the \(spelled.addressSpace!.rawValue) address space", at: spelled.range)
            return
        }
        if spelled.indirection != .none {
            unsupported("local pointers and references", at: spelled.range)
            return
        }
        if spelled.baseName == "sampler" {
            // A sampler is a fixed state whatever the declaration says: `constexpr sampler
            // s(…)`, `sampler s(…)` and `sampler s = sampler(filter::linear, …)` (also
            // spelled `metal::sampler(…)`) are all evaluated at compile time.
            for declarator in declaration.declarators {
                var declarator = declarator
                if case .expression(let e)? = declarator.initializer, case .call(let callee, let arguments) = e.kind,
                   case .identifier(let path) = callee.kind, path.last == "sampler" {
                    declarator.initializer = .constructor(arguments, e.range)
                } else if !declaration.isConstexpr, case .expression? = declarator.initializer {
                    unsupported("sampler variables assigned from another sampler; construct it here, e.g. sampler s(filter::linear)", at: spelled.range)
                    continue
                }
                guard let state = samplerState(declarator) else { continue }
                declareLocal(VariableInfo(name: declarator.name, type: .sampler, isConst: true, sampler: state, range: declarator.nameRange))
            }
            return
        }
        let isConst = spelled.isConst || declaration.isConstexpr || spelled.addressSpace == .constant
        let base: KType?
        if spelled.baseName == "auto" {
            base = nil
        } else {
            guard let resolved = resolveType(spelled) else {
                for declarator in declaration.declarators { declarePoisoned(declarator) }
                return
            }
            switch resolved {
            case .void:
                error("variable has incomplete type 'void'", at: spelled.range)
                return
            case .texture, .layer, .sampler:
                unsupported("local variables of type '\(spell(resolved))'; use the parameter directly", at: spelled.range)
                return
            default:
                base = resolved
            }
        }
        for declarator in declaration.declarators {
            var type: KType
            var value: TypedExpression?
            if let base {
                guard let arrayed = arrayType(base, sizes: declarator.arraySizes, initializer: declarator.initializer, at: declarator.nameRange) else {
                    declarePoisoned(declarator)
                    continue
                }
                type = arrayed
                if let initializer = declarator.initializer {
                    guard let checked = checkInitializer(initializer, to: type, name: declarator.name) else {
                        // Known type: later uses are still checked against it.
                        declareLocal(VariableInfo(name: declarator.name, type: type, isConst: isConst, range: declarator.nameRange))
                        continue
                    }
                    value = checked
                } else if isConst {
                    error("default initialization of an object of const type 'const \(spell(type))'", at: declarator.nameRange)
                }
            } else {
                guard case .expression(let e)? = declarator.initializer, declarator.arraySizes.isEmpty else {
                    error("declaration of variable '\(declarator.name)' with deduced type 'auto' requires an initializer expression",
                          at: declarator.nameRange)
                    continue
                }
                guard let checked = checkExpression(e) else {
                    declarePoisoned(declarator)
                    continue
                }
                switch checked.type {
                case .void, .texture, .layer, .sampler, .pointer:
                    error("variable '\(declarator.name)' cannot have type '\(spell(checked.type))'", at: declarator.nameRange)
                    continue
                default: break
                }
                type = checked.type
                value = checked
            }
            let id = declareLocal(VariableInfo(name: declarator.name, type: type, isConst: isConst, range: declarator.nameRange))
            if isConst, type.isScalar, let value, let constant = constantValue(of: value) {
                current.constantLocals[id] = constant
            }
            result.append(TypedStatement(.declare(id, value), range: declarator.range))
        }
    }

    /// Declares a local whose type is unknown after an error, so its uses report nothing.
    private func declarePoisoned(_ declarator: Declarator) {
        let id = declareLocal(VariableInfo(name: declarator.name, type: .void, isConst: true, range: declarator.nameRange))
        current.poisonedVariables.insert(id)
    }

    @discardableResult
    private func declareLocal(_ info: VariableInfo) -> VariableID {
        let id = current.variables.count
        current.variables.append(info)
        if let previous = scope.declare(info.name, variable: id) {
            error("redefinition of '\(info.name)'", at: info.range,
                  notes: [.init(message: "previous definition is here", range: current.variables[previous].range)])
        }
        return id
    }
}
