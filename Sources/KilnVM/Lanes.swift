/// Number of lanes (pixels) one VM batch runs. Every register holds this many 32-bit values.
public let laneCount = 64
