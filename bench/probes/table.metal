// Probe (probeTable): A constant four-colour palette read with a varying index, 32 steps a pixel.
// Run: kiln bench shader bench/probes/table.metal (docs/benchmarks.md, "Probes").
#include <metal_stdlib>
using namespace metal;
constant float3 palette[4] = { float3(0.1, 0.2, 0.3), float3(0.4, 0.5, 0.6), float3(0.7, 0.8, 0.9), float3(1.0, 0.5, 0.0) };
[[ stitchable ]] half4 probeTable(float2 position, float time) {
    float3 acc = 0.0;
    float2 p = position / 97.0 + time;
    for (int i = 0; i < 32; i++) {
        acc += palette[int(p.x * float(i) + p.y) & 3];
    }
    return half4(half3(acc / 32.0), 1.0);
}
