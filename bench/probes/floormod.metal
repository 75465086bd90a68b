// Probe (probeFloorMod): fmod.metal with the remainder spelled x − y·floor(x/y): the control for fmod.
// Run: kiln bench shader bench/probes/floormod.metal (docs/benchmarks.md, "Probes").
#include <metal_stdlib>
using namespace metal;
[[ stitchable ]] half4 probeFloorMod(float2 position, float time) {
    float2 p = position / 37.0 + time;
    float acc = 0.0;
    for (int i = 0; i < 32; i++) {
        float2 q = ((p + float(i) * 1.37) - 2.0 * floor((p + float(i) * 1.37) / 2.0)) - 1.0;
        acc += length(q);
    }
    return half4(half3(acc / 32.0), 1.0);
}
