// The screen melt from Doom (1993) as a Metal full-screen fragment pass: the old
// screen splits into narrow columns that slide down, each starting after its own
// random delay and then accelerating, and uncover the new screen behind them.
//
// Bind the old screen to texture 0, the new one to texture 1, and the transition time
// in seconds to buffer 0. The pass draws one full-screen triangle whose vertex stage
// outputs `FullScreenVertex`.
#include <metal_stdlib>
using namespace metal;

struct FullScreenVertex {
    float4 position [[position]];
    float2 uv;                         // 0...1 across the screen, y down
};

// The transition reads between texels as it moves, and must never wrap around.
constexpr sampler screenSampler(address::clamp_to_edge, filter::linear);

// Doom moved its columns two pixels wide; at preview sizes a little wider reads better.
constant float kColumnWidth = 6;      // pixels
constant float kMaxDelay = 0.35;      // seconds before the last column starts
constant float kStartSpeed = 0.8;     // screens per second when a column starts
constant float kAcceleration = 3.0;   // screens per second squared

/// One column's start delay: a hash of its index, so it is stable between frames.
static inline float columnDelay(float column) {
    return kMaxDelay * fract(sin(column * 91.3458) * 47453.5453);
}

/// Melts `oldScreen` away to reveal `newScreen`.
/// @arg time 0...1.5 = 0.4 "seconds since the transition started"
fragment float4 screenMelt(FullScreenVertex in [[stage_in]],
                           texture2d<float> oldScreen [[texture(0)]],
                           texture2d<float> newScreen [[texture(1)]],
                           constant float &time [[buffer(0)]]) {
    float width = float(oldScreen.get_width());
    float column = floor(in.uv.x * width / kColumnWidth);
    float progress = max(time - columnDelay(column), 0.0);
    // Distance fallen, in screen heights: a slow start, then gravity.
    float fallen = progress * kStartSpeed + 0.5 * kAcceleration * progress * progress;
    float2 uv = float2(in.uv.x, in.uv.y - fallen);
    if (uv.y < 0) {
        // Above the falling column: the new screen shows through.
        return newScreen.sample(screenSampler, in.uv);
    }
    return oldScreen.sample(screenSampler, uv);
}
