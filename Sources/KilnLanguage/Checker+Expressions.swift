/// Expressions: names, literals, operators, member access, swizzles, indexing and calls
/// (user functions and builtins with overload ranking, constructors, texture and layer methods).
extension Checker {
    /// Checks an expression; `nil` means an error was reported (callers stay silent).
    func checkExpression(_ expression: Expression) -> TypedExpression? {
        // The outermost call bounds the height of the whole tree, so the recursion below
        // (and in every later pass) stays within `maxNestingDepth` levels.
        if expressionNesting == 0, !expressionFitsDepthLimit(expression) { return nil }
        expressionNesting += 1
        defer { expressionNesting -= 1 }
        return checkExpressionKind(expression)
    }

    /// `checkExpression` without the depth bound: one node and, recursively, its operands.
    private func checkExpressionKind(_ expression: Expression) -> TypedExpression? {
        let range = expression.range
        switch expression.kind {
        case .integerLiteral(let value, let suffix):
            if suffix.contains("u") {
                guard value <= UInt64(UInt32.max) else {
                    error("integer literal is too large to be represented in a 32-bit integer type", at: range)
                    return nil
                }
                return constant(.uint(UInt32(value)), .uint, range)
            }
            if value <= UInt64(Int32.max) { return constant(.int(Int32(value)), .int, range) }
            if value <= UInt64(UInt32.max) { return constant(.uint(UInt32(value)), .uint, range) }
            error("integer literal is too large to be represented in a 32-bit integer type", at: range)
            return nil
        case .floatLiteral(let value, let suffix):
            return constant(.float(Float(value)), suffix == "h" ? .half : .float, range)
        case .booleanLiteral(let value):
            return constant(.bool(value), .bool, range)
        case .identifier(let path):
            return checkName(path, range: range)
        case .unary(let op, let operand):
            return checkUnary(op, operand, range: range)
        case .postfix(let op, let operand):
            guard let value = checkExpression(operand) else { return nil }
            return increment(value, delta: op == .increment ? 1 : -1, isPrefix: false, spelling: op.rawValue, range: range)
        case .binary(let op, let lhs, let rhs):
            guard let left = checkExpression(lhs) else { _ = checkExpression(rhs); return nil }
            guard let right = checkExpression(rhs) else { return nil }
            return binary(op, left, right, range: range)
        case .assignment(let op, let lhs, let rhs):
            return checkAssignment(op, lhs, rhs, range: range)
        case .conditional(let condition, let a, let b):
            return checkConditional(condition, a, b, range: range)
        case .call(let callee, let arguments):
            return checkCall(callee, arguments, range: range)
        case .construct(let typeName, let arguments):
            guard let type = resolveType(typeName), let values = checkArguments(arguments) else { return nil }
            return construct(type, values, range: range, typeRange: typeName.range)
        case .cast(let typeName, let operand):
            guard let type = resolveType(typeName), let value = checkExpression(operand) else { return nil }
            return construct(type, [value], range: range, typeRange: typeName.range)
        case .member(let base, let name, let nameRange, let arrow):
            guard let object = checkExpression(base) else { return nil }
            return member(object, name: name, nameRange: nameRange, arrow: arrow, range: range)
        case .index(let base, let index):
            guard let object = checkExpression(base) else { _ = checkExpression(index); return nil }
            guard let subscriptValue = checkExpression(index) else { return nil }
            return subscriptExpression(object, subscriptValue, range: range)
        case .initializerList:
            error("an initializer list needs a type here; write it as a constructor, e.g. float2(…)", at: range)
            return nil
        }
    }

    /// Checks every argument (reporting each one's errors); `nil` if any failed.
    func checkArguments(_ arguments: [Expression]) -> [TypedExpression]? {
        var values: [TypedExpression] = []
        var ok = true
        for argument in arguments {
            if let value = checkExpression(argument) { values.append(value) } else { ok = false }
        }
        return ok ? values : nil
    }

    func constant(_ value: ConstantValue, _ type: KType, _ range: SourceRange) -> TypedExpression {
        TypedExpression(.constant(value), type: type, range: range)
    }

    // MARK: Names

    /// MSL's predefined constants (`<metal_math>`, `<metal_limits>`); `_H` ones are `half`.
    static let builtinConstants: [String: (ConstantValue, KType)] = {
        let math: [(String, Double)] = [
            ("M_E", 2.718281828459045), ("M_LOG2E", 1.4426950408889634), ("M_LOG10E", 0.4342944819032518),
            ("M_LN2", 0.6931471805599453), ("M_LN10", 2.302585092994046), ("M_PI", Double.pi),
            ("M_PI_2", Double.pi / 2), ("M_PI_4", Double.pi / 4), ("M_1_PI", 1 / Double.pi), ("M_2_PI", 2 / Double.pi),
            ("M_2_SQRTPI", 1.1283791670955126), ("M_SQRT2", 1.4142135623730951), ("M_SQRT1_2", 0.7071067811865476),
        ]
        var table: [String: (ConstantValue, KType)] = [:]
        for (name, value) in math {
            table[name + "_F"] = (.float(Float(value)), .float)
            table[name + "_H"] = (.float(Float(value)), .half)
        }
        table["MAXFLOAT"] = (.float(.greatestFiniteMagnitude), .float)
        table["FLT_MAX"] = (.float(.greatestFiniteMagnitude), .float)
        table["FLT_MIN"] = (.float(.leastNormalMagnitude), .float)
        table["FLT_EPSILON"] = (.float(.ulpOfOne), .float)
        table["HALF_MAX"] = (.float(65504), .half)
        table["HALF_MIN"] = (.float(6.103515625e-05), .half)
        table["HALF_EPSILON"] = (.float(0.0009765625), .half)
        table["INFINITY"] = (.float(.infinity), .float)
        table["HUGE_VALF"] = (.float(.infinity), .float)
        table["NAN"] = (.float(.nan), .float)
        table["INT_MAX"] = (.int(.max), .int)
        table["INT_MIN"] = (.int(.min), .int)
        table["UINT_MAX"] = (.uint(.max), .uint)
        return table
    }()

