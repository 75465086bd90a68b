import KilnBytecode

/// Texture instructions. `sample` is a gather: each lane filters its own coordinate with the
/// arithmetic of `TextureView.sample` (`Sampling.swift`), so results match `Sampling.sample`
/// bit for bit. The lane loops themselves live in `TextureView.sampleLanes`, shared with the
/// renderer's batch entry point `Sampling.sampleLanes`.
/// An unbound texture slot reads as an empty texture: transparent black, size 0×0.
extension Execution {
    @inline(__always) static func sample(_ m: Machine, _ i: PreparedInstruction) {
        let r = m[i.a]
        let slot = Int(i.imm)
        guard slot < m.textureCount else {
            r.update(repeating: 0, count: 4 * laneCount)
            return
        }
        m.textures[slot].sampleLanes(x: m[i.b], y: m[i.c], mode: i.mode, into: r, scratch: m.scratch)
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

    /// Stores each masked-in lane's texel. Threads write their own memory of the texture
    /// in place (`Texture.target`); two threads writing one texel race, as on a GPU.
    @inline(__always) static func texwrite(_ m: Machine, _ i: PreparedInstruction) {
        let slot = Int(i.imm)
        guard slot < m.textureCount else { return }
        let texture = m.textures[slot]
        let texels = UnsafeMutablePointer(mutating: texture.texels)
        let r = m[i.a], g = r + laneCount, b = g + laneCount, alpha = b + laneCount
        let x = m[i.b], y = m[i.c], mask = m[i.d]
        for l in 0..<laneCount where mask[l] != 0 && Int(x[l]) < texture.width && Int(y[l]) < texture.height {
            let p = texels + (Int(y[l]) &* texture.width &+ Int(x[l])) &* 4
            p[0] = Float(bitPattern: r[l])
            p[1] = Float(bitPattern: g[l])
            p[2] = Float(bitPattern: b[l])
            p[3] = Float(bitPattern: alpha[l])
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
