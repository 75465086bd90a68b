import Foundation
import KilnBytecode
import KilnRender
import KilnVM

/// Draws scene documents, caching every layer's output between frames.
///
/// Each layer's output is a premultiplied float image of the frame, cached under a key
/// made of everything it depends on: its own JSON, the sources and library it reads, the
/// camera and frame size — and, for an effect, the key of what lies beneath it in its
/// slot. Rendering a new document (`render(_:)`) therefore diffs it against the previous
/// one for free: a layer whose key did not change is not drawn again; only the cheap
/// source-over composite is redone. `renderCounts` counts real draws per layer id.
///
/// Not thread-safe: use one renderer from one thread at a time (a session owns one).
public final class SceneRenderer {
    /// Folder that `path` libraries and `png` sources are relative to.
    public var baseDirectory: URL
    /// Images uploaded by name (a `png` source names one of these before trying a file).
    public var uploadedImages: [String: RGBAImage] = [:]
    /// Worker threads for effect draws (0 = one per core).
    public var threads: Int
    public var limits: SceneLimits
    public var renderLimits: RenderLimits
    /// When false (a server), `path` libraries and `png` files must resolve to visible
    /// files directly inside `baseDirectory`: nothing above or below it, no hidden files.
    public var allowsSubpaths = true

    /// How many times each layer (by id) has been drawn, cache misses only.
    public private(set) var renderCounts: [String: Int] = [:]
    /// Ids of the layers drawn (not taken from the cache) by the last `render`, in order.
    public private(set) var lastDrawn: [String] = []

    private struct CachedLayer {
        var key: UInt64
        var output: LayerOutput
    }
    private var cache: [String: CachedLayer] = [:]
    /// Compiles the scene's shader sources; compiled libraries are kept by shader text.
    private let libraryProvider: SceneLibraryProvider
    private var libraries: [String: Library] = [:]          // by shader text
    /// Shader texts of `libraries`, least recently used first.
    private var libraryOrder: [String] = []
    /// Group outputs of the frame being rendered.
    private var groupOutputs: [String: (key: UInt64, pixels: [Float])] = [:]

    public init(libraries: SceneLibraryProvider,
                baseDirectory: URL = URL(fileURLWithPath: FileManager.default.currentDirectoryPath),
                threads: Int = 0, limits: SceneLimits = .default, renderLimits: RenderLimits = .default) {
        self.libraryProvider = libraries
        self.baseDirectory = baseDirectory
        self.threads = threads
        self.limits = limits
        self.renderLimits = renderLimits
    }

    /// A layer's drawing: pixels, and whether they replace what lies beneath in the slot
    /// (distortion, color, layer and fragment effects) or go over it.
    struct LayerOutput {
        var pixels: [Float]
        var replaces: Bool
    }

    /// Renders `document` (premultiplied RGBA8), reusing every cached layer whose inputs
    /// did not change since the last frame.
    public func render(_ document: SceneDocument) throws(SceneError) -> RGBAImage {
        lastDrawn = []
        groupOutputs = [:]
        var used: Set<String> = []
        let (_, pixels) = try composite(document.layers, path: "layers", document: document, used: &used)
        // Forget layers that left the document, then the lowest ones while over budget
        // (the top of the stack is what edits usually touch).
        for id in cache.keys where !used.contains(id) { cache[id] = nil }
        var cached = cache.values.reduce(0) { $0 + $1.output.pixels.count }
        if cached > limits.maxCachedFloats {
            let bottomUp = (document.groups.keys.sorted().flatMap { document.groups[$0] ?? [] }
                + SceneDocument.drawingOrder(document.layers).flatMap { $0 }).map(\.id)
            for id in bottomUp where cached > limits.maxCachedFloats {
                if let entry = cache.removeValue(forKey: id) { cached -= entry.output.pixels.count }
            }
        }
        var bytes = [UInt8](repeating: 0, count: pixels.count)
        for index in pixels.indices { bytes[index] = quantize(pixels[index]) }
        return RGBAImage(width: document.width, height: document.height, bytes: bytes)
    }

