import KilnBytecode

/// What the VM's lane loops hold of a texture: a stable pointer and the size. The owning
/// `Texture` (its `TexelStorage`) is retained by whoever holds the view (the executor).
struct TextureView {
    var texels: UnsafePointer<Float>
    /// A transparent-black texel (after the image) for taps outside it.
    var zero: UnsafePointer<Float>
    var width: Int
    var height: Int
    /// `TexelStorage.plain`: texel-centred bilinear taps may read texels directly.
    var plain: Bool

    init(_ texture: Texture) {
        texels = UnsafePointer(texture.storage.texels)
        zero = texels + texture.storage.count
        width = texture.width
        height = texture.height
        plain = texture.storage.plain
    }

    /// Maps an index along an axis of `size` texels by the address mode; -1 means "outside".
    @inline(__always) static func address(_ i: Int, _ size: Int, _ mode: UInt8) -> Int {
        if size <= 0 { return -1 }
        switch mode {
        case 1:  // clamp to edge
            return i < 0 ? 0 : (i >= size ? size - 1 : i)
        case 2:  // repeat
            let m = i % size
            return m < 0 ? m + size : m
        case 3:  // mirrored repeat: period 2·size, second half reflected
            let period = 2 * size
            var m = i % period
            m = m < 0 ? m + period : m
            return m >= size ? period - 1 - m : m
        default: // zero: outside is transparent black
            return (i < 0 || i >= size) ? -1 : i
        }
    }

    /// Pointer to texel (x, y), or to the zero texel when an index is outside (−1).
    @inline(__always) func texel(_ x: Int, _ y: Int) -> UnsafePointer<Float> {
        (x < 0 || y < 0) ? zero : texels + (y &* width &+ x) &* 4
    }

    @inline(__always) func read(x: UInt32, y: UInt32) -> (Float, Float, Float, Float) {
        guard Int(x) < width, Int(y) < height else { return (0, 0, 0, 0) }
        let p = texels + (Int(y) &* width &+ Int(x)) &* 4
        return (p[0], p[1], p[2], p[3])
    }

    @inline(__always) func sample(x: Float, y: Float, mode: UInt8) -> (Float, Float, Float, Float) {
        mode & 1 != 0
            ? sample(pixelX: x * Float(width), pixelY: y * Float(height), mode: mode)
            : sample(pixelX: x, pixelY: y, mode: mode)
    }

    /// Texel index `⌊q⌋` and weight `q − ⌊q⌋` along one axis, `q = p − offset`.
    ///
    /// Deliberately not inlined: inlined, the SLP vectorizer packs the x and y computations
    /// into half-filled SSE registers whose undefined upper lanes can hold denormals, and the
    /// resulting microcode assists made a scalar sample 3× slower. (The VM's `sample` does
    /// the same arithmetic in a lane loop, which fills the vectors.)
    @inline(never)
    static func axis(_ p: Float, offset: Float) -> (index: Int, weight: Float) {
        let q = p - offset
        let f = KilnMath.floor(q)
        return (Int(KilnMath.toInt32(f)), q - f)
    }

    /// Sampling at a position already in pixels (`mode`'s normalized bit is ignored).
    @inline(__always) func sample(pixelX px: Float, pixelY py: Float, mode: UInt8) -> (Float, Float, Float, Float) {
        let address = (mode >> 2) & 3
        guard px.isFinite && py.isFinite else { return (0, 0, 0, 0) }
        if mode & 2 == 0 {
            // Nearest: the texel containing p.
            let ix = Self.address(Self.axis(px, offset: 0).index, width, address)
            let iy = Self.address(Self.axis(py, offset: 0).index, height, address)
            let t = texel(ix, iy)
            return (t[0], t[1], t[2], t[3])
        }
        let (i0, wx) = Self.axis(px, offset: 0.5)
        let (j0, wy) = Self.axis(py, offset: 0.5)
        // Interior fast path: all four taps inside the image, where every address mode agrees.
        if i0 >= 0 && j0 >= 0 && i0 < width &- 1 && j0 < height &- 1 {
            let top = texels + (j0 &* width &+ i0) &* 4
            let bottom = top + width &* 4
            return (Self.bilinear(top[0], top[4], bottom[0], bottom[4], wx, wy),
                    Self.bilinear(top[1], top[5], bottom[1], bottom[5], wx, wy),
                    Self.bilinear(top[2], top[6], bottom[2], bottom[6], wx, wy),
                    Self.bilinear(top[3], top[7], bottom[3], bottom[7], wx, wy))
        }
        return bilinearAtEdge(i0, j0, wx, wy, address: address)
    }

