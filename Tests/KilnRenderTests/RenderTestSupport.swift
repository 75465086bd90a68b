import Foundation
import KilnBytecode
import KilnCompiler
import KilnLanguage
import KilnRender
import KilnTestSupport
import KilnVM

/// Paths of the repository: its root, the conformance set and where artifacts go.
enum Paths {
    static let repository = RepositoryFiles.root
    static let conformance = RepositoryFiles.conformance
    /// Where failing image tests write what they saw: `$KILN_ARTIFACTS` or `.build/artifacts`.
    static let artifacts: URL = {
        if let path = ProcessInfo.processInfo.environment["KILN_ARTIFACTS"] { return URL(fileURLWithPath: path) }
        return repository.appendingPathComponent(".build/artifacts")
    }()
}

extension CompileOptions {
    /// Loops lowered as loops, not unrolled: for tests of what runs inside loops (uniform
    /// work scalarized per iteration, its cost counted once per batch). Unrolled, the
    /// benchmark shaders' per-iteration constants move to the prologue.
    static let loopsKept = CompileOptions(maxUnrolledIterations: 0)
}

func compile(_ text: String, name: String = "test.metal", options: CompileOptions = .init()) throws -> Library {
    let result = Compiler.compile([SourceFile(name: name, text: text)], options: options)
    guard let library = result.library else {
        throw RenderError(DiagnosticRenderer.text(result.diagnostics, files: result.files))
    }
    return library
}

/// A conformance case compiled from its file, as its request.
func conformanceRequest(_ testCase: ConformanceCase) throws -> RenderRequest {
    let source = try String(contentsOf: Paths.conformance.appendingPathComponent(testCase.file), encoding: .utf8)
    return try testCase.request(try compile(source, name: testCase.id + ".metal"))
}

/// A small draw of each entry of an example (40×24, both built-in contents, the arguments
/// it requires, time 0.7): what the "same bytes either way" tests render.
func exampleRequests(_ library: Library) -> [RenderRequest] {
    ShaderGalleryTests.entries(library).map { function in
        RenderRequest(library: library, functionName: function.name, width: 40, height: 24,
                      content: BuiltinContent.make("rainbow", width: 40, height: 24),
                      content2: BuiltinContent.make("checker", width: 40, height: 24),
                      arguments: ShaderGalleryTests.required[function.name] ?? [:], time: 0.7)
    }
}

/// A 48×24 colour effect `edges` whose `float v` runs through NaN, ±∞, ±0 and ordinary
/// values across the frame (0/0, ±x/0, −0), then `body` (statements using `v`) and
/// `return result;`: for tests that an execution setting keeps every rule on special values.
func specialValuesRequest(body: String, result: String) throws -> RenderRequest {
    let source = """
    #include <metal_stdlib>
    using namespace metal;
    [[ stitchable ]] half4 edges(float2 position, half4 color, float time) {
        float num = floor(position.x - 20.0) * (position.y < 12.0 ? 0.0 : 1.0);
        float v = num / floor(position.y - 12.0);
    \(body)
        return \(result);
    }
    """
    return RenderRequest(library: try compile(source, name: "edges.metal"), functionName: "edges", width: 48, height: 24,
                         content: BuiltinContent.make("rainbow", width: 48, height: 24), time: 0)
}

/// `request` rendered with an execution setting on and off (uniform execution, pair
/// fusion: ways of running that must not change a bit).
func renderBothWays(_ request: RenderRequest, _ setting: WritableKeyPath<ExecutionLimits, Bool>) throws
    -> (on: RGBAImage, off: RGBAImage)
{
    var request = request
    request.executionLimits[keyPath: setting] = true
    let on = try Renderer.render(request)
    request.executionLimits[keyPath: setting] = false
    return (on, try Renderer.render(request))
}

func loadPNG(_ url: URL) throws -> RGBAImage {
    try PNG.decode(Array(try Data(contentsOf: url)))
}

/// How two premultiplied RGBA8 images differ: the largest channel difference and the share
/// of pixels with any channel more than one level apart (the conformance pass rule).
struct ImageDifference {
    var maxAbs = 0
    var percentOverOne = 0.0

    init(_ actual: RGBAImage, _ expected: RGBAImage) {
        guard actual.width == expected.width, actual.height == expected.height else { maxAbs = 255; percentOverOne = 100; return }
        var over = 0
        for pixel in 0..<(actual.width * actual.height) {
            var worst = 0
            for channel in 0..<4 {
                worst = max(worst, abs(Int(actual.bytes[pixel * 4 + channel]) - Int(expected.bytes[pixel * 4 + channel])))
            }
            maxAbs = max(maxAbs, worst)
            if worst > 1 { over += 1 }
        }
        percentOverOne = 100 * Double(over) / Double(max(1, actual.width * actual.height))
    }

    /// A heat map: black where equal, brighter red the larger the difference.
    static func heatMap(_ actual: RGBAImage, _ expected: RGBAImage) -> RGBAImage {
        var bytes = [UInt8](repeating: 255, count: actual.bytes.count)
        for pixel in 0..<(actual.width * actual.height) {
            var worst = 0
            for channel in 0..<4 {
                worst = max(worst, abs(Int(actual.bytes[pixel * 4 + channel]) - Int(expected.bytes[pixel * 4 + channel])))
            }
            let level = UInt8(min(255, worst * 32))
            bytes[pixel * 4] = level
            bytes[pixel * 4 + 1] = worst > 0 ? 0 : 0
            bytes[pixel * 4 + 2] = 0
        }
        return RGBAImage(width: actual.width, height: actual.height, bytes: bytes)
    }
}

/// Writes images of a failing test for a person to look at.
func writeArtifacts(_ folder: String, _ images: [String: RGBAImage]) -> String {
    let directory = Paths.artifacts.appendingPathComponent(folder)
    try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    for (name, image) in images {
        if let png = try? PNG.encode(image) { try? Data(png).write(to: directory.appendingPathComponent(name)) }
    }
    return directory.path
}
