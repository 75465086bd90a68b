// Probe (probePCG): A PCG integer hash (multiplies, shifts by a varying amount, xor) updated in place, 32 steps a pixel.
// Run: kiln bench shader bench/probes/pcg.metal (docs/benchmarks.md, "Probes").
#include <metal_stdlib>
using namespace metal;
[[ stitchable ]] half4 probePCG(float2 position, float time) {
    uint v = uint(position.x) * 1973u + uint(position.y) * 9277u + uint(time * 60.0);
    float acc = 0.0;
    for (int i = 0; i < 32; i++) {
        uint state = v * 747796405u + 2891336453u;
        uint word = ((state >> ((state >> 28u) + 4u)) ^ state) * 277803737u;
        v = (word >> 22u) ^ word;
        acc += float(v & 255u);
    }
    return half4(half3(acc / 8160.0), 1.0);
}
