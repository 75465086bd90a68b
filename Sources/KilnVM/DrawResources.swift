/// Everything a draw binds besides lane inputs: the uniform argument block, buffers
/// (array arguments, vertex data) and textures, plus the execution limits.
public struct DrawResources: Sendable {
    /// The uniform argument block: one 32-bit word per component (`Binding.uniform(word:)`).
    public var uniforms: [UInt32]
    /// Buffer slots (`Binding.buffer(slot:countWord:)`), 32-bit words each.
    public var buffers: [[UInt32]]
    /// Texture slots (`Binding.texture(slot:)`; the layer of a layer effect is slot 0).
    public var textures: [Texture]
    public var limits: ExecutionLimits

    public init(uniforms: [UInt32] = [], buffers: [[UInt32]] = [], textures: [Texture] = [],
                limits: ExecutionLimits = ExecutionLimits()) {
        self.uniforms = uniforms
        self.buffers = buffers
        self.textures = textures
        self.limits = limits
    }
}
