import Foundation
import KilnLanguage

/// Builtins of the reference evaluator. Exactly specified ones (rounding, min/max,
/// clamp, mix, step, smoothstep, fma, sqrt, fmod, dot…) follow the formula in
/// `Builtin.swift` / `Opcode.swift` in binary32; transcendental ones are Foundation's
/// `Double` functions rounded to `Float` (the VM must be within a few ulp of those).
enum ReferenceBuiltins {
    /// The builtins whose results the VM only has to approximate (language.md §7 accuracy).
    static let approximate: Set<Builtin> = [
        .sin, .cos, .tan, .asin, .acos, .atan, .sinh, .cosh, .tanh, .atan2, .exp, .exp2, .log, .log2,
        .log10, .rsqrt, .pow, .powr, .length, .distance, .normalize, .refract,
    ]

    static let largestBelowOne = Float(bitPattern: 0x3F7F_FFFF)   // 0x1.fffffep-1

    static func double(_ x: Float, _ f: (Double) -> Double) -> Float { Float(f(Double(x))) }

    /// `fmin`: if one operand is NaN, the other.
    static func fmin(_ a: Float, _ b: Float) -> Float {
        if a.isNaN { return b }
        if b.isNaN { return a }
        return b < a ? b : a
    }

    static func fmax(_ a: Float, _ b: Float) -> Float {
        if a.isNaN { return b }
        if b.isNaN { return a }
        return b > a ? b : a
    }

    /// C `fmodf`, exact: the remainder of two floats is representable, so the `Double`
    /// computation rounds to the exact result.
    static func fmod(_ x: Float, _ y: Float) -> Float { Float(Foundation.fmod(Double(x), Double(y))) }

    /// C `modf`: fractional part with the sign of `x`, integral part truncated.
    static func modf(_ x: Float) -> (fractional: Float, integral: Float) {
        if x.isNaN { return (x, x) }
        if x.isInfinite { return (Float(sign: x.sign, exponent: 0, significand: 0), x) }
        let integral = x.rounded(.towardZero)
        return (Float(sign: x.sign, exponent: 0, significand: 1) * abs(x - integral), integral)
    }

    static func sign(_ x: Float) -> Float {
        if x > 0 { return 1 }
        if x < 0 { return -1 }
        if x.isNaN { return 0 }
        return x
    }

    /// `min(x − ⌊x⌋, 0x1.fffffep-1)` as `Opcode.ffract` states it, with a plain `min`: NaN
    /// (also from ±∞ − ±∞) propagates. (With `fmin`'s NaN rule it would give 0x1.fffffep-1;
    /// language.md does not say which — reported to the lead.)
    static func fract(_ x: Float) -> Float {
        let difference = x - x.rounded(.down)
        return difference.isNaN ? difference : Swift.min(difference, largestBelowOne)
    }

    static func dot(_ a: [Float], _ b: [Float]) -> Float {
        var sum = a[0] * b[0]
        for i in 1..<a.count { sum = sum + a[i] * b[i] }
        return sum
    }

    static func evaluate(_ builtin: Builtin, _ args: [[ReferenceScalar]], argumentTypes: [KType],
                         resultType: KType, structs: [StructInfo]) throws(ReferenceError) -> [ReferenceScalar] {
        let floats = args.map { $0.map(\.floatValue) }
        switch builtin {
        case .dot, .lengthSquared:
            let b = builtin == .dot ? floats[1] : floats[0]
            return [.float(dot(floats[0], b))]
        case .length:
            return [.float(Float(Foundation.sqrt(floats[0].reduce(0.0) { $0 + Double($1) * Double($1) })))]
        case .distance:
            let d = zip(floats[0], floats[1]).map { Double($0) - Double($1) }
            return [.float(Float(Foundation.sqrt(d.reduce(0.0) { $0 + $1 * $1 })))]
        case .distanceSquared:
            let d = zip(floats[0], floats[1]).map { $0 - $1 }
            return [.float(dot(d, d))]
        case .normalize:
            let length = Foundation.sqrt(floats[0].reduce(0.0) { $0 + Double($1) * Double($1) })
            return floats[0].map { .float(Float(Double($0) / length)) }
        case .cross:
            let a = floats[0], b = floats[1]
            return [.float(a[1] * b[2] - a[2] * b[1]), .float(a[2] * b[0] - a[0] * b[2]), .float(a[0] * b[1] - a[1] * b[0])]
        case .reflect:
            let i = floats[0], n = floats[1]
            let d = dot(n, i)
            return zip(i, n).map { .float($0 - 2 * d * $1) }
        case .refract:
            let i = floats[0], n = floats[1], eta = floats[2][0]
            let d = dot(n, i)
            let k = 1 - eta * eta * (1 - d * d)
            if k < 0 { return i.map { _ in .float(0) } }
            return zip(i, n).map { .float(eta * $0 - (eta * d + k.squareRoot()) * $1) }
        case .faceforward:
            let keep = dot(floats[2], floats[1]) < 0
            return floats[0].map { .float(keep ? $0 : -$0) }
        case .all:
            return [.bool(args[0].allSatisfy(\.boolValue))]
        case .any:
            return [.bool(args[0].contains(where: \.boolValue))]
        case .transpose:
            guard case .matrix(_, let columns, let rows) = argumentTypes[0] else { break }
            var result: [ReferenceScalar] = []
            for r in 0..<rows { for c in 0..<columns { result.append(.float(floats[0][c * rows + r])) } }
            return result
        case .determinant:
            guard case .matrix(_, let n, _) = argumentTypes[0] else { break }
            return [.float(determinant(floats[0], n))]
        default:
            let n = resultType.componentCount(structs: structs)
            return try (0..<n).map { i throws(ReferenceError) in
                try component(builtin, args.map { $0.count == 1 ? $0[0] : $0[i] })
            }
        }
        throw ReferenceError(message: "unsupported builtin shape \(builtin)")
    }

