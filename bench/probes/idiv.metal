// Probe (probeIntDiv): Signed integer division and remainder by constants, 32 steps a pixel (`k / 7 + k % 5`).
// Run: kiln bench shader bench/probes/idiv.metal (docs/benchmarks.md, "Probes").
#include <metal_stdlib>
using namespace metal;
[[ stitchable ]] half4 probeIntDiv(float2 position, float time) {
    float acc = 0.0;
    float2 p = position / 97.0 + time;
    for (int i = 0; i < 32; i++) {
        int k = int(position.x) + i; acc += float(k / 7 + k % 5) * 0.05;
    }
    return half4(half3(acc / 32.0), 1.0);
}
