// Ink dropped in water, as a SwiftUI color effect: Inigo Quilez's domain warping,
// fbm(p + fbm(p + fbm(p))), drifting with time and coloured from the warp vectors.
#include <metal_stdlib>
using namespace metal;

static float hash(float2 p) {
    return fract(sin(dot(p, float2(127.1, 311.7))) * 43758.5453);
}

/// Value noise with a quintic fade, whose zero second derivative hides the grid lines
/// that the cubic fade leaves in heavily warped noise.
static float noise(float2 p) {
    float2 i = floor(p);
    float2 f = fract(p);
    float2 u = f * f * f * (f * (f * 6.0 - 15.0) + 10.0);
    float a = hash(i);
    float b = hash(i + float2(1.0, 0.0));
    float c = hash(i + float2(0.0, 1.0));
    float d = hash(i + float2(1.0, 1.0));
    return mix(mix(a, b, u.x), mix(c, d, u.x), u.y);
}

/// Five octaves; rotating between them breaks up the axis-aligned lattice so the
/// octaves do not stack into a visible grid.
static float fbm(float2 p) {
    const float2x2 m = float2x2(0.80, 0.60, -0.60, 0.80);
    float v = 0.0;
    float a = 0.5;
    for (int i = 0; i < 5; i++) {
        v += a * noise(p);
        p = m * p * 2.02;
        a *= 0.5;
    }
    return v / 0.96875;
}

/// Swirling ink clouds that fold into themselves over time.
/// @arg time 0...60 = 2 "seconds"
[[ stitchable ]] half4 artInk(float2 position, half4 color, float2 size, float time) {
    float2 p = (position - 0.5 * size) / min(size.x, size.y) * 2.0;
    float t = time * 0.15;

    // Each level warps the domain of the next; the offsets decorrelate the two channels.
    float2 q = float2(fbm(p + float2(0.0, 0.0) + t),
                      fbm(p + float2(5.2, 1.3) - t * 0.7));
    float2 r = float2(fbm(p + 4.0 * q + float2(1.7, 9.2) + t * 0.6),
                      fbm(p + 4.0 * q + float2(8.3, 2.8) - t * 0.4));
    float f = fbm(p + 4.0 * r);

    // Colour from the warp itself, not only the final value: q and r carry the flow's
    // structure, so the streaks get their own hues.
    float3 rgb = mix(float3(0.10, 0.62, 0.67), float3(0.67, 0.67, 0.50), clamp(f * f * 4.0, 0.0, 1.0));
    rgb = mix(rgb, float3(0.0, 0.0, 0.16), clamp(length(q), 0.0, 1.0));
    rgb = mix(rgb, float3(0.85, 0.15, 0.30), smoothstep(0.45, 0.75, r.x) * 0.8);
    rgb = mix(rgb, float3(1.0, 0.85, 0.45), smoothstep(0.55, 0.85, r.y) * 0.7);
    // Push the contrast the way the original does: f³ + 0.6f² + 0.5f brightens the folds.
    rgb *= (f * f * f + 0.6 * f * f + 0.5 * f) * 2.0;
    rgb = pow(clamp(rgb, 0.0, 1.0), float3(0.8));
    return half4(half3(rgb), 1) * color.a;
}
