#include <metal_stdlib>
#include <SwiftUI/SwiftUI_Metal.h>
#include "../Headers/ShaderTypes.h"
using namespace metal;

[[ stitchable ]] half4 frost(float2 position, SwiftUI::Layer layer, float secs, float4 boundingRect) {
    float2 uv = (position - boundingRect.xy) / boundingRect.zw;
    float n = fbm(uv * 12.0 + secs);
    half4 base = layer.sample(position + (n - 0.5) * 6.0);
    half3 tint = half3(base);                      // first three components, as Apple's compiler allows
    BlendMode mode = BlendModeScreen;
    half3 lifted = mode == BlendModeScreen ? 1.0h - (1.0h - tint) * (1.0h - half3(n * 0.25)) : tint;
    uchar level = kPalette[int(n * 3.99)];
    return half4(lifted * (half(level) / 224.0h), base.a);
}
