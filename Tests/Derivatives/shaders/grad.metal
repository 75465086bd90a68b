#include <metal_stdlib>
using namespace metal;

// Fine derivatives of a polynomial (exact in float32 both here and in the reference).
[[ stitchable ]] half4 grad(float2 p) {
    float v = p.x * p.x * 0.01 + p.y * 0.5 + p.x * p.y * 0.02;
    return half4(dfdx(v) * 0.4, dfdy(v) * 0.5, fwidth(v) * 0.25, 1);
}
