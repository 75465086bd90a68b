import KilnBytecode
import KilnRender
import KilnVM

/// Small helpers the driver, rasterizer, determinism and robustness tests share: compile a
/// snippet, render one of its functions, read a pixel.
enum Draw {
    /// Compiles `source` and renders `function` (one thread unless told otherwise).
    static func render(_ source: String, _ function: String, width: Int = 8, height: Int = 8,
                       content: Texture? = nil, content2: Texture? = nil, arguments: [String: [Float]] = [:],
                       time: Float? = nil, threads: Int = 1, rowsPerBand: Int = TileScheduler.defaultRowsPerBand,
                       limits: RenderLimits = .default) throws -> RGBAImage {
        let library = try compile(source)
        return try Renderer.render(RenderRequest(library: library, functionName: function, width: width, height: height,
                                                 content: content, content2: content2, arguments: arguments, time: time,
                                                 threads: threads, rowsPerBand: rowsPerBand, limits: limits))
    }

    /// The error message of a render that must fail, or nil when it succeeded.
    static func failure(_ body: () throws -> RGBAImage) -> String? {
        do {
            _ = try body()
            return nil
        } catch let error as RenderError {
            return error.message
        } catch {
            return "\(error)"
        }
    }

    /// A premultiplied texture whose texels come from `texel(x, y)`.
    static func texture(width: Int, height: Int, _ texel: (Int, Int) -> (Float, Float, Float, Float)) -> Texture {
        var pixels = [Float](repeating: 0, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let (r, g, b, a) = texel(x, y)
                let index = (y * width + x) * 4
                pixels[index] = r; pixels[index + 1] = g; pixels[index + 2] = b; pixels[index + 3] = a
            }
        }
        return Texture(width: width, height: height, pixels: pixels)
    }

    /// The output quantization rule (conformance README §6), written out independently.
    static func level(_ value: Float) -> UInt8 {
        if value.isNaN || value <= 0 { return 0 }
        if value >= 1 { return 255 }
        return UInt8((value * 255 + 0.5).rounded(.down))
    }
}

extension RGBAImage {
    /// The four bytes of pixel (x, y).
    func pixel(_ x: Int, _ y: Int) -> [UInt8] {
        let index = (y * width + x) * 4
        return Array(bytes[index..<index + 4])
    }

    /// The alpha byte of pixel (x, y).
    func alpha(_ x: Int, _ y: Int) -> UInt8 { bytes[(y * width + x) * 4 + 3] }
}