    /// `lerp(lerp(a, b, wx), lerp(c, d, wx), wy)` with `lerp(a, b, w) = a + (b − a)·w`.
    @inline(__always) static func bilinear(_ a: Float, _ b: Float, _ c: Float, _ d: Float, _ wx: Float, _ wy: Float) -> Float {
        let top = a + (b - a) * wx
        let bottom = c + (d - c) * wx
        return top + (bottom - top) * wy
    }

    /// The four taps when some lie outside the image: each goes through the address mode.
    @inline(never)
    func bilinearAtEdge(_ i0: Int, _ j0: Int, _ wx: Float, _ wy: Float, address: UInt8) -> (Float, Float, Float, Float) {
        let x0 = Self.address(i0, width, address), x1 = Self.address(i0 &+ 1, width, address)
        let y0 = Self.address(j0, height, address), y1 = Self.address(j0 &+ 1, height, address)
        let t00 = texel(x0, y0), t10 = texel(x1, y0), t01 = texel(x0, y1), t11 = texel(x1, y1)
        @inline(__always) func channel(_ c: Int) -> Float {
            Self.bilinear(t00[c], t10[c], t01[c], t11[c], wx, wy)
        }
        return (channel(0), channel(1), channel(2), channel(3))
    }
}

extension TextureView {
    /// Below this magnitude `smallInt32` is exact.
    static let smallIndexLimit: Float = 4_194_304   // 2²²

    /// An integral binary32 value with |v| < 2²² as Int32: v + 1.5·2²³ lies in [2²³, 2²⁴),
    /// where the spacing is 1, so the sum is exact and its mantissa holds v + 2²².
    @inline(__always) static func smallInt32(_ v: Float) -> Int32 {
        Int32(bitPattern: (v + 12_582_912).bitPattern) &- 0x4B40_0000
    }

