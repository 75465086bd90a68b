import KilnBytecode

/// Float arithmetic and comparisons: binary32 read from and written to the 32-bit lanes by
/// bit pattern (a free reinterpretation), one lane loop each.
extension Execution {
    @inline(__always) static func f(_ bits: UInt32) -> Float { Float(bitPattern: bits) }

    @inline(__always) static func fadd(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        if n == laneCount { return groups(m, i, of: Float.self) { $0 + $1 } }
        let a = m[i.a], b = m[i.b], c = m[i.c]
        for l in 0..<n { a[l] = (f(b[l]) + f(c[l])).bitPattern }
    }
    @inline(__always) static func fsub(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        if n == laneCount { return groups(m, i, of: Float.self) { $0 - $1 } }
        let a = m[i.a], b = m[i.b], c = m[i.c]
        for l in 0..<n { a[l] = (f(b[l]) - f(c[l])).bitPattern }
    }
    @inline(__always) static func fmul(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        if n == laneCount { return groups(m, i, of: Float.self) { $0 * $1 } }
        let a = m[i.a], b = m[i.b], c = m[i.c]
        for l in 0..<n { a[l] = (f(b[l]) * f(c[l])).bitPattern }
    }
    @inline(__always) static func fdiv(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        if n == laneCount { return groups(m, i, of: Float.self) { $0 / $1 } }
        let a = m[i.a], b = m[i.b], c = m[i.c]
        for l in 0..<n { a[l] = (f(b[l]) / f(c[l])).bitPattern }
    }
    @inline(__always) static func fma(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        let a = m[i.a], b = m[i.b], c = m[i.c], d = m[i.d]
        for l in 0..<n { a[l] = KilnMath.fma(f(b[l]), f(c[l]), f(d[l])).bitPattern }
    }
    @inline(__always) static func fneg(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        if n == laneCount { return unaryGroups(m, i, of: UInt32.self) { $0 ^ 0x8000_0000 } }
        let a = m[i.a], b = m[i.b]
        for l in 0..<n { a[l] = b[l] ^ 0x8000_0000 }
    }
    @inline(__always) static func fabs(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        if n == laneCount { return unaryGroups(m, i, of: UInt32.self) { $0 & 0x7FFF_FFFF } }
        let a = m[i.a], b = m[i.b]
        for l in 0..<n { a[l] = b[l] & 0x7FFF_FFFF }
    }
    @inline(__always) static func fmin(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        if n == laneCount { return groups(m, i, of: Float.self, minimumGroup) }
        let a = m[i.a], b = m[i.b], c = m[i.c]
        for l in 0..<n { a[l] = KilnMath.minimum(f(b[l]), f(c[l])).bitPattern }
    }
    @inline(__always) static func fmax(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        if n == laneCount { return groups(m, i, of: Float.self, maximumGroup) }
        let a = m[i.a], b = m[i.b], c = m[i.c]
        for l in 0..<n { a[l] = KilnMath.maximum(f(b[l]), f(c[l])).bitPattern }
    }
    @inline(__always) static func ffloor(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        if n == laneCount { return unaryGroups(m, i, of: Float.self) { roundedGroup($0, .down) } }
        let a = m[i.a], b = m[i.b]
        for l in 0..<n { a[l] = KilnMath.floor(f(b[l])).bitPattern }
    }
    @inline(__always) static func fceil(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        if n == laneCount { return unaryGroups(m, i, of: Float.self) { roundedGroup($0, .up) } }
        let a = m[i.a], b = m[i.b]
        for l in 0..<n { a[l] = KilnMath.ceil(f(b[l])).bitPattern }
    }
    @inline(__always) static func ftrunc(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        if n == laneCount { return unaryGroups(m, i, of: Float.self) { roundedGroup($0, .towardZero) } }
        let a = m[i.a], b = m[i.b]
        for l in 0..<n { a[l] = KilnMath.truncate(f(b[l])).bitPattern }
    }
    @inline(__always) static func fround(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        if n == laneCount { return unaryGroups(m, i, of: Float.self, roundHalfAwayGroup) }
        let a = m[i.a], b = m[i.b]
        for l in 0..<n { a[l] = KilnMath.roundHalfAway(f(b[l])).bitPattern }
    }
    @inline(__always) static func frint(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        if n == laneCount { return unaryGroups(m, i, of: Float.self) { roundedGroup($0, .toNearestOrEven) } }
        let a = m[i.a], b = m[i.b]
        for l in 0..<n { a[l] = KilnMath.rint(f(b[l])).bitPattern }
    }
    @inline(__always) static func ffract(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        if n == laneCount { return unaryGroups(m, i, of: Float.self, fractGroup) }
        let a = m[i.a], b = m[i.b]
        for l in 0..<n { a[l] = KilnMath.fract(f(b[l])).bitPattern }
    }
    @inline(__always) static func fsqrt(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        if n == laneCount { return unaryGroups(m, i, of: Float.self, squareRootGroup) }
        let a = m[i.a], b = m[i.b]
        for l in 0..<n { a[l] = KilnMath.squareRoot(f(b[l])).bitPattern }
    }
    @inline(__always) static func frsqrt(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        let a = m[i.a], b = m[i.b]
        for l in 0..<n { a[l] = KilnMath.reciprocalSquareRoot(f(b[l])).bitPattern }
    }
    @inline(__always) static func fsign(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        if n == laneCount { return unaryGroups(m, i, of: Float.self, signGroup) }
        let a = m[i.a], b = m[i.b]
        for l in 0..<n { a[l] = KilnMath.sign(f(b[l])).bitPattern }
    }
    @inline(__always) static func fisnan(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        if n == laneCount { return unaryGroups(m, i, of: UInt32.self) { (0x7F80_0000 &- ($0 & 0x7FFF_FFFF)) &>> 31 } }
        let a = m[i.a], b = m[i.b]
        for l in 0..<n { a[l] = b[l] & 0x7FFF_FFFF > 0x7F80_0000 ? 1 : 0 }
    }
    @inline(__always) static func fisinf(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        if n == laneCount { return unaryGroups(m, i, of: UInt32.self) { 1 &- nonZero(($0 & 0x7FFF_FFFF) ^ 0x7F80_0000) } }
        let a = m[i.a], b = m[i.b]
        for l in 0..<n { a[l] = b[l] & 0x7FFF_FFFF == 0x7F80_0000 ? 1 : 0 }
    }
    @inline(__always) static func feq(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        if n == laneCount { return groups(m, i, of: Float.self) { ones(where: $0 .== $1) } }
        let a = m[i.a], b = m[i.b], c = m[i.c]
        for l in 0..<n { a[l] = f(b[l]) == f(c[l]) ? 1 : 0 }
    }
    @inline(__always) static func fne(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        if n == laneCount { return groups(m, i, of: Float.self) { ones(where: $0 .!= $1) } }
        let a = m[i.a], b = m[i.b], c = m[i.c]
        for l in 0..<n { a[l] = f(b[l]) != f(c[l]) ? 1 : 0 }
    }
    @inline(__always) static func flt(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        if n == laneCount { return groups(m, i, of: Float.self) { ones(where: $0 .< $1) } }
        let a = m[i.a], b = m[i.b], c = m[i.c]
        for l in 0..<n { a[l] = f(b[l]) < f(c[l]) ? 1 : 0 }
    }
    @inline(__always) static func fle(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        if n == laneCount { return groups(m, i, of: Float.self) { ones(where: $0 .<= $1) } }
        let a = m[i.a], b = m[i.b], c = m[i.c]
        for l in 0..<n { a[l] = f(b[l]) <= f(c[l]) ? 1 : 0 }
    }

    // MARK: conversions

    @inline(__always) static func itof(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        if n == laneCount { return unaryGroups(m, i, of: Int32.self) { FloatGroup($0) } }
        let a = m[i.a], b = m[i.b]
        for l in 0..<n { a[l] = Float(Int32(bitPattern: b[l])).bitPattern }
    }
    @inline(__always) static func utof(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        if n == laneCount { return unaryGroups(m, i, of: UInt32.self) { FloatGroup($0) } }
        let a = m[i.a], b = m[i.b]
        for l in 0..<n { a[l] = Float(b[l]).bitPattern }
    }
    @inline(__always) static func ftoi(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        if n == laneCount { return unaryGroups(m, i, of: Float.self, KilnMath.toInt32) }
        let a = m[i.a], b = m[i.b]
        for l in 0..<n { a[l] = UInt32(bitPattern: KilnMath.toInt32(f(b[l]))) }
    }
    @inline(__always) static func ftou(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        if n == laneCount { return unaryGroups(m, i, of: Float.self, KilnMath.toUInt32) }
        let a = m[i.a], b = m[i.b]
        for l in 0..<n { a[l] = KilnMath.toUInt32(f(b[l])) }
    }
}