    /// Forgets every cached layer output (counts are kept).
    public func clearCache() {
        cache = [:]
    }

    /// Composites a layer list: slot by slot, each slot's layers in order, effects applied
    /// to what lies beneath them in their slot, then the slots over each other.
    private func composite(_ layers: [SceneLayer], path: String, document: SceneDocument,
                           used: inout Set<String>) throws(SceneError) -> (key: UInt64, pixels: [Float]) {
        let count = document.width * document.height * 4
        var frame = [Float](repeating: 0, count: count)
        var frameKey = Hash()
        let indexOf = Dictionary(layers.enumerated().map { ($0.element.id, $0.offset) }, uniquingKeysWith: { a, _ in a })
        for slotLayers in SceneDocument.drawingOrder(layers) {
            guard !slotLayers.isEmpty else { continue }
            var slot = [Float](repeating: 0, count: count)
            var beneath = Hash()
            for layer in slotLayers {
                let layerPath = "\(path)[\(indexOf[layer.id] ?? 0)]"
                var key = Hash()
                key.add(layer.canonical)
                key.add("\(document.width)x\(document.height)|\(document.cameraText)")
                for name in layer.kind.sources {
                    key.add(document.sourceText[name] ?? "")
                    if let group = document.sources[name]?.group {
                        key.add(try groupOutput(group, document: document, used: &used).key)
                    }
                }
                if let library = layer.kind.library { key.add(try libraryText(library, document: document, path: layerPath)) }
                if case .effect = layer.kind { key.add(beneath.value) }
                used.insert(layer.id)
                let output: LayerOutput
                if let cached = cache[layer.id], cached.key == key.value {
                    output = cached.output
                } else {
                    output = try draw(layer, beneath: slot, document: document, path: layerPath, used: &used)
                    cache[layer.id] = CachedLayer(key: key.value, output: output)
                    renderCounts[layer.id, default: 0] += 1
                    lastDrawn.append(layer.id)
                }
                if output.replaces { slot = output.pixels } else { Compositing.over(output.pixels, onto: &slot) }
                beneath.add(key.value)
            }
            Compositing.over(slot, onto: &frame)
            frameKey.add(beneath.value)
        }
        return (frameKey.value, frame)
    }

    private func groupOutput(_ name: String, document: SceneDocument,
                             used: inout Set<String>) throws(SceneError) -> (key: UInt64, pixels: [Float]) {
        if let done = groupOutputs[name] { return done }
        let result = try composite(document.groups[name] ?? [], path: "groups.\(name).layers", document: document, used: &used)
        groupOutputs[name] = result
        return result
    }

    // MARK: Drawing one layer

