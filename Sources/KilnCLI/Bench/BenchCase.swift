/// One case of `kiln bench`, as `bench/README.md` defines it.
struct BenchCase: Sendable {
    /// The case name in tables and JSON (`wave`, `color`, `layer9`, `melt`, `loop`).
    var name: String
    /// The shader file in the benchmark folder.
    var file: String
    /// The entry function to render.
    var function: String
    /// Built-in content under the effect (`rainbow`) and, for two-texture passes, the second.
    var content: String
    var content2: String?
    /// The time argument (`time`).
    var time: Float

    /// The cases, in the README's order. Inputs: content `rainbow` at the output size
    /// (`melt` also `checker`), `time` = 1 (melt: 0.25, mid-transition), `bounds` =
    /// (0, 0, w, h), `size` = (w, h).
    static let all: [BenchCase] = [
        BenchCase(name: "wave", file: "wave.metal", function: "wave", content: "rainbow", content2: nil, time: 1),
        BenchCase(name: "color", file: "tint.metal", function: "tint", content: "rainbow", content2: nil, time: 1),
        BenchCase(name: "layer9", file: "box9.metal", function: "box9", content: "rainbow", content2: nil, time: 1),
        BenchCase(name: "melt", file: "melt.metal", function: "melt", content: "rainbow", content2: "checker", time: 0.25),
        BenchCase(name: "loop", file: "swirl.metal", function: "swirl", content: "rainbow", content2: nil, time: 1),
        // Shader art (issue 10): sphere tracing, fbm noise, an SDF grid.
        BenchCase(name: "raymarch", file: "raymarch.metal", function: "raymarch", content: "rainbow", content2: nil, time: 1),
        BenchCase(name: "fbm", file: "fbm.metal", function: "clouds", content: "rainbow", content2: nil, time: 1),
        BenchCase(name: "sdf2d", file: "sdf2d.metal", function: "sdf2d", content: "rainbow", content2: nil, time: 1),
    ]

    /// The arguments the case binds by name (unused names are ignored by the renderer's
    /// binding; `bounds` and `size` describe the whole output).
    func arguments(width: Int, height: Int) -> [String: [Float]] {
        let w = Float(width), h = Float(height)
        return ["time": [time], "bounds": [0, 0, w, h], "size": [w, h]]
    }

    /// The case written in Swift (`Native*.swift`) over the same contents and arguments.
    func native(size: ImageSize, contents: FrameRenderer.Contents) -> any NativeShader {
        let w = Float(size.width), h = Float(size.height)
        switch name {
        case "wave": return NativeWave(source: contents.first, bounds: (0, 0, w, h), time: time)
        case "color": return NativeTint(source: contents.first, size: (w, h), time: time)
        case "layer9": return NativeBox9(layer: contents.first)
        case "melt": return NativeMelt(from: contents.first, to: contents.second, size: (w, h), time: time)
        case "raymarch": return NativeRaymarch(source: contents.first, size: (w, h), time: time)
        case "fbm": return NativeFBM(source: contents.first, size: (w, h), time: time)
        case "sdf2d": return NativeSDF2D(source: contents.first, bounds: (0, 0, w, h), time: time)
        default: return NativeSwirl(source: contents.first, size: (w, h), time: time)
        }
    }
}
