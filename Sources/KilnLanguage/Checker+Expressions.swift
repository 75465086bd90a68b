/// Expressions: names, literals, operators, assignment, member access, swizzles and
/// indexing. Calls, overload resolution and texture/layer methods are in Checker+Calls.swift.
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
        values.reserveCapacity(arguments.count)
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
    private func checkName(_ fullPath: NamePath, range: SourceRange) -> TypedExpression? {
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
        if current.isFunction, let id = scope.lookup(name) {
            if current.poisonedVariables.contains(id) { return nil }
            return TypedExpression(.variable(id), type: current.variables[id].type, range: range)
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
        if typeNames[name] != nil || TypeResolver.builtinType(named: name) != nil {
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
        case .addressOf:
            return addressOf(value, range: range)
        case .dereference:
            guard case .pointer(let pointee, let space) = type else {
                error("indirection requires pointer operand ('\(spell(type))' invalid)", at: range)
                return nil
            }
            if space == .thread { return TypedExpression(.dereference(value), type: pointee, range: range) }
            // `*buffer` is `buffer[0]`.
            return TypedExpression(.index(value, constant(.int(0), .int, range)), type: pointee, range: range)
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

    /// C's integral promotion: bool, 8- and 16-bit integer scalars compute as int.
    func promoteIntegral(_ value: TypedExpression) -> TypedExpression {
        if case .scalar(let kind) = value.type, kind == .bool || kind.isSmallInteger {
            return convertElements(value, to: .int)
        }
        return value
    }

    /// The usual arithmetic conversions of two scalar kinds.
    static func commonScalar(_ a: ScalarKind, _ b: ScalarKind) -> ScalarKind {
        if a == .float || b == .float { return .float }
        if a == .half || b == .half { return .half }
        func promoted(_ k: ScalarKind) -> ScalarKind { k == .bool || k.isSmallInteger ? .int : k }
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
    /// Why the memory a `thread T *` points at cannot be assigned (`thread const T *`), if it cannot.
    private func pointeeProblem(_ pointer: TypedExpression) -> String? {
        if case .variable(let id) = pointer.kind, current.isFunction, current.variables[id].isConst {
            let spelling = id < current.parameterSpellings.count ? current.parameterSpellings[id] : spell(pointer.type)
            return "cannot assign through '\(current.variables[id].name)': it points to const ('\(spelling)')"
        }
        return nil
    }

    /// `&x`: a `thread T *` to a local, a parameter, or a part of one — memory that lives in
    /// the function, which is all a `thread` pointer can point at.
    private func addressOf(_ value: TypedExpression, range: SourceRange) -> TypedExpression? {
        var root = value
        while true {
            switch root.kind {
            case .swizzle(let a, _), .member(let a, _), .index(let a, _), .dereference(let a): root = a; continue
            default: break
            }
            break
        }
        switch (root.kind, root.type) {
        case (.variable, .pointer(_, .thread)): break
        case (.variable, .pointer), (.variable, .texture), (.variable, .sampler), (.variable, .layer):
            unsupported("taking the address of '\(spell(root.type))' data", at: range)
            return nil
        case (.variable, _): break
        case (.global, _):
            unsupported("pointers to program-scope constant data", at: range)
            return nil
        default:
            error("cannot take the address of an rvalue of type '\(spell(value.type))'", at: range)
            return nil
        }
        var vectorElement = false
        switch value.kind {
        case .swizzle: vectorElement = true
        case .index(let base, _): vectorElement = base.type.isVector
        default: break
        }
        if vectorElement {
            error("address of vector element requested", at: range)
            return nil
        }
        return TypedExpression(.addressOf(value), type: .pointer(value.type, .thread), range: range)
    }

    func assignabilityProblem(_ value: TypedExpression) -> String? {
        switch value.kind {
        case .variable(let id):
            guard current.isFunction, case let variable = current.variables[id] else { return "expression is not assignable" }
            if variable.isConst {
                let spelling = id < current.parameterSpellings.count ? current.parameterSpellings[id] : "const \(spell(variable.type))"
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
                if space == .thread { return pointeeProblem(base) }
                return "cannot assign through a read-only pointer '\(space.rawValue) const \(spell(pointee)) *'"
            }
            return assignabilityProblem(base)
        case .dereference(let pointer):
            return pointeeProblem(pointer)
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
        case .pointer(let pointee, .thread) where arrow:
            // `p->f` of thread memory is `(*p).f`, an lvalue like any local's field or component.
            return member(TypedExpression(.dereference(object), type: pointee, range: object.range),
                          name: name, nameRange: nameRange, arrow: false, range: range)
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

    /// Every swizzle's component indexes, made once for the process and shared by every
    /// swizzle node (one array per `.xy` was a sixth of checking a member access): the
    /// 4ⁿ swizzles of n components, n = 1…4, in order, at `(4ⁿ − 4) / 3 + code` where
    /// `code` reads the indexes as base-4 digits, first component most significant.
    static let swizzleIndexes: [[Int]] = (1...4).flatMap { count in
        (0..<(1 << (2 * count))).map { code in (0..<count).map { code >> (2 * (count - 1 - $0)) & 3 } }
    }

    /// Component indexes of a swizzle name (`xyzw` or `rgba`, not mixed), or nil.
    private func swizzle(_ object: TypedExpression, kind: ScalarKind, width: Int, name: String, nameRange: SourceRange, range: SourceRange) -> TypedExpression? {
        var code = 0, count = 0
        var firstOutside: Int?
        var usesXYZW = false, usesRGBA = false
        for byte in name.utf8 {
            let index: Int
            switch byte {
            case UInt8(ascii: "x"): index = 0; usesXYZW = true
            case UInt8(ascii: "y"): index = 1; usesXYZW = true
            case UInt8(ascii: "z"): index = 2; usesXYZW = true
            case UInt8(ascii: "w"): index = 3; usesXYZW = true
            case UInt8(ascii: "r"): index = 0; usesRGBA = true
            case UInt8(ascii: "g"): index = 1; usesRGBA = true
            case UInt8(ascii: "b"): index = 2; usesRGBA = true
            case UInt8(ascii: "a"): index = 3; usesRGBA = true
            default:
                error("no member named '\(name)' in '\(spell(object.type))': a swizzle uses the letters xyzw or rgba", at: nameRange)
                return nil
            }
            if index >= width && firstOutside == nil { firstOutside = index }
            if count < 4 { code = code << 2 | index }
            count += 1
        }
        if usesXYZW && usesRGBA {
            error("illegal vector component name '\(name)': xyzw and rgba cannot be mixed in one swizzle", at: nameRange)
            return nil
        }
        guard count <= 4 else {
            error("vector swizzle '\(name)' has \(count) components; at most 4 are allowed", at: nameRange)
            return nil
        }
        if let outside = firstOutside {
            let letter = (usesRGBA ? ["r", "g", "b", "a"] : ["x", "y", "z", "w"])[outside]
            error("vector component access exceeds type '\(spell(object.type))' (component '\(letter)' of '\(name)')", at: nameRange)
            return nil
        }
        let components = count == 0 ? [] : Self.swizzleIndexes[((1 << (2 * count)) - 4) / 3 + code]
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
