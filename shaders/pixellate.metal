// Pixellation, as a SwiftUI distortion effect: every pixel of a block reads the source
// at the block's centre, so the block takes that one colour. An optional gap between
// the blocks reads far outside the layer, which SwiftUI (and Kiln) treat as transparent,
// and turns the picture into a mosaic of tiles.
#include <metal_stdlib>
#include <SwiftUI/SwiftUI_Metal.h>
using namespace metal;

// Blocks smaller than one point would only blur the picture.
#define MIN_BLOCK_SIZE 1.0
// A position this far outside any layer samples transparent black.
#define OUTSIDE float2(-100000.0, -100000.0)

/// Blocks of `blockSize` points, with `gap` points of transparent grout between them.
/// @arg blockSize 1...64 = 8 "edge of one block in points"
/// @arg gap 0...8 = 0 "transparent gap between the blocks in points"
[[ stitchable ]] float2 pixellate(float2 position, float blockSize, float gap) {
    float size = max(blockSize, MIN_BLOCK_SIZE);
    float2 cell = floor(position / size);
    // Where in its block the pixel lies, in points from the block's top-left corner.
    float2 local = position - cell * size;
    if (gap > 0 && (local.x < gap || local.y < gap)) {
        return OUTSIDE;
    }
    // The centre of the block: exactly between four texels for even sizes, so a
    // bilinear read averages them, as a GPU does.
    return (cell + 0.5) * size;
}
