// Neon rings, the loop of the best-known shader-art tutorial (kishimisu's "An introduction
// to shader art coding"): the plane is folded into repeating cells and each pass of the
// loop draws glowing rings around the cell centres, fading with the distance from the
// screen's centre and cycling through a cosine palette.
#include <metal_stdlib>
using namespace metal;

/// Cosine palette (after Iñigo Quilez): one phase per channel gives a smooth hue cycle.
static float3 palette(float t) {
    return 0.5 + 0.5 * cos(6.28318 * (t + float3(0.263, 0.416, 0.557)));
}

/// Rings within rings, folded over and over and breathing with time.
/// @arg time 0...60 = 0 "seconds"
/// @arg passes 1...20 = 8 "folds: past about ten they get finer than a pixel"
[[ stitchable ]] half4 neonRings(float2 position, half4 color, float2 size, float time, float passes) {
    float2 uv = (position * 2.0 - size) / size.y;
    float2 uv0 = uv;
    float3 finalColor = float3(0.0);
    // More passes than the tutorial's four: the folds get finer and the rings turn into a
    // shimmering lattice. `length(uv0)` and `exp(-length(uv0))` do not change in the loop;
    // the compiler computes them once, before it.
    int n = clamp(int(passes), 1, 20);
    for (int i = 0; i < n; i++) {
        uv = fract(uv * 1.5) - 0.5;
        float d = length(uv) * exp(-length(uv0));
        float3 col = palette(length(uv0) + float(i) * 0.4 + time * 0.4);
        d = sin(d * 8.0 + time) / 8.0;
        d = abs(d);
        d = pow(0.01 / d, 1.2) / float(i + 1);
        finalColor += col * d;
    }
    return half4(half3(finalColor), 1.0) * color.a;
}
