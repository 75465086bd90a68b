// A compute kernel, the way Metal projects write image generators: one thread per pixel
// of a writable texture. Kiln previews a kernel by running it over a grid the size of the
// frame (8×8 threadgroups) and showing the first texture it writes.
#include <metal_stdlib>
using namespace metal;

/// Interfering sine waves, coloured through a cosine palette.
/// @arg scale 1...40 = 12 "wave frequency across the frame"
/// @arg tint 0...1 = 0.1,0.4,0.7 "palette phase per channel"
kernel void plasma(texture2d<half, access::write> output [[texture(0)]],
                   constant float &time [[buffer(0)]],
                   constant float &scale [[buffer(1)]],
                   constant float3 &tint [[buffer(2)]],
                   uint2 gid [[thread_position_in_grid]]) {
    // The guard real kernels carry for dispatchThreadgroups; Kiln's grid is exact.
    if (gid.x >= output.get_width() || gid.y >= output.get_height()) {
        return;
    }
    float2 size = float2(output.get_width(), output.get_height());
    float2 uv = (float2(gid) + 0.5) / size;
    float2 p = (uv - 0.5) * scale;
    float v = sin(p.x + time)
            + sin((p.y + time) * 0.5)
            + sin((p.x + p.y + time) * 0.5)
            + sin(length(p + float2(sin(time / 3.0), cos(time / 2.0)) * 4.0) + time);
    float3 color = 0.5 + 0.5 * cos(6.28318 * (v * 0.25 + tint));
    output.write(half4(half3(color), 1.0h), gid);
}
