// The classic demoscene plasma as a SwiftUI color effect: five sine fields (horizontal,
// vertical, diagonal, radial around a wandering centre, rotating) summed and run through
// a cosine palette.
#include <metal_stdlib>
using namespace metal;

constant float kScale = 10.0;   // wave frequency across the shorter side

/// Inigo Quilez's cosine palette: a + b·cos(2π(c·t + d)) loops smoothly, so the colours
/// can cycle forever without a seam.
static float3 palette(float t, float3 a, float3 b, float3 c, float3 d) {
    return a + b * cos(6.28318 * (c * t + d));
}

/// A rotating field keeps the pattern from looking locked to the screen axes.
static float2 rotate(float2 p, float angle) {
    float s = sin(angle);
    float c = cos(angle);
    return float2x2(c, s, -s, c) * p;
}

/// Interfering sine waves in motion, coloured through a cycling palette.
/// @arg time 0...60 = 2 "seconds"
[[ stitchable ]] half4 artPlasma(float2 position, half4 color, float2 size, float time) {
    // Units of the shorter side keep the radial rings round on a wide view.
    float2 uv = (position - 0.5 * size) / min(size.x, size.y);
    float2 p = uv * kScale;

    float v = sin(p.x + time);
    v += sin((p.y + time) * 0.5);
    v += sin((p.x + p.y + time) * 0.5);
    // A centre on a Lissajous path makes the rings wander instead of pulsing in place.
    float2 c = p + kScale * 0.5 * float2(sin(time / 3.0), cos(time / 2.0));
    v += sin(sqrt(dot(c, c) + 1.0) + time);
    float2 r = rotate(p, time * 0.1);
    v += sin(r.x * 0.7 - r.y * 1.3 + time * 1.7);
    v *= 0.5;

    float3 rgb = palette(v * 0.5 + time * 0.05,
                         float3(0.5, 0.5, 0.5), float3(0.5, 0.5, 0.5),
                         float3(1.0, 1.0, 0.5), float3(0.8, 0.9, 0.3));
    // Soft banding at the peaks, the "scanline glow" look of the old demos.
    rgb *= 0.85 + 0.15 * sin(v * 6.0);
    // Premultiplied output: scale by the content's coverage so the effect keeps its shape.
    return half4(half3(rgb), 1) * color.a;
}
