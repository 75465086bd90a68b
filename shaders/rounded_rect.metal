// A card with rounded corners, a border and a soft drop shadow, as a SwiftUI shape
// fill, drawn with a signed distance function (SDF): the distance to the rounded
// rectangle's outline gives anti-aliased edges, the border and the shadow from one
// number.
#include <metal_stdlib>
#include "common.h"
using namespace metal;

/// A rounded rectangle inset in `bounds`, with border and shadow.
/// @arg fill 0...1 = 0.98,0.97,0.94,1 "card colour"
/// @arg border 0...1 = 0.2,0.45,0.9,1 "border colour"
/// @arg cornerRadius 0...64 = 14 "corner radius in points"
/// @arg borderWidth 0...12 = 2.5 "border width in points"
/// @arg shadowBlur 0...32 = 10 "softness of the shadow in points"
[[ stitchable ]] half4 roundedRect(float2 position, float4 bounds, half4 fill, half4 border,
                                   float cornerRadius, float borderWidth, float shadowBlur) {
    // Leave room around the card for the shadow to fall into.
    float inset = shadowBlur + 4;
    float2 halfSize = max(bounds.zw * 0.5 - inset, float2(1.0));
    float2 p = position - (bounds.xy + bounds.zw * 0.5);
    float radius = min(cornerRadius, min(halfSize.x, halfSize.y));
    float d = sdRoundedBox(p, halfSize, radius);

    // Coverage of the card, anti-aliased over one point.
    float inside = 1 - smoothstep(-0.5, 0.5, d);
    // The border is the band d in (-borderWidth, 0], also anti-aliased on its inner edge.
    float onBorder = inside * smoothstep(-borderWidth - 0.5, -borderWidth + 0.5, d);
    // The shadow: the same shape moved down a little, faded out over shadowBlur points.
    float shadowDistance = sdRoundedBox(p - float2(0, shadowBlur * 0.4), halfSize, radius);
    float shadow = 0.35 * (1 - smoothstep(-shadowBlur, shadowBlur + 0.001, shadowDistance));

    half4 card = mix(half4(fill.rgb, 1), half4(border.rgb, 1), half(onBorder)) * half(inside);
    return over(card, half4(0, 0, 0, half(shadow)));
}