    private func draw(_ layer: SceneLayer, beneath: [Float], document: SceneDocument, path: String,
                      used: inout Set<String>) throws(SceneError) -> LayerOutput {
        let (width, height) = (document.width, document.height)
        var pixels = [Float](repeating: 0, count: width * height * 4)
        let rasterizer = SolidTriangleRasterizer(width: width, height: height)
        switch layer.kind {
        case .background(let color, let opacity):
            let c = color.premultiplied(opacity: opacity)
            for index in stride(from: 0, to: pixels.count, by: 4) {
                pixels[index] = c.r; pixels[index + 1] = c.g; pixels[index + 2] = c.b; pixels[index + 3] = c.a
            }
        case .raster(let source, let opacity):
            let image = try imagePixels(source, document: document, path: "\(path).source", used: &used)
            for index in pixels.indices { pixels[index] = image[index] * opacity }
        case .fill(let source, let color, let opacity):
            var triangles: [(x: Double, y: Double)] = []
            for feature in geometry(source, document: document) {
                guard case .polygon(let ring) = feature else { continue }
                guard let pieces = Tessellator.polygon(Self.points(ring), maxSteps: limits.maxTessellationSteps) else {
                    throw SceneError(path: "sources.\(source)", "a polygon of \(ring.count) points exceeds maxTessellationSteps = \(limits.maxTessellationSteps)")
                }
                triangles += pieces
            }
            rasterizer.fill(triangles, color: color.premultiplied(opacity: opacity), into: &pixels)
        case .line(let source, let color, let lineWidth, let opacity, let cap, let join):
            var triangles: [(x: Double, y: Double)] = []
            for feature in geometry(source, document: document) {
                switch feature {
                case .line(let points):
                    triangles += Tessellator.line(Self.points(points), width: lineWidth, cap: cap, join: join, roundSegments: limits.maxRoundSegments)
                case .polygon(let ring):
                    // A polygon's outline: the ring closed.
                    var closed = ring
                    if let first = ring.first, ring.last.map({ $0 != first }) ?? false { closed.append(first) }
                    triangles += Tessellator.line(Self.points(closed), width: lineWidth, cap: cap, join: join, roundSegments: limits.maxRoundSegments)
                case .points: break
                }
            }
            rasterizer.fill(triangles, color: color.premultiplied(opacity: opacity), into: &pixels)
        case .circle(let source, let color, let radius, let opacity):
            var triangles: [(x: Double, y: Double)] = []
            for feature in geometry(source, document: document) {
                if case .points(let points) = feature {
                    for point in Self.points(points) { triangles += Tessellator.circle(point, radius: radius, segments: limits.maxRoundSegments) }
                }
            }
            rasterizer.fill(triangles, color: color.premultiplied(opacity: opacity), into: &pixels)
        case .custom(let libraryName, let vertex, let fragment, let verticesName, let bufferName, let arguments):
            let library = try compiledLibrary(libraryName, document: document, path: "\(path).library")
            guard let vertexFunction = library.function(named: vertex), vertexFunction.kind == .vertex else {
                throw SceneError(path: "\(path).vertex", "no vertex function \"\(vertex)\" in library \"\(libraryName)\"")
            }
            guard let fragmentFunction = library.function(named: fragment), fragmentFunction.kind == .fragment else {
                throw SceneError(path: "\(path).fragment", "no fragment function \"\(fragment)\" in library \"\(libraryName)\"")
            }
            guard case .vertices(let vertices)? = document.sources[verticesName] else {
                throw SceneError(path: "\(path).vertices", "source \"\(verticesName)\" is not a vertices source")
            }
            var values = arguments
            let buffer = bufferName ?? vertexFunction.parameters.first { parameter in
                if case .buffer = parameter.binding { return true } else { return false }
            }?.name
            guard let buffer else {
                throw SceneError(path: path, "vertex function \"\(vertex)\" has no buffer argument for the vertices")
            }
            values[buffer] = worldVertices(vertices)
            // The projection matrix goes to the float4x4 uniform nobody set.
            for function in [vertexFunction, fragmentFunction] {
                if let matrix = function.parameters.first(where: { parameter in
                    guard case .uniform = parameter.binding, let type = parameter.valueType else { return false }
                    return type.scalar == .float && type.rows == 4 && type.columns == 4 && type.arrayLength == 0
                        && values[parameter.name] == nil
                }) {
                    values[matrix.name] = document.camera.projectionMatrix(width: width, height: height)
                    break
                }
            }
            let request = RenderRequest(library: library, functionName: vertex, fragmentName: fragment, width: width,
                                        height: height, arguments: values, vertexCount: vertices.count, threads: threads,
                                        limits: renderLimits)
            pixels = try renderPixels(request, path: path)
        case .effect(let libraryName, let functionName, let arguments, let texture2, let time):
            let library = try compiledLibrary(libraryName, document: document, path: "\(path).library")
            guard let function = library.function(named: functionName) else {
                throw SceneError(path: "\(path).function", "no function \"\(functionName)\" in library \"\(libraryName)\"")
            }
            guard function.kind != .vertex else {
                throw SceneError(path: "\(path).function", "\"\(functionName)\" is a vertex function; use a custom layer")
            }
            let content = Texture(width: width, height: height, pixels: beneath)
            var second: Texture?
            if let texture2 {
                second = Texture(width: width, height: height,
                                 pixels: try imagePixels(texture2, document: document, path: "\(path).texture2", used: &used))
            }
            let request = RenderRequest(library: library, functionName: functionName, width: width, height: height,
                                        content: content, content2: second, arguments: arguments, time: time,
                                        threads: threads, limits: renderLimits)
            pixels = try renderPixels(request, path: path)
            return LayerOutput(pixels: pixels, replaces: function.kind != .shape)
        }
        return LayerOutput(pixels: pixels, replaces: false)
    }

