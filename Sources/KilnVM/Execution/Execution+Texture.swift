import KilnBytecode

/// Texture instructions. `sample` is a gather: each lane filters its own coordinate through
/// `TextureView.sample` (`Sampling.swift`), so results match `Sampling.sample` bit for bit.
/// An unbound texture slot reads as an empty texture: transparent black, size 0×0.
extension Execution {
    @inline(__always) static func sample(_ m: Machine, _ i: PreparedInstruction) {
        let r = m[i.a], g = r + laneCount, b = g + laneCount, alpha = b + laneCount
        let x = m[i.b], y = m[i.c]
        let slot = Int(i.imm)
        guard slot < m.textureCount else {
            for l in 0..<laneCount { r[l] = 0; g[l] = 0; b[l] = 0; alpha[l] = 0 }
            return
        }
        let texture = m.textures[slot]
        let mode = i.mode
        if mode & 2 == 0 {
            // Nearest filtering: one texel per lane, straight through `TextureView`.
            let scaleX: Float = mode & 1 != 0 ? Float(texture.width) : 1
            let scaleY: Float = mode & 1 != 0 ? Float(texture.height) : 1
            for l in 0..<laneCount {
                let texel = texture.sample(pixelX: f(x[l]) * scaleX, pixelY: f(y[l]) * scaleY, mode: mode)
                r[l] = texel.0.bitPattern
                g[l] = texel.1.bitPattern
                b[l] = texel.2.bitPattern
                alpha[l] = texel.3.bitPattern
            }
            return
        }
        sampleLinear(m, texture, x, y, mode, r)
    }

    /// Bilinear `sample` in two passes. Pass 1 is a plain lane loop the optimizer vectorizes:
    /// `q = p − 0.5`, `i = ⌊q⌋`, `w = q − i`, and whether all four taps are inside, into
    /// scratch. Pass 2 gathers per lane; interior lanes lerp the four RGBA texels directly,
    /// the rest go through the address mode (`TextureView.bilinearAtEdge`). The arithmetic is
    /// the same, in the same order, as `TextureView.sample`, so results are bit-identical to
    /// `Sampling.sample`. (Multiplying by a scale of 1 for pixel coordinates is exact.)
    @inline(__always) static func sampleLinear(_ m: Machine, _ texture: TextureView, _ x: UnsafeMutablePointer<UInt32>,
                                               _ y: UnsafeMutablePointer<UInt32>, _ mode: UInt8,
                                               _ r: UnsafeMutablePointer<UInt32>) {
        let g = r + laneCount, b = g + laneCount, alpha = b + laneCount
        let column = m.scratch, row = column + laneCount
        let weightX = row + laneCount, weightY = weightX + laneCount, kind = weightY + laneCount
        let scaleX: Float = mode & 1 != 0 ? Float(texture.width) : 1
        let scaleY: Float = mode & 1 != 0 ? Float(texture.height) : 1
        let lastColumn = Int32(truncatingIfNeeded: texture.width) &- 1
        let lastRow = Int32(truncatingIfNeeded: texture.height) &- 1
        for l in 0..<laneCount {
            let qx = f(x[l]) * scaleX - 0.5, qy = f(y[l]) * scaleY - 0.5
            let fx = KilnMath.floor(qx), fy = KilnMath.floor(qy)
            let i0 = KilnMath.toInt32(fx), j0 = KilnMath.toInt32(fy)
            column[l] = UInt32(bitPattern: i0)
            row[l] = UInt32(bitPattern: j0)
            weightX[l] = (qx - fx).bitPattern
            weightY[l] = (qy - fy).bitPattern
            // 0 = not finite (transparent), 1 = interior, 2 = near or beyond an edge.
            let finite = qx.isFinite && qy.isFinite
            let interior = i0 >= 0 && j0 >= 0 && i0 < lastColumn && j0 < lastRow
            kind[l] = finite ? (interior ? 1 : 2) : 0
        }
        let address = (mode >> 2) & 3
        let rowFloats = texture.width &* 4
        for l in 0..<laneCount {
            let wx = f(weightX[l]), wy = f(weightY[l])
            var texel: (Float, Float, Float, Float) = (0, 0, 0, 0)
            if kind[l] == 1 {
                let top = texture.texels + (Int(Int32(bitPattern: row[l])) &* texture.width
                                            &+ Int(Int32(bitPattern: column[l]))) &* 4
                let bottom = top + rowFloats
                texel = (TextureView.bilinear(top[0], top[4], bottom[0], bottom[4], wx, wy),
                         TextureView.bilinear(top[1], top[5], bottom[1], bottom[5], wx, wy),
                         TextureView.bilinear(top[2], top[6], bottom[2], bottom[6], wx, wy),
                         TextureView.bilinear(top[3], top[7], bottom[3], bottom[7], wx, wy))
            } else if kind[l] == 2 {
                texel = texture.bilinearAtEdge(Int(Int32(bitPattern: column[l])), Int(Int32(bitPattern: row[l])),
                                               wx, wy, address: address)
            }
            r[l] = texel.0.bitPattern
            g[l] = texel.1.bitPattern
            b[l] = texel.2.bitPattern
            alpha[l] = texel.3.bitPattern
        }
    }

    @inline(__always) static func texread(_ m: Machine, _ i: PreparedInstruction) {
        let r = m[i.a], g = r + laneCount, b = g + laneCount, alpha = b + laneCount
        let x = m[i.b], y = m[i.c]
        let slot = Int(i.imm)
        guard slot < m.textureCount else {
            for l in 0..<laneCount { r[l] = 0; g[l] = 0; b[l] = 0; alpha[l] = 0 }
            return
        }
        let texture = m.textures[slot]
        for l in 0..<laneCount {
            let texel = texture.read(x: x[l], y: y[l])
            r[l] = texel.0.bitPattern
            g[l] = texel.1.bitPattern
            b[l] = texel.2.bitPattern
            alpha[l] = texel.3.bitPattern
        }
    }

    @inline(__always) static func texsize(_ m: Machine, _ i: PreparedInstruction) {
        let width = m[i.a], height = width + laneCount
        let slot = Int(i.imm)
        let w = slot < m.textureCount ? UInt32(truncatingIfNeeded: m.textures[slot].width) : 0
        let h = slot < m.textureCount ? UInt32(truncatingIfNeeded: m.textures[slot].height) : 0
        for l in 0..<laneCount { width[l] = w; height[l] = h }
    }
}
