// Animated Truchet tiles as a SwiftUI color effect: every cell holds two quarter-circle
// arcs, flipped by a per-cell hash, so the arcs join into endless winding tubes along
// which bright dashes flow.
#include <metal_stdlib>
using namespace metal;

constant float kCellSize = 48.0;   // points per tile
constant float kStroke = 0.11;     // half the tube width, in tiles
constant float kDashes = 2.0;      // dashes per quarter arc

static float hash(float2 p) {
    return fract(sin(dot(p, float2(12.9898, 78.233))) * 43758.5453);
}

/// Animated Truchet tubes with flowing dashes.
/// @arg time 0...60 = 2 "seconds"
[[ stitchable ]] half4 artTruchet(float2 position, half4 color, float2 size, float time) {
    // A slow diagonal drift keeps the whole tiling alive, not only the dashes.
    float2 uv = (position - 0.5 * size) / kCellSize + float2(time * 0.15, time * 0.08);
    float2 id = floor(uv);
    float2 f = fract(uv) - 0.5;
    // One pixel in tile units: the AA width stays a pixel at any tile size.
    float px = 1.0 / kCellSize;

    // Mirroring the cell picks the other of the two Truchet orientations.
    bool flipped = hash(id) < 0.5;
    if (flipped) f.x = -f.x;

    // The two arcs are centred on opposite corners; take the nearer one.
    float2 toA = f - float2(0.5, 0.5);
    float2 toB = f + float2(0.5, 0.5);
    bool nearA = length(toA) < length(toB);
    float2 local = nearA ? toA : toB;
    float d = abs(length(local) - 0.5);

    // Position along the arc, 0…1 counter-clockwise in the cell's own (maybe mirrored)
    // frame. Truchet regions are 2-colourable by corner parity, so running every arc
    // counter-clockwise around even corners and clockwise around odd ones keeps the flow
    // continuous across tiles. Mirroring flips both the corner's parity and the sense of
    // rotation, so the two cancel and only the cell's parity matters.
    float along = atan2(abs(local.y), abs(local.x)) / M_PI_2_F;
    float parity = fmod(id.x + id.y + 1000.0, 2.0) * 2.0 - 1.0;
    float flow = fract(along * kDashes * parity - time * 0.8);

    float tube = 1.0 - smoothstep(kStroke - px, kStroke + px, d);
    float edge = 1.0 - smoothstep(px, 2.0 * px, abs(d - kStroke));
    // Rounded dashes: fade at both ends so they read as light moving in the tube.
    float dash = smoothstep(0.0, 0.15, flow) * (1.0 - smoothstep(0.45, 0.6, flow));
    dash *= 1.0 - smoothstep(kStroke * 0.45 - px, kStroke * 0.45 + px, d);

    // Hue drifts across the screen and in time, so the tubes read as one flowing system.
    float2 screen = position / size;
    float3 hue = 0.5 + 0.5 * cos(6.28318 * (screen.x * 0.6 + screen.y * 0.3 + time * 0.05 + float3(0.0, 0.33, 0.67)));
    float3 background = float3(0.05, 0.05, 0.08) * (0.8 + 0.4 * hash(id + 7.0));
    float3 rgb = background;
    // A soft glow around each tube so the lines do not look cut out of the page.
    rgb += hue * 0.25 * exp(-d * 18.0);
    rgb = mix(rgb, hue * 0.45, tube);
    rgb = mix(rgb, float3(1.0, 0.97, 0.9), dash * 0.9);
    rgb = mix(rgb, hue * 0.9, edge * 0.8);

    // Vignette: corners fall to about 40%, a lens-like falloff that frames the tiling.
    float2 v = screen - 0.5;
    rgb *= 1.0 - 0.6 * smoothstep(0.2, 0.75, length(v) * 1.2);
    return half4(half3(rgb), 1) * color.a;
}