    /// Resolves a (possibly qualified) name used as a value.
    private func checkName(_ fullPath: [String], range: SourceRange) -> TypedExpression? {
        var path = fullPath[...]
        while path.count > 1, path.first == "metal" { path = path.dropFirst() }
        if path.count == 2, let enumName = path.first, let cases = enumCases[enumName] {
            if reportIfDeclaredLater(enumName, at: range, what: "use of undeclared identifier") { return nil }
            let caseName = path[path.startIndex + 1]
            guard let value = cases[caseName] else {
                error("no member named '\(caseName)' in enum '\(enumName)'", at: range)
                return nil
            }
            return constant(value, typeNames[enumName] ?? .int, range)
        }
        guard path.count == 1, let name = path.first else {
            error("use of undeclared identifier '\(fullPath.joined(separator: "::"))'", at: range)
            return nil
        }
        if current != nil, let id = scope.lookup(name) {
            if current!.poisonedVariables.contains(id) { return nil }
            return TypedExpression(.variable(id), type: current!.variables[id].type, range: range)
        }
        if let id = globalNames[name] {
            if reportIfDeclaredLater(name, at: range, what: "use of undeclared identifier") { return nil }
            return TypedExpression(.global(id), type: globals[id].type, range: range)
        }
        if let value = enumConstants[name] {
            if reportIfDeclaredLater(name, at: range, what: "use of undeclared identifier") { return nil }
            let type: KType
            if case .uint = value { type = .uint } else { type = .int }
            return constant(value, type, range)
        }
        if let (value, type) = Self.builtinConstants[name] {
            return constant(value, type, range)
        }
        if overloads[name] != nil || !BuiltinOverloads.overloads(named: name).isEmpty {
            error("reference to function '\(name)' must be called", at: range,
                  fixIt: .init(range: SourceRange(at: range.end), replacement: "()"))
            return nil
        }
        if poisonedNames.contains(name) { return nil }
        if typeNames[name] != nil || TypeResolver.builtinTypes[name] != nil {
            error("'\(name)' is a type; did you mean to construct a value, e.g. \(name)(…)?", at: range)
            return nil
        }
        reportUndeclared(name, range: range, includeFunctions: false)
        return nil
    }

    /// `use of undeclared identifier 'x'`, with "did you mean" when a close name is visible.
    func reportUndeclared(_ name: String, range: SourceRange, includeFunctions: Bool) {
        guard !reportingStopped else {
            error("use of undeclared identifier '\(name)'", at: range)  // counted, not shown; no suggestion search
            return
        }
        var candidates = scope.visibleNames
        candidates += globalNames.keys
        candidates += enumConstants.keys
        if includeFunctions {
            candidates += overloads.keys
            candidates += Builtin.allCases.map(\.rawValue)
        } else {
            candidates += Self.builtinConstants.keys
        }
        if let suggestion = Self.closestName(to: name, among: candidates) {
            error("use of undeclared identifier '\(name)'; did you mean '\(suggestion)'?", at: range,
                  fixIt: .init(range: range, replacement: suggestion))
        } else {
            error("use of undeclared identifier '\(name)'", at: range)
        }
    }

    /// The candidate with the smallest edit distance, if it is within a third of the name's length.
    static func closestName(to name: String, among candidates: [String]) -> String? {
        let target = Array(name.utf8)
        let limit = max(1, (target.count + 2) / 3)
        var best: (String, Int)?
        for candidate in candidates where candidate != name {
            let bytes = Array(candidate.utf8)
            guard abs(bytes.count - target.count) <= limit else { continue }
            let distance = editDistance(target, bytes)
            if distance <= limit, best.map({ distance < $0.1 || (distance == $0.1 && candidate < $0.0) }) ?? true {
                best = (candidate, distance)
            }
        }
        return best?.0
    }

    static func editDistance(_ a: [UInt8], _ b: [UInt8]) -> Int {
        var previous = Array(0...b.count)
        var row = Array(repeating: 0, count: b.count + 1)
        for i in 1...max(a.count, 1) where !a.isEmpty {
            row[0] = i
            for j in 1...max(b.count, 1) where !b.isEmpty {
                let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
                row[j] = min(previous[j] + 1, row[j - 1] + 1, substitution)
            }
            swap(&previous, &row)
        }
        return a.isEmpty ? b.count : previous[b.count]
    }

    // MARK: Unary

