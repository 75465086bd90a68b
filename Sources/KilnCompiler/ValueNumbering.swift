import KilnBytecode

/// Local value numbering: an instruction that computes what an earlier one in the same
/// extended basic block computed, from the same registers still holding the same bits,
/// becomes a copy of that earlier result (`CopyPropagator` then usually removes the copy).
///
/// Inlining repeats work the source wrote once per call: value noise hashes
/// `i + float2(1, 0)`, `i + float2(0, 1)` and `i + float2(1, 1)`, so `i.x + 1` and
/// `i.y + 1` — and their products with the hash's constants — are each computed twice per
/// octave. Reusing a result is exact: the same opcode on the same bits gives the same bits
/// (every opcode is a function of its operands; none reads a mask it is not given), so
/// pictures do not change by a single bit.
///
/// Scope: from a label to the next. A conditional jump does not end it: the code after it
/// is reached only by falling through, so everything computed before still holds.
/// A register "holds the same bits" while its allocation unit has not been written since:
/// every write bumps the version of the writer's unit (a texture sample or a dynamic array
/// store writes a run of registers named by its first member), and a remembered result is
/// used only while its own unit's version is the one it was recorded at.
///
/// Only plain computations take part (`IRInstruction.isPlainComputation`: `unary`, `binary`, `ternary` shapes except `mov`),
/// and only results outside the prologue's units: those are uniform registers the
/// allocator places apart.
enum ValueNumbering {
    /// What an instruction computes: its opcode and operands, each operand with the version
    /// of its unit when read.
    struct Key {
        var opcode: Opcode
        var b: VirtualRegister, c: VirtualRegister, d: VirtualRegister
        var bVersion: Int, cVersion: Int, dVersion: Int
        var imm: UInt32
        var mode: UInt8

        /// The key as the table's four words, without loss: registers (−1 for none) and
        /// versions take 32 bits each — a function has far fewer than 2³² of either (the
        /// compile limits bound its instructions) — and the opcode and mode fit beside the
        /// last version.
        var words: ValueTable.Key {
            assert([b, c, d, bVersion, cVersion, dVersion].allSatisfy { $0 >= -1 && $0 < Int(UInt32.max) })
            return (hashWord(b, c), hashWord(d, Int(imm)), hashWord(bVersion, cVersion),
                    UInt64(UInt32(truncatingIfNeeded: dVersion)) | UInt64(opcode.rawValue) << 32 | UInt64(mode) << 40)
        }
    }

    /// A remembered `mov`: the register it copied and both units' versions at the time.
    struct Copy {
        var original: VirtualRegister = -1
        var originalVersion = 0, copyVersion = 0
        /// The block it was seen in (-1: never).
        var block = -1
    }

    /// Rewrites recomputations in `state.body` into `mov`s; returns how many.
    @discardableResult
    static func run(_ state: inout LoweringState) -> Int {
        var version = PassTable(repeating: 0, count: state.units.count)
        var available = ValueTable(expected: largestBlock(state.body))
        /// `mov copy, original` seen in this block: while neither has been written since,
        /// reading the copy is reading the original (so `(i.x + 1) · 127.1` matches after
        /// the second `i.x + 1` became a copy of the first). Indexed by the copy's virtual
        /// register; an entry counts only if it was made in the current block (`block`), so
        /// a new block forgets them all without clearing (a dictionary here, looked up three
        /// times per instruction, was most of this pass).
        var copies = PassTable(repeating: Copy(), count: state.registerUnit.count)
        var block = 0
        var rewritten = 0
        func unitVersion(_ register: VirtualRegister) -> Int {
            register < 0 ? 0 : version[state.registerUnit[register]]
        }
        func canonical(_ register: VirtualRegister) -> (register: VirtualRegister, version: Int) {
            if register >= 0, copies[register].block == block {
                let copy = copies[register]
                if unitVersion(register) == copy.copyVersion, unitVersion(copy.original) == copy.originalVersion {
                    return (copy.original, copy.originalVersion)
                }
            }
            return (register, unitVersion(register))
        }
        for index in state.body.indices {
            let instruction = state.body[index]
            if instruction.isDebug { continue }
            if instruction.isLabel {
                available.removeAll()
                block += 1
                continue
            }
            var key: ValueTable.Key?
            if instruction.isPlainComputation {
                let (b, c, d) = (canonical(instruction.b), canonical(instruction.c), canonical(instruction.d))
                key = Key(opcode: instruction.opcode, b: b.register, c: c.register, d: d.register,
                          bVersion: b.version, cVersion: c.version, dVersion: d.version,
                          imm: instruction.imm, mode: instruction.mode).words
            }
            let destination = instruction.writes ?? -1
            let destinationUnit = destination >= 0 ? state.registerUnit[destination] : -1
            // One lookup for both uses below (the table does not change in between).
            let earlier = key.flatMap { available.lookup($0) }
            if destination >= 0, !state.units[destinationUnit].isPrologue,
               let earlier, earlier.register != destination,
               unitVersion(earlier.register) == earlier.version {
                state.body[index] = IRInstruction(opcode: .mov, a: destination, b: earlier.register,
                                                  location: instruction.location)
                rewritten += 1
            }
            let source = state.body[index].opcode == .mov ? canonical(state.body[index].b) : nil
            if destinationUnit >= 0 { version[destinationUnit] += 1 }
            if let source, source.register >= 0, source.register != destination, destination >= 0 {
                copies[destination] = Copy(original: source.register, originalVersion: source.version,
                                           copyVersion: version[destinationUnit], block: block)
            }
            if let key, destination >= 0, !state.units[destinationUnit].isPrologue {
                // Keep the earliest result while it holds: later copies point at it.
                if let earlier, unitVersion(earlier.register) == earlier.version {} else {
                    available.insert(key, register: destination, version: version[destinationUnit])
                }
            }
            if endsBlock(instruction) {
                available.removeAll()
                block += 1
            }
        }
        return rewritten
    }

    /// The most plain computations between two points where `run` empties its table (labels,
    /// `ret`, `jmp`): what the table must hold at once. Sizing it by the whole body instead
    /// made an unrolled shader's table 8 192 slots (416 KB zeroed a compile, a hundred page
    /// faults in a fresh process) for blocks a tenth of that.
    static func largestBlock(_ body: [IRInstruction]) -> Int {
        var largest = 0, current = 0
        for instruction in body {
            if instruction.isLabel {
                current = 0
                continue
            }
            if instruction.isPlainComputation {
                current += 1
                largest = max(largest, current)
            }
            if endsBlock(instruction) { current = 0 }
        }
        return largest
    }

    /// `ret` and `jmp` (not markers): what follows is only a jump target, so nothing
    /// computed before is known to hold there.
    @inline(__always)
    private static func endsBlock(_ instruction: IRInstruction) -> Bool {
        !instruction.isMarker && (instruction.shape == .none || instruction.shape == .jump)
    }
}

/// Two ints' low halves as one word: `ValueNumbering.Key`'s packed form.
func hashWord(_ low: Int, _ high: Int) -> UInt64 {
    UInt64(UInt32(truncatingIfNeeded: low)) | UInt64(UInt32(truncatingIfNeeded: high)) << 32
}
