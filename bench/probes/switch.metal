// Probe (probeSwitch): A four-case `switch` on a varying integer, 32 steps a pixel.
// Run: kiln bench shader bench/probes/switch.metal (docs/benchmarks.md, "Probes").
#include <metal_stdlib>
using namespace metal;
[[ stitchable ]] half4 probeSwitch(float2 position, float time) {
    float acc = 0.0;
    float2 p = position / 97.0 + time;
    for (int i = 0; i < 32; i++) {
        int k = int(p.x * float(i)) & 3; switch (k) { case 0: acc += 0.1; break; case 1: acc += 0.3; break; case 2: acc += p.y; break; default: acc -= 0.2; }
    }
    return half4(half3(acc / 32.0), 1.0);
}
