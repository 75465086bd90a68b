// Probe (probeArray): A local four-bin histogram written and read with a varying index, 32 steps a pixel.
// Run: kiln bench shader bench/probes/array.metal (docs/benchmarks.md, "Probes").
#include <metal_stdlib>
using namespace metal;
[[ stitchable ]] half4 probeArray(float2 position, float time) {
    float bins[4] = { 0.0, 0.0, 0.0, 0.0 };
    float2 p = position / 97.0 + time;
    for (int i = 0; i < 32; i++) {
        int k = int(p.x * float(i)) & 3;
        bins[k] += p.y;
        p.y = fract(p.y * 1.7);
    }
    return half4(half3(bins[0], bins[1], bins[2] + bins[3]) / 16.0, 1.0);
}