    static func determinant(_ m: [Float], _ n: Int) -> Float {
        func at(_ c: Int, _ r: Int) -> Float { m[c * n + r] }
        switch n {
        case 2: return at(0, 0) * at(1, 1) - at(1, 0) * at(0, 1)
        case 3:
            return at(0, 0) * (at(1, 1) * at(2, 2) - at(2, 1) * at(1, 2))
                - at(1, 0) * (at(0, 1) * at(2, 2) - at(2, 1) * at(0, 2))
                + at(2, 0) * (at(0, 1) * at(1, 2) - at(1, 1) * at(0, 2))
        default:
            // Laplace expansion along the first column.
            var total: Float = 0
            for row in 0..<n {
                var minor: [Float] = []
                for c in 1..<n { for r in 0..<n where r != row { minor.append(at(c, r)) } }
                let term = at(0, row) * determinant(minor, n - 1)
                total = row % 2 == 0 ? total + term : total - term
            }
            return total
        }
    }

    /// One component of a component-wise builtin; `x` holds that component of every argument.
    static func component(_ builtin: Builtin, _ x: [ReferenceScalar]) throws(ReferenceError) -> ReferenceScalar {
        let f = x.map(\.floatValue)
        // Integer overloads (abs, min, max, clamp, min3, max3, select on ints).
        if case .int(let a) = x[0], builtin != .select {
            let i = x.map(\.intValue)
            switch builtin {
            case .abs: return .int(a == .min ? .min : Swift.abs(a))
            case .min: return .int(Swift.min(i[0], i[1]))
            case .max: return .int(Swift.max(i[0], i[1]))
            case .min3: return .int(Swift.min(i[0], i[1], i[2]))
            case .max3: return .int(Swift.max(i[0], i[1], i[2]))
            case .clamp: return .int(Swift.min(Swift.max(i[0], i[1]), i[2]))
            case .sign: return .int(a > 0 ? 1 : a < 0 ? -1 : 0)
            default: break
            }
        }
        if case .uint(let a) = x[0], builtin != .select {
            let u = x.map(\.uintValue)
            switch builtin {
            case .abs: return .uint(a)
            case .min: return .uint(Swift.min(u[0], u[1]))
            case .max: return .uint(Swift.max(u[0], u[1]))
            case .min3: return .uint(Swift.min(u[0], u[1], u[2]))
            case .max3: return .uint(Swift.max(u[0], u[1], u[2]))
            case .clamp: return .uint(Swift.min(Swift.max(u[0], u[1]), u[2]))
            default: break
            }
        }
        switch builtin {
        case .sin: return .float(double(f[0], Foundation.sin))
        case .cos: return .float(double(f[0], Foundation.cos))
        case .tan: return .float(double(f[0], Foundation.tan))
        case .asin: return .float(double(f[0], Foundation.asin))
        case .acos: return .float(double(f[0], Foundation.acos))
        case .atan: return .float(double(f[0], Foundation.atan))
        case .sinh: return .float(double(f[0], Foundation.sinh))
        case .cosh: return .float(double(f[0], Foundation.cosh))
        case .tanh: return .float(double(f[0], Foundation.tanh))
        case .atan2: return .float(Float(Foundation.atan2(Double(f[0]), Double(f[1]))))
        case .exp: return .float(double(f[0], Foundation.exp))
        case .exp2: return .float(double(f[0], Foundation.exp2))
        case .log: return .float(double(f[0], Foundation.log))
        case .log2: return .float(double(f[0], Foundation.log2))
        case .log10: return .float(double(f[0], Foundation.log10))
        case .sqrt: return .float(f[0].squareRoot())
        case .rsqrt: return .float(Float(1 / Foundation.sqrt(Double(f[0]))))
        case .pow, .powr: return .float(Float(Foundation.pow(Double(f[0]), Double(f[1]))))
        case .floor: return .float(f[0].rounded(.down))
        case .ceil: return .float(f[0].rounded(.up))
        case .trunc: return .float(f[0].rounded(.towardZero))
        case .round: return .float(f[0].rounded(.toNearestOrAwayFromZero))
        case .rint: return .float(f[0].rounded(.toNearestOrEven))
        case .fract: return .float(fract(f[0]))
        case .abs, .fabs: return .float(Swift.abs(f[0]))
        case .min, .fmin: return .float(fmin(f[0], f[1]))
        case .max, .fmax: return .float(fmax(f[0], f[1]))
        case .min3: return .float(fmin(fmin(f[0], f[1]), f[2]))
        case .max3: return .float(fmax(fmax(f[0], f[1]), f[2]))
        case .clamp: return .float(fmin(fmax(f[0], f[1]), f[2]))
        case .saturate: return .float(fmin(fmax(f[0], 0), 1))
        case .sign: return .float(sign(f[0]))
        case .fmod: return .float(fmod(f[0], f[1]))
        case .mix: return .float(f[0] + (f[1] - f[0]) * f[2])
        case .step: return .float(f[1] < f[0] ? 0 : 1)
        case .smoothstep:
            let t = fmin(fmax((f[2] - f[0]) / (f[1] - f[0]), 0), 1)
            return .float(t * t * (3 - 2 * t))
        case .fma: return .float(f[2].addingProduct(f[0], f[1]))
        case .select: return x[2].boolValue ? x[1] : x[0]
        case .isnan: return .bool(f[0].isNaN)
        case .isinf: return .bool(f[0].isInfinite)
        default:
            throw ReferenceError(message: "builtin \(builtin.rawValue) is not component-wise")
        }
    }
}
