// A photographic vignette, as a SwiftUI color effect: the picture darkens smoothly
// towards its corners, the way light falls off in a real lens.
#include <metal_stdlib>
using namespace metal;

/// Darkens the corners of a `size`-point picture.
/// @arg intensity 0...1 = 0.7 "how dark the corners get"
/// @arg radius 0.2...1.5 = 0.8 "where the darkening ends, 1 = the corners"
/// @arg softness 0.05...1 = 0.55 "width of the transition"
[[ stitchable ]] half4 vignette(float2 position, half4 color, float2 size,
                                float intensity, float radius, float softness) {
    // Centred coordinates where the corners are at distance 1, corrected for the aspect
    // ratio so the vignette is a circle on a wide picture rather than an ellipse.
    float2 uv = position / size - 0.5;
    float aspect = size.x / size.y;
    uv.x *= aspect;
    float cornerDistance = length(float2(0.5 * aspect, 0.5));
    float d = length(uv) / cornerDistance;
    // smoothstep needs increasing edges; clamp the inner edge to stay below `radius`.
    float inner = min(radius - softness, radius - 0.001);
    float shade = 1 - intensity * smoothstep(inner, radius, d);
    // Scaling a premultiplied colour's rgb darkens it without touching its coverage.
    return half4(color.rgb * half(shade), color.a);
}
