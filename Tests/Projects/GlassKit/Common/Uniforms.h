#pragma once
#include <metal_stdlib>
using namespace metal;

// Shared across the whole package, included as <Uniforms.h> through the include folder.
typedef struct {
    float strength;
    float scale;
} GlassUniforms;

constant GlassUniforms kDefaultGlass = { 6.0, 0.035 };
