// A flag waving in the wind, in two passes meant to be used together in SwiftUI:
//
//     content
//         .distortionEffect(ShaderLibrary.wave(.boundingRect, .float(t), ...), maxSampleOffset: ...)
//         .colorEffect(ShaderLibrary.flagShade(.boundingRect, .float(t), ...))
//
// `wave` moves the pixels; `flagShade` darkens the folds that face away from the
// light, which is what makes cloth read as cloth rather than as a wobbling picture.
#include <metal_stdlib>
#include <SwiftUI/SwiftUI_Metal.h>
using namespace metal;

/// Phase of the travelling wave at horizontal position `x`, shared by both passes so
/// the shading lines up with the displacement.
static inline float wavePhase(float x, float time, float wavelength, float speed) {
    return x / wavelength * 2 * M_PI_F - time * speed;
}

/// How far from the pole (the left edge of `bounds`) a point is: 0 at the pole, 1 at
/// the far edge. The pole holds the cloth, so every effect grows with this.
static inline float distanceFromPole(float x, float4 bounds) {
    return clamp((x - bounds.x) / bounds.z, 0.0, 1.0);
}

/// Bends the content like a flag fixed to a pole along its left edge.
/// @arg time 0...60 = 0 "seconds"
/// @arg amplitude 0...30 = 8 "height of the waves in points"
/// @arg wavelength 20...400 = 140 "distance between crests in points"
/// @arg speed 0...12 = 4 "how fast the crests travel, in radians per second"
[[ stitchable ]] float2 wave(float2 position, float4 bounds, float time,
                             float amplitude, float wavelength, float speed) {
    float along = distanceFromPole(position.x, bounds);
    float phase = wavePhase(position.x, time, wavelength, speed);
    // A distortion returns where to *read* the source for this pixel: moving the read
    // position up moves the picture down, so the sign is a matter of taste here.
    position.y += amplitude * along * sin(phase);
    // Cloth also bunches up sideways a little where it swings; half the frequency keeps
    // the weave from looking too regular.
    position.x += amplitude * 0.25 * along * cos(phase * 0.5);
    return position;
}

/// Shades the folds of `wave`: slopes facing the light brighten, the others darken.
/// @arg time 0...60 = 0 "seconds"
/// @arg wavelength 20...400 = 140 "must match wave's wavelength"
/// @arg speed 0...12 = 4 "must match wave's speed"
/// @arg strength 0...1 = 0.35 "contrast of the folds"
[[ stitchable ]] half4 flagShade(float2 position, half4 color, float4 bounds, float time,
                                 float wavelength, float speed, float strength) {
    float along = distanceFromPole(position.x, bounds);
    // The slope of the displacement is the derivative of sin, a cosine: its sign says
    // which way a fold faces.
    float slope = cos(wavePhase(position.x, time, wavelength, speed)) * along;
    half shade = half(1 + strength * slope);
    // Colours are premultiplied: keep rgb ≤ alpha when brightening.
    return half4(min(color.rgb * shade, half3(color.a)), color.a);
}