    /// Samples `laneCount` coordinates (binary32 bit patterns in `x`, `y`) with `mode` and
    /// writes planar results: red lanes at `output`, then green, blue and alpha, each
    /// `laneCount` words further on. `scratch` holds `Execution.scratchWordsPerLane ×
    /// laneCount` words.
    ///
    /// Bilinear filtering runs in two passes. Pass 1 is a plain lane loop the optimizer
    /// vectorizes: `q = p − 0.5`, `i = ⌊q⌋`, `w = q − i`, and whether all four taps are
    /// inside, into scratch. Pass 2 gathers per lane; interior lanes lerp the four RGBA texels
    /// directly, the rest go through the address mode (`bilinearAtEdge`). The arithmetic is
    /// the same, in the same order, as `sample(pixelX:pixelY:mode:)`, so results are
    /// bit-identical to `Sampling.sample`. (Multiplying by a scale of 1 for pixel coordinates
    /// is exact.)
    @inline(__always) func sampleLanes(x: UnsafePointer<UInt32>, y: UnsafePointer<UInt32>, mode: UInt8,
                                       into r: UnsafeMutablePointer<UInt32>, scratch: UnsafeMutablePointer<UInt32>) {
        let g = r + laneCount, b = g + laneCount, alpha = b + laneCount
        let scaleX: Float = mode & 1 != 0 ? Float(width) : 1
        let scaleY: Float = mode & 1 != 0 ? Float(height) : 1
        if mode & 2 == 0 {
            // Nearest filtering: one texel per lane, straight through `sample(pixelX:…)`.
            for l in 0..<laneCount {
                let texel = sample(pixelX: Float(bitPattern: x[l]) * scaleX, pixelY: Float(bitPattern: y[l]) * scaleY,
                                   mode: mode)
                r[l] = texel.0.bitPattern
                g[l] = texel.1.bitPattern
                b[l] = texel.2.bitPattern
                alpha[l] = texel.3.bitPattern
            }
            return
        }
        if plain && mode & 1 == 0, let origin = texelCentredBlock(x: x, y: y) {
            readTileBlock(origin, into: r)
            return
        }
        let column = scratch, row = column + laneCount
        let weightX = row + laneCount, weightY = weightX + laneCount, kind = weightY + laneCount
        let lastColumn = Int32(truncatingIfNeeded: width) &- 1
        let lastRow = Int32(truncatingIfNeeded: height) &- 1
        // The index conversion is the costly part of pass 1 (`KilnMath.toInt32` goes through
        // binary64, two lanes per SSE register). For |q| < 2²² the integral ⌊q⌋ converts
        // exactly in binary32: adding 1.5·2²³ puts it in the low mantissa bits. Lanes beyond
        // that (or NaN/∞) are rare: marked 3, pass 2 redoes them with the general conversion.
        var largestWeight: UInt32 = 0, largestKind: UInt32 = 0
        for l in 0..<laneCount {
            let qx = Float(bitPattern: x[l]) * scaleX - 0.5, qy = Float(bitPattern: y[l]) * scaleY - 0.5
            let fx = KilnMath.floor(qx), fy = KilnMath.floor(qy)
            let i0 = Self.smallInt32(fx), j0 = Self.smallInt32(fy)
            column[l] = UInt32(bitPattern: i0)
            row[l] = UInt32(bitPattern: j0)
            weightX[l] = (qx - fx).bitPattern
            weightY[l] = (qy - fy).bitPattern
            // 1 = interior, 2 = near or beyond an edge, 3 = far out or not finite.
            let small = qx.magnitude < Self.smallIndexLimit && qy.magnitude < Self.smallIndexLimit
            let interior = i0 >= 0 && j0 >= 0 && i0 < lastColumn && j0 < lastRow
            kind[l] = small ? (interior ? 1 : 2) : 3
            largestWeight = max(largestWeight, weightX[l] | weightY[l])
            largestKind = max(largestKind, kind[l])
        }
        let rowFloats = width &* 4
        if largestKind == 1 {
            // Every lane inside. When the lanes' taps are one tile-shaped block's with one pair
            // of weights (`position` plus one offset), the block is read or filtered as rows
            // of texels instead of lane by lane.
            let column0 = column[0], row0 = row[0], wx0 = weightX[0], wy0 = weightY[0]
            var offBlock: UInt32 = 0
            for l in 0..<laneCount {
                let dx = (column[l] &- column0) ^ UInt32(truncatingIfNeeded: BatchTile.column(l))
                let dy = (row[l] &- row0) ^ UInt32(truncatingIfNeeded: BatchTile.row(l))
                offBlock = max(offBlock, dx | dy | (weightX[l] ^ wx0) | (weightY[l] ^ wy0))
            }
            // At texel centres both weights are +0, and with plain texels the filter returns
            // the top-left texel's bits: read them. (Integer offsets from `position` — blurs,
            // edge detection, layer9.)
            let texelCentred = plain && largestWeight == 0
            if offBlock == 0 {
                let origin = texels + (Int(Int32(bitPattern: row0)) &* width &+ Int(Int32(bitPattern: column0))) &* 4
                if texelCentred {
                    readTileBlock(origin, into: r)
                } else {
                    // A fractional offset: blurs at 1.5-pixel spacing, half-pixel shifts.
                    bilinearTileBlock(origin, wx: Float(bitPattern: wx0), wy: Float(bitPattern: wy0), into: r, scratch: scratch)
                }
                return
            }
            if texelCentred {
                for l in 0..<laneCount {
                    let p = texels + (Int(Int32(bitPattern: row[l])) &* width &+ Int(Int32(bitPattern: column[l]))) &* 4
                    r[l] = p[0].bitPattern
                    g[l] = p[1].bitPattern
                    b[l] = p[2].bitPattern
                    alpha[l] = p[3].bitPattern
                }
                return
            }
        }
        let address = (mode >> 2) & 3
        for l in 0..<laneCount {
            let wx = Float(bitPattern: weightX[l]), wy = Float(bitPattern: weightY[l])
            var texel: (Float, Float, Float, Float) = (0, 0, 0, 0)
            if kind[l] == 1 {
                let top = texels + (Int(Int32(bitPattern: row[l])) &* width &+ Int(Int32(bitPattern: column[l]))) &* 4
                let bottom = top + rowFloats
                texel = (Self.bilinear(top[0], top[4], bottom[0], bottom[4], wx, wy),
                         Self.bilinear(top[1], top[5], bottom[1], bottom[5], wx, wy),
                         Self.bilinear(top[2], top[6], bottom[2], bottom[6], wx, wy),
                         Self.bilinear(top[3], top[7], bottom[3], bottom[7], wx, wy))
            } else if kind[l] == 2 {
                texel = bilinearAtEdge(Int(Int32(bitPattern: column[l])), Int(Int32(bitPattern: row[l])),
                                       wx, wy, address: address)
            } else {
                // Far out: the general (saturating) index conversion; NaN/∞ stay transparent.
                let qx = Float(bitPattern: x[l]) * scaleX - 0.5, qy = Float(bitPattern: y[l]) * scaleY - 0.5
                if qx.isFinite && qy.isFinite {
                    texel = bilinearAtEdge(Int(KilnMath.toInt32(KilnMath.floor(qx))), Int(KilnMath.toInt32(KilnMath.floor(qy))),
                                           wx, wy, address: address)
                }
            }
            r[l] = texel.0.bitPattern
            g[l] = texel.1.bitPattern
            b[l] = texel.2.bitPattern
            alpha[l] = texel.3.bitPattern
        }
    }

