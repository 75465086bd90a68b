#include <metal_stdlib>
#include <SwiftUI/SwiftUI_Metal.h>
using namespace metal;

constant float2 kCurvature = float2(0.08, 0.12);

[[ stitchable ]] half4 scanlines(float2 position, half4 color, float t, float4 box) {
    float2 uv = (position - box.xy) / box.zw - 0.5;
    float vignette = 1.0 - dot(uv * kCurvature * 8.0, uv);
    float line = 0.75 + 0.25 * sin(position.y * 3.14159 + t * 4.0);
    uchar4 quantized = uchar4(float4(color) * 255.0);  // 8-bit round trip, as LUT code does
    half4 c = half4(quantized) / 255.0h;
    return half4(c.rgb * half(line * vignette), c.a);
}
