import KilnBytecode

/// Integer division and remainder by a constant power of two, lowered to shifts and masks.
///
/// Why: the VM divides integers through binary64 (x86 has no vector integer division), a
/// dozen operations and two `vdivpd` for eight lanes; `k % 2` (checkerboards), `k / 4`,
/// `k % 16` are everyday shader arithmetic. A shift and a mask are one operation each.
/// C's division truncates toward zero, so a negative dividend is first biased by 2ⁿ − 1
/// (`(x >> 31) >>> (32 − n)` is that or 0); the remainder is what the biased dividend's
/// low bits were, `x − (t & −2ⁿ)`. Exact for every dividend, `INT_MIN` included
/// (`DifferentialTests`, "division and remainder by powers of two").
extension FunctionLowerer {
    /// `x / divisor` (or `x % divisor`) when `divisor` is 2ⁿ, n ≥ 1 (below 2³¹ when signed);
    /// nil otherwise, and the caller emits the division.
    func divideByPowerOfTwo(_ x: VirtualRegister, _ divisor: UInt32, remainder: Bool, signed: Bool) -> VirtualRegister? {
        guard divisor > 1, divisor & (divisor - 1) == 0, !signed || divisor < 0x8000_0000 else { return nil }
        let n = UInt32(divisor.trailingZeroBitCount)
        if !signed {
            return remainder ? op(.and, x, constant(divisor - 1)) : op(.ushr, x, constant(n))
        }
        let bias = op(.ushr, op(.shr, x, constant(31)), constant(32 - n))
        let biased = op(.iadd, x, bias)
        return remainder ? op(.isub, x, op(.and, biased, constant(0 &- divisor))) : op(.shr, biased, constant(n))
    }
}
