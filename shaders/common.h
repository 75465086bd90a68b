// Helpers shared by several of the example shaders. Include it with
// `#include "common.h"`; a `.h` file is only ever included, never compiled on its own.
//
// Everything here is `static inline`, so each shader that includes the header gets its
// own private copy, exactly as with Apple's Metal compiler.
#ifndef KILN_EXAMPLES_COMMON_H
#define KILN_EXAMPLES_COMMON_H

#include <metal_stdlib>
using namespace metal;

/// The classic one-line GPU hash: a pseudo-random value in [0, 1) per 2D point.
/// It multiplies an error in `sin` by ~40000, which is why Kiln's `sin` is exact to
/// 1 ulp: the noise then matches the one on a device bit for bit in most cells.
static inline float hash21(float2 p) {
    return fract(sin(dot(p, float2(12.9898, 78.233))) * 43758.5453);
}

/// Relative luminance of a linear RGB colour (Rec. 709 weights).
static inline float luminance(float3 rgb) {
    return dot(rgb, float3(0.2126, 0.7152, 0.0722));
}

/// Signed distance from `p` to a box centred at the origin with half extents
/// `halfSize` and corners rounded by `radius`: negative inside, positive outside.
static inline float sdRoundedBox(float2 p, float2 halfSize, float radius) {
    float2 q = abs(p) - (halfSize - radius);
    return length(max(q, 0.0)) + min(max(q.x, q.y), 0.0) - radius;
}

/// A 2D rotation by `angle` radians (counter-clockwise in a y-up frame).
/// Matrices are column-major: the columns are (c, s) and (-s, c).
static inline float2x2 rotation(float angle) {
    float c = cos(angle);
    float s = sin(angle);
    return float2x2(float2(c, s), float2(-s, c));
}

/// Premultiplied "over": `top` composited onto `bottom`.
static inline half4 over(half4 top, half4 bottom) {
    return top + bottom * (1 - top.a);
}

#endif // KILN_EXAMPLES_COMMON_H
