import KilnBytecode

/// Builtin math over lanes, from `KilnMath`. sin/cos/tan run the branch-free Cody–Waite
/// version over every lane first (vectorizable), then redo the rare lanes with
/// |x| ≥ 10⁶ or non-finite x with the full (Payne–Hanek) reduction.
extension Execution {
    /// True if any lane of `b` needs the large-argument trig path.
    @inline(__always) static func anyLargeTrigArgument(_ b: UnsafeMutablePointer<UInt32>, _ n: Int) -> Bool {
        // The largest magnitude's bits (they fit in Int32, so signed compares work). An
        // `any`-style loop (`large |= …`, even a count compared with 0) becomes an
        // early-exit scalar search in LLVM; a max reduction stays a vector loop.
        let limit = Int32(bitPattern: KilnMath.fastReductionLimit.bitPattern)
        var largest: Int32 = 0
        for l in 0..<n {
            let magnitude = Int32(bitPattern: b[l] & 0x7FFF_FFFF)
            largest = magnitude > largest ? magnitude : largest
        }
        return largest >= limit
    }

    @inline(__always) static func fsin(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        let a = m[i.a], b = m[i.b]
        // One lane (a uniform instruction, `scalarStep`): the scalar function directly, the
        // same bits without the two passes through scratch.
        if n == 1 { a[0] = KilnMath.sin(f(b[0])).bitPattern; return }
        if anyLargeTrigArgument(b, n) {
            for l in 0..<n { a[l] = KilnMath.sin(f(b[l])).bitPattern }
        } else {
            sinOrCosSmall(a, b, m.scratch, cosine: false, n)
        }
    }
    @inline(__always) static func fcos(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        let a = m[i.a], b = m[i.b]
        if n == 1 { a[0] = KilnMath.cos(f(b[0])).bitPattern; return }
        if anyLargeTrigArgument(b, n) {
            for l in 0..<n { a[l] = KilnMath.cos(f(b[l])).bitPattern }
        } else {
            sinOrCosSmall(a, b, m.scratch, cosine: true, n)
        }
    }

