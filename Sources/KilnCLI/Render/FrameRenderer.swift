import Foundation
import KilnBytecode
import KilnCompileTool
import KilnRender
import KilnVM

/// What `kiln render` and `kiln bench` need from the renderer (KilnRender), in one place:
/// content images, prepared draws, the native benchmarks on the same tile scheduler, and
/// PNG output.
struct FrameRenderer {
    /// Worker threads for the tile scheduler.
    var threads: Int
    /// Each frame's work budget (`RenderLimits.maxFrameWork`).
    var maxFrameWork = Self.defaultMaxFrameWork
    static var defaultMaxFrameWork: Int { RenderLimits.default.maxFrameWork }
    /// Broadcast uniform instructions (`ExecutionLimits.uniformExecution`); off only to
    /// measure what it saves.
    var uniformExecution = true
    /// Run dependent float pairs as one step (`ExecutionLimits.pairFusion`); off only to
    /// measure what it saves.
    var pairFusion = true
    /// Run float arithmetic as machine code (`ExecutionLimits.nativeSegments`); off only to
    /// measure what it saves.
    var nativeSegments = true

    /// The images a draw reads: the content under an effect (texture 0 of a fragment
    /// pass) and the second texture of a two-texture pass.
    struct Contents {
        var first: Texture
        var second: Texture
    }

    /// Output size when none is given and the content is generated.
    static let defaultSize = ImageSize(width: 256, height: 256)

    /// Largest PNG file read as content.
    static var maxPNGBytes: Int { RenderLimits.default.maxPNGBytes }

    /// The size to render at when `--size` is omitted: a PNG content's own size, else 256².
    func naturalSize(content: String) throws -> ImageSize {
        guard !BuiltinContent.names.contains(content) else { return Self.defaultSize }
        let image = try Self.readPNG(content)
        return ImageSize(width: image.width, height: image.height)
    }

    /// `first` and `second`: built-in contents generated at `size`, or PNG files (straight
    /// alpha, premultiplied on load; effects then render at the content's own size).
    func loadContents(_ first: String, _ second: String, size: ImageSize) throws -> Contents {
        func load(_ name: String) throws -> Texture {
            if let texture = BuiltinContent.make(name, width: size.width, height: size.height) {
                return texture
            }
            guard name.lowercased().hasSuffix(".png") else {
                throw CommandFailure("unknown content '\(name)': use \(BuiltinContent.names.joined(separator: ", ")) or a .png file")
            }
            return try Self.readPNG(name).premultipliedTexture()
        }
        return Contents(first: try load(first), second: try load(second))
    }

    /// Reads and decodes a PNG file with the renderer's limits.
    static func readPNG(_ path: String) throws -> RGBAImage {
        let bytes = try ShaderSources.readData(path, limit: maxPNGBytes)
        do {
            return try PNG.decode(bytes)
        } catch {
            throw CommandFailure("\(path): \(error)")
        }
    }

    /// Binds the arguments and creates one executor per worker (each runs the prologue
    /// once): a draw that renders frames without further set-up. A vertex function draws
    /// its triangles coloured by the library's first fragment function.
    func prepare(library: Library, function: Function, size: ImageSize, contents: Contents,
                 arguments: [String: [Float]], time: Float?) throws -> PreparedDraw {
        let request = self.request(library: library, function: function, size: size, contents: contents,
                                   arguments: arguments, time: time)
        do {
            return try Renderer.prepare(request)
        } catch {
            throw CommandFailure(error.message)
        }
    }

    /// What `prepare` draws (the pixel debugger runs the same request).
    func request(library: Library, function: Function, size: ImageSize, contents: Contents,
                 arguments: [String: [Float]], time: Float?) -> RenderRequest {
        RenderRequest(library: library, functionName: function.name,
                      width: size.width, height: size.height,
                      content: contents.first, content2: contents.second,
                      arguments: arguments, time: time, threads: max(1, threads),
                      limits: { var limits = RenderLimits.default; limits.maxFrameWork = maxFrameWork; return limits }(),
                      executionLimits: {
                          var limits = ExecutionLimits()
                          limits.uniformExecution = uniformExecution
                          limits.pairFusion = pairFusion
                          limits.nativeSegments = nativeSegments
                          return limits
                      }())
    }

    /// Renders one frame of a prepared draw: premultiplied RGBA8.
    func render(_ draw: PreparedDraw) throws -> RGBAImage {
        do {
            return try draw.render()
        } catch {
            throw CommandFailure(error.message)
        }
    }

    /// What the draw's last frame executed (lane-instructions, weighted and not).
    func counts(of draw: PreparedDraw) -> FrameCounts { draw.lastFrameCounts }

    /// Renders a native benchmark shader on the renderer's tile scheduler.
    func renderNative(_ shader: any NativeShader, size: ImageSize) -> [UInt8] {
        var pixels = [UInt8](repeating: 0, count: size.pixelCount * 4)
        pixels.withUnsafeMutableBufferPointer { buffer in
            let base = buffer.baseAddress!
            TileScheduler.run(height: size.height, threads: threads) { _, rows in
                for y in rows {
                    shader.shadeSpan(y: y, x0: 0, x1: size.width, output: base + y * size.width * 4)
                }
            }
        }
        return pixels
    }

    /// Writes a premultiplied frame as a PNG: converted to straight alpha, as PNG viewers
    /// expect, unless `premultiplied` asks for the bytes as they are.
    func writePNG(_ image: RGBAImage, premultiplied: Bool, to path: String) throws {
        let bytes: [UInt8]
        do {
            bytes = try PNG.encode(premultiplied ? image : image.unpremultiplied())
        } catch {
            throw CommandFailure("\(path): \(error.message)")
        }
        try ShaderBuild.write(bytes, to: path)
    }
}
