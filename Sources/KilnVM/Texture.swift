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
        Texture(width: width, height: height, pixels: [])
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

    init(width: Int, height: Int, pixels: [Float]) {
        // Sizes come from callers; multiply without trapping and refuse absurd sizes.
        let (area, o1) = width.multipliedReportingOverflow(by: height)
        let (floats, o2) = area.multipliedReportingOverflow(by: 4)
        count = (o1 || o2) ? 0 : floats
        texels = .allocate(capacity: count + 4)
        texels.initialize(repeating: 0, count: count + 4)
        pixels.withUnsafeBufferPointer { source in
            if let base = source.baseAddress {
                texels.update(from: base, count: min(count, source.count))
            }
        }
    }

    deinit { texels.deallocate() }
}
