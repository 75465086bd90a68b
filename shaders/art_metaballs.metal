// 2D metaballs as a SwiftUI color effect: twelve blobs drift on Lissajous paths and merge
// where their fields overlap, each tinting the goo it dominates, with a soft outer glow.
#include <metal_stdlib>
using namespace metal;

constant int kBallCount = 12;
constant float kThreshold = 1.0;

static float3 ballColor(float i) {
    return 0.55 + 0.45 * cos(6.28318 * (i / float(kBallCount) + float3(0.0, 0.33, 0.67)));
}

/// Ball `i`'s centre at `time`: co-prime-ish frequencies per axis trace Lissajous figures
/// that take a long time to repeat, so the blobs keep meeting in new combinations.
static float2 ballCenter(float i, float time) {
    float2 freq = float2(0.31 + 0.07 * i, 0.23 + 0.05 * fmod(i * 7.0, 5.0));
    float2 phase = float2(i * 1.7, i * 2.9);
    return 0.75 * float2(sin(time * freq.x + phase.x), cos(time * freq.y + phase.y));
}

/// Merging blobs of colour on a dark background.
/// @arg time 0...60 = 2 "seconds"
[[ stitchable ]] half4 artMetaballs(float2 position, half4 color, float2 size, float time) {
    float2 uv = (position - 0.5 * size) / min(size.x, size.y) * 2.0;
    // One pixel in uv units, so the edge is anti-aliased at any view size.
    float pixel = 2.0 / min(size.x, size.y);

    float field = 0.0;
    float3 tint = float3(0.0);
    float strongest = 0.0;
    float3 dominant = float3(0.0);
    for (int i = 0; i < kBallCount; i++) {
        float fi = float(i);
        float2 d = uv - ballCenter(fi, time);
        float radius = 0.12 + 0.05 * sin(time * 0.7 + fi);
        // r²/d² is the classic falloff; the epsilon keeps a pixel at a centre finite.
        float f = radius * radius / (dot(d, d) + 1e-4);
        field += f;
        float3 c = ballColor(fi);
        tint += c * f;
        if (f > strongest) { strongest = f; dominant = c; }
    }
    // Blend by field share rather than winner-takes-all, so colours flow into each other
    // where blobs merge; a little of the dominant colour keeps each blob recognisable.
    float3 blended = tint / field;
    float3 surface = mix(blended, dominant, 0.3);

    // The field's gradient is steep at the rim: measure the edge in field units per pixel
    // so the stroke stays one pixel wide whatever the blob sizes.
    float edgeWidth = max(field * field * pixel * 2.0, 1e-3);
    float inside = smoothstep(kThreshold - edgeWidth, kThreshold + edgeWidth, field);
    // A glossy core: brighter where the field is strongest.
    float3 body = surface * (0.7 + 0.3 * smoothstep(kThreshold, kThreshold * 4.0, field));
    float rim = 1.0 - smoothstep(0.0, 0.25, field - kThreshold);
    body += 0.35 * rim * inside;

    float3 background = float3(0.03, 0.02, 0.06) + 0.04 * float3(uv.y + 1.0);
    float glow = pow(clamp(field / kThreshold, 0.0, 1.0), 3.0) * 0.6;
    // The glow takes only the blended colour: the dominant ball's hard boundary would
    // show as a straight seam in the haze.
    float3 rgb = mix(background + blended * glow, body, inside);
    return half4(half3(rgb), 1) * color.a;
}
