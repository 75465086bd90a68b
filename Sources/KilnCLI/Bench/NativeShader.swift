import Foundation
import KilnRender
import KilnVM

/// A benchmark shader hand-written in Swift: the baseline the VM is compared with.
///
/// Each implementation computes exactly what its `.metal` file says, in binary32, with
/// the same sampling (`Sampling.sample`, the conformance semantics) and the same output
/// (premultiplied RGBA8, each channel clamped to 0…1 and rounded), and it runs on the
/// same tile scheduler as the VM. The difference in speed is then the cost of
/// interpreting bytecode rather than running compiled Swift.
protocol NativeShader: Sendable {
    /// Shades pixels `x0 ..< x1` of row `y` into `output` (4 bytes per pixel, the row's
    /// first pixel at `output[0]`).
    func shadeSpan(y: Int, x0: Int, x1: Int, output: UnsafeMutablePointer<UInt8>)
}

/// Helpers the native shaders share: the MSL builtins they use, in binary32.
enum NativeMath {
    /// One channel to RGBA8 exactly as the renderer stores it (`KilnRender.quantize`).
    @inline(__always) static func byte(_ value: Float) -> UInt8 { quantize(value) }

    /// Stores a premultiplied colour at `output[offset…offset+3]`.
    @inline(__always) static func store(_ r: Float, _ g: Float, _ b: Float, _ a: Float,
                                        _ output: UnsafeMutablePointer<UInt8>, _ offset: Int) {
        output[offset] = byte(r)
        output[offset + 1] = byte(g)
        output[offset + 2] = byte(b)
        output[offset + 3] = byte(a)
    }

    /// sin, cos and exp as Kiln defines them: a shader's plain calls are binary32
    /// polynomials (docs/vm.md "Two precisions"), and the platform's `sinf` differs from
    /// them by an ulp here and there — which matters: melt's `fract(sin(…) · 43758.5453)`
    /// multiplies it by 4·10⁴ and moves a column's melt edge by a pixel. `ShaderMath` is
    /// the VM's own functions, so the reference and the VM agree to the bit.
    @inline(__always) static func sin(_ x: Float) -> Float { ShaderMath.sin(x) }
    @inline(__always) static func cos(_ x: Float) -> Float { ShaderMath.cos(x) }
    @inline(__always) static func exp(_ x: Float) -> Float { ShaderMath.exp(x) }

    /// MSL `fract`: `x − ⌊x⌋`, kept below 1.
    @inline(__always) static func fract(_ x: Float) -> Float {
        min(x - x.rounded(.down), 0x1.fffffep-1)
    }

    /// MSL `mix(x, y, a) = x + (y − x)·a`.
    @inline(__always) static func mix(_ x: Float, _ y: Float, _ a: Float) -> Float {
        x + (y - x) * a
    }

    /// MSL `smoothstep(e0, e1, x)`.
    @inline(__always) static func smoothstep(_ edge0: Float, _ edge1: Float, _ x: Float) -> Float {
        let t = min(max((x - edge0) / (edge1 - edge0), 0), 1)
        return t * t * (3 - 2 * t)
    }
}
