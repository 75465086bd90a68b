import KilnBytecode

/// 32-bit integer arithmetic (wrapping), bitwise and logical operations, comparisons.
/// Nothing traps: division by zero and `INT_MIN ÷ −1` are answered before dividing, shifts
/// use Swift's masking shifts (`&<<`, `&>>`: amount & 31).
extension Execution {
    @inline(__always) static func s(_ bits: UInt32) -> Int32 { Int32(bitPattern: bits) }

    @inline(__always) static func iadd(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        if n == laneCount { return groups(m, i, of: UInt32.self) { $0 &+ $1 } }
        let a = m[i.a], b = m[i.b], c = m[i.c]
        for l in 0..<n { a[l] = b[l] &+ c[l] }
    }
    @inline(__always) static func isub(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        if n == laneCount { return groups(m, i, of: UInt32.self) { $0 &- $1 } }
        let a = m[i.a], b = m[i.b], c = m[i.c]
        for l in 0..<n { a[l] = b[l] &- c[l] }
    }
    @inline(__always) static func imul(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        if n == laneCount { return groups(m, i, of: UInt32.self) { $0 &* $1 } }
        let a = m[i.a], b = m[i.b], c = m[i.c]
        for l in 0..<n { a[l] = b[l] &* c[l] }
    }
    // Division and remainder, a group of lanes at a time through binary64. x86 has no vector
    // integer division, and a divide per lane was ten times the cost of a float operation
    // (`k / 7 + k % 5` in a loop). Every Int32 and UInt32 is exact in binary64, and the
    // rounded quotient truncates to the true one: it is within |x/y|·2⁻⁵³ < 1/|y| of x/y
    // (|x| < 2⁵³), and a quotient that is not an integer is at least 1/|y| from the next one.
    // The remainder x − q·y is exact in binary64 too. The answers for ÷0 and INT_MIN ÷ −1
    // are those of the scalar rules below (`IntegerDivisionTests` compares every path).

    /// Truncated quotients (0 where y is 0) and remainders (0 there too) of exact integers.
    @inline(__always) static func divide(_ x: LaneGroup<Double>, _ y: LaneGroup<Double>)
        -> (quotient: LaneGroup<Double>, remainder: LaneGroup<Double>) {
        let zero = y .== 0
        var q = (x / y.replacing(with: 1, where: zero)).rounded(.towardZero)
        q.replace(with: 0, where: zero)
        var r = x - q * y
        r.replace(with: 0, where: zero)
        return (q, r)
    }

    /// An integral binary64 of magnitude ≤ 2³² as the low 32 bits of its two's complement
    /// (2³¹, INT_MIN ÷ −1's quotient, wraps to INT_MIN): adding 1.5·2⁵² puts the integer in
    /// the low bits of the significand.
    @inline(__always) static func lowWords(_ v: LaneGroup<Double>) -> WordGroup {
        WordGroup(truncatingIfNeeded: unsafeBitCast(v + LaneGroup<Double>(repeating: 0x1.8p52), to: LaneGroup<UInt64>.self))
    }

    /// `R[a] := quotients` (or remainders) of `R[b]` by `R[c]` read as `Operand` (`Int32`
    /// or `UInt32`), on every lane.
    @inline(__always) static func divisionGroups<Operand: SIMDScalar & FixedWidthInteger>(
        _ m: Machine, _ i: PreparedInstruction, of _: Operand.Type, remainder: Bool
    ) {
        groups(m, i, of: Operand.self) { x, y in
            let (q, r) = divide(LaneGroup<Double>(x), LaneGroup<Double>(y))
            return lowWords(remainder ? r : q)
        }
    }