    private func checkUnary(_ op: UnaryOperator, _ operand: Expression, range: SourceRange) -> TypedExpression? {
        guard let value = checkExpression(operand) else { return nil }
        let type = value.type
        func invalid() -> TypedExpression? {
            error("invalid argument type '\(spell(type))' to unary expression '\(op.rawValue)'", at: range)
            return nil
        }
        switch op {
        case .plus, .minus:
            let promoted = promoteIntegral(value)
            switch promoted.type {
            case .scalar(let kind) where kind != .bool: break
            case .vector(let kind, _) where kind != .bool: break
            case .matrix: break
            default: return invalid()
            }
            if op == .plus { return promoted }
            if case .constant(let c) = promoted.kind, let negated = ConstantEvaluator.unary(.negate, c, promoted.type.scalarKind ?? .int) {
                return constant(negated, promoted.type, range)
            }
            return TypedExpression(.unary(.negate, promoted), type: promoted.type, range: range)
        case .logicalNot:
            switch type {
            case .scalar:
                let condition = convertElements(value, to: .bool)
                if case .constant(let c) = condition.kind { return constant(.bool(!c.isTrue), .bool, range) }
                return TypedExpression(.unary(.logicalNot, condition), type: .bool, range: range)
            case .vector(.bool, _):
                return TypedExpression(.unary(.logicalNot, value), type: type, range: range)
            default:
                return invalid()
            }
        case .bitwiseNot:
            let promoted = promoteIntegral(value)
            guard let kind = promoted.type.scalarKind, kind.isInteger, promoted.type.vectorWidth > 0 else { return invalid() }
            if case .constant(let c) = promoted.kind, let folded = ConstantEvaluator.unary(.bitwiseNot, c, kind) {
                return constant(folded, promoted.type, range)
            }
            return TypedExpression(.unary(.bitwiseNot, promoted), type: promoted.type, range: range)
        case .preIncrement, .preDecrement:
            return increment(value, delta: op == .preIncrement ? 1 : -1, isPrefix: true, spelling: op.rawValue, range: range)
        }
    }

    private func increment(_ value: TypedExpression, delta: Int, isPrefix: Bool, spelling: String, range: SourceRange) -> TypedExpression? {
        guard let kind = value.type.scalarKind, kind != .bool, value.type.vectorWidth > 0 else {
            error("cannot \(delta > 0 ? "increment" : "decrement") a value of type '\(spell(value.type))'", at: range)
            return nil
        }
        guard requireAssignable(value, operatorSpelling: spelling) else { return nil }
        return TypedExpression(.increment(value, delta: delta, isPrefix: isPrefix), type: value.type, range: range)
    }

    /// C's integral promotion: bool, short and ushort scalars compute as int.
    func promoteIntegral(_ value: TypedExpression) -> TypedExpression {
        if case .scalar(let kind) = value.type, kind == .bool || kind == .short || kind == .ushort {
            return convertElements(value, to: .int)
        }
        return value
    }

    /// The usual arithmetic conversions of two scalar kinds.
    static func commonScalar(_ a: ScalarKind, _ b: ScalarKind) -> ScalarKind {
        if a == .float || b == .float { return .float }
        if a == .half || b == .half { return .half }
        func promoted(_ k: ScalarKind) -> ScalarKind { k == .bool || k == .short || k == .ushort ? .int : k }
        if promoted(a) == .uint || promoted(b) == .uint { return .uint }
        return .int
    }

    // MARK: Binary

    /// Brings two scalar/vector operands to one type: scalars meet by the usual arithmetic
    /// conversions; a scalar against a vector is converted to its element type and splatted;
    /// two vectors must already agree.
    func commonOperands(_ lhs: TypedExpression, _ rhs: TypedExpression) -> (TypedExpression, TypedExpression)? {
        switch (lhs.type, rhs.type) {
        case (.scalar(let a), .scalar(let b)):
            let kind = Self.commonScalar(a, b)
            return (convertElements(lhs, to: kind), convertElements(rhs, to: kind))
        case (.vector, .scalar):
            return (lhs, splat(rhs, to: lhs.type))
        case (.scalar, .vector):
            return (splat(lhs, to: rhs.type), rhs)
        case (.vector, .vector) where lhs.type == rhs.type:
            return (lhs, rhs)
        default:
            return nil
        }
    }

    func invalidOperands(_ op: String, _ lhs: TypedExpression, _ rhs: TypedExpression, notes: [Diagnostic.Note] = []) {
        var notes = notes
        if case .vector(let a, let n) = lhs.type, case .vector(let b, let m) = rhs.type, n == m, a != b {
            notes.append(.init(message: "vector element types never convert implicitly; convert one side, e.g. \(spell(lhs.type))(…)", range: rhs.range))
        }
        error("invalid operands to binary expression ('\(spell(lhs.type))' and '\(spell(rhs.type))')",
              at: operatorRange(op, after: lhs.range, before: rhs.range), notes: notes)
    }

