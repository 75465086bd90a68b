// A polar-coordinate tunnel flythrough, the demoscene classic: every pixel's angle and
// inverse distance from the centre address a wall pattern that streams past the viewer.
#include <metal_stdlib>
using namespace metal;

/// Cosine palette (after Iñigo Quilez): one phase per channel gives a smooth hue cycle.
static float3 palette(float t) {
    return 0.5 + 0.5 * cos(6.28318 * (t + float3(0.0, 0.33, 0.67)));
}

/// Flies down an endless checkered tunnel with glowing rings and slowly cycling colours.
/// @arg time 0...60 = 0 "seconds"
[[ stitchable ]] half4 tunnel(float2 position, half4 color, float2 size, float time) {
    float2 uv = (position - 0.5 * size) / size.y;
    // Drifting the vanishing point makes the flight feel steered rather than on rails.
    uv -= 0.12 * float2(sin(time * 0.6), cos(time * 0.45));
    float r = length(uv);
    float a = atan2(uv.y, uv.x);

    // On a cylinder seen from inside, depth goes as 1/r; moving along it is a shift in
    // depth. The twist term spins the walls a little faster the further away they are.
    float depth = 0.6 / max(r, 1e-4) + time * 1.2;
    // Twelve tiles around: an even count keeps the checker seamless where atan2 wraps.
    float around = a / M_PI_F * 6.0 + time * 0.2 + 0.1 * depth;
    float2 tc = float2(around, depth * 2.0);

    float checker = abs(fmod(floor(tc.x) + floor(tc.y), 2.0));
    // Soft grout lines between tiles, so the checker reads as a built surface.
    float2 edge = abs(fract(tc) - 0.5);
    float grout = smoothstep(0.5, 0.46, max(edge.x, edge.y));
    // A bright ring every few tiles gives the eye something to track as it rushes by.
    float ring = pow(0.5 + 0.5 * cos(depth * 1.5707), 24.0);

    float3 wall = palette(depth * 0.05 + time * 0.07);
    float3 rgb = wall * (0.35 + 0.65 * checker) * grout;
    rgb += ring * palette(depth * 0.05 + time * 0.07 + 0.5) * 1.5;
    // Wall shading: the rim near the viewer is lit, the far end disappears into fog.
    rgb *= smoothstep(0.0, 0.5, r);
    rgb *= 1.0 + 0.25 * sin(a * 2.0 + time);
    rgb = mix(float3(color.rgb) * 0.1, rgb, 0.95);
    return half4(half3(clamp(rgb, 0.0, 1.0)), 1);
}
