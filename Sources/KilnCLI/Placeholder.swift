// KilnCLI: the `kiln` commands. (Being written.)
