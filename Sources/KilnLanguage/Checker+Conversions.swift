/// Conversions (language.md §2, MSL = C++ rules), constructors and initializers.
///
/// Implicit conversions: scalar ↔ scalar (usual arithmetic conversions) and scalar → vector
/// (splat). A vector never converts implicitly to a vector of another element type; that
/// needs a constructor, which the error suggests. Constructors compose components.
extension Checker {
    /// What an implicit conversion is for; it words the error.
    enum ConversionContext {
        case initializing(String)
        case assigning
        case returning(String)
        case argument(Int, String)
        case operand
    }

    // MARK: Costs (overload ranking)

    /// Cost of converting one scalar kind to another: 0 exact, 1 half→float promotion,
    /// 2 integral/floating conversions, 3 conversions to half, 4 to bool, 5 floating→integer
    /// (narrowing). Ranking by these prefers `float` overloads for int literals and keeps
    /// `clamp(x, 0, 1)` on a float `x` a float clamp, as Metal's templates do.
    static func scalarCost(from a: ScalarKind, to b: ScalarKind) -> Int {
        if a == b { return 0 }
        if b == .bool { return 4 }
        if a == .bool { return 2 }
        switch (a.isFloat, b.isFloat) {
        case (true, true): return a == .half ? 1 : 3
        case (false, true): return b == .half ? 3 : 2
        case (true, false): return 5
        case (false, false): return 2
        }
    }

    /// Cost of an implicit conversion, `nil` if there is none. A splat costs 4 more than the
    /// scalar conversion it needs.
    static func conversionCost(from source: KType, to target: KType) -> Int? {
        if source == target { return 0 }
        switch (source, target) {
        case (.scalar(let a), .scalar(let b)): return scalarCost(from: a, to: b)
        case (.scalar(let a), .vector(let b, _)): return scalarCost(from: a, to: b) + 4
        case (.array(let element, _), .pointer(let pointee, .thread)) where element == pointee: return 1
        default: return nil
        }
    }

    // MARK: Building conversions

    /// Converts a scalar or vector element-wise to `kind` (no checks); constants fold.
    func convertElements(_ expression: TypedExpression, to kind: ScalarKind) -> TypedExpression {
        let target: KType
        switch expression.type {
        case .scalar(let k):
            if k == kind { return expression }
            target = .scalar(kind)
        case .vector(let k, let n):
            if k == kind { return expression }
            target = .vector(kind, n)
        case .matrix(let k, let c, let r):
            if k == kind { return expression }
            target = .matrix(kind, columns: c, rows: r)
        default:
            return expression
        }
        if case .constant(let value) = expression.kind {
            return TypedExpression(.constant(value.converted(to: kind)), type: target, range: expression.range)
        }
        return TypedExpression(.convert(expression), type: target, range: expression.range)
    }

    /// Splats a scalar to vector (or matrix: every component) `type`, converting it to the
    /// element kind first.
    func splat(_ scalar: TypedExpression, to type: KType) -> TypedExpression {
        guard let kind = type.scalarKind else { return scalar }
        return TypedExpression(.convert(convertElements(scalar, to: kind)), type: type, range: scalar.range)
    }

    /// Applies an implicit conversion to `target`, or reports why there is none.
    func implicitlyConvert(_ expression: TypedExpression, to target: KType, context: ConversionContext) -> TypedExpression? {
        let source = expression.type
        if source == target { return expression }
        switch (source, target) {
        case (.scalar, .scalar(let kind)):
            return convertElements(expression, to: kind)
        case (.scalar, .vector):
            return splat(expression, to: target)
        case (.array(let element, _), .pointer(let pointee, .thread)) where element == pointee:
            // An array argument decays to a pointer to its first element.
            return TypedExpression(.addressOf(expression), type: target, range: expression.range)
        default:
            break
        }
        reportConversionFailure(expression, to: target, context: context)
        return nil
    }

