import KilnBytecode

/// Two dependent float instructions the executor runs as one step: `t := x ⊙ y` followed
/// by `z := t ⊕ s` (or `s ⊕ t`), where `t` is dead afterwards.
///
/// Why: an interpreter instruction is a pass over the batch's lanes in memory — load the
/// operands, compute, store the result — plus a dispatch. In shader art most instructions
/// feed the next one (`p * 2.03 + 1.7`, the `a + (b − a) · t` of `mix`, dot products), so
/// a fused pair keeps `t` in a vector register: one dispatch instead of two, and no store
/// and reload of `t`. Same operations in the same order, each rounded: identical bits
/// (`PairFusionTests` compares whole pictures with and without). Fusion happens when a
/// function is prepared, on the VM's copy of the body; the library, the disassembly and
/// the pixel debugger (which runs the unfused body) see the instructions as compiled.
///
/// A fused instruction sits where the first one was, with `a` = `z`, `b`, `c` = the first
/// one's operands, `d` = `s`, and the summed cost; the second instruction stays in place
/// and is skipped. (`PairScheduling` may first reorder instructions inside a block; block
/// starts and the jumps that end blocks, which budget errors name, stay where they were.)
enum FusedPair: UInt8 {
    case none = 0
    /// `t ⊙ s` and, for every operation, `s ⊙ t` (`…To`, `…From`, `…Into`): a sum or product
    /// has the same value either way round, but when both operands are NaN the result is the
    /// left one's (x86), so each order keeps its own operand order.
    case addAdd, addAddTo, addSub, addSubFrom, addMul, addMulInto, addDiv
    case subAdd, subAddTo, subSub, subSubFrom, subMul, subMulInto, subDiv
    case mulAdd, mulAddTo, mulSub, mulSubFrom, mulMul, mulMulInto, mulDiv
    case divAdd, divAddTo, divSub, divSubFrom, divMul, divMulInto, divDiv
    /// `clamp(x, lo, hi)` and `smoothstep`'s saturation: `min(max(x, lo), hi)` (and the
    /// other way round), `t` the left operand of the second (`fmin`/`fmax` choose between
    /// ±0 and skip NaN by operand order, so only that order fuses).
    case maxMin, minMax
    /// `fract(t)` of a sum, difference or product: every hash (`fract(p · k)`,
    /// `fract(sin(x) · 43758.5453)`), the second instruction unary.
    case addFract, subFract, mulFract

    /// The first instruction's operation, as the row of the table.
    private static let firsts: [Opcode] = [.fadd, .fsub, .fmul, .fdiv]

    /// The pair `first` (writing `t`) then `second`, if the two fuse; `tFirst` says whether
    /// `t` is `second`'s left operand. Division fuses as `t / s` only (`s / t` is rare: a
    /// reciprocal is one instruction).
    init?(first: Opcode, second: Opcode, tFirst: Bool) {
        switch (first, second, tFirst) {
        case (.fmax, .fmin, true): self = .maxMin; return
        case (.fmin, .fmax, true): self = .minMax; return
        case (.fadd, .ffract, true): self = .addFract; return
        case (.fsub, .ffract, true): self = .subFract; return
        case (.fmul, .ffract, true): self = .mulFract; return
        default: break
        }
        guard let row = Self.firsts.firstIndex(of: first) else { return nil }
        let column: UInt8
        switch second {
        case .fadd: column = tFirst ? 0 : 1
        case .fsub: column = tFirst ? 2 : 3
        case .fmul: column = tFirst ? 4 : 5
        case .fdiv where tFirst: column = 6
        default: return nil
        }
        self.init(rawValue: 1 + UInt8(row) * 7 + column)
    }
}

/// Finds the pairs of a prepared body that fuse (`FusedPair`) and rewrites them.
enum PairFusion {
    /// Fuses what it can in `body` (the prepared form of `code`, which starts at library
    /// index `start`, plus the appended `ret`). A pair fuses when both instructions run
    /// lane-wide (not scalar), the second is not a jump target, it reads `t` exactly once, and
    /// `t` is dead after it — or the second overwrites it. Dead means: no instruction on
    /// any path reads it before it is written again, where the body's exit leads to the
    /// renderer's reads (outputs, discard mask) and to the next batch's run of the body
    /// (whatever the body reads before writing: prologue registers, inputs).
    /// Bounded like `UniformityAnalysis`; past the bound nothing fuses.
    /// Returns the number of pairs fused.
    @discardableResult
    static func fuse(_ body: inout [PreparedInstruction], code: [Instruction], blocks: BasicBlocks,
                     function: Function) -> Int {
        guard code.count >= 2, body.count > code.count else { return 0 }
        // The pair each instruction would start if its destination is dead after the next.
        var candidates = Array(repeating: FusedPair.none, count: code.count)
        for i in 0..<(code.count - 1) where !blocks.startsBlock[i + 1] && !body[i].isScalar && !body[i + 1].isScalar
            && body[i].fusion == 0 && body[i + 1].fusion == 0 {
            let first = code[i], second = code[i + 1]
            guard first.opcode.shape == .binary else { continue }
            let t = first.a
            switch second.opcode.shape {
            case .binary:
                guard (second.b == t) != (second.c == t),
                      let pair = FusedPair(first: first.opcode, second: second.opcode, tFirst: second.b == t)
                else { continue }
                candidates[i] = pair
            case .unary:
                // `c` of a unary instruction is no operand (often register 0): only `b` counts.
                guard second.b == t, let pair = FusedPair(first: first.opcode, second: second.opcode, tFirst: true)
                else { continue }
                candidates[i] = pair
            default:
                continue
            }
        }
        guard candidates.contains(where: { $0 != .none }),
              let deadAfter = deadAfterSecond(of: candidates, code: code, blocks: blocks, function: function)
        else { return 0 }
        var fused = 0
        var i = 0
        while i < code.count - 1 {
            let pair = candidates[i]
            guard pair != .none, deadAfter[i] || code[i + 1].a == code[i].a else { i += 1; continue }
            let first = body[i], second = body[i + 1]
            body[i].fusion = pair.rawValue
            body[i].a = second.a
            body[i].d = second.opcode.shape == .unary ? 0 : second.b == first.a ? second.c : second.b
            body[i].cost = first.cost &+ second.cost
            fused += 1
            i += 2
        }
        return fused
    }

    /// For each candidate `i`: is the first instruction's destination dead after `i + 1`?
    /// nil when the analysis would exceed its bounds.
    static func deadAfterSecond(of candidates: [FusedPair], code: [Instruction], blocks: BasicBlocks,
                                function: Function) -> [Bool]? {
        var dead = Array(repeating: false, count: code.count)
        let analysed = BodyLiveness.visitLiveAfter(code: code, blocks: blocks, function: function) { index, live in
            if index > 0, candidates[index - 1] != .none { dead[index - 1] = !live[Int(code[index - 1].a)] }
        }
        return analysed ? dead : nil
    }
}
