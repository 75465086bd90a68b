#ifndef SHADER_TYPES_H
#define SHADER_TYPES_H

#include <metal_stdlib>
#include "Noise.h"
using namespace metal;

typedef enum {
    BlendModeNormal = 0,
    BlendModeScreen = 1,
} BlendMode;

typedef struct Ripple {
    float2 center;
    float speed;
} RippleParams;

// 8-bit palette indices, as a shared header of one collection has them.
extern constant uchar kPalette[4] = { 32, 96, 160, 224 };

#endif