    /// A binary operator on checked operands.
    func binary(_ op: BinaryOperator, _ lhs: TypedExpression, _ rhs: TypedExpression, range: SourceRange) -> TypedExpression? {
        let spelling = op.rawValue
        func make(_ typedOp: TypedBinaryOperator, _ a: TypedExpression, _ b: TypedExpression, _ type: KType) -> TypedExpression {
            if case .constant(let x) = a.kind, case .constant(let y) = b.kind, case .scalar = type, let kind = a.type.scalarKind,
               let folded = ConstantEvaluator.binary(typedOp, x, y, operandKind: kind) {
                return constant(folded, type, range)
            }
            return TypedExpression(.binary(typedOp, a, b), type: type, range: range)
        }
        switch op {
        case .comma:
            return TypedExpression(.sequence(lhs, rhs), type: rhs.type, range: range)

        case .logicalAnd, .logicalOr:
            let typedOp: TypedBinaryOperator = op == .logicalAnd ? .logicalAnd : .logicalOr
            switch (lhs.type, rhs.type) {
            case (.scalar, .scalar):
                return make(typedOp, convertElements(lhs, to: .bool), convertElements(rhs, to: .bool), .bool)
            case (.vector(.bool, let n), .vector(.bool, let m)) where n == m:
                return make(typedOp, lhs, rhs, lhs.type)
            default:
                invalidOperands(spelling, lhs, rhs)
                return nil
            }

        case .add, .subtract, .multiply, .divide:
            let typedOp = Self.typedOperator(op)!
            if case .matrix = lhs.type { return matrixArithmetic(typedOp, lhs, rhs, spelling: spelling, range: range) }
            if case .matrix = rhs.type { return matrixArithmetic(typedOp, lhs, rhs, spelling: spelling, range: range) }
            guard let (a, b) = commonOperands(lhs, rhs), a.type.scalarKind != .bool else {
                invalidOperands(spelling, lhs, rhs)
                return nil
            }
            if op == .divide { warnAboutDivisionByZero(b, operatorSpelling: spelling, lhs: lhs) }
            return make(typedOp, a, b, a.type)

        case .remainder, .bitwiseAnd, .bitwiseOr, .bitwiseXor:
            let typedOp = Self.typedOperator(op)!
            guard let (a, b) = commonOperands(promoteIntegral(lhs), promoteIntegral(rhs)), let kind = a.type.scalarKind, kind.isInteger else {
                var notes: [Diagnostic.Note] = []
                if op == .remainder, lhs.type.scalarKind?.isFloat == true || rhs.type.scalarKind?.isFloat == true {
                    notes.append(.init(message: "'%' needs integers; use fmod(x, y) for floating-point remainders", range: range))
                }
                invalidOperands(spelling, lhs, rhs, notes: notes)
                return nil
            }
            if op == .remainder { warnAboutDivisionByZero(b, operatorSpelling: spelling, lhs: lhs) }
            return make(typedOp, a, b, a.type)

        case .shiftLeft, .shiftRight:
            let typedOp: TypedBinaryOperator = op == .shiftLeft ? .shiftLeft : .shiftRight
            let a = promoteIntegral(lhs), b = promoteIntegral(rhs)
            guard let kind = a.type.scalarKind, kind.isInteger, b.type.scalarKind?.isInteger == true,
                  a.type.vectorWidth > 0, b.type.vectorWidth > 0 else {
                invalidOperands(spelling, lhs, rhs)
                return nil
            }
            let count: TypedExpression
            switch (a.type, b.type) {
            case (.vector, .scalar): count = splat(b, to: a.type)
            case (.scalar, .scalar): count = convertElements(b, to: kind)
            case (.vector(_, let n), .vector(_, let m)) where n == m: count = convertElements(b, to: kind)
            default:
                invalidOperands(spelling, lhs, rhs)
                return nil
            }
            return make(typedOp, a, count, a.type)

        case .less, .lessEqual, .greater, .greaterEqual, .equal, .notEqual:
            let typedOp = Self.typedOperator(op)!
            if case .vector(.bool, _) = lhs.type, lhs.type == rhs.type, op == .equal || op == .notEqual {
                return make(typedOp, lhs, rhs, lhs.type)
            }
            guard let (a, b) = commonOperands(lhs, rhs) else {
                invalidOperands(spelling, lhs, rhs)
                return nil
            }
            let resultType: KType = a.type.isVector ? .vector(.bool, a.type.vectorWidth) : .bool
            return make(typedOp, a, b, resultType)
        }
    }

    /// clang warns about integer division by a constant zero; Kiln defines the result (0), and says so.
    private func warnAboutDivisionByZero(_ divisor: TypedExpression, operatorSpelling: String, lhs: TypedExpression) {
        guard divisor.type.scalarKind?.isInteger == true, case .constant(let value) = divisor.kind, !value.isTrue else { return }
        let what = operatorSpelling == "%" ? "remainder" : "division"
        warning("\(what) by zero is undefined in C++; Kiln defines the result as 0",
                at: operatorRange(operatorSpelling, after: lhs.range, before: divisor.range))
    }

    /// `m * v`, `v * m`, `m * m` (linear algebra), `m * s`, `s * m`, `m / s`, `m ± m` (component-wise).
    private func matrixArithmetic(_ op: TypedBinaryOperator, _ lhs: TypedExpression, _ rhs: TypedExpression,
                                  spelling: String, range: SourceRange) -> TypedExpression? {
        switch (lhs.type, rhs.type) {
        case (.matrix(let k, let c, let r), .vector(let k2, let n)) where op == .multiply && k == k2 && n == c:
            return TypedExpression(.matrixMultiply(lhs, rhs), type: .vector(k, r), range: range)
        case (.vector(let k2, let n), .matrix(let k, let c, let r)) where op == .multiply && k == k2 && n == r:
            return TypedExpression(.matrixMultiply(lhs, rhs), type: .vector(k, c), range: range)
        case (.matrix(let k, let c1, let r1), .matrix(let k2, let c2, let r2)) where op == .multiply && k == k2 && c1 == r2:
            return TypedExpression(.matrixMultiply(lhs, rhs), type: .matrix(k, columns: c2, rows: r1), range: range)
        case (.matrix, .scalar) where op == .multiply || op == .divide:
            return TypedExpression(.binary(op, lhs, splat(rhs, to: lhs.type)), type: lhs.type, range: range)
        case (.scalar, .matrix) where op == .multiply:
            return TypedExpression(.binary(op, splat(lhs, to: rhs.type), rhs), type: rhs.type, range: range)
        case (.matrix, .matrix) where (op == .add || op == .subtract) && lhs.type == rhs.type:
            return TypedExpression(.binary(op, lhs, rhs), type: lhs.type, range: range)
        default:
            var notes: [Diagnostic.Note] = []
            if case .matrix(_, let c, _) = lhs.type, case .vector(_, let n) = rhs.type, op == .multiply {
                notes.append(.init(message: "a \(spell(lhs.type)) multiplies vectors of \(c) components, not \(n)", range: rhs.range))
            }
            invalidOperands(spelling, lhs, rhs, notes: notes)
            return nil
        }
    }

