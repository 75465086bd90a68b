// Animated Voronoi (cellular) noise: one feature point per grid cell, each wandering on
// its own little orbit, with cells coloured from their hash and borders from F2 − F1.
#include <metal_stdlib>
using namespace metal;

/// Two pseudo-random numbers in [0, 1) per integer cell, the usual sine hash.
static float2 hash2(float2 p) {
    p = float2(dot(p, float2(127.1, 311.7)), dot(p, float2(269.5, 183.3)));
    return fract(sin(p) * 43758.5453);
}

static float3 palette(float t) {
    return float3(0.5, 0.5, 0.5) + float3(0.5, 0.5, 0.5) * cos(6.28318 * (float3(1.0, 1.0, 1.0) * t + float3(0.0, 0.1, 0.2)));
}

/// Living stained glass: cells drift, and their leading is drawn where two cells meet.
/// @arg time 0...60 = 0 "seconds"
[[ stitchable ]] half4 voronoi(float2 position, half4 color, float2 size, float time) {
    // About seven cells across the short side, whatever the view's size.
    float2 uv = position / min(size.x, size.y) * 7.0;
    float2 cell = floor(uv);
    float2 f = fract(uv);

    // A point can only be nearest if it lives in this cell or a neighbour, as long as
    // each point stays inside its own cell: hence the 3×3 search and the 0.5 ± 0.5 orbit.
    float f1 = 8.0;
    float f2 = 8.0;
    float2 nearestCell = cell;
    float2 nearestOffset = float2(0.0);
    for (int j = -1; j <= 1; j++) {
        for (int i = -1; i <= 1; i++) {
            float2 g = float2(float(i), float(j));
            float2 o = hash2(cell + g);
            o = 0.5 + 0.5 * sin(time * 0.8 + 6.2831 * o);
            float2 r = g + o - f;
            float d = dot(r, r);
            if (d < f1) {
                f2 = f1;
                f1 = d;
                nearestCell = cell + g;
                nearestOffset = r;
            } else if (d < f2) {
                f2 = d;
            }
        }
    }
    f1 = sqrt(f1);
    f2 = sqrt(f2);

    float2 id = hash2(nearestCell);
    float3 rgb = palette(id.x * 0.7 + time * 0.05);
    // Light each pane from its own feature point so the cells look slightly domed.
    rgb *= 0.55 + 0.45 * smoothstep(0.9, 0.0, f1);
    rgb += 0.15 * sin(id.y * 40.0 + time * 2.0) * float3(1.0, 0.9, 0.7) * (1.0 - f1);
    // F2 − F1 is zero exactly on the bisector between the two nearest points: a border
    // of even width, which plain F1 cannot give.
    float border = smoothstep(0.02, 0.09, f2 - f1);
    rgb *= border;
    // A small glowing dot marks each feature point.
    rgb += float3(1.0, 0.95, 0.8) * smoothstep(0.07, 0.03, length(nearestOffset));
    rgb = mix(rgb, float3(color.rgb), 0.05);
    return half4(half3(clamp(rgb, 0.0, 1.0)), 1);
}