    /// Texels (`x0 + min(lane, count − 1)`, `y`) for every lane, planar like `sampleLanes`;
    /// transparent black outside the image.
    @inline(__always) func readRowLanes(x0: Int, y: Int, count: Int, into r: UnsafeMutablePointer<UInt32>) {
        let g = r + laneCount, b = g + laneCount, alpha = b + laneCount
        let last = max(0, count - 1)
        if count >= laneCount && x0 >= 0 && x0 <= width &- laneCount && y >= 0 && y < height {
            // A full batch inside the image: a straight de-interleave the optimizer turns into
            // 4×4 transposes (no per-lane bounds or clamping).
            let row = texels + (y &* width &+ x0) &* 4
            for l in 0..<laneCount {
                r[l] = row[l &* 4].bitPattern
                g[l] = row[l &* 4 &+ 1].bitPattern
                b[l] = row[l &* 4 &+ 2].bitPattern
                alpha[l] = row[l &* 4 &+ 3].bitPattern
            }
            return
        }
        for l in 0..<laneCount {
            let x = x0 &+ min(l, last)
            let inside = x >= 0 && x < width && y >= 0 && y < height
            let p = inside ? texels + (y &* width &+ x) &* 4 : zero
            r[l] = p[0].bitPattern
            g[l] = p[1].bitPattern
            b[l] = p[2].bitPattern
            alpha[l] = p[3].bitPattern
        }
    }

    /// Texels of the `BatchTile` from (`x0`, `y`) in its lane order, written planar into
    /// `r` (`4 × laneCount` words). Pixels past `columns` or `rows` or outside the image read
    /// as transparent black (helper lanes). With `stride` k, tile pixel (x, y) reads texel
    /// (x·k, y·k): a coarse frame's subsample of the image.
    @inline(__always) func readQuadLanes(x0: Int, y: Int, columns: Int, rows: Int = BatchTile.rows, stride: Int = 1,
                                         into r: UnsafeMutablePointer<UInt32>) {
        let g = r + laneCount, b = g + laneCount, alpha = b + laneCount
        if stride == 1 && columns >= BatchTile.columns && rows >= BatchTile.rows && x0 >= 0 && y >= 0
            && x0 <= width &- BatchTile.columns && y <= height &- BatchTile.rows {
            // The whole tile inside the image: no bounds checks.
            readTileBlock(texels + (y &* width &+ x0) &* 4, into: r)
            return
        }
        for l in 0..<laneCount {
            let column = BatchTile.column(l), row = BatchTile.row(l)
            let x = (x0 &+ column) &* stride, py = (y &+ row) &* stride
            let inside = column < columns && row < rows && x >= 0 && x < width && py >= 0 && py < height
            let p = inside ? texels + (py &* width &+ x) &* 4 : zero
            r[l] = p[0].bitPattern
            g[l] = p[1].bitPattern
            b[l] = p[2].bitPattern
            alpha[l] = p[3].bitPattern
        }
    }

    /// The top-left texel of the block when the pixel coordinates `x`, `y` are exactly
    /// lane 0's plus each lane's tile column and row, lane 0 is a texel centre, and the
    /// block lies inside the image with a texel to spare right and below (where bilinear
    /// taps are interior): then every lane's weights are +0 and it reads its own texel of
    /// a tile-sized block (`position` plus a whole-pixel offset — blurs, layer9). Checked from the
    /// coordinates alone, in one vector loop, before `sampleLanes`' per-lane first pass.
    @inline(__always) func texelCentredBlock(x: UnsafePointer<UInt32>, y: UnsafePointer<UInt32>) -> UnsafePointer<Float>? {
        let x0 = Float(bitPattern: x[0]), y0 = Float(bitPattern: y[0])
        let columns = BatchTile.columnsAsFloat, rows = BatchTile.rowsAsFloat
        var offPattern: UInt32 = 0
        for l in 0..<laneCount {
            let dx = (Float(bitPattern: x[l]) - x0).bitPattern ^ columns[l].bitPattern
            let dy = (Float(bitPattern: y[l]) - y0).bitPattern ^ rows[l].bitPattern
            offPattern = max(offPattern, dx | dy)
        }
        // x − x0 equal to the column for every lane: with |x0| below 2²² that is exact, so
        // x = x0 + column. (NaN or ∞ lanes differ from anything.)
        let qx = x0 - 0.5, qy = y0 - 0.5
        guard offPattern == 0, qx >= 0, qy >= 0,
              qx + Float(BatchTile.columns) < Float(width - 1), qy + Float(BatchTile.rows) < Float(height - 1),
              qx == qx.rounded(.down), qy == qy.rounded(.down) else { return nil }
        return texels + (Int(qy) &* width &+ Int(qx)) &* 4
    }