    /// ÷0 → 0; INT_MIN ÷ −1 → INT_MIN (the divisor is replaced by 1, whose quotient is the answer).
    @inline(__always) static func idiv(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        if n == laneCount { return divisionGroups(m, i, of: Int32.self, remainder: false) }
        let a = m[i.a], b = m[i.b], c = m[i.c]
        for l in 0..<n {
            let x = s(b[l]), y = s(c[l])
            let overflow = x == .min && y == -1
            let q = x / ((y == 0 || overflow) ? 1 : y)
            a[l] = y == 0 ? 0 : UInt32(bitPattern: q)
        }
    }
    /// rem 0 → 0; INT_MIN rem −1 → 0 (x rem 1).
    @inline(__always) static func irem(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        if n == laneCount { return divisionGroups(m, i, of: Int32.self, remainder: true) }
        let a = m[i.a], b = m[i.b], c = m[i.c]
        for l in 0..<n {
            let x = s(b[l]), y = s(c[l])
            let safe = (y == 0 || (x == .min && y == -1)) ? 1 : y
            a[l] = UInt32(bitPattern: x % safe)
        }
    }
    @inline(__always) static func udiv(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        if n == laneCount { return divisionGroups(m, i, of: UInt32.self, remainder: false) }
        let a = m[i.a], b = m[i.b], c = m[i.c]
        for l in 0..<n {
            let y = c[l]
            a[l] = y == 0 ? 0 : b[l] / (y == 0 ? 1 : y)
        }
    }
    @inline(__always) static func urem(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        if n == laneCount { return divisionGroups(m, i, of: UInt32.self, remainder: true) }
        let a = m[i.a], b = m[i.b], c = m[i.c]
        for l in 0..<n {
            let y = c[l]
            a[l] = y == 0 ? 0 : b[l] % (y == 0 ? 1 : y)
        }
    }
    @inline(__always) static func ineg(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        if n == laneCount { return unaryGroups(m, i, of: UInt32.self) { 0 &- $0 } }
        let a = m[i.a], b = m[i.b]
        for l in 0..<n { a[l] = 0 &- b[l] }
    }
    @inline(__always) static func iabs(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        if n == laneCount { return unaryGroups(m, i, of: Int32.self) { ($0 ^ ($0 &>> 31)) &- ($0 &>> 31) } }
        let a = m[i.a], b = m[i.b]
        for l in 0..<n { a[l] = s(b[l]) < 0 ? 0 &- b[l] : b[l] }
    }
    @inline(__always) static func imin(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        if n == laneCount { return groups(m, i, of: Int32.self) { pointwiseMin($0, $1) } }
        let a = m[i.a], b = m[i.b], c = m[i.c]
        for l in 0..<n { a[l] = s(b[l]) < s(c[l]) ? b[l] : c[l] }
    }
    @inline(__always) static func imax(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        if n == laneCount { return groups(m, i, of: Int32.self) { pointwiseMax($0, $1) } }
        let a = m[i.a], b = m[i.b], c = m[i.c]
        for l in 0..<n { a[l] = s(b[l]) > s(c[l]) ? b[l] : c[l] }
    }
    @inline(__always) static func umin(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        if n == laneCount { return groups(m, i, of: UInt32.self) { pointwiseMin($0, $1) } }
        let a = m[i.a], b = m[i.b], c = m[i.c]
        for l in 0..<n { a[l] = b[l] < c[l] ? b[l] : c[l] }
    }
    @inline(__always) static func umax(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        if n == laneCount { return groups(m, i, of: UInt32.self) { pointwiseMax($0, $1) } }
        let a = m[i.a], b = m[i.b], c = m[i.c]
        for l in 0..<n { a[l] = b[l] > c[l] ? b[l] : c[l] }
    }
    @inline(__always) static func and(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        if n == laneCount { return groups(m, i, of: UInt32.self) { $0 & $1 } }
        let a = m[i.a], b = m[i.b], c = m[i.c]
        for l in 0..<n { a[l] = b[l] & c[l] }
    }
    @inline(__always) static func or(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        if n == laneCount { return groups(m, i, of: UInt32.self) { $0 | $1 } }
        let a = m[i.a], b = m[i.b], c = m[i.c]
        for l in 0..<n { a[l] = b[l] | c[l] }
    }
    @inline(__always) static func xor(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        if n == laneCount { return groups(m, i, of: UInt32.self) { $0 ^ $1 } }
        let a = m[i.a], b = m[i.b], c = m[i.c]
        for l in 0..<n { a[l] = b[l] ^ c[l] }
    }
    @inline(__always) static func not(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        if n == laneCount { return unaryGroups(m, i, of: UInt32.self) { ~$0 } }
        let a = m[i.a], b = m[i.b]
        for l in 0..<n { a[l] = ~b[l] }
    }
    @inline(__always) static func lnot(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        if n == laneCount { return unaryGroups(m, i, of: UInt32.self) { nonZero($0) ^ 1 } }
        let a = m[i.a], b = m[i.b]
        for l in 0..<n { a[l] = b[l] == 0 ? 1 : 0 }
    }
    @inline(__always) static func shl(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        if n == laneCount { return groups(m, i, of: UInt32.self) { $0 &<< $1 } }
        let a = m[i.a], b = m[i.b], c = m[i.c]
        for l in 0..<n { a[l] = b[l] &<< (c[l] & 31) }
    }
    @inline(__always) static func shr(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        if n == laneCount { return groups(m, i, of: Int32.self) { $0 &>> $1 } }
        let a = m[i.a], b = m[i.b], c = m[i.c]
        for l in 0..<n { a[l] = UInt32(bitPattern: s(b[l]) &>> Int32(bitPattern: c[l] & 31)) }
    }
    @inline(__always) static func ushr(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        if n == laneCount { return groups(m, i, of: UInt32.self) { $0 &>> $1 } }
        let a = m[i.a], b = m[i.b], c = m[i.c]
        for l in 0..<n { a[l] = b[l] &>> (c[l] & 31) }
    }
    @inline(__always) static func ieq(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        if n == laneCount { return groups(m, i, of: UInt32.self) { nonZero($0 ^ $1) ^ 1 } }
        let a = m[i.a], b = m[i.b], c = m[i.c]
        for l in 0..<n { a[l] = b[l] == c[l] ? 1 : 0 }
    }
    @inline(__always) static func ine(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        if n == laneCount { return groups(m, i, of: UInt32.self) { nonZero($0 ^ $1) } }
        let a = m[i.a], b = m[i.b], c = m[i.c]
        for l in 0..<n { a[l] = b[l] != c[l] ? 1 : 0 }
    }
    @inline(__always) static func ilt(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        if n == laneCount { return groups(m, i, of: Int32.self) { ones(where: $0 .< $1) } }
        let a = m[i.a], b = m[i.b], c = m[i.c]
        for l in 0..<n { a[l] = s(b[l]) < s(c[l]) ? 1 : 0 }
    }
    @inline(__always) static func ile(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        if n == laneCount { return groups(m, i, of: Int32.self) { ones(where: $0 .<= $1) } }
        let a = m[i.a], b = m[i.b], c = m[i.c]
        for l in 0..<n { a[l] = s(b[l]) <= s(c[l]) ? 1 : 0 }
    }
    @inline(__always) static func ult(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        if n == laneCount { return groups(m, i, of: UInt32.self) { ones(where: $0 .< $1) } }
        let a = m[i.a], b = m[i.b], c = m[i.c]
        for l in 0..<n { a[l] = b[l] < c[l] ? 1 : 0 }
    }
    @inline(__always) static func ule(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        if n == laneCount { return groups(m, i, of: UInt32.self) { ones(where: $0 .<= $1) } }
        let a = m[i.a], b = m[i.b], c = m[i.c]
        for l in 0..<n { a[l] = b[l] <= c[l] ? 1 : 0 }
    }
    @inline(__always) static func sext16(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        if n == laneCount { return unaryGroups(m, i, of: Int32.self) { ($0 &<< 16) &>> 16 } }
        let a = m[i.a], b = m[i.b]
        for l in 0..<n { a[l] = UInt32(bitPattern: Int32(Int16(truncatingIfNeeded: b[l]))) }
    }
    @inline(__always) static func zext16(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        if n == laneCount { return unaryGroups(m, i, of: UInt32.self) { $0 & 0xFFFF } }
        let a = m[i.a], b = m[i.b]
        for l in 0..<n { a[l] = b[l] & 0xFFFF }
    }
}
