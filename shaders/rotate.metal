// Rotations with a float2x2 matrix: a distortion that turns the content around a
// point, and a layer effect that smears it along circles (a spin blur), as if the
// picture were spinning while the shutter was open.
#include <metal_stdlib>
#include <SwiftUI/SwiftUI_Metal.h>
#include "common.h"
using namespace metal;

// More samples give a smoother blur; each one is a layer read per pixel.
#define SPIN_SAMPLES 12

/// Turns the content by `angle` radians around `center`.
/// @arg center 0...512 = 64,64 "pivot in points"
/// @arg angle -3.1416...3.1416 = 0.5 "rotation in radians, clockwise on screen"
[[ stitchable ]] float2 rotate(float2 position, float2 center, float angle) {
    // A distortion says where each output pixel comes *from*, so it applies the inverse
    // rotation. In SwiftUI's y-down coordinates a positive angle of rotation() turns
    // clockwise, so the inverse is rotation(-angle).
    return center + rotation(-angle) * (position - center);
}

/// A rotational motion blur around `center`, spanning `angle` radians.
/// @arg center 0...512 = 64,64 "centre of the spin in points"
/// @arg angle 0...1 = 0.15 "how far the picture turns while the shutter is open"
[[ stitchable ]] half4 spinBlur(float2 position, SwiftUI::Layer layer, float2 center, float angle) {
    float2 offset = position - center;
    // One small step, applied repeatedly: cheaper than building a matrix per sample.
    float2x2 increment = rotation(angle / (SPIN_SAMPLES - 1));
    // Start half the arc back so the blur is centred on the pixel.
    float2 p = rotation(-0.5 * angle) * offset;
    half4 sum = 0;
    for (int i = 0; i < SPIN_SAMPLES; i++) {
        sum += layer.sample(center + p);
        p = increment * p;
    }
    return sum / SPIN_SAMPLES;
}
