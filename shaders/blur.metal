// A box blur, as a SwiftUI layer effect: the average of a square of layer samples.
// A layer effect runs once, so the blur cannot be split into the usual horizontal and
// vertical passes; keep the radius small (the cost grows with its square).
#include <metal_stdlib>
#include <SwiftUI/SwiftUI_Metal.h>
using namespace metal;

// Upper bound on the radius, so a slider pushed too far cannot make a frame take
// seconds: (2 * 6 + 1)^2 = 169 samples per pixel at most.
#define MAX_RADIUS 6

/// Averages (2r+1)² samples around each pixel.
/// @arg radius 0...6 = 2 "samples on each side of the pixel"
/// @arg spacing 0.5...4 = 1.5 "distance between samples in points"
[[ stitchable ]] half4 boxBlur(float2 position, SwiftUI::Layer layer, float radius, float spacing) {
    int r = clamp(int(radius), 0, MAX_RADIUS);
    half4 sum = 0;
    for (int y = -r; y <= r; y++) {
        for (int x = -r; x <= r; x++) {
            sum += layer.sample(position + float2(x, y) * spacing);
        }
    }
    int side = 2 * r + 1;
    // Premultiplied colours average correctly as they are: transparent samples add
    // nothing to rgb and lower the alpha by the same share.
    return sum / half(side * side);
}
