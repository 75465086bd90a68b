import KilnBytecode

/// Fused pairs (`FusedPair`): `z := (x ⊙ y) ⊕ s` in one lane loop, the intermediate kept in
/// a vector register (arithmetic pairs, `fmax`/`fmin` clamps, and `fract` of a result,
/// whose `s` is unused). Each operation is a separate binary32 operation rounded on its own
/// (Swift does not contract `x * y + s` into a fused multiply-add), so the bits are those
/// of the two instructions run one after the other.
extension Execution {
    /// One binary32 operation of a pair, on a group of lanes: `apply(t, s)` for the second,
    /// `apply(x, y)` for the first.
    protocol PairOperation {
        static func apply(_ p: FloatGroup, _ q: FloatGroup) -> FloatGroup
    }
    enum Add: PairOperation {
        @inline(__always) static func apply(_ p: FloatGroup, _ q: FloatGroup) -> FloatGroup { p + q }
    }
    enum Sub: PairOperation {
        @inline(__always) static func apply(_ p: FloatGroup, _ q: FloatGroup) -> FloatGroup { p - q }
    }
    /// The second instruction with `t` on the right, `s + t`: the same value as `t + s`,
    /// but with both operands NaN x86 returns the left one, so the order is kept.
    enum AddTo: PairOperation {
        @inline(__always) static func apply(_ p: FloatGroup, _ q: FloatGroup) -> FloatGroup { q + p }
    }
    /// `s − t`.
    enum SubFrom: PairOperation {
        @inline(__always) static func apply(_ p: FloatGroup, _ q: FloatGroup) -> FloatGroup { q - p }
    }
    /// `s · t` (the order kept, as for `AddTo`).
    enum MulInto: PairOperation {
        @inline(__always) static func apply(_ p: FloatGroup, _ q: FloatGroup) -> FloatGroup { q * p }
    }
    enum Mul: PairOperation {
        @inline(__always) static func apply(_ p: FloatGroup, _ q: FloatGroup) -> FloatGroup { p * q }
    }
    enum Div: PairOperation {
        @inline(__always) static func apply(_ p: FloatGroup, _ q: FloatGroup) -> FloatGroup { p / q }
    }
    /// `fmax` (`maximumGroup`).
    enum Max: PairOperation {
        @inline(__always) static func apply(_ p: FloatGroup, _ q: FloatGroup) -> FloatGroup {
            maximumGroup(p, q)
        }
    }
    /// `fmin` (`minimumGroup`).
    enum Min: PairOperation {
        @inline(__always) static func apply(_ p: FloatGroup, _ q: FloatGroup) -> FloatGroup {
            minimumGroup(p, q)
        }
    }

    /// `ffract` of the first result (`fractGroup`); the second operand, register 0 of a
    /// unary second instruction, is ignored.
    enum Fract: PairOperation {
        @inline(__always) static func apply(_ p: FloatGroup, _: FloatGroup) -> FloatGroup { fractGroup(p) }
    }

    /// The pair's lane loop: `R[a] := Second(First(R[b], R[c]), R[d])`, a group of lanes at a
    /// time. The destination may be any of the operands (`acc = acc + x * y` is common);
    /// each group is loaded before it is stored, so that is safe without the
    /// run-time overlap checks a plain lane loop gets — which send an in-place loop down a
    /// scalar path.
    @inline(__always) static func pair<First: PairOperation, Second: PairOperation>(
        _ m: Machine, _ i: PreparedInstruction, _: First.Type, _: Second.Type
    ) {
        let z = UnsafeMutableRawPointer(m[i.a]), x = UnsafeRawPointer(m[i.b])
        let y = UnsafeRawPointer(m[i.c]), s = UnsafeRawPointer(m[i.d])
        let group = MemoryLayout<FloatGroup>.stride
        for offset in stride(from: 0, to: laneCount * 4, by: group) {
            let t = First.apply(x.loadUnaligned(fromByteOffset: offset, as: FloatGroup.self),
                                y.loadUnaligned(fromByteOffset: offset, as: FloatGroup.self))
            let result = Second.apply(t, s.loadUnaligned(fromByteOffset: offset, as: FloatGroup.self))
            z.storeBytes(of: result, toByteOffset: offset, as: FloatGroup.self)
        }
    }

