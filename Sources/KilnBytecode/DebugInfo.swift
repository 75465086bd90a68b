/// What a debugger needs beyond the line table: where each source variable's value is at
/// each point of the code, which statement runs under which execution mask, and where loop
/// iterations begin. The compiler emits it for every function; nothing in it changes the
/// code (a library with and without it runs identically), so a pixel debugger answers from
/// the very instructions that drew the picture.
///
/// The model is an *event stream* over the code (like DWARF's location lists or LLVM's
/// `dbg.value`, flattened): `events` are sorted by `instruction` and fire when execution
/// reaches that instruction, before it runs. A value is never "the register now" but "what
/// the most recent executed definition wrote" (`DebugValue`), so it stays exact after the
/// register is reused, and a value whose definitions the optimizer deleted is reported as
/// optimised away instead of guessed. Layout: `docs/library-format.md`, section `DVAR`.
public struct DebugInfo: Hashable, Sendable {
    /// Inlined function activations (the entry function is one of them, at depth 0).
    public var activations: [DebugActivation]
    /// Source variables, one per activation and declaration.
    public var variables: [DebugVariable]
    /// Value descriptions that events refer to (shared between events).
    public var values: [DebugValue]
    /// Sorted by `instruction` (ties keep emission order).
    public var events: [DebugEvent]

    public init(activations: [DebugActivation] = [], variables: [DebugVariable] = [], values: [DebugValue] = [],
                events: [DebugEvent] = []) {
        self.activations = activations
        self.variables = variables
        self.values = values
        self.events = events
    }

    public var isEmpty: Bool { activations.isEmpty && variables.isEmpty && values.isEmpty && events.isEmpty }

    /// The events that fire at instructions in `range` (binary search; `events` is sorted).
    public func events(in range: Range<Int>) -> ArraySlice<DebugEvent> {
        func firstIndex(atLeast instruction: Int) -> Int {
            var low = 0, high = events.count
            while low < high {
                let mid = (low + high) / 2
                if Int(events[mid].instruction) < instruction { low = mid + 1 } else { high = mid }
            }
            return low
        }
        return events[firstIndex(atLeast: range.lowerBound)..<firstIndex(atLeast: range.upperBound)]
    }
}

/// One inlined call (or the entry function itself).
public struct DebugActivation: Hashable, Sendable {
    /// The function's source name.
    public var function: String
    /// 0 for the entry function, n for a call nested n deep.
    public var depth: UInt16
    /// Where it was called from (the entry function: its declaration).
    public var file: UInt16
    public var line: UInt32

    public init(function: String, depth: UInt16, file: UInt16, line: UInt32) {
        self.function = function
        self.depth = depth
        self.file = file
        self.line = line
    }
}

/// A source variable (or parameter) of one activation.
public struct DebugVariable: Hashable, Sendable {
    public var name: String
    /// The MSL spelling of its type (`float3`, `Ray`, `float[4]`).
    public var typeName: String
    /// Index into `DebugInfo.activations`.
    public var activation: UInt32
    /// Where it is declared.
    public var line: UInt32
    /// One entry per scalarized component, in the compiler's component order.
    public var components: [Component]

    /// A scalar component: how to print it (`x`, `origin.y`, `[2]`) and its type.
    public struct Component: Hashable, Sendable {
        public var label: String
        public var scalar: ScalarType

        public init(label: String, scalar: ScalarType) {
            self.label = label
            self.scalar = scalar
        }
    }

    public init(name: String, typeName: String, activation: UInt32, line: UInt32, components: [Component]) {
        self.name = name
        self.typeName = typeName
        self.activation = activation
        self.line = line
        self.components = components
    }
}

/// Where a value is: in `register`, as last written by one of `definitions` (instruction
/// indexes into `Library.code`). With no definitions the value was in the register when the
/// body started (a lane input, or a uniform value the prologue computed) and is valid while
/// the body has not written the register since.
///
/// `definitions` is a slice: the compiler cuts every value's definitions out of one array per
/// function instead of making an array per value (a sixth of the allocations debug
/// information cost a compile). Its indexes are the base array's, not 0-based.
public struct DebugValue: Hashable, Sendable {
    public var register: UInt16
    public var definitions: ArraySlice<UInt32>

    public init(register: UInt16, definitions: ArraySlice<UInt32>) {
        self.register = register
        self.definitions = definitions
    }
}

/// One point of interest in the code.
public struct DebugEvent: Hashable, Sendable {
    /// Fires when execution reaches this instruction (index into `Library.code`), before it runs.
    public var instruction: UInt32
    /// Fires only when the instruction is reached from the one before it, not by a jump:
    /// the event belongs to code that falls into a jump target (a loop head, a join).
    public var fallthroughOnly: Bool
    public var kind: Kind

    public enum Kind: Hashable, Sendable {
        /// A statement starts. `mask` (a `DebugValue` index) holds the lanes that run it;
        /// nil when every lane that entered the function does.
        case statement(activation: UInt32, file: UInt16, line: UInt32, column: UInt16, mask: UInt32?)
        /// A variable was (re)assigned: each component's value, nil where it was optimised away.
        case bind(variable: UInt32, components: [UInt32?])
        /// A loop (identified by `loop`, unique in the function) starts: its count is reset.
        case loopStart(loop: UInt32)
        /// A loop iteration starts; `mask` as for statements.
        case iteration(loop: UInt32, mask: UInt32?)
        /// The loop is left (every lane that entered it is done).
        case loopEnd(loop: UInt32)
    }

    public init(instruction: UInt32, fallthroughOnly: Bool, kind: Kind) {
        self.instruction = instruction
        self.fallthroughOnly = fallthroughOnly
        self.kind = kind
    }
}
