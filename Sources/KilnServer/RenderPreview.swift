import Foundation
import KilnBytecode
import KilnRender
import KilnVM

/// The server's renderer: KilnRender behind the narrow `PreviewRenderer` interface.
public struct RenderPreview: PreviewRenderer {
    public init() {}

    public func render(_ request: PreviewRequest) throws -> [UInt8] {
        try Renderer.render(Self.renderRequest(request)).bytes
    }

    /// Full-frame kinds (effects, shapes, fragment passes) have coarse frames
    /// (`RenderRequest.sampleStride`); triangle draws and kernels do not.
    public func renderCoarse(_ request: PreviewRequest, stride: Int) throws -> CoarseFrame? {
        guard stride > 1, let function = request.library.function(named: request.function),
              Renderer.hasCoarseFrames(function.kind) else { return nil }
        var coarse = Self.renderRequest(request)
        coarse.sampleStride = stride
        let image = try Renderer.render(coarse)
        return CoarseFrame(pixels: image.bytes, width: image.width, height: image.height, stride: stride)
    }

    public func debug(_ request: PreviewRequest, x: Int, y: Int, maxSteps: Int) throws -> [String: Any] {
        let report = try PixelDebugger.debug(Self.renderRequest(request), x: x, y: y, limits: .init(maxSteps: maxSteps))
        let data = try JSONEncoder().encode(report)
        return (try JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:]
    }

    public func heatmap(_ request: PreviewRequest) throws -> [String: Any] {
        let map = try Renderer.heatmap(Self.renderRequest(request))
        func base64(_ words: [UInt32]) -> String {
            var bytes = [UInt8]()
            bytes.reserveCapacity(words.count * 4)
            for word in words { withUnsafeBytes(of: word.littleEndian) { bytes.append(contentsOf: $0) } }
            return Data(bytes).base64EncodedString()
        }
        let lines: [[String: Any]] = zip(map.lines, map.shares()).map { line, share in
            ["file": line.file, "line": line.line, "lanes": line.lanes, "uniform": line.uniform, "share": share.share]
        }
        return ["width": map.width, "height": map.height, "maximum": Int(map.maximum), "total": map.total,
                "counts": base64(map.counts), "uniform": base64(map.uniform), "lines": lines, "files": map.files,
                "unknownMasks": map.unknownMasks]
    }

    static func renderRequest(_ request: PreviewRequest) -> RenderRequest {
        let content = request.content?.storage as? Texture
        let content2 = request.content2?.storage as? Texture
        var limits = RenderLimits.default
        limits.maxFrameWork = request.maxFrameWork
        var render = RenderRequest(
            library: request.library, functionName: request.function, width: request.width, height: request.height,
            content: content, content2: content2, arguments: request.arguments, time: request.time,
            threads: request.threads, limits: limits, cancellation: request.cancellation)
        render.preparedFunctions = request.preparedFunctions
        return render
    }

    public func encodePNG(premultiplied bytes: [UInt8], width: Int, height: Int) throws -> [UInt8] {
        try PNG.encode(RGBAImage(width: width, height: height, bytes: bytes).unpremultiplied())
    }

    public func decodeContent(png: [UInt8], maxSide: Int) throws -> PreviewContent {
        var limits = RenderLimits()
        limits.maxDimension = maxSide
        let image = try PNG.decode(png, limits: limits)
        return PreviewContent(width: image.width, height: image.height, storage: image.premultipliedTexture())
    }

    public func builtinContent(named name: String, width: Int, height: Int) throws -> PreviewContent {
        guard let texture = BuiltinContent.make(name, width: width, height: height) else {
            throw RenderError("unknown content '\(name)': use \(BuiltinContent.names.joined(separator: ", ")) or upload a PNG")
        }
        return PreviewContent(width: width, height: height, storage: texture)
    }
}