    // MARK: Assignment

    /// Why `value` cannot be assigned to, or `nil` if it can.
    func assignabilityProblem(_ value: TypedExpression) -> String? {
        switch value.kind {
        case .variable(let id):
            guard let variable = current?.variables[id] else { return "expression is not assignable" }
            if variable.isConst {
                let spelling = id < current!.parameterSpellings.count ? current!.parameterSpellings[id] : "const \(spell(variable.type))"
                return "cannot assign to variable '\(variable.name)' with const-qualified type '\(spelling)'"
            }
            switch variable.type {
            case .texture, .sampler, .layer, .pointer:
                return "not supported: assigning to a variable of type '\(spell(variable.type))'"
            default:
                return nil
            }
        case .global(let id):
            return "cannot assign to '\(globals[id].name)': program-scope variables are in the read-only constant address space"
        case .swizzle(let base, let components):
            if Set(components).count != components.count {
                return "vector is not assignable (contains duplicate components)"
            }
            return assignabilityProblem(base)
        case .index(let base, _), .member(let base, _):
            if case .pointer(let pointee, let space) = base.type {
                return "cannot assign through a read-only pointer '\(space.rawValue) const \(spell(pointee)) *'"
            }
            return assignabilityProblem(base)
        default:
            return "expression is not assignable"
        }
    }

    /// Reports and returns false unless `value` is a writable lvalue.
    func requireAssignable(_ value: TypedExpression, operatorSpelling: String) -> Bool {
        guard let problem = assignabilityProblem(value) else { return true }
        error(problem, at: value.range)
        return false
    }

    private func checkAssignment(_ op: AssignmentOperator, _ lhsExpression: Expression, _ rhsExpression: Expression,
                                 range: SourceRange) -> TypedExpression? {
        guard let lhs = checkExpression(lhsExpression) else { _ = checkExpression(rhsExpression); return nil }
        guard let compound = op.compound else {
            let assignable = requireAssignable(lhs, operatorSpelling: "=")
            guard let rhs = checkConverted(rhsExpression, to: lhs.type, context: .assigning), assignable else { return nil }
            return TypedExpression(.assign(lhs, rhs), type: lhs.type, range: range)
        }
        guard let rhs = checkExpression(rhsExpression) else { return nil }
        guard requireAssignable(lhs, operatorSpelling: op.spelling) else { return nil }
        // Type the operation as `lhs op rhs`; its result must convert back to the lhs type.
        guard let result = binary(compound, lhs, rhs, range: range) else { return nil }
        guard let typedOp = Self.typedOperator(compound) else {
            error("invalid compound assignment operator '\(op.spelling)'", at: range)
            return nil
        }
        switch (lhs.type, rhs.type) {
        case (.matrix, .scalar) where compound == .multiply:
            // `m *= s` is component-wise; spelled as an assignment so that `*=` on matrices
            // always means the linear-algebra product (as the contract says).
            return TypedExpression(.assign(lhs, result), type: lhs.type, range: range)
        case (.matrix, .matrix), (.vector, .matrix):
            guard result.type == lhs.type else { break }
            return TypedExpression(.compoundAssign(typedOp, lhs, rhs), type: lhs.type, range: range)
        default:
            break
        }
        if result.type != lhs.type {
            // `int i; i += 0.5` is fine in C (computed in float, converted back); so is `h *= 0.5f`.
            // Only a vector result into a scalar, or mismatched vectors, are errors.
            guard lhs.type.vectorWidth > 0, result.type.vectorWidth == lhs.type.vectorWidth || result.type.isScalar,
                  result.type.isVector == lhs.type.isVector else {
                error("assigning to '\(spell(lhs.type))' from incompatible type '\(spell(result.type))'", at: rhs.range)
                return nil
            }
            if case .vector(let a, _) = lhs.type, case .vector(let b, _) = result.type, a != b {
                error("cannot convert '\(spell(result.type))' to '\(spell(lhs.type))' in compound assignment", at: rhs.range,
                      notes: [.init(message: "vector element types never convert implicitly; convert the right side explicitly", range: rhs.range)])
                return nil
            }
        }
        // `i *= 0.5` on an integer computes in float and truncates (C++); converting the right
        // operand to int first would give `i * 0`. Spell it `i = int(float(i) * 0.5)`.
        if case .scalar(let lhsKind) = lhs.type, lhsKind.isInteger || lhsKind == .bool, result.type.scalarKind?.isFloat == true {
            guard !Self.hasSideEffects(lhs) else {
                unsupported("compound assignment of a floating-point value to an integer whose address has side effects; write it out as 'x = x \(compound.rawValue) y'",
                            at: range)
                return nil
            }
            return TypedExpression(.assign(lhs, convertElements(result, to: lhsKind)), type: lhs.type, range: range)
        }
        // The right operand converted to the left's type makes `lhs op rhs` well-typed.
        let converted: TypedExpression
        switch (lhs.type, rhs.type) {
        case (.vector, .scalar): converted = splat(rhs, to: lhs.type)
        case (.matrix, .scalar): converted = splat(rhs, to: lhs.type)
        default: converted = convertElements(rhs, to: lhs.type.scalarKind ?? .float)
        }
        return TypedExpression(.compoundAssign(typedOp, lhs, converted), type: lhs.type, range: range)
    }

