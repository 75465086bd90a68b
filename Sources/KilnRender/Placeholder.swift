// KilnRender: images, PNG, samplers, effects, tiles. (Being written.)
