import KilnLanguage

/// Operators of the reference evaluator, written straight from language.md §7 and the
/// semantics column of `Opcode.swift`: IEEE binary32 via Swift `Float`, wrapping
/// two's-complement integers, and Kiln's defined results where C would trap.
enum ReferenceArithmetic {
    static func unary(_ op: TypedUnaryOperator, _ x: ReferenceScalar, kind: ScalarKind) -> ReferenceScalar {
        switch op {
        case .logicalNot:
            return .bool(!x.boolValue)
        case .negate:
            switch x {
            case .float(let f): return .float(-f)
            case .int(let i): return ReferenceScalar.int(0 &- i).converted(to: kind)
            case .uint(let u): return ReferenceScalar.uint(0 &- u).converted(to: kind)
            case .bool(let b): return .int(b ? -1 : 0)
            }
        case .bitwiseNot:
            switch x {
            case .int(let i): return ReferenceScalar.int(~i).converted(to: kind)
            case .uint(let u): return ReferenceScalar.uint(~u).converted(to: kind)
            case .bool(let b): return .int(~(b ? 1 : 0))
            case .float: return x
            }
        }
    }

    /// Applies a binary operator per component, splatting a one-component operand.
    static func componentwise(_ op: TypedBinaryOperator, _ lhs: [ReferenceScalar], _ rhs: [ReferenceScalar],
                              kind: ScalarKind) -> [ReferenceScalar] {
        let n = max(lhs.count, rhs.count)
        return (0..<n).map { i in
            binary(op, lhs[lhs.count == 1 ? 0 : i], rhs[rhs.count == 1 ? 0 : i], kind: kind)
        }
    }

    static func binary(_ op: TypedBinaryOperator, _ a: ReferenceScalar, _ b: ReferenceScalar, kind: ScalarKind) -> ReferenceScalar {
        switch op {
        case .logicalAnd: return .bool(a.boolValue && b.boolValue)
        case .logicalOr: return .bool(a.boolValue || b.boolValue)
        default: break
        }
        switch kind {
        case .float, .half:
            return floatBinary(op, a.floatValue, b.floatValue)
        case .int, .short, .char:
            return intBinary(op, a.intValue, b.intValue).converted(to: op.isComparison ? .bool : (kind == .int ? .int : kind))
        case .uint, .ushort, .uchar:
            return uintBinary(op, a.uintValue, b.uintValue).converted(to: op.isComparison ? .bool : (kind == .uint ? .uint : kind))
        case .bool:
            // Booleans compare and combine as the integers 0 and 1.
            let r = intBinary(op, a.intValue, b.intValue)
            if op.isComparison { return r }
            switch op {
            case .bitwiseAnd, .bitwiseOr, .bitwiseXor: return .bool(r.intValue != 0)
            default: return r
            }
        }
    }

    static func floatBinary(_ op: TypedBinaryOperator, _ a: Float, _ b: Float) -> ReferenceScalar {
        switch op {
        case .add: return .float(a + b)
        case .subtract: return .float(a - b)
        case .multiply: return .float(a * b)
        case .divide: return .float(a / b)
        case .remainder: return .float(ReferenceBuiltins.fmod(a, b))
        case .less: return .bool(a < b)
        case .lessEqual: return .bool(a <= b)
        case .greater: return .bool(a > b)
        case .greaterEqual: return .bool(a >= b)
        case .equal: return .bool(a == b)
        case .notEqual: return .bool(a != b)
        case .logicalAnd: return .bool(a != 0 && b != 0)
        case .logicalOr: return .bool(a != 0 || b != 0)
        case .shiftLeft, .shiftRight, .bitwiseAnd, .bitwiseOr, .bitwiseXor:
            // Not well-typed on floats; semantic analysis never produces it.
            return .float(.nan)
        }
    }

