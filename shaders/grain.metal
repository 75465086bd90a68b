// Film grain, as a SwiftUI color effect: a hash of the pixel position (the classic
// fract(sin(dot(...))) noise) adds a fine random texture that changes every frame,
// strongest in the midtones as on real film stock.
#include <metal_stdlib>
#include "common.h"
using namespace metal;

// Projectors show 24 frames a second; the grain pattern changes at the same rate.
constant float kGrainFramesPerSecond = 24;

/// Animated film grain.
/// @arg time 0...60 = 0 "seconds; a new grain pattern every 1/24 s"
/// @arg amount 0...0.5 = 0.12 "strength of the grain"
/// @arg grainSize 1...6 = 1.5 "size of one grain in points"
[[ stitchable ]] half4 filmGrain(float2 position, half4 color, float time,
                                 float amount, float grainSize) {
    float alpha = float(color.a);
    if (alpha <= 0) {
        return color;                       // nothing to texture
    }
    float frame = floor(time * kGrainFramesPerSecond);
    float2 grain = floor(position / max(grainSize, 1.0));
    // Offsetting by the frame number gives an unrelated pattern each frame.
    float noise = hash21(grain + frame * float2(17.0, 59.0)) - 0.5;

    // Judge the tone on the straight (un-premultiplied) colour.
    float3 rgb = float3(color.rgb);
    float tone = luminance(rgb / alpha);
    // 1 in the midtones, 0 in pure black and pure white.
    float midtones = 1 - abs(2 * tone - 1);
    rgb += noise * amount * (0.3 + 0.7 * midtones) * alpha;
    return half4(half3(clamp(rgb, float3(0.0), float3(alpha))), color.a);
}