    /// Whether evaluating an lvalue twice could differ from evaluating it once.
    static func hasSideEffects(_ value: TypedExpression) -> Bool {
        switch value.kind {
        case .variable, .global, .constant: return false
        case .swizzle(let base, _), .member(let base, _): return hasSideEffects(base)
        case .index(let base, let index): return hasSideEffects(base) || hasSideEffects(index)
        case .convert(let x), .unary(_, let x): return hasSideEffects(x)
        case .binary(_, let a, let b): return hasSideEffects(a) || hasSideEffects(b)
        default: return true
        }
    }

    static func typedOperator(_ op: BinaryOperator) -> TypedBinaryOperator? {
        switch op {
        case .add: return .add
        case .subtract: return .subtract
        case .multiply: return .multiply
        case .divide: return .divide
        case .remainder: return .remainder
        case .shiftLeft: return .shiftLeft
        case .shiftRight: return .shiftRight
        case .bitwiseAnd: return .bitwiseAnd
        case .bitwiseOr: return .bitwiseOr
        case .bitwiseXor: return .bitwiseXor
        case .less: return .less
        case .lessEqual: return .lessEqual
        case .greater: return .greater
        case .greaterEqual: return .greaterEqual
        case .equal: return .equal
        case .notEqual: return .notEqual
        case .logicalAnd: return .logicalAnd
        case .logicalOr: return .logicalOr
        case .comma: return nil
        }
    }

    // MARK: Conditional

    private func checkConditional(_ conditionExpression: Expression, _ aExpression: Expression, _ bExpression: Expression,
                                  range: SourceRange) -> TypedExpression? {
        let condition = checkCondition(conditionExpression, statement: "?:")
        let a = checkExpression(aExpression), b = checkExpression(bExpression)
        guard let condition, let a, let b else { return nil }
        if a.type == b.type {
            return TypedExpression(.conditional(condition, a, b), type: a.type, range: range)
        }
        guard a.type.vectorWidth > 0, b.type.vectorWidth > 0, let (x, y) = commonOperands(a, b) else {
            error("incompatible operand types ('\(spell(a.type))' and '\(spell(b.type))') in '?:'", at: range,
                  notes: a.type.isVector && b.type.isVector && a.type.vectorWidth == b.type.vectorWidth
                    ? [.init(message: "vector element types never convert implicitly; convert one arm explicitly", range: b.range)] : [])
            return nil
        }
        return TypedExpression(.conditional(condition, x, y), type: x.type, range: range)
    }

    /// A condition of `if`, loops and `?:`: a scalar, converted to bool.
    func checkCondition(_ expression: Expression, statement: String) -> TypedExpression? {
        guard let value = checkExpression(expression) else { return nil }
        guard case .scalar = value.type else {
            var notes: [Diagnostic.Note] = []
            if case .vector(.bool, _) = value.type {
                notes.append(.init(message: "reduce a boolean vector with all(…) or any(…)", range: value.range))
            }
            error("'\(statement)' condition must be a scalar, not '\(spell(value.type))'", at: value.range, notes: notes)
            return nil
        }
        return convertElements(value, to: .bool)
    }

    // MARK: Members, swizzles, subscripts

    private func member(_ object: TypedExpression, name: String, nameRange: SourceRange, arrow: Bool, range: SourceRange) -> TypedExpression? {
        switch object.type {
        case .structure(let index):
            if arrow {
                error("member reference type '\(spell(object.type))' is not a pointer; did you mean to use '.'?", at: nameRange)
                return nil
            }
            return field(of: object, structIndex: index, name: name, nameRange: nameRange, range: range)
        case .pointer(.structure(let index), _):
            if !arrow {
                error("member reference type '\(spell(object.type))' is a pointer; did you mean to use '->'?", at: nameRange)
                return nil
            }
            return field(of: object, structIndex: index, name: name, nameRange: nameRange, range: range)
        case .vector(let kind, let width):
            if arrow {
                error("member reference type '\(spell(object.type))' is not a pointer", at: nameRange)
                return nil
            }
            return swizzle(object, kind: kind, width: width, name: name, nameRange: nameRange, range: range)
        case .texture, .layer:
            error("reference to member function '\(name)' of '\(spell(object.type))' must be called", at: nameRange,
                  fixIt: .init(range: SourceRange(at: nameRange.end), replacement: "()"))
            return nil
        case .scalar:
            error("member reference base type '\(spell(object.type))' is not a structure or vector", at: nameRange,
                  notes: [.init(message: "scalars have no components; use a vector constructor such as float2(x) first", range: object.range)])
            return nil
        default:
            error("member reference base type '\(spell(object.type))' is not a structure or vector", at: nameRange)
            return nil
        }
    }

    private func field(of object: TypedExpression, structIndex: Int, name: String, nameRange: SourceRange, range: SourceRange) -> TypedExpression? {
        let info = structs[structIndex]
        guard let index = info.fields.firstIndex(where: { $0.name == name }) else {
            let suggestion = Self.closestName(to: name, among: info.fields.map(\.name))
            error("no member named '\(name)' in '\(info.name)'" + (suggestion.map { "; did you mean '\($0)'?" } ?? ""), at: nameRange,
                  fixIt: suggestion.map { .init(range: nameRange, replacement: $0) })
            return nil
        }
        return TypedExpression(.member(object, index), type: info.fields[index].type, range: range)
    }

