// Probe (probeFloatToInt): A float converted to an integer (`int(x) & 3`) and back, 32 steps a pixel.
// Run: kiln bench shader bench/probes/ftoi.metal (docs/benchmarks.md, "Probes").
#include <metal_stdlib>
using namespace metal;
[[ stitchable ]] half4 probeFloatToInt(float2 position, float time) {
    float3 acc = 0.0;
    float2 p = position / 97.0 + time;
    for (int i = 0; i < 32; i++) {
        float t = float(int(p.x * float(i) + p.y) & 3);
        acc += float3(t * 0.1, t * 0.2, t * 0.3);
    }
    return half4(half3(acc / 32.0), 1.0);
}
