import KilnBytecode

/// Builtin math over lanes, from `KilnMath`. sin/cos/tan run the branch-free Cody–Waite
/// version over every lane first (vectorizable), then redo the rare lanes with
/// |x| ≥ 10⁶ or non-finite x with the full (Payne–Hanek) reduction.
extension Execution {
    /// True if any lane of `b` needs the large-argument trig path.
    @inline(__always) static func anyLargeTrigArgument(_ b: UnsafeMutablePointer<UInt32>) -> Bool {
        let limit = KilnMath.fastReductionLimit.bitPattern
        var large: UInt32 = 0
        for l in 0..<laneCount { large |= b[l] & 0x7FFF_FFFF >= limit ? 1 : 0 }
        return large != 0
    }

    @inline(__always) static func fsin(_ m: Machine, _ i: PreparedInstruction) {
        let a = m[i.a], b = m[i.b]
        if anyLargeTrigArgument(b) {
            for l in 0..<laneCount { a[l] = KilnMath.sin(f(b[l])).bitPattern }
        } else {
            for l in 0..<laneCount { a[l] = KilnMath.sinSmall(f(b[l])).bitPattern }
        }
    }
    @inline(__always) static func fcos(_ m: Machine, _ i: PreparedInstruction) {
        let a = m[i.a], b = m[i.b]
        if anyLargeTrigArgument(b) {
            for l in 0..<laneCount { a[l] = KilnMath.cos(f(b[l])).bitPattern }
        } else {
            for l in 0..<laneCount { a[l] = KilnMath.cosSmall(f(b[l])).bitPattern }
        }
    }
    @inline(__always) static func ftan(_ m: Machine, _ i: PreparedInstruction) {
        let a = m[i.a], b = m[i.b]
        if anyLargeTrigArgument(b) {
            for l in 0..<laneCount { a[l] = KilnMath.tan(f(b[l])).bitPattern }
        } else {
            for l in 0..<laneCount { a[l] = KilnMath.tanSmall(f(b[l])).bitPattern }
        }
    }
    @inline(__always) static func fasin(_ m: Machine, _ i: PreparedInstruction) {
        let a = m[i.a], b = m[i.b]
        for l in 0..<laneCount { a[l] = KilnMath.asin(f(b[l])).bitPattern }
    }
    @inline(__always) static func facos(_ m: Machine, _ i: PreparedInstruction) {
        let a = m[i.a], b = m[i.b]
        for l in 0..<laneCount { a[l] = KilnMath.acos(f(b[l])).bitPattern }
    }
    @inline(__always) static func fatan(_ m: Machine, _ i: PreparedInstruction) {
        let a = m[i.a], b = m[i.b]
        for l in 0..<laneCount { a[l] = KilnMath.atan(f(b[l])).bitPattern }
    }
    @inline(__always) static func fatan2(_ m: Machine, _ i: PreparedInstruction) {
        let a = m[i.a], b = m[i.b], c = m[i.c]
        for l in 0..<laneCount { a[l] = KilnMath.atan2(f(b[l]), f(c[l])).bitPattern }
    }
    @inline(__always) static func fsinh(_ m: Machine, _ i: PreparedInstruction) {
        let a = m[i.a], b = m[i.b]
        for l in 0..<laneCount { a[l] = KilnMath.sinh(f(b[l])).bitPattern }
    }
    @inline(__always) static func fcosh(_ m: Machine, _ i: PreparedInstruction) {
        let a = m[i.a], b = m[i.b]
        for l in 0..<laneCount { a[l] = KilnMath.cosh(f(b[l])).bitPattern }
    }
    @inline(__always) static func ftanh(_ m: Machine, _ i: PreparedInstruction) {
        let a = m[i.a], b = m[i.b]
        for l in 0..<laneCount { a[l] = KilnMath.tanh(f(b[l])).bitPattern }
    }
    @inline(__always) static func fexp(_ m: Machine, _ i: PreparedInstruction) {
        let a = m[i.a], b = m[i.b]
        for l in 0..<laneCount { a[l] = KilnMath.exp(f(b[l])).bitPattern }
    }
    @inline(__always) static func fexp2(_ m: Machine, _ i: PreparedInstruction) {
        let a = m[i.a], b = m[i.b]
        for l in 0..<laneCount { a[l] = KilnMath.exp2(f(b[l])).bitPattern }
    }
    @inline(__always) static func flog(_ m: Machine, _ i: PreparedInstruction) {
        let a = m[i.a], b = m[i.b]
        for l in 0..<laneCount { a[l] = KilnMath.log(f(b[l])).bitPattern }
    }
    @inline(__always) static func flog2(_ m: Machine, _ i: PreparedInstruction) {
        let a = m[i.a], b = m[i.b]
        for l in 0..<laneCount { a[l] = KilnMath.log2(f(b[l])).bitPattern }
    }
    @inline(__always) static func flog10(_ m: Machine, _ i: PreparedInstruction) {
        let a = m[i.a], b = m[i.b]
        for l in 0..<laneCount { a[l] = KilnMath.log10(f(b[l])).bitPattern }
    }
    @inline(__always) static func fpow(_ m: Machine, _ i: PreparedInstruction) {
        let a = m[i.a], b = m[i.b], c = m[i.c]
        for l in 0..<laneCount { a[l] = KilnMath.pow(f(b[l]), f(c[l])).bitPattern }
    }
    /// Exact, scalar: long division of significands (rare in shaders).
    static func fmod(_ m: Machine, _ i: PreparedInstruction) {
        let a = m[i.a], b = m[i.b], c = m[i.c]
        for l in 0..<laneCount { a[l] = KilnMath.fmod(f(b[l]), f(c[l])).bitPattern }
    }
}
