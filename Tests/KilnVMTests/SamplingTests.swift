import Testing
import KilnBytecode
@testable import KilnVM

/// Sampling against hand-computed values (conformance README §3–4).
@Suite struct SamplingTests {
    /// 3×2 texture; texel (x, y) has red = x + 10·y, green = 1, blue = 0, alpha = y.
    static let texture: Texture = {
        var pixels: [Float] = []
        for y in 0..<2 {
            for x in 0..<3 { pixels += [Float(x + 10 * y), 1, 0, Float(y)] }
        }
        return Texture(width: 3, height: 2, pixels: pixels)
    }()

    static func red(_ x: Float, _ y: Float, _ mode: SampleMode) -> Float {
        Sampling.sample(texture, x: x, y: y, mode: mode).0
    }

    @Test func bilinearAtTexelCentresIsExact() {
        let m = SampleMode.layer
        #expect(Self.red(0.5, 0.5, m) == 0)
        #expect(Self.red(2.5, 1.5, m) == 12)
        #expect(Sampling.sample(Self.texture, x: 1.5, y: 0.5, mode: m) == (1, 1, 0, 0))
    }

    @Test func bilinearInterpolatesInTheReadmeOrder() {
        let m = SampleMode.layer
        // q = (0.75, 0.25): lerp(lerp(0, 1, .75), lerp(10, 11, .75), .25) = 0.75 + 2.5
        #expect(Self.red(1.25, 0.75, m) == 3.25)
        let t = Sampling.sample(Self.texture, x: 1.25, y: 0.75, mode: m)
        #expect(t.1 == 1 && t.3 == 0.25)
    }

    @Test func zeroAddressIsTransparentOutside() {
        let m = SampleMode.layer
        // Half a texel left of the image: half of texel (0, 0) (red 0, green 1), half transparent.
        let left = Sampling.sample(Self.texture, x: 0, y: 0.5, mode: m)
        #expect(left == (0, 0.5, 0, 0))
        // Right edge: texel (2, 1) and nothing: red 12 · 0.5.
        #expect(Self.red(3, 1.5, m) == 6)
        #expect(Sampling.sample(Self.texture, x: -5, y: 1, mode: m) == (0, 0, 0, 0))
        #expect(Sampling.sample(Self.texture, x: .nan, y: 1, mode: m) == (0, 0, 0, 0))
        #expect(Sampling.sample(Self.texture, x: 1e30, y: -1e30, mode: m) == (0, 0, 0, 0))
    }

    @Test func clampToEdgeRepeatsTheBorder() {
        let m = SampleMode(normalized: false, linear: true, address: .clampToEdge)
        #expect(Sampling.sample(Self.texture, x: 0, y: 0.5, mode: m) == (0, 1, 0, 0))
        #expect(Self.red(-7, 5, m) == 10)
        #expect(Self.red(3, 1.5, m) == 12)
        #expect(Self.red(1e30, -1e30, m) == 2)
        #expect(Sampling.sample(Self.texture, x: .infinity, y: 0.5, mode: m) == (0, 0, 0, 0))
    }

    @Test func repeatWraps() {
        let m = SampleMode(normalized: false, linear: true, address: .repeat)
        // x = 0: texel −1 wraps to 2: lerp(2, 0, 0.5) = 1.
        #expect(Self.red(0, 0.5, m) == 1)
        #expect(Self.red(3.5 + 0.5, 0.5, m) == 0.5)           // q.x = 3.5 → texels 3→0 and 4→1
        #expect(Self.red(-2.5, 3.5, m) == 10)                 // texel x −3 → 0, row 3 → 1
    }

    @Test func mirroredRepeatReflects() {
        let m = SampleMode(normalized: false, linear: false, address: .mirroredRepeat)
        // Along x (width 3), texels −4…6 read: 2 | 2, 1, 0 | 0, 1, 2 | 2, 1, 0 | 0
        let xs: [Float] = [-3.5, -2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5]
        #expect(xs.map { Self.red($0, 0.5, m) } == [2, 2, 1, 0, 0, 1, 2, 2, 1, 0, 0])
        let linear = SampleMode(normalized: false, linear: true, address: .mirroredRepeat)
        #expect(Self.red(0, 0.5, linear) == 0)                // texels −1 → 0 and 0
        #expect(Self.red(3, 0.5, linear) == 2)                // texels 2 and 3 → 2
    }

    @Test func nearestReadsTheTexelContainingThePoint() {
        let m = SampleMode(normalized: false, linear: false, address: .zero)
        #expect(Self.red(1.99, 1.01, m) == 11)
        #expect(Self.red(2.0, 0.0, m) == 2)
        #expect(Self.red(3.0, 0.5, m) == 0)                   // outside
        #expect(Sampling.sample(Self.texture, x: -0.01, y: 0.5, mode: m) == (0, 0, 0, 0))
    }

