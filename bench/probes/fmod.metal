// Probe (probeFmod): Domain repetition: 64 `fmod(p, 2.0)` a pixel (two a step, 32 steps). Compare floormod.metal, the same arithmetic spelled x − y·floor(x/y).
// Run: kiln bench shader bench/probes/fmod.metal (docs/benchmarks.md, "Probes").
#include <metal_stdlib>
using namespace metal;
[[ stitchable ]] half4 probeFmod(float2 position, float time) {
    float2 p = position / 37.0 + time;
    float acc = 0.0;
    for (int i = 0; i < 32; i++) {
        float2 q = fmod(p + float(i) * 1.37, 2.0) - 1.0;
        acc += length(q);
    }
    return half4(half3(acc / 32.0), 1.0);
}