    private func reportConversionFailure(_ expression: TypedExpression, to target: KType, context: ConversionContext) {
        let from = spell(expression.type), to = spell(target)
        var message: String
        switch context {
        case .initializing(let name):
            message = "cannot initialize '\(name)' of type '\(to)' with a value of type '\(from)'"
        case .assigning:
            message = "assigning to '\(to)' from incompatible type '\(from)'"
        case .returning(let function):
            message = "no viable conversion from returned value of type '\(from)' to function return type '\(to)' of '\(function)'"
        case .argument(let index, let function):
            message = "no viable conversion from '\(from)' to '\(to)' for argument \(index + 1) of '\(function)'"
        case .operand:
            message = "cannot convert '\(from)' to '\(to)'"
        }
        var notes: [Diagnostic.Note] = []
        var fixIt: Diagnostic.FixIt?
        switch (expression.type, target) {
        case (.vector(let a, let n), .vector(let b, let m)) where n == m && a != b:
            let place: String
            switch context {
            case .initializing(let name): place = " when initializing '\(name)'"
            case .assigning: place = " in assignment"
            case .returning(let function): place = " when returning from '\(function)'"
            case .argument(let index, let function): place = " for argument \(index + 1) of '\(function)'"
            case .operand: place = ""
            }
            message = "cannot convert '\(from)' to '\(to)'\(place)"
            notes.append(.init(message: "vector element types never convert implicitly; use an explicit conversion '\(to)(…)'",
                               range: expression.range))
            fixIt = .init(range: expression.range, replacement: "\(to)(\(text(of: expression.range)))")
        case (.matrix(let a, let c, let r), .matrix(let b, let c2, let r2)) where c == c2 && r == r2 && a != b:
            notes.append(.init(message: "matrix element types never convert implicitly; use an explicit conversion '\(to)(…)'",
                               range: expression.range))
            fixIt = .init(range: expression.range, replacement: "\(to)(\(text(of: expression.range)))")
        case (.vector(_, let n), .vector(_, let m)) where n != m:
            notes.append(.init(message: "vectors of \(n) and \(m) components; use a swizzle or a constructor", range: expression.range))
        case (.vector, .scalar):
            notes.append(.init(message: "use a component (.x) or a reduction such as length() to get a scalar", range: expression.range))
        default:
            break
        }
        error(message, at: expression.range, notes: notes, fixIt: fixIt)
    }

    /// Checks `expression` and converts it to `target`; `{…}` lists take `target`'s shape.
    func checkConverted(_ expression: Expression, to target: KType, context: ConversionContext) -> TypedExpression? {
        if case .initializerList(let items) = expression.kind {
            return checkList(items.map(Self.initializer(of:)), range: expression.range, to: target)
        }
        guard let value = checkExpression(expression) else { return nil }
        return implicitlyConvert(value, to: target, context: context)
    }

    static func initializer(of expression: Expression) -> Initializer {
        if case .initializerList(let items) = expression.kind {
            return .list(items.map(initializer(of:)), expression.range)
        }
        return .expression(expression)
    }

    /// Checks a declarator's initializer against the declared type.
    func checkInitializer(_ initializer: Initializer, to target: KType, name: String) -> TypedExpression? {
        switch initializer {
        case .expression(let e):
            return checkConverted(e, to: target, context: .initializing(name))
        case .list(let items, let range):
            return checkList(items, range: range, to: target)
        case .constructor(let arguments, let range):
            var typed: [TypedExpression] = []
            for argument in arguments {
                guard let value = checkExpression(argument) else { return nil }
                typed.append(value)
            }
            return construct(target, typed, range: range, typeRange: range)
        }
    }

    /// `{a, b, …}` for arrays (missing elements are zero), structs (missing fields are
    /// zero), vectors/matrices (exactly as a constructor) and scalars (`{x}`).
    func checkList(_ items: [Initializer], range: SourceRange, to target: KType) -> TypedExpression? {
        switch target {
        case .array(let element, let count):
            guard items.count <= count else {
                error("excess elements in array initializer (expected \(count), have \(items.count))", at: items[count].range)
                return nil
            }
            var elements: [TypedExpression] = []
            var ok = true
            for item in items {
                if let value = checkInitializer(item, to: element, name: "array element") { elements.append(value) } else { ok = false }
            }
            guard ok else { return nil }
            while elements.count < count {
                guard let zero = zeroValue(element, range: range) else { return nil }
                elements.append(zero)
            }
            return TypedExpression(.construct(elements), type: target, range: range)
        case .structure(let index):
            let fields = structs[index].fields
            guard items.count <= fields.count else {
                error("excess elements in struct initializer (struct '\(structs[index].name)' has \(fields.count) members)",
                      at: items[fields.count].range)
                return nil
            }
            var values: [TypedExpression] = []
            var ok = true
            for (item, field) in zip(items, fields) {
                if let value = checkInitializer(item, to: field.type, name: field.name) { values.append(value) } else { ok = false }
            }
            guard ok else { return nil }
            for field in fields.dropFirst(values.count) {
                guard let zero = zeroValue(field.type, range: range) else { return nil }
                values.append(zero)
            }
            return TypedExpression(.construct(values), type: target, range: range)
        case .scalar, .vector, .matrix:
            var values: [TypedExpression] = []
            for item in items {
                guard case .expression(let e) = item else {
                    error("braces around a scalar initializer are not allowed here", at: item.range)
                    return nil
                }
                guard let value = checkExpression(e) else { return nil }
                values.append(value)
            }
            if target.isScalar {
                guard values.count <= 1 else {
                    error("excess elements in scalar initializer", at: values[1].range)
                    return nil
                }
                guard let value = values.first else { return zeroValue(target, range: range) }
                return implicitlyConvert(value, to: target, context: .operand)
            }
            if values.isEmpty { return zeroValue(target, range: range) }
            return construct(target, values, range: range, typeRange: range)
        default:
            error("cannot initialize a value of type '\(spell(target))' with an initializer list", at: range)
            return nil
        }
    }

