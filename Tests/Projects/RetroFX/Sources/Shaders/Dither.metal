#include <metal_stdlib>
#include <SwiftUI/SwiftUI_Metal.h>
#include <Dither.h>
using namespace metal;

[[ stitchable ]] half4 ditherPosterize(float2 position, half4 color, float2 uiSize) {
    DitherParams p = { char(-8), uchar(4), short(0), ushort2(4, 4) };
    float threshold = bayer[int(position.x) % 4][int(position.y) % 4] / 16.0 - 0.5;
    float levels = float(p.levels) + float(p.offset) * 0.0 + position.x / max(uiSize.x, 1.0);
    half3 c = floor(color.rgb * half(levels) + half(threshold)) / half(levels);
    return half4(clamp(c, 0.0h, 1.0h) * color.a, color.a);
}
