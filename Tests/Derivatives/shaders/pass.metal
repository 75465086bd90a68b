#include <metal_stdlib>
using namespace metal;

struct VOut {
    float4 position [[position]];
    float2 uv;
};

// A full-screen fragment pass: derivatives of an interpolated-looking input.
fragment half4 pass(VOut in [[stage_in]]) {
    float v = in.uv.x * in.uv.y * 40.0;
    return half4(dfdx_fine(v) * 5.0, dfdy_fine(v) * 5.0, fwidth_fine(v) * 2.5, 1);
}
