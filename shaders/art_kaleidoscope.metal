// A kaleidoscope: the plane is folded into mirrored wedges, then folded, rotated and
// tiled again a few times, and glowing sine rings are drawn in a cosine palette.
#include <metal_stdlib>
using namespace metal;

static float2x2 rotate(float a) {
    float c = cos(a);
    float s = sin(a);
    return float2x2(c, s, -s, c);
}

/// Iñigo Quilez's cosine palette, tuned for saturated neon hues.
static float3 palette(float t) {
    float3 a = float3(0.5, 0.5, 0.5);
    float3 b = float3(0.5, 0.5, 0.5);
    float3 c = float3(1.0, 1.0, 1.0);
    float3 d = float3(0.263, 0.416, 0.557);
    return a + b * cos(6.28318 * (c * t + d));
}

/// Mirrors the angle into `segments` wedges, like the mirrors in a real kaleidoscope tube.
static float2 kaleido(float2 p, float segments) {
    float wedge = 2.0 * M_PI_F / segments;
    float a = atan2(p.y, p.x);
    a = fmod(a + 2.0 * M_PI_F, wedge);
    // Every other wedge is a mirror image, so fold about the wedge's centre line.
    a = abs(a - 0.5 * wedge);
    return length(p) * float2(cos(a), sin(a));
}

/// A slowly turning mandala of neon rings.
/// @arg time 0...60 = 0 "seconds"
[[ stitchable ]] half4 kaleidoscope(float2 position, half4 color, float2 size, float time) {
    float2 uv = (position * 2.0 - size) / size.y;
    float2 uv0 = uv;
    float3 rgb = float3(0.0);

    uv = rotate(time * 0.15) * uv;
    uv = kaleido(uv, 8.0);
    for (int i = 0; i < 4; i++) {
        float fi = float(i);
        // Folding after a rotation turns the wedge's straight mirrors into a lattice of
        // smaller mirrors; fract tiles it so every pass adds finer detail.
        uv = abs(uv) - 0.25;
        uv = rotate(time * 0.1 + fi * 0.7) * uv;
        uv = fract(uv * 1.5) - 0.5;

        // Distance to the tile's centre, dimmed with distance from the screen centre so
        // the outer tiles do not drown the middle.
        float d = length(uv) * exp(-length(uv0));
        float3 c = palette(length(uv0) + fi * 0.4 + time * 0.4);
        d = sin(d * 8.0 + time) / 8.0;
        d = abs(d);
        // 1/d makes thin bright lines with a long glow, the neon look.
        d = pow(0.01 / d, 1.2);
        rgb += c * d;
    }
    // A soft sine fbm behind the rings keeps the dark gaps from being flat black.
    float2 q = uv0 * 3.0;
    float haze = 0.0;
    float amp = 0.5;
    for (int o = 0; o < 3; o++) {
        haze += amp * (0.5 + 0.5 * sin(q.x + time * 0.3) * sin(q.y - time * 0.2));
        q = rotate(0.9) * q * 2.1;
        amp *= 0.5;
    }
    rgb += 0.12 * haze * palette(haze + time * 0.1);
    // Filmic-ish tone curve: the additive glow easily exceeds 1.
    rgb = rgb / (1.0 + rgb);
    rgb = pow(rgb, float3(0.8));
    // Premultiplied output: keep the content's coverage, so the effect respects its shape.
    return half4(half3(rgb) * color.a, color.a);
}
