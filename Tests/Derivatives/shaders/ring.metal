#include <metal_stdlib>
using namespace metal;

// The common use: an SDF anti-aliased with fwidth, here the coarse forms.
[[ stitchable ]] half4 ring(float2 p, float2 size) {
    float d = length(p - size * 0.5) - size.y * 0.3;
    float aa = fwidth_coarse(d);
    float a = 1.0 - smoothstep(-aa, aa, d);
    return half4(a, dfdx_coarse(d) * 0.5 + 0.5, dfdy_coarse(d) * 0.5 + 0.5, 1);
}