    /// sin or cos of lanes that are all below `fastReductionLimit`, in two passes.
    ///
    /// A vectorized `sinSmall` evaluates both the sine and the cosine polynomial for every
    /// lane and selects by quadrant parity — half the work wasted. Pass 1 reduces all lanes
    /// into scratch (r as binary64, quadrant) and counts odd quadrants. When the batch agrees
    /// on the parity (common: neighbouring pixels' arguments are close), pass 2 evaluates
    /// only the polynomial it needs; otherwise it selects per lane as before. Same functions,
    /// same order, so the bits equal `KilnMath.sin`/`cos`. Scratch: 3 words per lane.
    @inline(__always) static func sinOrCosSmall(_ a: UnsafeMutablePointer<UInt32>, _ b: UnsafeMutablePointer<UInt32>,
                                                _ scratch: UnsafeMutablePointer<UInt32>, cosine: Bool,
                                                _ n: Int) {
        let reduced = UnsafeMutableRawPointer(scratch)            // laneCount binary64 values
        let quadrant = scratch + 2 * laneCount
        var odd: Int32 = 0
        for l in 0..<n {
            let (r, q) = KilnMath.reduceSmall(f(b[l]))
            reduced.storeBytes(of: r, toByteOffset: l &* 8, as: Double.self)
            quadrant[l] = UInt32(truncatingIfNeeded: q)
            odd &+= Int32(truncatingIfNeeded: q & 1)
        }
        // sin uses the sine polynomial on even quadrants, cos on odd ones (and vice versa).
        if odd == 0 || odd == Int32(n) {
            // Negate in quadrants 2, 3 (sin) or 1, 2 (cos): `KilnMath.sin/cos(reduced:quadrant:)`.
            let shift: UInt32 = cosine ? 1 : 0
            if (odd == 0) != cosine {
                for l in 0..<n {
                    let value = KilnMath.sinPolynomial(reduced.load(fromByteOffset: l &* 8, as: Double.self))
                    a[l] = Float((quadrant[l] &+ shift) & 2 == 0 ? value : -value).bitPattern
                }
            } else {
                for l in 0..<n {
                    let value = KilnMath.cosPolynomial(reduced.load(fromByteOffset: l &* 8, as: Double.self))
                    a[l] = Float((quadrant[l] &+ shift) & 2 == 0 ? value : -value).bitPattern
                }
            }
        } else if cosine {
            for l in 0..<n {
                let r = reduced.load(fromByteOffset: l &* 8, as: Double.self)
                a[l] = KilnMath.cos(reduced: r, quadrant: UInt64(quadrant[l])).bitPattern
            }
        } else {
            for l in 0..<n {
                let r = reduced.load(fromByteOffset: l &* 8, as: Double.self)
                a[l] = KilnMath.sin(reduced: r, quadrant: UInt64(quadrant[l])).bitPattern
            }
        }
    }
    @inline(__always) static func ftan(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        let a = m[i.a], b = m[i.b]
        if anyLargeTrigArgument(b, n) {
            for l in 0..<n { a[l] = KilnMath.tan(f(b[l])).bitPattern }
        } else {
            for l in 0..<n { a[l] = KilnMath.tanSmall(f(b[l])).bitPattern }
        }
    }
    @inline(__always) static func fasin(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        let a = m[i.a], b = m[i.b]
        for l in 0..<n { a[l] = KilnMath.asin(f(b[l])).bitPattern }
    }
    @inline(__always) static func facos(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        let a = m[i.a], b = m[i.b]
        for l in 0..<n { a[l] = KilnMath.acos(f(b[l])).bitPattern }
    }
    @inline(__always) static func fatan(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        let a = m[i.a], b = m[i.b]
        for l in 0..<n { a[l] = KilnMath.atan(f(b[l])).bitPattern }
    }
    @inline(__always) static func fatan2(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        let a = m[i.a], b = m[i.b], c = m[i.c]
        for l in 0..<n { a[l] = KilnMath.atan2(f(b[l]), f(c[l])).bitPattern }
    }
    @inline(__always) static func fsinh(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        let a = m[i.a], b = m[i.b]
        for l in 0..<n { a[l] = KilnMath.sinh(f(b[l])).bitPattern }
    }
    @inline(__always) static func fcosh(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        let a = m[i.a], b = m[i.b]
        for l in 0..<n { a[l] = KilnMath.cosh(f(b[l])).bitPattern }
    }
    @inline(__always) static func ftanh(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        let a = m[i.a], b = m[i.b]
        for l in 0..<n { a[l] = KilnMath.tanh(f(b[l])).bitPattern }
    }
    @inline(__always) static func fexp(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        let a = m[i.a], b = m[i.b]
        for l in 0..<n { a[l] = KilnMath.exp(f(b[l])).bitPattern }
    }
    @inline(__always) static func fexp2(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        let a = m[i.a], b = m[i.b]
        for l in 0..<n { a[l] = KilnMath.exp2(f(b[l])).bitPattern }
    }
    @inline(__always) static func flog(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        let a = m[i.a], b = m[i.b]
        for l in 0..<n { a[l] = KilnMath.log(f(b[l])).bitPattern }
    }
    @inline(__always) static func flog2(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        let a = m[i.a], b = m[i.b]
        for l in 0..<n { a[l] = KilnMath.log2(f(b[l])).bitPattern }
    }
    @inline(__always) static func flog10(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        let a = m[i.a], b = m[i.b]
        for l in 0..<n { a[l] = KilnMath.log10(f(b[l])).bitPattern }
    }
    @inline(__always) static func fpow(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        let a = m[i.a], b = m[i.b], c = m[i.c]
        for l in 0..<n { a[l] = KilnMath.pow(f(b[l]), f(c[l])).bitPattern }
    }
    /// Exact, scalar: long division of significands (rare in shaders).
    static func fmod(_ m: Machine, _ i: PreparedInstruction, _ n: Int = laneCount) {
        let a = m[i.a], b = m[i.b], c = m[i.c]
        for l in 0..<n { a[l] = KilnMath.fmod(f(b[l]), f(c[l])).bitPattern }
    }
}
