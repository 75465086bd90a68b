// A compute pass of the same project: reads the frame it is given, writes a dithered,
// palette-reduced copy. Shares the Bayer table with the SwiftUI effect through the header.
#include <metal_stdlib>
#include "../../Include/Dither.h"
using namespace metal;

kernel void orderedDither(texture2d<half, access::read> inTexture [[texture(0)]],
                          texture2d<half, access::write> outTexture [[texture(1)]],
                          constant float &iTime [[buffer(0)]],
                          uint2 gid [[thread_position_in_grid]],
                          ushort2 lid [[thread_position_in_threadgroup]]) {
    if (gid.x >= outTexture.get_width() || gid.y >= outTexture.get_height()) {
        return;
    }
    half4 color = inTexture.read(gid);
    float threshold = bayer[lid.x % 4][lid.y % 4] / 16.0 - 0.5;
    float levels = 3.0 + 2.0 * (0.5 + 0.5 * sin(iTime));
    half3 c = floor(color.rgb * half(levels) + half(threshold)) / half(levels);
    outTexture.write(half4(clamp(c, 0.0h, 1.0h), 1.0h), gid);
}
