import KilnBytecode
import KilnLanguage

/// Which lanes the code being lowered runs for, as the compiler knows it statically.
enum ExecutionMask: Equatable {
    /// Every lane that entered the entry function (no divergence so far): no masking.
    case all
    /// The lanes whose bit is set in this (boolean) register.
    case lanes(VirtualRegister)
    /// No lane: every lane has left through `return`/`break`/`continue`/`discard`.
    case retired
    /// Control jumped away (a uniform `return`/`break`/`continue`): the code is dead.
    case unreachable

    var isLive: Bool { self != .retired && self != .unreachable }
}

/// Where a variable's value lives.
enum VariableStorage {
    /// One virtual register per scalarized component.
    case components([VirtualRegister])
    /// A `thread T &` parameter: an alias of components of a caller's variable.
    case reference(frame: Int, variable: VariableID, path: [Int])
    /// A pointer argument bound to a buffer slot.
    case buffer(slot: UInt32, element: KType)
    /// A texture (or `SwiftUI::Layer`, slot 0).
    case texture(slot: UInt32)
    /// A sampler: constexpr state, or nil for a sampler parameter.
    case sampler(SamplerState?)
}

/// A local variable or parameter of an inlined function.
///
/// A class whose fields never change — a write replaces the frame's slot with a new one —
/// so that `LoweringState.snapshot()` still copies values, while a lookup, which the
/// lowerer does for every variable it reads or writes, is one retain. As a struct in a
/// `[VariableSlot?]`, each lookup copied an optional multi-payload enum through the
/// generic value witnesses, ~175 instructions, 5 % of `art_starfield`'s compile.
final class VariableSlot {
    let storage: VariableStorage
    /// `storage`'s registers when it is `.components`, else nil. Lowering reads them for
    /// every use of a variable, and matching `storage` against `.components` copied the
    /// whole enum to do it (an outlined copy, a retain and a release: ~165 a median compile).
    let components: [VirtualRegister]?
    /// `storage` is `.reference` (an alias to follow).
    let isReference: Bool
    /// Control-flow nesting where the variable was declared: writes from deeper regions
    /// go to its home registers instead of renaming.
    let regionDepth: Int
    /// Divergent nesting at the declaration: writes from deeper divergent regions are masked.
    let divergentDepth: Int
    /// Set when the variable lives in a register group indexed with `ldr`/`str`:
    /// component `e·elementSize + w` is member `w·count + e` of the group.
    let pinnedCount: Int?

    init(storage: VariableStorage, regionDepth: Int, divergentDepth: Int, pinnedCount: Int?) {
        self.storage = storage
        switch storage {
        case .components(let registers): components = registers; isReference = false
        case .reference: components = nil; isReference = true
        default: components = nil; isReference = false
        }
        self.regionDepth = regionDepth
        self.divergentDepth = divergentDepth
        self.pinnedCount = pinnedCount
    }

    /// The same variable, its value now in `storage`.
    func with(storage: VariableStorage) -> VariableSlot {
        VariableSlot(storage: storage, regionDepth: regionDepth, divergentDepth: divergentDepth, pinnedCount: pinnedCount)
    }
}

/// One inlined function activation.
struct Frame {
    var function: FunctionID
    /// Index into `LoweringState.debugActivations`.
    var activation = 0
    /// Slots by `VariableID`, which indexes the function's `variables` (so an array sized
    /// to them, not a dictionary: the lowerer looks a slot up for every variable read).
    var variables: [VariableSlot?] = []
    /// Home registers of the return value (the output registers for the entry function).
    var returnHome: [VirtualRegister] = []
    /// The value of the one `return` at the end of a straight-line helper (no home needed).
    var directResult: [VirtualRegister]?
    var hasSingleFinalReturn = false
    var entryMask: ExecutionMask
    var divergentDepth: Int
    /// Lanes that returned (helpers whose returns can diverge).
    var returnedLanes: VirtualRegister?
    var didMaskRetire = false
    var endLabel: Int
    var isEntry: Bool
    /// Arrays this function indexes dynamically (they live in register groups).
    var pinned: Set<VariableID> = []
    /// Index into `LoweringState.debugVariables` of each variable (by `VariableID`) once bound,
    /// −1 before; empty until the frame's first binding.
    var debugVariableIndex: [Int] = []
}