    static func points(_ list: [[Double]]) -> [(x: Double, y: Double)] { list.map { ($0[0], $0[1]) } }

    /// Runs a draw and turns its premultiplied bytes back into floats.
    private func renderPixels(_ request: RenderRequest, path: String) throws(SceneError) -> [Float] {
        let image: RGBAImage
        do { image = try Renderer.render(request) } catch { throw SceneError(path: path, error.message) }
        return image.bytes.map { Float($0) / 255 }
    }

    /// Vertex floats with lon/lat positions turned into world (unit Mercator) coordinates.
    private func worldVertices(_ vertices: SceneSource.Vertices) -> [Float] {
        guard vertices.lonlat else { return vertices.data }
        var data = vertices.data
        for vertex in 0..<vertices.count {
            let base = vertex * vertices.stride
            let world = SceneCamera.mercator(longitude: Double(data[base]), latitude: Double(data[base + 1]))
            data[base] = Float(world.x)
            data[base + 1] = Float(world.y)
        }
        return data
    }

    /// A geometry source's features with every position in frame pixels.
    private func geometry(_ name: String, document: SceneDocument) -> [SceneSource.Feature] {
        guard case .geometry(let geometry)? = document.sources[name] else { return [] }
        func project(_ points: [[Double]]) -> [(x: Double, y: Double)] {
            points.map { point in
                let world = geometry.coordinates == .lonlat
                    ? SceneCamera.mercator(longitude: point[0], latitude: point[1]) : (x: point[0], y: point[1])
                return geometry.coordinates == .lonlat
                    ? document.camera.pixel(world: world, width: document.width, height: document.height) : world
            }
        }
        return geometry.features.map { feature in
            switch feature {
            case .points(let points): return .points(project(points).map { [$0.x, $0.y] })
            case .line(let points): return .line(project(points).map { [$0.x, $0.y] })
            case .polygon(let points): return .polygon(project(points).map { [$0.x, $0.y] })
            }
        }
    }

    /// An image source at the frame size, premultiplied floats.
    private func imagePixels(_ name: String, document: SceneDocument, path: String,
                             used: inout Set<String>) throws(SceneError) -> [Float] {
        let (width, height) = (document.width, document.height)
        guard case .image(let image)? = document.sources[name] else {
            throw SceneError(path: path, "source \"\(name)\" is not an image source")
        }
        switch image {
        case .builtin(let builtin):
            guard let texture = BuiltinContent.make(builtin, width: width, height: height) else {
                throw SceneError(path: "sources.\(name).builtin", "unknown built-in image \"\(builtin)\"")
            }
            return texture.pixels
        case .group(let group):
            return try groupOutput(group, document: document, used: &used).pixels
        case .png(let file):
            let picture: RGBAImage
            if let uploaded = uploadedImages[file] {
                picture = uploaded
            } else {
                let url = try fileURL(file, path: "sources.\(name).png")
                guard let data = FileManager.default.contents(atPath: url.path) else {
                    throw SceneError(path: "sources.\(name).png", "no uploaded image or file \"\(file)\"")
                }
                do { picture = try PNG.decode(Array(data), limits: renderLimits) } catch {
                    throw SceneError(path: "sources.\(name).png", error.message)
                }
            }
            return Self.resample(picture.premultipliedTexture(), width: width, height: height)
        }
    }

