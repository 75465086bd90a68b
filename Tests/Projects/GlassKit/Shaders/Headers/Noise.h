#pragma once
#include <metal_stdlib>
using namespace metal;

static inline float hash21(float2 p) {
    p = fract(p * float2(123.34, 456.21));
    p += dot(p, p + 45.32);
    return fract(p.x * p.y);
}

static inline float valueNoise(float2 p) {
    float2 i = floor(p), f = fract(p);
    float2 u = f * f * (3.0 - 2.0 * f);
    return mix(mix(hash21(i), hash21(i + float2(1, 0)), u.x),
               mix(hash21(i + float2(0, 1)), hash21(i + float2(1, 1)), u.x), u.y);
}

// Fractal noise the way ported C code writes it: state passed by pointer, samples in a
// local array the caller hands over.
static inline void fbmOctave(thread float *amplitude, thread float2 *p, thread float *samples, int octave) {
    samples[octave] = *amplitude * valueNoise(*p);
    *amplitude *= 0.5;
    p->x = p->x * 2.0 + 1.7;
    p->y *= 2.0;
}

static inline float fbm(float2 p) {
    float samples[4];
    float amplitude = 0.5;
    for (int octave = 0; octave < 4; octave++) {
        fbmOctave(&amplitude, &p, samples, octave);
    }
    return samples[0] + samples[1] + samples[2] + samples[3];
}
