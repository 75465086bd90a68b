import ArgumentParser
import KilnCompileTool

/// An output size given as `WxH` (e.g. `512x256`).
struct ImageSize: ExpressibleByArgument, Equatable, CustomStringConvertible {
    /// Limits on a rendered image, so a typo cannot allocate gigabytes.
    struct Limits {
        /// Longest side in pixels.
        var maxSide = 16384
        /// Most pixels in one frame (float RGBA working memory is 16 bytes a pixel).
        var maxPixels = 32 << 20
    }

    var width: Int
    var height: Int

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    init?(argument: String) {
        try? self.init(parsing: argument)
    }

    /// Parses `WxH` and checks it against `limits`, with a message saying what is wrong.
    init(parsing text: String, limits: Limits = Limits()) throws {
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]) else {
            throw CommandFailure("invalid size '\(text)': expected WIDTHxHEIGHT, e.g. 512x512")
        }
        guard width > 0, height > 0 else {
            throw CommandFailure("invalid size '\(text)': width and height must be at least 1")
        }
        guard width <= limits.maxSide, height <= limits.maxSide else {
            throw CommandFailure("size \(text) is too large: at most \(limits.maxSide) pixels per side")
        }
        guard width * height <= limits.maxPixels else {
            throw CommandFailure("size \(text) is too large: at most \(limits.maxPixels) pixels in all")
        }
        self.init(width: width, height: height)
    }

    var description: String { "\(width)x\(height)" }
    var pixelCount: Int { width * height }
}
