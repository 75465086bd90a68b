/// Kiln's builtins for Swift code outside the VM that must compute exactly what a shader
/// computes — `kiln bench`'s native references, which are compared with the VM's frames
/// byte for byte. The same functions the lane loops run, so the same bits.
///
/// Each comes for one value and for eight (`SIMD8<Float>`, one AVX2 register: the width a
/// person writing a shader in plain Swift picks). The eight-lane forms follow the
/// VM's lane loops: every lane in the fast range runs the branch-free polynomial (one vector
/// loop); a batch with a huge or non-finite argument takes the any-input function per lane.
public enum ShaderMath {
    /// A shader's plain `sin` (binary32, docs/vm.md "Two precisions").
    public static func sin(_ x: Float) -> Float { KilnMath.fastSinAny(x) }
    /// A shader's plain `cos`.
    public static func cos(_ x: Float) -> Float { KilnMath.fastCosAny(x) }
    /// A shader's plain `exp`.
    public static func exp(_ x: Float) -> Float { KilnMath.fastExp(x) }
    /// `precise::sin`: binary64, rounded once.
    public static func preciseSin(_ x: Float) -> Float { KilnMath.sin(x) }

    /// `sin` of eight lanes.
    public static func sin(_ x: SIMD8<Float>) -> SIMD8<Float> {
        allInFastTrigRange(x) ? lanewise(x, KilnMath.fastSin) : lanewise(x, KilnMath.fastSinAny)
    }
    /// `cos` of eight lanes.
    public static func cos(_ x: SIMD8<Float>) -> SIMD8<Float> {
        allInFastTrigRange(x) ? lanewise(x, KilnMath.fastCos) : lanewise(x, KilnMath.fastCosAny)
    }
    /// `exp` of eight lanes.
    public static func exp(_ x: SIMD8<Float>) -> SIMD8<Float> { lanewise(x, KilnMath.fastExp) }

    /// True when every lane is below `fastReductionLimit` in magnitude (NaN and ∞ are not).
    @inline(__always) static func allInFastTrigRange(_ x: SIMD8<Float>) -> Bool {
        let magnitudes = unsafeBitCast(x, to: SIMD8<UInt32>.self) & SIMD8(repeating: 0x7FFF_FFFF)
        return magnitudes.max() < KilnMath.fastReductionLimit.bitPattern
    }

    /// `function` of each lane, as a loop over memory the optimizer vectorizes (a loop over
    /// the vector's subscripts stays lane by lane).
    @inline(__always) static func lanewise(_ x: SIMD8<Float>, _ function: (Float) -> Float) -> SIMD8<Float> {
        var input = x, output = SIMD8<Float>()
        withUnsafeMutableBytes(of: &output) { out in
            withUnsafeBytes(of: &input) { values in
                let a = out.baseAddress!.assumingMemoryBound(to: Float.self)
                let b = values.baseAddress!.assumingMemoryBound(to: Float.self)
                for l in 0..<8 { a[l] = function(b[l]) }
            }
        }
        return output
    }
}
