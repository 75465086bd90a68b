// An animated Julia set as a SwiftUI color effect: the constant c travels around a circle
// near the Mandelbrot set's boundary while the view slowly zooms into the spirals.
#include <metal_stdlib>
using namespace metal;

constant int kMaxIterations = 128;
// A large escape radius makes the smooth iteration count nearly exact.
constant float kEscapeRadius2 = 256.0;

static float2 complexSquare(float2 z) {
    return float2(z.x * z.x - z.y * z.y, 2.0 * z.x * z.y);
}

static float3 palette(float t) {
    return 0.5 + 0.5 * cos(6.28318 * (t + float3(0.0, 0.15, 0.25)));
}

/// The filled Julia set for a c that orbits with time, with banding-free colours.
/// @arg time 0...60 = 2 "seconds"
[[ stitchable ]] half4 artJulia(float2 position, half4 color, float2 size, float time) {
    float2 uv = (position - 0.5 * size) / min(size.x, size.y);
    // Zoom in and back out again so the animation can loop without running out of detail.
    float zoom = 1.0 + 0.6 * (0.5 - 0.5 * cos(time * 0.15));
    float2 z = uv * 3.0 / zoom;
    // |c| = 0.7885 skirts the Mandelbrot set's edge, where the Julia sets are most
    // ornate; the phase starts c near the top, past the dust on the positive real side.
    float a = time * 0.25 + 1.6;
    float2 c = 0.7885 * float2(cos(a), sin(a));

    int i = 0;
    float r2 = dot(z, z);
    for (; i < kMaxIterations; i++) {
        z = complexSquare(z) + c;
        r2 = dot(z, z);
        if (r2 > kEscapeRadius2) break;
    }

    float3 rgb;
    if (i == kMaxIterations) {
        // Inside: a dark colour shaded by the final orbit so the interior is not flat.
        rgb = float3(0.02, 0.01, 0.05) + 0.08 * float3(0.4, 0.2, 0.8) * sqrt(min(r2, 4.0));
    } else {
        // Smooth iteration count: subtract how far past the escape radius we overshot,
        // in units of the log-log growth of |z| per iteration.
        float sn = float(i) - log2(log2(r2) * 0.5) + 4.0;
        float t = sn / float(kMaxIterations);
        rgb = palette(pow(t, 0.5) * 3.0 + time * 0.05);
        // Darken the far outside so the set's filaments stand out.
        rgb *= smoothstep(0.05, 0.5, sqrt(t));
    }
    return half4(half3(rgb), 1) * color.a;
}
