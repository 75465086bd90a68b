// Probe (probeFwidth): `fwidth` of a distance (screen-space derivatives, anti-aliasing), 32 steps a pixel.
// Run: kiln bench shader bench/probes/fwidth.metal (docs/benchmarks.md, "Probes").
#include <metal_stdlib>
using namespace metal;
[[ stitchable ]] half4 probeFwidth(float2 position, float time) {
    float acc = 0.0;
    float2 p = position / 97.0 + time;
    for (int i = 0; i < 32; i++) {
        float d = length(p - float2(float(i) * 0.1, 0.5));
        acc += fwidth(d);
        p = p.yx * 1.01;
    }
    return half4(half3(fract(acc * 8.0)), 1.0);
}