    /// Runs a fused instruction (`PreparedInstruction.fusion` ≠ 0) over all lanes; the
    /// executor then skips the second instruction of the pair.
    ///
    /// Out of line, like `scalarStep`: inlined into the hot loop, the first twelve lane loops
    /// pushed it past the optimizer's budget, and it outlined the whole opcode `switch`
    /// instead (a call with a runtime lane count on every instruction: fbm 46 → 66–75 ms).
    @inline(never) static func fusedStep(_ m: Machine, _ instruction: UnsafePointer<PreparedInstruction>) {
        let i = instruction.pointee
        // On the raw value: `FusedPair(rawValue:)` stayed a call, once per fused step.
        switch i.fusion {
        case FusedPair.addAdd.rawValue: pair(m, i, Add.self, Add.self)
        case FusedPair.addAddTo.rawValue: pair(m, i, Add.self, AddTo.self)
        case FusedPair.addSub.rawValue: pair(m, i, Add.self, Sub.self)
        case FusedPair.addSubFrom.rawValue: pair(m, i, Add.self, SubFrom.self)
        case FusedPair.addMul.rawValue: pair(m, i, Add.self, Mul.self)
        case FusedPair.addMulInto.rawValue: pair(m, i, Add.self, MulInto.self)
        case FusedPair.addDiv.rawValue: pair(m, i, Add.self, Div.self)
        case FusedPair.subAdd.rawValue: pair(m, i, Sub.self, Add.self)
        case FusedPair.subAddTo.rawValue: pair(m, i, Sub.self, AddTo.self)
        case FusedPair.subSub.rawValue: pair(m, i, Sub.self, Sub.self)
        case FusedPair.subSubFrom.rawValue: pair(m, i, Sub.self, SubFrom.self)
        case FusedPair.subMul.rawValue: pair(m, i, Sub.self, Mul.self)
        case FusedPair.subMulInto.rawValue: pair(m, i, Sub.self, MulInto.self)
        case FusedPair.subDiv.rawValue: pair(m, i, Sub.self, Div.self)
        case FusedPair.mulAdd.rawValue: pair(m, i, Mul.self, Add.self)
        case FusedPair.mulAddTo.rawValue: pair(m, i, Mul.self, AddTo.self)
        case FusedPair.mulSub.rawValue: pair(m, i, Mul.self, Sub.self)
        case FusedPair.mulSubFrom.rawValue: pair(m, i, Mul.self, SubFrom.self)
        case FusedPair.mulMul.rawValue: pair(m, i, Mul.self, Mul.self)
        case FusedPair.mulMulInto.rawValue: pair(m, i, Mul.self, MulInto.self)
        case FusedPair.mulDiv.rawValue: pair(m, i, Mul.self, Div.self)
        case FusedPair.divAdd.rawValue: pair(m, i, Div.self, Add.self)
        case FusedPair.divAddTo.rawValue: pair(m, i, Div.self, AddTo.self)
        case FusedPair.divSub.rawValue: pair(m, i, Div.self, Sub.self)
        case FusedPair.divSubFrom.rawValue: pair(m, i, Div.self, SubFrom.self)
        case FusedPair.divMul.rawValue: pair(m, i, Div.self, Mul.self)
        case FusedPair.divMulInto.rawValue: pair(m, i, Div.self, MulInto.self)
        case FusedPair.divDiv.rawValue: pair(m, i, Div.self, Div.self)
        case FusedPair.maxMin.rawValue: pair(m, i, Max.self, Min.self)
        case FusedPair.minMax.rawValue: pair(m, i, Min.self, Max.self)
        case FusedPair.addFract.rawValue: pair(m, i, Add.self, Fract.self)
        case FusedPair.subFract.rawValue: pair(m, i, Sub.self, Fract.self)
        case FusedPair.mulFract.rawValue: pair(m, i, Mul.self, Fract.self)
        default: break
        }
    }
}