    /// Bilinear taps of the `BatchTile`-sized block whose top-left texel is at `origin`, every
    /// lane with the weights `wx`, `wy`, written planar into `r` in lane order; the block and
    /// the column and row after it must lie inside the image. The block is filtered four
    /// texels (16 floats) at a time into `scratch` (`4 × laneCount` words), with
    /// `TextureView.bilinear`'s operations in its order on each channel, so every lane gets
    /// the bits of the lane-by-lane filter; then de-interleaved like a block of texels.
    @inline(__always) func bilinearTileBlock(_ origin: UnsafePointer<Float>, wx: Float, wy: Float,
                                             into r: UnsafeMutablePointer<UInt32>, scratch: UnsafeMutablePointer<UInt32>) {
        typealias Texels4 = SIMD16<Float>
        let block = UnsafeMutableRawPointer(scratch)
        let rowBytes = width &* 16
        let blockRowBytes = BatchTile.columns &* 16
        let vx = Texels4(repeating: wx), vy = Texels4(repeating: wy)
        for row in 0..<BatchTile.rows {
            let top = UnsafeRawPointer(origin) + row &* rowBytes, bottom = top + rowBytes
            for offset in stride(from: 0, to: blockRowBytes, by: MemoryLayout<Texels4>.stride) {
                let a = top.loadUnaligned(fromByteOffset: offset, as: Texels4.self)
                let b = top.loadUnaligned(fromByteOffset: offset &+ 16, as: Texels4.self)
                let c = bottom.loadUnaligned(fromByteOffset: offset, as: Texels4.self)
                let d = bottom.loadUnaligned(fromByteOffset: offset &+ 16, as: Texels4.self)
                let upper = a + (b - a) * vx
                let lower = c + (d - c) * vx
                block.storeBytes(of: upper + (lower - upper) * vy, toByteOffset: row &* blockRowBytes &+ offset, as: Texels4.self)
            }
        }
        readTileBlock(UnsafeRawPointer(scratch).assumingMemoryBound(to: Float.self), rowFloats: BatchTile.columns &* 4, into: r)
    }

    /// The `BatchTile`-sized block of texels whose top-left texel is at `origin`, in `BatchTile` lane order,
    /// written planar into `r` (`4 × laneCount` words); the block must lie inside the image
    /// (rows `rowFloats` apart: the image's by default).
    ///
    /// A quad's four lanes are two texels of one row and the two below them: four RGBA
    /// loads and a 4×4 transpose give its red, green, blue and alpha lanes as four stores.
    /// (Lane by lane, 64 index computations and 256 scalar stores, this was most of a
    /// texel-centred `sample`'s time and a fifth of a color effect's.)
    @inline(__always) func readTileBlock(_ origin: UnsafePointer<Float>, rowFloats: Int? = nil,
                                         into r: UnsafeMutablePointer<UInt32>) {
        let planes = UnsafeMutableRawPointer(r)
        let planeBytes = laneCount &* 4
        let rowFloats = rowFloats ?? width &* 4
        for pair in 0..<(BatchTile.rows / 2) {
            let top = UnsafeRawPointer(origin + 2 &* pair &* rowFloats)
            let bottom = top + rowFloats &* 4
            for quad in 0..<BatchTile.quadsPerRow {
                let t0 = top.loadUnaligned(fromByteOffset: quad &* 32, as: SIMD4<UInt32>.self)
                let t1 = top.loadUnaligned(fromByteOffset: quad &* 32 &+ 16, as: SIMD4<UInt32>.self)
                let t2 = bottom.loadUnaligned(fromByteOffset: quad &* 32, as: SIMD4<UInt32>.self)
                let t3 = bottom.loadUnaligned(fromByteOffset: quad &* 32 &+ 16, as: SIMD4<UInt32>.self)
                let lane = (pair &* BatchTile.quadsPerRow &+ quad) &* 4
                for channel in 0..<4 {
                    planes.storeBytes(of: SIMD4(t0[channel], t1[channel], t2[channel], t3[channel]),
                                      toByteOffset: channel &* planeBytes &+ lane &* 4, as: SIMD4<UInt32>.self)
                }
            }
        }
    }
}
