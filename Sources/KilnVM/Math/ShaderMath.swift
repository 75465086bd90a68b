/// Kiln's builtins for Swift code outside the VM that must compute exactly what a shader
/// computes — `kiln bench`'s native references, which are compared with the VM's frames
/// byte for byte. The same functions the lane loops run, so the same bits.
public enum ShaderMath {
    /// A shader's plain `sin` (binary32, docs/vm.md "Two precisions").
    public static func sin(_ x: Float) -> Float { KilnMath.fastSinAny(x) }
    /// A shader's plain `cos`.
    public static func cos(_ x: Float) -> Float { KilnMath.fastCosAny(x) }
    /// A shader's plain `exp`.
    public static func exp(_ x: Float) -> Float { KilnMath.fastExp(x) }
    /// `precise::sin`: binary64, rounded once.
    public static func preciseSin(_ x: Float) -> Float { KilnMath.sin(x) }
}
