// Chromatic aberration, as a SwiftUI layer effect: a cheap lens focuses red, green and
// blue at slightly different places, most visibly towards the edges of the picture.
// Each channel is read from its own position, shifted along the line from the centre.
#include <metal_stdlib>
#include <SwiftUI/SwiftUI_Metal.h>
using namespace metal;

/// Red and blue fringes that grow towards the edges of `bounds`.
/// @arg strength 0...24 = 5 "separation of the channels at the edge, in points"
/// @arg falloff 0.5...4 = 2 "1 is linear; larger keeps the centre sharper"
[[ stitchable ]] half4 chromaticAberration(float2 position, SwiftUI::Layer layer,
                                           float4 bounds, float strength, float falloff) {
    float2 center = bounds.xy + bounds.zw * 0.5;
    // -1...1 across the longer side, so the fringes are round, not stretched.
    float2 fromCenter = (position - center) / (0.5 * max(bounds.z, bounds.w));
    float reach = pow(min(length(fromCenter), 1.0), falloff);
    float2 offset = normalize(fromCenter + float2(1e-6, 0)) * strength * reach;

    half4 red = layer.sample(position + offset);
    half4 green = layer.sample(position);
    half4 blue = layer.sample(position - offset);
    // Premultiplied colours: each channel is at most its own sample's alpha, so the
    // largest of the three alphas keeps the result valid.
    return half4(red.r, green.g, blue.b, max3(red.a, green.a, blue.a));
}