    /// Component indexes of a swizzle name (`xyzw` or `rgba`, not mixed), or nil.
    private func swizzle(_ object: TypedExpression, kind: ScalarKind, width: Int, name: String, nameRange: SourceRange, range: SourceRange) -> TypedExpression? {
        var components: [Int] = []
        var usesXYZW = false, usesRGBA = false
        for byte in name.utf8 {
            switch byte {
            case UInt8(ascii: "x"): components.append(0); usesXYZW = true
            case UInt8(ascii: "y"): components.append(1); usesXYZW = true
            case UInt8(ascii: "z"): components.append(2); usesXYZW = true
            case UInt8(ascii: "w"): components.append(3); usesXYZW = true
            case UInt8(ascii: "r"): components.append(0); usesRGBA = true
            case UInt8(ascii: "g"): components.append(1); usesRGBA = true
            case UInt8(ascii: "b"): components.append(2); usesRGBA = true
            case UInt8(ascii: "a"): components.append(3); usesRGBA = true
            default:
                error("no member named '\(name)' in '\(spell(object.type))': a swizzle uses the letters xyzw or rgba", at: nameRange)
                return nil
            }
        }
        if usesXYZW && usesRGBA {
            error("illegal vector component name '\(name)': xyzw and rgba cannot be mixed in one swizzle", at: nameRange)
            return nil
        }
        guard components.count <= 4 else {
            error("vector swizzle '\(name)' has \(components.count) components; at most 4 are allowed", at: nameRange)
            return nil
        }
        if let outside = components.first(where: { $0 >= width }) {
            let letter = (usesRGBA ? ["r", "g", "b", "a"] : ["x", "y", "z", "w"])[outside]
            error("vector component access exceeds type '\(spell(object.type))' (component '\(letter)' of '\(name)')", at: nameRange)
            return nil
        }
        return TypedExpression(.swizzle(object, components), type: TypeResolver.vector(kind, components.count), range: range)
    }

    private func subscriptExpression(_ object: TypedExpression, _ index: TypedExpression, range: SourceRange) -> TypedExpression? {
        guard case .scalar(let indexKind) = index.type, indexKind.isInteger || indexKind == .bool else {
            error("array subscript is not an integer (it has type '\(spell(index.type))')", at: index.range)
            return nil
        }
        let elementType: KType
        let count: Int?
        switch object.type {
        case .vector(let kind, let n): elementType = .scalar(kind); count = n
        case .matrix(let kind, let c, let r): elementType = .vector(kind, r); count = c
        case .array(let element, let n): elementType = element; count = n
        case .pointer(let pointee, _): elementType = pointee; count = nil
        default:
            error("subscripted value of type '\(spell(object.type))' is not an array, vector, matrix or pointer", at: object.range)
            return nil
        }
        let promoted = promoteIntegral(index)
        if let count, let value = constantValue(of: promoted)?.integerValue, value < 0 || value >= Int64(count) {
            warning("index \(value) is past the end of '\(spell(object.type))' (which has \(count) elements); it reads 0", at: index.range)
        }
        return TypedExpression(.index(object, promoted), type: elementType, range: range)
    }
}