    static func intBinary(_ op: TypedBinaryOperator, _ a: Int32, _ b: Int32) -> ReferenceScalar {
        switch op {
        case .add: return .int(a &+ b)
        case .subtract: return .int(a &- b)
        case .multiply: return .int(a &* b)
        case .divide:
            if b == 0 { return .int(0) }
            if a == .min && b == -1 { return .int(.min) }
            return .int(a / b)
        case .remainder:
            if b == 0 || (a == .min && b == -1) { return .int(0) }
            return .int(a % b)
        case .shiftLeft: return .int(a << (UInt32(bitPattern: b) & 31))
        case .shiftRight: return .int(a >> (UInt32(bitPattern: b) & 31))
        case .bitwiseAnd: return .int(a & b)
        case .bitwiseOr: return .int(a | b)
        case .bitwiseXor: return .int(a ^ b)
        case .less: return .bool(a < b)
        case .lessEqual: return .bool(a <= b)
        case .greater: return .bool(a > b)
        case .greaterEqual: return .bool(a >= b)
        case .equal: return .bool(a == b)
        case .notEqual: return .bool(a != b)
        case .logicalAnd: return .bool(a != 0 && b != 0)
        case .logicalOr: return .bool(a != 0 || b != 0)
        }
    }

    static func uintBinary(_ op: TypedBinaryOperator, _ a: UInt32, _ b: UInt32) -> ReferenceScalar {
        switch op {
        case .add: return .uint(a &+ b)
        case .subtract: return .uint(a &- b)
        case .multiply: return .uint(a &* b)
        case .divide: return .uint(b == 0 ? 0 : a / b)
        case .remainder: return .uint(b == 0 ? 0 : a % b)
        case .shiftLeft: return .uint(a << (b & 31))
        case .shiftRight: return .uint(a >> (b & 31))
        case .bitwiseAnd: return .uint(a & b)
        case .bitwiseOr: return .uint(a | b)
        case .bitwiseXor: return .uint(a ^ b)
        case .less: return .bool(a < b)
        case .lessEqual: return .bool(a <= b)
        case .greater: return .bool(a > b)
        case .greaterEqual: return .bool(a >= b)
        case .equal: return .bool(a == b)
        case .notEqual: return .bool(a != b)
        case .logicalAnd: return .bool(a != 0 && b != 0)
        case .logicalOr: return .bool(a != 0 || b != 0)
        }
    }

    /// `x + delta` for `++`/`--` in the value's own type.
    static func add(_ delta: Int, to x: ReferenceScalar) -> ReferenceScalar {
        switch x {
        case .float(let f): return .float(f + Float(delta))
        case .int(let i): return .int(i &+ Int32(delta))
        case .uint(let u): return .uint(u &+ UInt32(bitPattern: Int32(delta)))
        case .bool: return .bool(true)
        }
    }

    /// Linear-algebra products, summing left to right without fusion:
    /// `m * v`, `v * m` and `m * m` (matrices column-major).
    static func matrixProduct(_ lhs: [ReferenceScalar], _ lhsType: KType,
                              _ rhs: [ReferenceScalar], _ rhsType: KType) -> [ReferenceScalar] {
        let l = lhs.map(\.floatValue), r = rhs.map(\.floatValue)
        func sum(_ terms: [Float]) -> Float { terms.dropFirst().reduce(terms.first ?? 0, +) }
        switch (lhsType, rhsType) {
        case (.matrix(_, let columns, let rows), .vector):
            return (0..<rows).map { i in .float(sum((0..<columns).map { j in l[j * rows + i] * r[j] })) }
        case (.vector, .matrix(_, let columns, let rows)):
            return (0..<columns).map { j in .float(sum((0..<rows).map { i in l[i] * r[j * rows + i] })) }
        case (.matrix(_, let lc, let lr), .matrix(_, let rc, let rr)):
            var result: [ReferenceScalar] = []
            for j in 0..<rc {
                for i in 0..<lr {
                    result.append(.float(sum((0..<min(lc, rr)).map { k in l[k * lr + i] * r[j * rr + k] })))
                }
            }
            return result
        default:
            return componentwise(.multiply, lhs, rhs, kind: .float)
        }
    }
}

extension TypedBinaryOperator {
    var isComparison: Bool {
        switch self {
        case .less, .lessEqual, .greater, .greaterEqual, .equal, .notEqual: return true
        default: return false
        }
    }
}