/// A loop or `switch` that `break` (and for loops `continue`) can leave.
struct Breakable {
    var isLoop: Bool
    /// Jump-based (uniform control): `break`/`continue` are jumps.
    var isUniform: Bool
    var breakLabel: Int
    var continueLabel: Int
    /// Masked: lanes that left through `break` (and for loops, a failed condition).
    var exitLanes: VirtualRegister?
    /// Masked loops: lanes that took `continue` this iteration.
    var continueLanes: VirtualRegister?
    var divergentDepth: Int
    /// Uniform loops: the mask the body runs under. A jump to the exit or the step carries
    /// no mask, so `break`/`continue` may only jump when the mask is still this one (lanes
    /// that retired on the way, by a divergent `return` say, would run again after the jump).
    var bodyMask: ExecutionMask? = nil
}

/// Key of a hoisted pure instruction, for common-subexpression elimination in the prologue
/// (`PureIndex` hashes it).
struct PureKey: Equatable {
    var opcode: Opcode
    var b: VirtualRegister
    var c: VirtualRegister
    var d: VirtualRegister
    var imm: UInt32
    var mode: UInt8
    var literalCount: UInt16
}

/// Everything lowering mutates, as one value: copying it is a snapshot, so speculative
/// lowering (a loop tried as uniform first) can roll back by assignment.
struct LoweringState {
    /// `state`'s contents, leaving an empty state behind: the one owner of its arrays.
    static func moved(from state: inout LoweringState) -> LoweringState {
        var result = LoweringState()
        swap(&result, &state)
        return result
    }

    var prologue: [IRInstruction] = []
    var body: [IRInstruction] = []
    var registerUnit: [Int] = []
    var registerOffset: [Int] = []
    var units: [RegisterUnit] = []
    /// Same value in every lane (decides jumps versus masks).
    var isUniform: [Bool] = []
    /// Written more than once (variable homes, masks, accumulators): never renamed.
    var isHome: [Bool] = []
    var knownConstant: [UInt32?] = []
    var labelCount = 0
    var frames: [Frame] = []
    var breakables: [Breakable] = []
    var mask: ExecutionMask = .all
    var regionDepth = 0
    var divergentDepth = 0
    var constantRegisters = WordIndex()
    var argumentRegisters = WordIndex()
    var pureCache = PureIndex()
    var constants: [UInt32] = []
    var constantIndex = WordIndex()
    var constantArrays: [[UInt32]: Int] = [:]
    var globalValues: [GlobalID: [VirtualRegister]] = [:]
    var discardRegister: VirtualRegister?
    /// Homes of loops being lowered as uniform: a varying write to one aborts the attempt.
    var watchedHomes: [Set<VirtualRegister>] = []
    var locations: [SourceLocation] = []
    /// `file << 32 | offset` → index into `locations`.
    var locationNumbering = LocationNumbering()
    var currentLocation = 0
    var usedTextureSlots: Set<UInt32> = []
    var usedBufferSlots: Set<UInt32> = []
    /// Debug markers' events (`IRInstruction.debug`), activations and variables: the
    /// makings of the library's `DebugInfo`.
    var debugEvents: [PendingDebugEvent] = []
    var debugActivations: [DebugActivation] = []
    var debugVariables: [DebugVariable] = []
    var loopCount = 0

    /// Room for a typical entry point's instructions, registers and source locations (a
    /// median example shader: ~100–300 virtual registers and body instructions). Grown one
    /// append at a time from empty, these arrays were reallocated 6–9 times each, ~1 % of a
    /// median compile (docs/benchmarks.md, "thirty-seventh session"); a larger function
    /// grows past this as before.
    mutating func reserveTypicalCapacity() {
        prologue.reserveCapacity(64)
        body.reserveCapacity(256)
        let registers = 256
        registerUnit.reserveCapacity(registers)
        registerOffset.reserveCapacity(registers)
        units.reserveCapacity(registers)
        isUniform.reserveCapacity(registers)
        isHome.reserveCapacity(registers)
        knownConstant.reserveCapacity(registers)
        locations.reserveCapacity(128)
        debugEvents.reserveCapacity(128)
    }
}