// MARK: - Calls

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
        "dfdx": "derivatives ('dfdx')", "dfdy": "derivatives ('dfdy')", "fwidth": "derivatives ('fwidth')",
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
            // `metal::`, and the `fast::` / `precise::` math namespaces (Kiln's builtins have one
            // precision, language.md §7).
            while path.count > 1, let first = path.first, first == "metal" || first == "fast" || first == "precise" {
                path = path.dropFirst()
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
            let local = current != nil ? scope.lookup(name) : nil
            if local == nil, typeNames[name] != nil || TypeResolver.builtinTypes[name] != nil {
                if typeNames[name] != nil, reportIfDeclaredLater(name, at: callee.range, what: "use of undeclared identifier") { return nil }
                guard let type = typeNames[name] ?? TypeResolver.builtinTypes[name], let values = checkArguments(arguments) else { return nil }
                return construct(type, values, range: range, typeRange: callee.range)
            }
            if let local, current!.poisonedVariables.contains(local) {
                _ = checkArguments(arguments)
                return nil
            }
            if let local {
                error("called object type '\(spell(current!.variables[local].type))' is not a function", at: callee.range,
                      notes: [.init(message: "'\(name)' is the local variable declared here (it hides the function)",
                                    range: current!.variables[local].range)])
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
        if let current {
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

    /// (worst, total) conversion cost of `arguments` for one signature, `nil` if not viable.
    @inline(__always)
    private func rank(_ arguments: [TypedExpression], _ parameters: [KType], _ references: [Bool], required: Int) -> (Int, Int)? {
        guard arguments.count <= parameters.count, arguments.count >= required else { return nil }
        var worst = 0, total = 0
        for index in arguments.indices {
            let argument = arguments[index]
            let cost: Int
            if references[index] {
                guard argument.type == parameters[index], assignabilityProblem(argument) == nil else { return nil }
                cost = 0
            } else {
                guard let c = Self.conversionCost(from: argument.type, to: parameters[index]) else { return nil }
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
        let builtins = BuiltinOverloads.overloads(named: name)
        let users = current == nil ? [] : (overloads[name] ?? [])
        let visible = current?.visiblePosition ?? -1

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
        var anyVisible = false
        for index in users where signatures[index].order <= visible {
            anyVisible = true
            let signature = signatures[index]
            let required = signature.defaults.firstIndex { $0 != nil } ?? signature.parameterTypes.count
            if let cost = rank(arguments, signature.parameterTypes, signature.mutableReferences, required: required) {
                consider(cost, user: index, builtin: nil)
            }
        }
        for (index, overload) in builtins.enumerated() {
            if let cost = rank(arguments, overload.parameters, overload.referenceParameters, required: overload.parameters.count) {
                consider(cost, user: nil, builtin: index)
            }
        }
        if !anyVisible && builtins.isEmpty {
            if poisonedNames.contains(name) { return nil }
            if current == nil, overloads[name] != nil {
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
        let chosen: CallCandidate
        if let index = bestUser {
            let signature = signatures[index]
            chosen = CallCandidate(target: .user(index), parameters: signature.parameterTypes, references: signature.mutableReferences,
                                   defaults: signature.defaults, result: signature.returnType, noteRange: signature.nameRange, name: name)
        } else if let index = bestBuiltin {
            let overload = builtins[index]
            chosen = CallCandidate(target: .builtin(overload), parameters: overload.parameters, references: overload.referenceParameters,
                                   defaults: overload.noDefaults, result: overload.result, noteRange: nil, name: name)
        } else {
            return nil
        }
        var values: [TypedExpression] = []
        for (index, parameter) in chosen.parameters.enumerated() {
            if index < arguments.count {
                if chosen.references[index] {
                    values.append(arguments[index])
                } else {
                    guard let converted = implicitlyConvert(arguments[index], to: parameter, context: .argument(index, name)) else { return nil }
                    values.append(converted)
                }
            } else if let value = chosen.defaults[index] {
                values.append(value)
            }
        }
        switch chosen.target {
        case .builtin(let overload):
            return TypedExpression(.builtin(overload.builtin, values), type: chosen.result, range: range)
        case .user(let index):
            let signature = signatures[index]
            guard let callee = signature.functionID else {
                error("function '\(name)' is declared but never defined", at: nameRange,
                      notes: [.init(message: "declared here", range: signature.nameRange)])
                return nil
            }
            guard noteCall(to: callee, name: name, at: nameRange) else { return nil }
            return TypedExpression(.call(callee, values), type: chosen.result, range: range)
        }
    }

    /// Records a call edge and reports recursion at the call that closes a cycle.
    private func noteCall(to callee: FunctionID, name: String, at range: SourceRange) -> Bool {
        guard let caller = current?.functionID else { return true }
        // One report per cycle-closing edge: `fib(n - 1) + fib(n - 2)` is one mistake.
        if reportedRecursion.contains([caller, callee]) { return false }
        if callee == caller {
            reportedRecursion.insert([caller, callee])
            error("recursive call to '\(name)': recursion is not allowed in Metal shaders", at: range,
                  notes: [.init(message: "rewrite it as a loop", range: nil)])
            return false
        }
        if callees[caller]?.contains(callee) == true { return true }
        callees[caller, default: []].insert(callee)
        calledFunctions.insert(callee)
        // A cycle needs a path back to the caller, so the caller must already have been called
        // (only possible through a prototype); the common case skips the search.
        guard calledFunctions.contains(caller) else { return true }
        // Does the callee (transitively) call the caller already? Then this call closes a cycle.
        var stack = [callee]
        var seen: Set<FunctionID> = [callee]
        while let function = stack.popLast() {
            for next in callees[function] ?? [] where !seen.contains(next) {
                if next == caller {
                    reportedRecursion.insert([caller, callee])
                    error("call to '\(name)' makes '\(current!.name)' indirectly recursive: recursion is not allowed in Metal shaders",
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
                guard argumentExpressions.count == 1 else {
                    if argumentExpressions.count > 1 {
                        unsupported("texture read with a mip level", at: argumentExpressions[1].range)
                    } else {
                        error("no matching member function for call to 'read': texture2d::read takes uint2 coordinates", at: nameRange)
                    }
                    return nil
                }
                guard let coordinates = checkExpression(argumentExpressions[0]) else { return nil }
                guard case .vector(let k, 2) = coordinates.type, k.isInteger else {
                    error("no matching member function for call to 'read': coordinates must be uint2 (or int2), not '\(spell(coordinates.type))'",
                          at: coordinates.range,
                          fixIt: .init(range: coordinates.range, replacement: "uint2(\(text(of: coordinates.range)))"))
                    return nil
                }
                return TypedExpression(.textureRead(object, convertElements(coordinates, to: .uint)), type: result, range: range)
            case "get_width", "get_height":
                if let extra = argumentExpressions.first {
                    guard let lod = checkExpression(extra), let value = constantValue(of: lod)?.integerValue, value == 0 else {
                        unsupported("texture mip levels (only level 0)", at: extra.range)
                        return nil
                    }
                }
                return TypedExpression(.textureSize(object, dimension: name == "get_width" ? 0 : 1), type: .uint, range: range)
            case "write", "gather", "sample_compare", "get_num_mip_levels", "fence":
                unsupported("texture2d::\(name)", at: nameRange)
                return nil
            default:
                error("no member named '\(name)' in '\(spell(object.type))'", at: nameRange,
                      notes: [.init(message: "textures offer sample(s, uv), read(uint2), get_width() and get_height()", range: nil)])
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
            if let state = current?.variables[id].sampler { return .constant(state) }
            if let current, id < current.parameterCount { return .parameter(id) }
        default:
            break
        }
        unsupported("this sampler expression; use a constexpr sampler or a sampler parameter", at: value.range)
        return nil
    }
}
