// Water ripples spreading from a tap, as a SwiftUI distortion effect: a damped sine
// wave that travels outwards from `origin` at `speed` points per second.
#include <metal_stdlib>
#include <SwiftUI/SwiftUI_Metal.h>
using namespace metal;

/// Rings spreading from `origin`, fading as they travel.
/// @arg origin 0...512 = 64,64 "where the surface was touched, in points"
/// @arg time 0...4 = 0.4 "seconds since the touch"
/// @arg amplitude 0...40 = 12 "strongest displacement in points"
/// @arg frequency 1...40 = 15 "oscillations per second"
/// @arg decay 0...20 = 6 "how quickly the rings die down"
/// @arg speed 50...2000 = 400 "how fast the rings travel, in points per second"
[[ stitchable ]] float2 ripple(float2 position, float2 origin, float time,
                               float amplitude, float frequency, float decay, float speed) {
    float2 toPixel = position - origin;
    float dist = length(toPixel);
    // The touch is undisturbed at its very centre, and normalize() is undefined there.
    if (dist < 0.001) {
        return position;
    }
    // The wave front reaches this pixel after dist / speed seconds; before that the
    // water here is still.
    float localTime = max(time - dist / speed, 0.0);
    float displacement = amplitude * sin(frequency * localTime) * exp(-decay * localTime);
    return position + normalize(toPixel) * displacement;
}
