// Probe (probeRound): `round` (halves away from zero), 32 steps a pixel.
// Run: kiln bench shader bench/probes/round.metal (docs/benchmarks.md, "Probes").
#include <metal_stdlib>
using namespace metal;
[[ stitchable ]] half4 probeRound(float2 position, float time) {
    float acc = 0.0;
    float2 p = position / 97.0 + time;
    for (int i = 0; i < 32; i++) {
        acc += round(p.x * float(i)) * 0.1;
        p = p.yx * 1.01;
    }
    return half4(half3(fract(acc)), 1.0);
}