    /// Nearest-neighbour resampling to the frame size (a raster covers the frame).
    static func resample(_ texture: Texture, width: Int, height: Int) -> [Float] {
        if texture.width == width && texture.height == height { return texture.pixels }
        var pixels = [Float](repeating: 0, count: width * height * 4)
        guard texture.width > 0, texture.height > 0 else { return pixels }
        texture.withTexels { texels in
            for y in 0..<height {
                let sy = min(texture.height - 1, y * texture.height / height)
                for x in 0..<width {
                    let sx = min(texture.width - 1, x * texture.width / width)
                    for channel in 0..<4 { pixels[(y * width + x) * 4 + channel] = texels[(sy * texture.width + sx) * 4 + channel] }
                }
            }
        }
        return pixels
    }

    // MARK: Libraries

    private func libraryText(_ name: String, document: SceneDocument, path: String) throws(SceneError) -> String {
        switch document.libraries[name] {
        case .source(let text)?: return text
        case .path(let file)?:
            let url = try fileURL(file, path: "libraries.\(name).path")
            guard let data = FileManager.default.contents(atPath: url.path) else {
                throw SceneError(path: "libraries.\(name).path", "cannot read \"\(url.path)\"")
            }
            return String(decoding: data, as: UTF8.self)
        case nil:
            throw SceneError(path: "\(path).library", "unknown library \"\(name)\"")
        }
    }

    /// A file named by the scene, relative to `baseDirectory`.
    private func fileURL(_ name: String, path: String) throws(SceneError) -> URL {
        let url = URL(fileURLWithPath: name, relativeTo: baseDirectory)
        if !allowsSubpaths {
            // Whatever the spelling (`melt.metal`, `../shaders/melt.metal` in a document
            // written next to scenes/), the file must resolve to a visible file directly
            // inside `baseDirectory`.
            let base = baseDirectory.standardizedFileURL.path
            let resolved = url.standardizedFileURL
            guard !name.isEmpty, !name.contains("\\"), resolved.deletingLastPathComponent().path == base,
                  !resolved.lastPathComponent.hasPrefix(".") else {
                throw SceneError(path: path, "only files directly inside the server's shaders folder are allowed here, got \"\(name)\"")
            }
        }
        return url
    }

    private func compiledLibrary(_ name: String, document: SceneDocument, path: String) throws(SceneError) -> Library {
        let text = try libraryText(name, document: document, path: path)
        if let library = libraries[text] {
            libraryOrder.removeAll { $0 == text }
            libraryOrder.append(text)
            return library
        }
        var fileName = "\(name).metal"
        if case .path(let file)? = document.libraries[name] { fileName = file }
        let library: Library
        switch libraryProvider.library(fileName: fileName, text: text) {
        case .success(let compiled): library = compiled
        case .failure(let failure): throw SceneError(path: "libraries.\(name)", "does not compile:\n" + failure.message)
        }
        libraries[text] = library
        libraryOrder.append(text)
        while libraryOrder.count > max(1, limits.maxCachedLibraries) { libraries[libraryOrder.removeFirst()] = nil }
        return library
    }

    /// Compiled libraries kept right now (at most `SceneLimits.maxCachedLibraries`).
    public var cachedLibraryCount: Int { libraries.count }

    // MARK: Pixels


}

/// FNV-1a, 64 bits: a stable fingerprint of cache-key parts within one process.
struct Hash {
    private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    mutating func add(_ text: String) {
        for byte in text.utf8 { mix(byte) }
        mix(0xff)                                // separator: "ab"+"c" ≠ "a"+"bc"
    }

    mutating func add(_ number: UInt64) {
        for shift in stride(from: 0, to: 64, by: 8) { mix(UInt8(truncatingIfNeeded: number >> UInt64(shift))) }
    }

    private mutating func mix(_ byte: UInt8) {
        value = (value ^ UInt64(byte)) &* 0x100_0000_01b3
    }
}