    /// The zero of a type (Kiln zero-initializes what C leaves undefined).
    func zeroValue(_ type: KType, range: SourceRange) -> TypedExpression? {
        switch type {
        case .scalar(let kind):
            return TypedExpression(.constant(ConstantValue.int(0).converted(to: kind)), type: type, range: range)
        case .vector(let kind, _), .matrix(let kind, _, _):
            guard let zero = zeroValue(.scalar(kind), range: range) else { return nil }
            return TypedExpression(.construct([zero]), type: type, range: range)
        case .array(let element, let n):
            guard let zero = zeroValue(element, range: range) else { return nil }
            return TypedExpression(.construct(Array(repeating: zero, count: n)), type: type, range: range)
        case .structure(let index):
            var values: [TypedExpression] = []
            for field in structs[index].fields {
                guard let zero = zeroValue(field.type, range: range) else { return nil }
                values.append(zero)
            }
            return TypedExpression(.construct(values), type: type, range: range)
        default:
            error("a value of type '\(spell(type))' cannot be default-initialized", at: range)
            return nil
        }
    }

    // MARK: Constructors and casts

    /// `T(args…)`, `(T)x`, `static_cast<T>(x)`: explicit conversions and composition.
    func construct(_ type: KType, _ arguments: [TypedExpression], range: SourceRange, typeRange: SourceRange) -> TypedExpression? {
        let name = spell(type)
        switch type {
        case .scalar(let kind):
            if arguments.isEmpty { return zeroValue(type, range: range) }
            guard arguments.count == 1, case .scalar = arguments[0].type else {
                if arguments.count > 1 {
                    error("excess elements in scalar initializer: '\(name)' takes one value", at: arguments[1].range)
                } else {
                    error("no matching conversion for functional-style cast from '\(spell(arguments[0].type))' to '\(name)'",
                          at: arguments[0].range,
                          notes: arguments[0].type.isVector ? [.init(message: "pick a component, e.g. .x", range: arguments[0].range)] : [])
                }
                return nil
            }
            let converted = convertElements(arguments[0], to: kind)
            return converted === arguments[0] ? arguments[0] : TypedExpression(converted.kind, type: type, range: range)
        case .vector(let kind, let n):
            if arguments.isEmpty { return zeroValue(type, range: range) }
            if arguments.count == 1 {
                let argument = arguments[0]
                switch argument.type {
                case .scalar:
                    return TypedExpression(.construct([convertElements(argument, to: kind)]), type: type, range: range)
                case .vector(_, let m) where m == n:
                    let converted = convertElements(argument, to: kind)
                    return TypedExpression(converted === argument ? .construct([argument]) : converted.kind, type: type, range: range)
                case .vector(let from, let m) where m > n:
                    // `half3(someHalf4)`: Apple's compiler takes the first components (as
                    // `.xyz` would), and real shaders rely on it.
                    let first = TypedExpression(.swizzle(argument, Array(0..<n)), type: .vector(from, n), range: argument.range)
                    let converted = convertElements(first, to: kind)
                    return TypedExpression(converted === first ? .construct([first]) : converted.kind, type: type, range: range)
                default:
                    break
                }
            }
            return composeComponents(type, kind: kind, count: n, arguments, range: range)
        case .matrix(let kind, let c, let r):
            if arguments.isEmpty { return zeroValue(type, range: range) }
            if arguments.count == 1 {
                let argument = arguments[0]
                switch argument.type {
                case .scalar:
                    return TypedExpression(.construct([convertElements(argument, to: kind)]), type: type, range: range)
                case .matrix(_, let c2, let r2) where c2 == c && r2 == r:
                    return convertElements(argument, to: kind)
                default:
                    break
                }
            }
            return composeComponents(type, kind: kind, count: c * r, arguments, range: range)
        case .structure, .array:
            if arguments.isEmpty { return zeroValue(type, range: range) }
            if arguments.count == 1, arguments[0].type == type { return arguments[0] }
            error("no matching constructor for initialization of '\(name)'", at: typeRange,
                  notes: [.init(message: "initialize an aggregate with braces: \(name){…}", range: range)])
            return nil
        default:
            error("cannot construct a value of type '\(name)'", at: typeRange)
            return nil
        }
    }

    /// Concatenates the components of scalar and vector arguments into `count` components.
    private func composeComponents(_ type: KType, kind: ScalarKind, count: Int, _ arguments: [TypedExpression], range: SourceRange) -> TypedExpression? {
        var total = 0
        var parts: [TypedExpression] = []
        parts.reserveCapacity(arguments.count)
        for argument in arguments {
            switch argument.type {
            case .scalar, .vector:
                total += argument.type.vectorWidth
                parts.append(convertElements(argument, to: kind))
            default:
                error("cannot use a value of type '\(spell(argument.type))' to initialize '\(spell(type))'", at: argument.range)
                return nil
            }
        }
        guard total == count else {
            let what = type.isVector ? "vector" : "matrix"
            error("too \(total < count ? "few" : "many") elements in \(what) initialization (expected \(count) elements, have \(total))",
                  at: range)
            return nil
        }
        return TypedExpression(.construct(parts), type: type, range: range)
    }
}
