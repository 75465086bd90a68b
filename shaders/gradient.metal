// A three-stop radial gradient, as a SwiftUI shape fill (`.fill(shader)`): positions
// are measured in the shape's `bounds`, so the gradient stretches with the shape.
#include <metal_stdlib>
#include "common.h"
using namespace metal;

/// A gradient from `inner` at `center` through `middle` to `outer` at `radius`.
/// @arg inner 0...1 = 1,0.9,0.5,1 "colour at the centre"
/// @arg middle 0...1 = 0.95,0.35,0.3,1 "colour halfway out"
/// @arg outer 0...1 = 0.2,0.1,0.45,1 "colour at the radius and beyond"
/// @arg center 0...1 = 0.35,0.3 "centre in unit coordinates of the bounds"
/// @arg radius 0.1...2 = 0.9 "radius in unit coordinates of the bounds"
[[ stitchable ]] half4 radialGradient(float2 position, float4 bounds,
                                      half4 inner, half4 middle, half4 outer,
                                      float2 center, float radius) {
    // 0...1 across the bounds (bounds.xy is the origin, bounds.zw the size).
    float2 uv = (position - bounds.xy) / bounds.zw;
    float t = saturate(length(uv - center) / radius);
    // Two linear segments meeting at t = 0.5.
    half4 c = t < 0.5 ? mix(inner, middle, half(t * 2))
                      : mix(middle, outer, half(t * 2 - 1));
    // A gradient over a large area bands in 8-bit colour; half a level of noise hides it.
    float dither = (hash21(position) - 0.5) / 255.0;
    half3 rgb = c.rgb + half(dither);
    // Shape fills return premultiplied colour.
    return half4(saturate(rgb) * c.a, c.a);
}
