#pragma once
#include <metal_stdlib>
using namespace metal;

// A 4×4 Bayer matrix, indexed with two dynamic subscripts.
constant float bayer[4][4] = {
    {  0,  8,  2, 10 },
    { 12,  4, 14,  6 },
    {  3, 11,  1,  9 },
    { 15,  7, 13,  5 },
};

typedef struct {
    char offset;      // signed 8-bit: -128…127
    uchar levels;
    short bias;
    ushort2 cell;
} DitherParams;