    @Test func normalizedCoordinatesScaleBySize() {
        let m = SampleMode.samplerParameter
        // (0.5, 0.5) of 3×2 is pixel (1.5, 1.0): between rows 0 and 1 at column 1.
        #expect(Self.red(0.5, 0.5, m) == 6)
        #expect(Self.red(0, 0, m) == 0)                       // clamped corner
        #expect(Self.red(1, 1, m) == 12)
        let nearest = SampleMode(normalized: true, linear: false, address: .zero)
        #expect(Self.red(0.9, 0.9, nearest) == 12)
    }

    @Test func shortPixelArraysReadAsTransparent() {
        let t = Texture(width: 2, height: 1, pixels: [1, 1, 1, 1])
        #expect(Sampling.sample(t, x: 1.5, y: 0.5, mode: .layer) == (0, 0, 0, 0))
        #expect(Sampling.read(t, x: 0, y: 0) == (1, 1, 1, 1))
        let empty = Texture(width: -3, height: 4, pixels: [])
        #expect(Sampling.sample(empty, x: 0.5, y: 0.5, mode: .samplerParameter) == (0, 0, 0, 0))
    }

    /// The `sample`, `texread` and `texsize` opcodes agree with `Sampling` lane by lane.
    @Test func textureOpcodes() throws {
        let mode = SampleMode(normalized: false, linear: true, address: .repeat)
        let program = TestProgram(registers: 16, body: [
            Instruction(.sample, a: 2, b: 0, c: 1, imm: 0, mode: mode.rawValue),
            Instruction(.texread, a: 6, b: 10, c: 11, imm: 0),
            Instruction(.texsize, a: 12, imm: 0),
            Instruction(.texsize, a: 14, imm: 3),            // unbound slot: 0 × 0
        ])
        let xs = (0..<laneCount).map { Float($0) * 0.37 - 5 }
        let ys = (0..<laneCount).map { Float($0 % 7) * 0.61 - 1 }
        let e = try program.run([0: bits(xs), 1: bits(ys), 10: [0, 2, 3, 1], 11: [0, 1, 0, 9]],
                                resources: DrawResources(textures: [Self.texture]))
        for l in 0..<laneCount {
            let expected = Sampling.sample(Self.texture, x: xs[l], y: ys[l], mode: mode)
            #expect(e.floats(2)[l] == expected.0 && e.floats(5)[l] == expected.3)
        }
        #expect(e.floats(6).prefix(4) == [0, 12, 0, 0])
        #expect(e.floats(7).prefix(4) == [1, 1, 0, 0])
        #expect(e.words(12).allSatisfy { $0 == 3 } && e.words(13).allSatisfy { $0 == 2 })
        #expect(e.words(14).allSatisfy { $0 == 0 } && e.words(15).allSatisfy { $0 == 0 })
    }

    /// The VM's two-pass `sample` gives the same bits as `Sampling.sample` in all 16 modes,
    /// for coordinates inside, on and beyond every edge, huge, infinite and NaN.
    @Test func sampleOpcodeMatchesSamplingInEveryMode() throws {
        var generator = MathAccuracyTests.Generator(state: 12345)
        var xs: [Float] = [.nan, .infinity, -.infinity, 1e30, -1e30, 3e9, 0, 3, 0.5, 2.5, -0.5]
        var ys: [Float] = [0.5, 0.5, 1, 0.5, 1, 0.5, 2, 1, 0, -0.0, 2.5]
        while xs.count < laneCount * 8 {
            xs.append(generator.uniform(-8, 11))
            ys.append(generator.uniform(-6, 8))
        }
        for raw in 0...SampleMode.maxRawValue {
            let mode = SampleMode(rawValue: raw)
            // Normalized modes see the same points scaled into texture units.
            let scaleX: Float = mode.normalized ? 1 / 3 : 1, scaleY: Float = mode.normalized ? 0.5 : 1
            let program = TestProgram(registers: 6, body: [Instruction(.sample, a: 2, b: 0, c: 1, imm: 0, mode: raw)])
            let executor = try Executor(program.prepared, resources: DrawResources(textures: [Self.texture]))
            for batch in 0..<(xs.count / laneCount) {
                for l in 0..<laneCount {
                    executor.floatLanes(0)[l] = xs[batch * laneCount + l] * scaleX
                    executor.floatLanes(1)[l] = ys[batch * laneCount + l] * scaleY
                }
                try executor.run()
                for l in 0..<laneCount {
                    let expected = Sampling.sample(Self.texture, x: executor.floatLanes(0)[l], y: executor.floatLanes(1)[l], mode: mode)
                    let got = (executor.floatLanes(2)[l], executor.floatLanes(3)[l], executor.floatLanes(4)[l], executor.floatLanes(5)[l])
                    #expect(same([got.0, got.1, got.2, got.3], [expected.0, expected.1, expected.2, expected.3]),
                            "mode \(raw) at (\(executor.floatLanes(0)[l]), \(executor.floatLanes(1)[l]))")
                }
            }
        }
    }
}
