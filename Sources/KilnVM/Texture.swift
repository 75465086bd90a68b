/// An image the VM samples: premultiplied RGBA binary32, four floats per texel, row 0 at the top.
///
/// The texels are copied once into storage the texture owns, so the VM's hot loop can read
/// them through a stable pointer without touching an array (no retain, no bounds check, no
/// escaping `withUnsafeBufferPointer`). The array given to `init` is not kept: a 2048²
/// content image is 64 MiB, and the server keeps many (issue 14 measured ~270 MB a session
/// when both copies were kept). Missing pixels (a `pixels` array shorter than
/// `width × height × 4`) read as transparent black; negative sizes count as 0.
public struct Texture: Sendable {
    public let width: Int
    public let height: Int
    /// The texels behind a stable pointer, always exactly `width × height × 4` floats.
    let storage: TexelStorage

    public init(width: Int, height: Int, pixels: [Float]) {
        self.width = max(0, width)
        self.height = max(0, height)
        self.storage = TexelStorage(width: self.width, height: self.height, pixels: pixels)
    }

    /// A copy of the texels: premultiplied RGBA, `(y × width + x) × 4 + channel`,
    /// `width × height × 4` floats. Loops should read `withTexels` instead.
    public var pixels: [Float] { withTexels { Array($0) } }

    /// A texture a kernel writes (`Binding.outputTexture`): transparent black until
    /// `texwrite` stores into it, in place, so every executor bound to it sees the same
    /// texels; `withTexels` reads what was written.
    public static func target(width: Int, height: Int) -> Texture {
        Texture(width: width, height: height, storage: TexelStorage(width: width, height: height, pixels: [], writable: true))
    }

    private init(width: Int, height: Int, storage: TexelStorage) {
        self.width = max(0, width)
        self.height = max(0, height)
        self.storage = storage
    }

    /// Calls `body` with the current texels (`width × height × 4` floats), including what
    /// kernels wrote.
    public func withTexels<R>(_ body: (UnsafeBufferPointer<Float>) throws -> R) rethrows -> R {
        try withExtendedLifetime(storage) {
            try body(UnsafeBufferPointer(start: storage.texels, count: storage.count))
        }
    }
}

/// Owned copy of a texture's texels (written only by `texwrite`, for kernel targets), followed by one transparent-black texel
/// that out-of-image taps point at (so edge sampling needs no optional loads).
final class TexelStorage: @unchecked Sendable {
    let texels: UnsafeMutablePointer<Float>
    /// Floats of image data (the zero texel follows at `texels + count`).
    let count: Int
    /// Every texel is finite and none is −0, and nothing will write them (not a kernel's
    /// target). Then bilinear filtering with both weights +0 returns the top-left texel's
    /// bits exactly — `a + (b − a)·0 = a` — so a batch sampled at texel centres may read
    /// texels directly (`TextureView.sampleLanes`). Content from PNGs always is.
    let plain: Bool

    init(width: Int, height: Int, pixels: [Float], writable: Bool = false) {
        // Sizes come from callers; multiply without trapping and refuse absurd sizes.
        let (area, o1) = width.multipliedReportingOverflow(by: height)
        let (floats, o2) = area.multipliedReportingOverflow(by: 4)
        let count = (o1 || o2) ? 0 : floats
        let texels = UnsafeMutablePointer<Float>.allocate(capacity: count + 4)
        texels.initialize(repeating: 0, count: count + 4)
        pixels.withUnsafeBufferPointer { source in
            if let base = source.baseAddress {
                texels.update(from: base, count: min(count, source.count))
            }
        }
        self.count = count
        self.texels = texels
        plain = !writable && Self.allPlain(texels, count)
    }

    /// True when no value is ±∞, NaN or −0 (a max reduction the optimizer vectorizes).
    private static func allPlain(_ texels: UnsafeMutablePointer<Float>, _ count: Int) -> Bool {
        let bits = UnsafeMutableRawPointer(texels).assumingMemoryBound(to: UInt32.self)
        var bad: UInt32 = 0
        for index in 0..<count {
            let v = bits[index]
            let special: UInt32 = (v & 0x7F80_0000) == 0x7F80_0000 || v == 0x8000_0000 ? 1 : 0
            bad = max(bad, special)
        }
        return bad == 0
    }

    deinit { texels.deallocate() }
}