/// The lowering state as it was, to roll back to (a loop tried as uniform that needs masks,
/// a loop that cannot be unrolled after all). The instruction lists, the register and unit
/// tables, the source locations and the debug records only grow while lowering, so the
/// snapshot keeps their lengths instead of sharing their storage: with `let saved = state`
/// the next append to each shared array copied all of it (a snapshot per unrolled loop,
/// the instructions alone tens of kilobytes each time). Everything else is copied as before.
struct LoweringSnapshot {
    /// The state with its append-only arrays emptied (so it shares none of their storage).
    fileprivate var state: LoweringState
    /// Their lengths, in the order of `LoweringState.appendOnly`.
    fileprivate var lengths: [Int]
}

extension LoweringState {
    /// One append-only array: empty it (in a snapshot's copy) and report its length; cut the
    /// grown one back to a length and move it into the restored state. Closures that name
    /// the field rather than key paths: applying a `WritableKeyPath` goes through the
    /// runtime, and the key-path version of `snapshot` and `restore` cost ~40 000
    /// instructions a loop — 3 % of compiling `art_rings` (docs/benchmarks.md, "fortieth
    /// session").
    private struct AppendOnly {
        let empty: (inout LoweringState) -> Int
        let restore: (inout LoweringState, inout LoweringState, Int) -> Void
    }

    /// The arrays that lowering only appends to.
    private static let appendOnly = [
        AppendOnly(empty: { emptied(&$0.prologue) }, restore: { cut(&$0.prologue, &$1.prologue, $2) }),
        AppendOnly(empty: { emptied(&$0.body) }, restore: { cut(&$0.body, &$1.body, $2) }),
        AppendOnly(empty: { emptied(&$0.registerUnit) }, restore: { cut(&$0.registerUnit, &$1.registerUnit, $2) }),
        AppendOnly(empty: { emptied(&$0.registerOffset) }, restore: { cut(&$0.registerOffset, &$1.registerOffset, $2) }),
        AppendOnly(empty: { emptied(&$0.units) }, restore: { cut(&$0.units, &$1.units, $2) }),
        AppendOnly(empty: { emptied(&$0.locations) }, restore: { cut(&$0.locations, &$1.locations, $2) }),
        AppendOnly(empty: { emptied(&$0.debugEvents) }, restore: { cut(&$0.debugEvents, &$1.debugEvents, $2) }),
        AppendOnly(empty: { emptied(&$0.debugActivations) },
                   restore: { cut(&$0.debugActivations, &$1.debugActivations, $2) }),
        AppendOnly(empty: { emptied(&$0.debugVariables) }, restore: { cut(&$0.debugVariables, &$1.debugVariables, $2) }),
    ]

    /// Empties `array` and returns how long it was.
    private static func emptied<Element>(_ array: inout [Element]) -> Int {
        defer { array = [] }
        return array.count
    }

    /// Cuts `grown` back to `length` and moves it into `array`.
    private static func cut<Element>(_ array: inout [Element], _ grown: inout [Element], _ length: Int) {
        grown.removeLast(grown.count - length)
        swap(&array, &grown)
    }

    func snapshot() -> LoweringSnapshot {
        var saved = self
        let lengths = Self.appendOnly.map { $0.empty(&saved) }
        return LoweringSnapshot(state: saved, lengths: lengths)
    }

    /// Back to `snapshot`: its copied parts, and the append-only arrays cut to its lengths.
    mutating func restore(_ snapshot: LoweringSnapshot) {
        // `grown` holds the only reference to each grown array once `self` is replaced, so
        // cutting it back happens in place.
        var grown = self
        self = snapshot.state
        for (array, length) in zip(Self.appendOnly, snapshot.lengths) { array.restore(&self, &grown, length) }
    }
}

extension Array where Element == IRInstruction {
    /// Drops the instructions flagged in `removed` (one flag per instruction), keeping order,
    /// in place: building the kept list through `enumerated().filter` copied every
    /// instruction twice, growing the array as it went (2 % of a big shader's compile).
    mutating func removeFlagged(_ removed: borrowing PassTable<Bool>) {
        var kept = 0
        for index in indices where !removed[index] {
            self[kept] = self[index]
            kept += 1
        }
        removeLast(count - kept)
    }
}
