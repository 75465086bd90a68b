// Probe (probeBlur49): A 7×7 box blur of the layer at 1.5-pixel spacing: 49 bilinear samples a pixel.
// Run: kiln bench shader bench/probes/blur49.metal (docs/benchmarks.md, "Probes").
#include <metal_stdlib>
#include <SwiftUI/SwiftUI_Metal.h>
using namespace metal;
[[ stitchable ]] half4 probeBlur49(float2 position, SwiftUI::Layer layer, float time) {
    half4 acc = half4(0.0);
    for (int i = -3; i <= 3; i++) {
        for (int j = -3; j <= 3; j++) {
            acc += layer.sample(position + float2(float(i), float(j)) * 1.5);
        }
    }
    return acc / 49.0;
}
