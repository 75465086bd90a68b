import KilnBytecode
import KilnTestSupport
import Testing
@testable import KilnVM

/// The batch samplers the renderer uses must give exactly what the per-lane ones give,
/// including where the fast float index path hands over to the general conversion
/// (|q| around 2²²) and for NaN/∞ and huge coordinates.
@Suite struct SampleLanesTests {
    static let texture: Texture = {
        var random = SeededRandom(seed: 7)
        let width = 13, height = 9
        let pixels = (0..<(width * height * 4)).map { _ in Float(random.below(1000)) / 999 }
        return Texture(width: width, height: height, pixels: pixels)
    }()

    static func coordinates(_ random: inout SeededRandom) -> Float {
        switch random.below(8) {
        case 0: return Float(random.below(40)) - 12 + 0.5                         // texel centres
        case 1: return Float(random.below(4000)) / 100 - 15                        // around the image
        case 2: return Float(1 << 22) * (random.chance(50) ? 1 : -1) + Float(random.below(9)) - 4   // the hand-over
        case 3: return Float(bitPattern: UInt32(random.below(Int(UInt32.max))))      // any bits: NaN, ∞, huge
        case 4: return Float(1 << 31) * (random.chance(50) ? 1 : -1)
        case 5: return .nan
        case 6: return random.chance(50) ? .infinity : -.infinity
        default: return Float(random.below(1 << 24)) / 64 - Float(1 << 17)
        }
    }

    /// A random texture with `special` (unless it is +0) in every `every`-th float from `from`.
    static func texture(width: Int, height: Int, special: Float, from: Int, every: Int,
                        _ random: inout SeededRandom) -> Texture {
        var pixels = (0..<(width * height * 4)).map { _ in Float(random.below(1000)) / 999 }
        for index in stride(from: from, to: pixels.count, by: every) where special.bitPattern != 0 { pixels[index] = special }
        return Texture(width: width, height: height, pixels: pixels)
    }

