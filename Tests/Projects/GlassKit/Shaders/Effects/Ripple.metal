#include <metal_stdlib>
#include <SwiftUI/SwiftUI_Metal.h>
#include "../Headers/ShaderTypes.h"
#include <Uniforms.h>
using namespace metal;

[[ stitchable ]] float2 glassRipple(float2 position, float iTime, float2 viewSize) {
    RippleParams params = { viewSize * 0.5, 2.0 };
    float d = distance(position, params.center);
    float wave = sin(d * kDefaultGlass.scale - iTime * params.speed);
    return position + normalize(position - params.center + 0.001) * wave * kDefaultGlass.strength;
}
