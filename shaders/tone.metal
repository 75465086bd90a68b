// Two classic toning effects, as SwiftUI color effects. Both work on the straight
// colour and premultiply again at the end, so translucent pixels keep their coverage.
#include <metal_stdlib>
#include "common.h"
using namespace metal;

/// Old-photograph sepia, blended with the original by `amount`.
/// @arg amount 0...1 = 1 "0 = original, 1 = full sepia"
[[ stitchable ]] half4 sepia(float2 position, half4 color, float amount) {
    // The widely used sepia matrix, written column by column (matrices are column-major:
    // the first column says how much red feeds each output channel).
    const float3x3 toSepia = float3x3(float3(0.393, 0.349, 0.272),
                                      float3(0.769, 0.686, 0.534),
                                      float3(0.189, 0.168, 0.131));
    float3 rgb = float3(color.rgb);
    // The matrix can push bright colours past white; clip to the pixel's alpha, which
    // is "white" for a premultiplied colour.
    float3 toned = min(toSepia * rgb, float3(float(color.a)));
    return half4(half3(mix(rgb, toned, saturate(amount))), color.a);
}

/// Maps dark tones to `shadows` and light tones to `highlights`, like a two-ink print.
/// @arg shadows 0...1 = 0.1,0.05,0.3,1 "ink for the dark tones"
/// @arg highlights 0...1 = 1,0.75,0.4,1 "ink for the light tones"
/// @arg contrast 0...3 = 1.2 "1 keeps the original tonal range"
[[ stitchable ]] half4 duotone(float2 position, half4 color,
                               half4 shadows, half4 highlights, float contrast) {
    float alpha = float(color.a);
    if (alpha <= 0) {
        return color;
    }
    float tone = luminance(float3(color.rgb) / alpha);
    tone = saturate((tone - 0.5) * contrast + 0.5);
    half3 ink = mix(shadows.rgb, highlights.rgb, half(tone));
    return half4(ink * color.a, color.a);
}