    /// Expects every lane of `output` (a batch's planar result) to hold the per-lane
    /// sampler's bits for that lane's coordinates.
    static func expectPerLaneBits(_ texture: Texture, _ xs: [Float], _ ys: [Float], _ mode: SampleMode, _ output: [Float],
                                  _ context: String, sourceLocation: SourceLocation = #_sourceLocation) {
        for lane in 0..<laneCount {
            let one = Sampling.sample(texture, x: xs[lane], y: ys[lane], mode: mode)
            let batch = (output[lane], output[laneCount + lane], output[2 * laneCount + lane], output[3 * laneCount + lane])
            #expect([one.0, one.1, one.2, one.3].map(\.bitPattern) == [batch.0, batch.1, batch.2, batch.3].map(\.bitPattern),
                    "\(context), lane \(lane) at (\(xs[lane]), \(ys[lane]))", sourceLocation: sourceLocation)
        }
    }

    @Test(arguments: (0...SampleMode.maxRawValue).map { SampleMode(rawValue: $0) })
    func batchSamplingEqualsPerLaneSampling(_ mode: SampleMode) {
        var random = SeededRandom(seed: UInt64(mode.rawValue) + 100)
        var xs = [Float](repeating: 0, count: laneCount), ys = xs
        var output = [Float](repeating: 0, count: 4 * laneCount)
        for _ in 0..<40 {
            for lane in 0..<laneCount {
                xs[lane] = Self.coordinates(&random)
                ys[lane] = Self.coordinates(&random)
            }
            Sampling.sampleLanes(Self.texture, xs: xs, ys: ys, mode: mode, into: &output)
            Self.expectPerLaneBits(Self.texture, xs, ys, mode, output, "mode \(mode.rawValue)")
        }
    }

    /// A whole batch at texel centres inside the image takes the direct-read path when the
    /// texels are plain; with −0, ∞ or NaN texels (or a kernel's target) it must not, since
    /// the filter's `(b − a)·0` is then not 0. Either way: the per-lane bits.
    @Test(arguments: [Float(0), -0.0, .infinity, .nan])
    func texelCentredBatchesEqualPerLaneSampling(_ special: Float) {
        var random = SeededRandom(seed: 11)
        let width = 20, height = 20
        let texture = Self.texture(width: width, height: height, special: special, from: 0, every: 7, &random)
        #expect(texture.storage.plain == (special.bitPattern == 0))
        #expect(!Texture.target(width: 4, height: 4).storage.plain)
        var xs = [Float](repeating: 0, count: laneCount), ys = xs
        var output = [Float](repeating: 0, count: 4 * laneCount)
        for mode in [SampleMode.layer, SampleMode(normalized: false, linear: true, address: .clampToEdge)] {
            for _ in 0..<20 {
                for lane in 0..<laneCount {
                    xs[lane] = Float(1 + random.below(width - 2)) + 0.5
                    ys[lane] = Float(1 + random.below(height - 2)) + 0.5
                }
                Sampling.sampleLanes(texture, xs: xs, ys: ys, mode: mode, into: &output)
                Self.expectPerLaneBits(texture, xs, ys, mode, output, "texel centres, mode \(mode.rawValue)")
            }
        }
    }

    @Test func rowReadsEqualTexelReads() {
        var output = [Float](repeating: 0, count: 4 * laneCount)
        for (x0, y, count) in [(0, 0, 13), (5, 3, 64), (-3, 2, 10), (10, 8, 3), (0, -1, 5), (0, 9, 5), (20, 1, 4)] {
            Sampling.readRowLanes(Self.texture, x0: x0, y: y, count: count, into: &output)
            for lane in 0..<laneCount {
                let x = x0 + min(lane, count - 1)
                let texel = x < 0 || y < 0 ? (Float(0), Float(0), Float(0), Float(0))
                    : Sampling.read(Self.texture, x: UInt32(x), y: UInt32(y))
                #expect([texel.0, texel.1, texel.2, texel.3] == [output[lane], output[laneCount + lane],
                                                                  output[2 * laneCount + lane], output[3 * laneCount + lane]],
                        "row \(y) from \(x0), lane \(lane)")
            }
        }
    }

    /// A batch whose lanes sit on an 8×8 block of texel centres in tile order (`position`
    /// plus one offset: blurs, layer9) is copied as rows (`TextureView.readTileBlock`); one
    /// lane off the block, or a block touching the last row or column, must take the
    /// per-lane paths. All give the per-lane bits.
    @Test func texelBlockBatchesEqualPerLaneSampling() {
        var random = SeededRandom(seed: 12)
        let width = 23, height = 19
        let pixels = (0..<(width * height * 4)).map { _ in Float(random.below(1000)) / 999 }
        let texture = Texture(width: width, height: height, pixels: pixels)
        var xs = [Float](repeating: 0, count: laneCount), ys = xs
        var output = [Float](repeating: 0, count: 4 * laneCount)
        for trial in 0..<60 {
            let ox = random.below(width - BatchTile.columns + 2), oy = random.below(height - BatchTile.rows + 2)
            for lane in 0..<laneCount {
                xs[lane] = Float(ox + BatchTile.column(lane)) + 0.5
                ys[lane] = Float(oy + BatchTile.row(lane)) + 0.5
            }
            if trial % 3 == 1 { xs[random.below(laneCount)] += 1 }      // one lane off the block
            Sampling.sampleLanes(texture, xs: xs, ys: ys, mode: .layer, into: &output)
            Self.expectPerLaneBits(texture, xs, ys, .layer, output, "block at (\(ox), \(oy))")
        }
    }

    /// A batch whose lanes sit on a tile-shaped block with one fractional offset (a blur at
    /// 1.5-pixel spacing, a half-pixel shift) is filtered as rows of texels
    /// (`TextureView.bilinearTileBlock`) — with −0, ∞ and NaN texels too, in pixel and
    /// normalized coordinates; one lane off the block or with other weights, and
    /// blocks touching the last row or column, take the per-lane paths. All give the per-lane bits.
    @Test(arguments: [Float(0), -0.0, .infinity, .nan])
    func fractionalBlockBatchesEqualPerLaneSampling(_ special: Float) {
        var random = SeededRandom(seed: 13)
        let width = 27, height = 17
        let texture = Self.texture(width: width, height: height, special: special, from: 3, every: 11, &random)
        var xs = [Float](repeating: 0, count: laneCount), ys = xs
        var output = [Float](repeating: 0, count: 4 * laneCount)
        let modes = [SampleMode.layer, SampleMode(normalized: false, linear: true, address: .clampToEdge),
                     SampleMode(normalized: true, linear: true, address: .repeat)]
        for trial in 0..<90 {
            let mode = modes[trial % modes.count]
            let fx = [Float(0.5), 0.25, 0.75, 0.1, 0][random.below(5)], fy = [Float(0.5), 0.3, 0][random.below(3)]
            let ox = Float(random.below(width - BatchTile.columns + 2)) - 0.5 + fx
            let oy = Float(random.below(height - BatchTile.rows + 2)) - 0.5 + fy
            for lane in 0..<laneCount {
                xs[lane] = ox + Float(BatchTile.column(lane)) + 0.5
                ys[lane] = oy + Float(BatchTile.row(lane)) + 0.5
                if mode.normalized { xs[lane] /= Float(width); ys[lane] /= Float(height) }
            }
            switch trial % 4 {
            case 1: xs[random.below(laneCount)] += mode.normalized ? 1 / Float(width) : 1    // one lane off the block
            case 2: ys[random.below(laneCount)] += 0.125                                     // one lane's weights differ
            default: break
            }
            Sampling.sampleLanes(texture, xs: xs, ys: ys, mode: mode, into: &output)
            Self.expectPerLaneBits(texture, xs, ys, mode, output, "block at (\(ox), \(oy)) mode \(mode.rawValue)")
        }
    }

    /// A color effect's input: the tile's texels in lane order, transparent past the tile's
    /// columns and rows and outside the image, every `stride`-th texel for a coarse frame.
    @Test func quadReadsEqualTexelReads() {
        let texture = Self.texture    // 13 × 9: one whole 8 × 8 tile fits at (0…5, 0…1)
        var output = [Float](repeating: 0, count: 4 * laneCount)
        for (x0, y, columns, rows, stride) in [(0, 0, 8, 8, 1), (5, 1, 8, 8, 1), (3, 1, 8, 8, 1), (8, 0, 5, 8, 1),
                                               (0, 8, 8, 1, 1), (0, 0, 7, 5, 2), (-2, 0, 8, 8, 1)] {
            Sampling.readQuadLanes(texture, x0: x0, y: y, columns: columns, rows: rows, stride: stride, into: &output)
            for lane in 0..<laneCount {
                let column = BatchTile.column(lane), row = BatchTile.row(lane)
                let x = (x0 + column) * stride, ty = (y + row) * stride
                let inside = column < columns && row < rows && x >= 0 && ty >= 0
                let texel = inside ? Sampling.read(texture, x: UInt32(x), y: UInt32(ty)) : (Float(0), Float(0), Float(0), Float(0))
                #expect([texel.0, texel.1, texel.2, texel.3] == [output[lane], output[laneCount + lane],
                                                                  output[2 * laneCount + lane], output[3 * laneCount + lane]],
                        "tile at (\(x0), \(y)) \(columns)×\(rows) stride \(stride), lane \(lane)")
            }
        }
    }
}
