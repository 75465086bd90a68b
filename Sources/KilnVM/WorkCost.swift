import KilnBytecode

extension Opcode {
    /// What one instruction costs a frame's work budget (`RenderLimits.maxFrameWork`), in
    /// units of one lane of a simple operation such as `fadd` (a 64-lane `fadd` took about
    /// 6.5 ns on the development machine, release build). Transcendentals evaluate a libm routine per lane and
    /// `sample` gathers and filters four texels, so counting instructions alone would let a
    /// loop of `atan2` run 250× longer than a loop of adds on the same budget. Each weight
    /// is the measured time of a 20,000-iteration loop of that operation over the time of
    /// the loop's simple instructions (docs/rendering.md "Work budget").
    public var workCost: UInt16 {
        switch self {
        case .patan2: return 250
        case .ppow: return 170
        case .pasin, .pacos: return 120
        case .plog, .plog2, .plog10, .patan: return 110
        case .fpow: return 36
        case .fatan2: return 30
        case .fasin, .facos, .flog, .flog2, .flog10: return 12
        case .fatan: return 10
        case .ptanh: return 90
        case .sample: return 80
        case .psinh: return 75
        case .ptan: return 60
        case .pexp, .pcosh: return 55
        case .fsinh, .fcosh, .ftanh: return 24
        case .pexp2, .psin, .pcos: return 35
        case .ftan: return 12
        case .fsin, .fcos, .fexp, .fexp2: return 8
        case .fmod: return 24
        case .frsqrt: return 18
        case .texread, .texwrite: return 8
        case .ldr, .str, .ldk, .ldb: return 4
        case .fdiv, .fsqrt, .idiv, .irem, .udiv, .urem: return 2
        default: return 1
        }
    }
}
