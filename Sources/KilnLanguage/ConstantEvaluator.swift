/// Evaluates checked expressions that are compile-time scalar constants: array sizes,
/// `case` labels, enum values and the initializers of `constant` globals.
///
/// It works on the typed tree, so names, conversions and operator types are already
/// resolved; it follows the VM's defined semantics (integer division by zero gives 0,
/// float→int conversion saturates and maps NaN to 0) so a folded value never differs
/// from a computed one.
public struct ConstantEvaluator {
    /// Values of `constant` globals whose initializers are constants.
    var globalValue: (GlobalID) -> ConstantValue?
    /// Values of `const` locals initialized with constants.
    var variableValue: (VariableID) -> ConstantValue?

    /// An evaluator that reads globals and variables through the two functions (nil: not
    /// a constant, so neither is any expression that reads it).
    public init(globalValue: @escaping (GlobalID) -> ConstantValue?, variableValue: @escaping (VariableID) -> ConstantValue?) {
        self.globalValue = globalValue
        self.variableValue = variableValue
    }

    /// The value of a scalar expression made of constants, the readable variables and
    /// globals, conversions and operators; nil for anything else.
    public func evaluate(_ expression: TypedExpression) -> ConstantValue? {
        guard case .scalar(let kind) = expression.type else { return nil }
        switch expression.kind {
        case .constant(let value):
            return value
        case .global(let id):
            return globalValue(id)
        case .variable(let id):
            return variableValue(id)
        case .convert(let operand):
            return evaluate(operand).map { $0.converted(to: kind) }
        case .unary(let op, let operand):
            guard let value = evaluate(operand) else { return nil }
            return Self.unary(op, value, kind)
        case .binary(let op, let lhs, let rhs):
            guard let a = evaluate(lhs), let b = evaluate(rhs), let operandKind = lhs.type.scalarKind else { return nil }
            return Self.binary(op, a, b, operandKind: operandKind)
        case .conditional(let condition, let a, let b):
            guard let c = evaluate(condition) else { return nil }
            return c.isTrue ? evaluate(a) : evaluate(b)
        case .sequence(_, let b):
            return evaluate(b)
        default:
            return nil
        }
    }

    static func unary(_ op: TypedUnaryOperator, _ value: ConstantValue, _ kind: ScalarKind) -> ConstantValue? {
        switch (op, value) {
        case (.negate, .int(let i)): return .int(0 &- i)
        case (.negate, .uint(let u)): return .uint(0 &- u)
        case (.negate, .float(let f)): return .float(-f)
        case (.logicalNot, _): return .bool(!value.isTrue)
        case (.bitwiseNot, .int(let i)): return .int(~i)
        case (.bitwiseNot, .uint(let u)): return .uint(~u)
        default: return nil
        }
    }

    /// `a op b` for operands of `operandKind`, as the VM computes it (nil: not an operator
    /// of that kind).
    public static func binary(_ op: TypedBinaryOperator, _ a: ConstantValue, _ b: ConstantValue, operandKind: ScalarKind) -> ConstantValue? {
        switch (a, b) {
        case (.int(let x), .int(let y)):
            switch op {
            case .add: return .int(x &+ y)
            case .subtract: return .int(x &- y)
            case .multiply: return .int(x &* y)
            case .divide: return .int(y == 0 ? 0 : (x == Int32.min && y == -1 ? x : x / y))
            case .remainder: return .int(y == 0 || y == -1 ? 0 : x % y)
            case .shiftLeft: return .int(x << (y & 31))
            case .shiftRight: return .int(x >> (y & 31))
            case .bitwiseAnd: return .int(x & y)
            case .bitwiseOr: return .int(x | y)
            case .bitwiseXor: return .int(x ^ y)
            default: return compare(op, x, y)
            }
        case (.uint(let x), .uint(let y)):
            switch op {
            case .add: return .uint(x &+ y)
            case .subtract: return .uint(x &- y)
            case .multiply: return .uint(x &* y)
            case .divide: return .uint(y == 0 ? 0 : x / y)
            case .remainder: return .uint(y == 0 ? 0 : x % y)
            case .shiftLeft: return .uint(x << (y & 31))
            case .shiftRight: return .uint(x >> (y & 31))
            case .bitwiseAnd: return .uint(x & y)
            case .bitwiseOr: return .uint(x | y)
            case .bitwiseXor: return .uint(x ^ y)
            default: return compare(op, x, y)
            }
        case (.float(let x), .float(let y)):
            switch op {
            case .add: return .float(x + y)
            case .subtract: return .float(x - y)
            case .multiply: return .float(x * y)
            case .divide: return .float(x / y)
            default: return compare(op, x, y)
            }
        case (.bool(let x), .bool(let y)):
            switch op {
            case .logicalAnd: return .bool(x && y)
            case .logicalOr: return .bool(x || y)
            case .equal: return .bool(x == y)
            case .notEqual: return .bool(x != y)
            default: return nil
            }
        default:
            return nil
        }
    }

