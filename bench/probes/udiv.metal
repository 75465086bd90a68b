// Probe (probeUintDiv): idiv.metal on `uint`.
// Run: kiln bench shader bench/probes/udiv.metal (docs/benchmarks.md, "Probes").
#include <metal_stdlib>
using namespace metal;
[[ stitchable ]] half4 probeUintDiv(float2 position, float time) {
    float acc = 0.0;
    float2 p = position / 97.0 + time;
    for (int i = 0; i < 32; i++) {
        uint k = uint(position.x) + uint(i); acc += float(k / 7u + k % 5u) * 0.05;
    }
    return half4(half3(acc / 32.0), 1.0);
}