    private static func compare<T: Comparable>(_ op: TypedBinaryOperator, _ x: T, _ y: T) -> ConstantValue? {
        switch op {
        case .less: return .bool(x < y)
        case .lessEqual: return .bool(x <= y)
        case .greater: return .bool(x > y)
        case .greaterEqual: return .bool(x >= y)
        case .equal: return .bool(x == y)
        case .notEqual: return .bool(x != y)
        default: return nil
        }
    }
}

extension ConstantValue {
    /// Non-zero / true.
    var isTrue: Bool {
        switch self {
        case .bool(let b): return b
        case .int(let i): return i != 0
        case .uint(let u): return u != 0
        case .float(let f): return f != 0
        }
    }

    /// The value as a 64-bit integer (for sizes and labels), `nil` for floats.
    var integerValue: Int64? {
        switch self {
        case .bool(let b): return b ? 1 : 0
        case .int(let i): return Int64(i)
        case .uint(let u): return Int64(u)
        case .float: return nil
        }
    }

    /// The value as a Double (any kind).
    var doubleValue: Double {
        switch self {
        case .bool(let b): return b ? 1 : 0
        case .int(let i): return Double(i)
        case .uint(let u): return Double(u)
        case .float(let f): return Double(f)
        }
    }

    /// C conversion to `kind`, with Kiln's defined results where C has none: float→int
    /// saturates and NaN becomes 0; 16-bit kinds wrap.
    public func converted(to kind: ScalarKind) -> ConstantValue {
        switch kind {
        case .bool:
            return .bool(isTrue)
        case .float, .half:
            switch self {
            case .bool(let b): return .float(b ? 1 : 0)
            case .int(let i): return .float(Float(i))
            case .uint(let u): return .float(Float(u))
            case .float: return self
            }
        case .int, .short, .char:
            let wide: Int32
            switch self {
            case .bool(let b): wide = b ? 1 : 0
            case .int(let i): wide = i
            case .uint(let u): wide = Int32(bitPattern: u)
            case .float(let f):
                if f.isNaN { wide = 0 } else if f >= 0x1p31 { wide = .max } else if f <= -2147483648 { wide = .min } else { wide = Int32(f) }
            }
            switch kind {
            case .short: return .int(Int32(Int16(truncatingIfNeeded: wide)))
            case .char: return .int(Int32(Int8(truncatingIfNeeded: wide)))
            default: return .int(wide)
            }
        case .uint, .ushort, .uchar:
            let wide: UInt32
            switch self {
            case .bool(let b): wide = b ? 1 : 0
            case .int(let i): wide = UInt32(bitPattern: i)
            case .uint(let u): wide = u
            case .float(let f):
                if f.isNaN || f <= 0 { wide = 0 } else if f >= 0x1p32 { wide = .max } else { wide = UInt32(f) }
            }
            switch kind {
            case .ushort: return .uint(UInt32(UInt16(truncatingIfNeeded: wide)))
            case .uchar: return .uint(UInt32(UInt8(truncatingIfNeeded: wide)))
            default: return .uint(wide)
            }
        }
    }
}
