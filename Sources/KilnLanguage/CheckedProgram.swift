/// The output of semantic analysis and the input of the compiler: a fully resolved,
/// typed program. Everything the source left implicit is explicit here — conversions,
/// splats, default arguments, overload choices, constructor shapes — so the compiler
/// never re-derives a type rule. If a `CheckedProgram` exists, it is valid.
public struct CheckedProgram: Sendable {
    public var structs: [StructInfo]
    /// Program-scope `constant` variables and `constexpr sampler`s.
    public var globals: [GlobalInfo]
    /// All functions with bodies (helpers and entries). Indexes are `FunctionID`s.
    public var functions: [CheckedFunction]
    /// The entry points (`[[stitchable]]`, `vertex`, `fragment`), in declaration order.
    public var entries: [EntryInfo]

    public init(structs: [StructInfo], globals: [GlobalInfo], functions: [CheckedFunction], entries: [EntryInfo]) {
        self.structs = structs
        self.globals = globals
        self.functions = functions
        self.entries = entries
    }
}

public typealias FunctionID = Int
public typealias GlobalID = Int
/// Index into `CheckedFunction.variables`.
public typealias VariableID = Int

/// A compile-time sampler state (`constexpr sampler s(filter::linear, address::repeat)`).
public struct SamplerState: Hashable, Sendable {
    public enum Filter: String, Hashable, Sendable { case nearest, linear }
    public enum Address: String, Hashable, Sendable {
        case clampToEdge = "clamp_to_edge", clampToZero = "clamp_to_zero", `repeat`, mirroredRepeat = "mirrored_repeat"
    }
    public var filter: Filter
    public var address: Address
    /// `coord::normalized` (Metal's default) or `coord::pixel`.
    public var normalized: Bool
    public init(filter: Filter = .nearest, address: Address = .clampToEdge, normalized: Bool = true) {
        self.filter = filter
        self.address = address
        self.normalized = normalized
    }
    /// What a `sampler` *parameter* is bound to in Kiln's previews.
    public static let parameterDefault = SamplerState(filter: .linear, address: .clampToEdge, normalized: true)
}

public struct GlobalInfo: Sendable {
    public var name: String
    public var type: KType
    /// The initializer, converted to `type`; `nil` means zero. For samplers, `sampler` is set instead.
    public var initializer: TypedExpression?
    public var sampler: SamplerState?
    public var range: SourceRange
    public init(name: String, type: KType, initializer: TypedExpression?, sampler: SamplerState?, range: SourceRange) {
        self.name = name
        self.type = type
        self.initializer = initializer
        self.sampler = sampler
        self.range = range
    }
}

/// A local variable or parameter of a function.
public struct VariableInfo: Sendable {
    public var name: String
    public var type: KType
    public var isConst: Bool
    /// A `thread T &` parameter: writes go to the caller's lvalue.
    public var isReference: Bool
    /// For a local `constexpr sampler`.
    public var sampler: SamplerState?
    public var range: SourceRange
    public init(name: String, type: KType, isConst: Bool, isReference: Bool = false, sampler: SamplerState? = nil, range: SourceRange) {
        self.name = name
        self.type = type
        self.isConst = isConst
        self.isReference = isReference
        self.sampler = sampler
        self.range = range
    }
}

public struct CheckedParameter: Sendable {
    public var variable: VariableID
    public var name: String
    public var type: KType
    /// The MSL spelling as declared (`device const float *`, `constant float &`).
    public var typeSpelling: String
    /// `constant T &` / `thread T &` / `device T &`.
    public var isReference: Bool
    /// Attributes as the checker read them: `position`, `stage_in`, `buffer(0)`, `texture(1)`, `vertex_id`, `sampler(0)`.
    public var attributes: [EntryAttribute]
    public var range: SourceRange
    public init(variable: VariableID, name: String, type: KType, typeSpelling: String, isReference: Bool,
                attributes: [EntryAttribute], range: SourceRange) {
        self.variable = variable
        self.name = name
        self.type = type
        self.typeSpelling = typeSpelling
        self.isReference = isReference
        self.attributes = attributes
        self.range = range
    }
}

public struct CheckedFunction: Sendable {
    public var name: String
    public var parameters: [CheckedParameter]
    public var returnType: KType
    /// Every local and parameter; `VariableID`s index this array.
    public var variables: [VariableInfo]
    public var body: [TypedStatement]
    public var range: SourceRange
    public init(name: String, parameters: [CheckedParameter], returnType: KType, variables: [VariableInfo],
                body: [TypedStatement], range: SourceRange) {
        self.name = name
        self.parameters = parameters
        self.returnType = returnType
        self.variables = variables
        self.body = body
        self.range = range
    }
}

/// Entry-point kinds, classified by signature as SwiftUI and Metal do.
public enum EntryKind: String, Hashable, Sendable, CaseIterable {
    case distortion, color, layer, shape, vertex, fragment, kernel

    /// A SwiftUI effect (`[[stitchable]]`), whose leading parameters come from the preview.
    public var isStitchable: Bool { self != .vertex && self != .fragment && self != .kernel }
}

/// Preview metadata parsed from `/// @arg name min...max = default "help"`.
public struct ArgumentDoc: Hashable, Sendable {
    public var name: String
    public var minimum: Double?
    public var maximum: Double?
    public var defaultValue: [Double]
    public var help: String
    public init(name: String, minimum: Double?, maximum: Double?, defaultValue: [Double], help: String) {
        self.name = name
        self.minimum = minimum
        self.maximum = maximum
        self.defaultValue = defaultValue
        self.help = help
    }
}

public struct EntryInfo: Sendable {
    public var function: FunctionID
    public var kind: EntryKind
    /// Index of the first user argument in the function's parameters (after
    /// `position` / `color` / `layer` for stitchable kinds; 0 for vertex/fragment).
    public var firstUserArgument: Int
    public var argumentDocs: [ArgumentDoc]
    /// Where each parameter's value comes from, in parameter order.
    public var bindings: [EntryBinding]
    public init(function: FunctionID, kind: EntryKind, firstUserArgument: Int, argumentDocs: [ArgumentDoc], bindings: [EntryBinding]) {
        self.function = function
        self.kind = kind
        self.firstUserArgument = firstUserArgument
        self.argumentDocs = argumentDocs
        self.bindings = bindings
    }
}

// MARK: - Typed statements

public struct TypedSwitchCase: Sendable {
    /// Integer values of the `case` labels; `isDefault` for `default:`.
    public var values: [Int64]
    public var isDefault: Bool
    /// Statements up to the next label; control falls through to the next case unless it breaks.
    public var body: [TypedStatement]
    public init(values: [Int64], isDefault: Bool, body: [TypedStatement]) {
        self.values = values
        self.isDefault = isDefault
        self.body = body
    }
}

public struct TypedStatement: Sendable {
    /// Not `indirect`: nothing here holds a `TypedStatement` directly (arrays and class
    /// references already are pointers), so boxing every case bought nothing but an
    /// allocation per statement.
    public enum Kind: Sendable {
        /// Declares a local; a `nil` initializer zero-initializes (Kiln defines it).
        case declare(VariableID, TypedExpression?)
        case expression(TypedExpression)
        case block([TypedStatement])
        case ifElse(condition: TypedExpression, then: [TypedStatement], otherwise: [TypedStatement])
        /// Every loop: `for`/`while` test `condition` before each iteration, `do…while`
        /// (`testFirst == false`) after. `step` runs after the body and after `continue`.
        /// `condition` is `nil` for `for(;;)`.
        case loop(condition: TypedExpression?, step: TypedExpression?, body: [TypedStatement], testFirst: Bool)
        case breakLoop
        case continueLoop
        /// `return` with the value converted to the function's return type.
        case returnValue(TypedExpression?)
        /// `switch`: the subject is `int` or `uint`; `break` inside leaves the switch.
        case switchOn(TypedExpression, [TypedSwitchCase])
        /// `discard_fragment();`
        case discard
    }
    public var kind: Kind
    public var range: SourceRange
    public init(_ kind: Kind, range: SourceRange) {
        self.kind = kind
        self.range = range
    }
}

// MARK: - Typed expressions

/// A compile-time scalar constant.
public enum ConstantValue: Hashable, Sendable {
    case bool(Bool)
    case int(Int32)
    case uint(UInt32)
    case float(Float)

    /// The 32-bit pattern of the value as a register holds it.
    public var bits: UInt32 {
        switch self {
        case .bool(let b): return b ? 1 : 0
        case .int(let i): return UInt32(bitPattern: i)
        case .uint(let u): return u
        case .float(let f): return f.bitPattern
        }
    }
}

/// Operators after checking. Operands of arithmetic, comparison and bitwise ops already
/// have the same type (scalar or vector; scalars were splatted); the result of a comparison
/// is `bool` or `boolN`. `logicalAnd`/`logicalOr` evaluate their right operand only where
/// the left does not decide (short circuit; for vectors both sides are evaluated).
public enum TypedBinaryOperator: String, Hashable, Sendable {
    case add, subtract, multiply, divide, remainder
    case shiftLeft, shiftRight, bitwiseAnd, bitwiseOr, bitwiseXor
    case less, lessEqual, greater, greaterEqual, equal, notEqual
    case logicalAnd, logicalOr
}

public enum TypedUnaryOperator: String, Hashable, Sendable {
    case negate, logicalNot, bitwiseNot
}

/// Where a texture sample's sampler comes from.
public enum SamplerSource: Hashable, Sendable {
    /// A compile-time sampler (constexpr global or local).
    case constant(SamplerState)
    /// A `sampler` parameter (bound by the renderer).
    case parameter(VariableID)
}

public final class TypedExpression: @unchecked Sendable {
    /// Stored in the node, not boxed: the operands are `TypedExpression` references already,
    /// and an `indirect` enum made a second heap object (and a second retain, release and
    /// free) for every node of every typed tree.
    public enum Kind {
        case constant(ConstantValue)
        /// A local or parameter (lvalue).
        case variable(VariableID)
        /// A program-scope constant (read-only).
        case global(GlobalID)
        /// Builds `type` from the scalarized components of the arguments in order
        /// (`float4(v.xy, 0, 1)`, `float2x2(c, -s, s, c)`, `float3x3(col0, col1, col2)`);
        /// a single scalar argument of a vector/matrix type splats (matrix: diagonal).
        /// For structs and arrays, one argument per field / element.
        /// Arguments already have `type`'s element scalar kind.
        case construct([TypedExpression])
        /// Converts a scalar or vector element-wise to `type` (which has the same shape),
        /// or splats a scalar to the vector `type`.
        case convert(TypedExpression)
        case unary(TypedUnaryOperator, TypedExpression)
        case binary(TypedBinaryOperator, TypedExpression, TypedExpression)
        /// `matrix * vector`, `vector * matrix`, `matrix * matrix` (linear-algebra products).
        case matrixMultiply(TypedExpression, TypedExpression)
        /// `lhs = rhs` (rhs converted to lhs's type); the value is the new lhs.
        case assign(TypedExpression, TypedExpression)
        /// `lhs op= rhs`; `rhs` is converted so that `lhs op rhs` is well-typed
        /// (`matrixMultiply` is used for `*=` with matrices when `op` is `.multiply`).
        case compoundAssign(TypedBinaryOperator, TypedExpression, TypedExpression)
        /// `++x`, `x--`, …: `delta` is +1 or −1; the value is the new value for prefix,
        /// the old one for postfix.
        case increment(TypedExpression, delta: Int, isPrefix: Bool)
        /// `c ? a : b` with a scalar condition (only the chosen side's effects happen).
        case conditional(TypedExpression, TypedExpression, TypedExpression)
        /// `v.zyx` (reads; repeated components allowed) and swizzle lvalues (no repeats).
        case swizzle(TypedExpression, [Int])
        /// `v[i]`, `m[i]` (a column), `a[i]`, `ptr[i]`; out of range reads 0 and writes nothing.
        case index(TypedExpression, TypedExpression)
        /// `s.field` by field index (also `p->field`).
        case member(TypedExpression, Int)
        /// A call of a user function with every argument (defaults filled in), each converted
        /// to its parameter's type; reference (`thread T &`) parameters get lvalues.
        case call(FunctionID, [TypedExpression])
        /// A builtin, with the arguments converted to the chosen overload's parameter types.
        case builtin(Builtin, [TypedExpression])
        /// `texture.sample(sampler, uv)` → `float4`/`half4`.
        case textureSample(TypedExpression, SamplerSource, TypedExpression)
        /// `layer.sample(position)` → `half4`.
        case layerSample(TypedExpression, TypedExpression)
        /// `texture.read(uint2)` → `float4`/`half4`.
        case textureRead(TypedExpression, TypedExpression)
        /// `&x` of a local (or a part of one) → `thread T *`; an array passed to a `thread T *`
        /// parameter is `&array` too (it points at element 0). Only a call argument.
        case addressOf(TypedExpression)
        /// `*p`, and `p->field` as `(*p).field`, of a `thread T *` parameter: an lvalue.
        case dereference(TypedExpression)
        /// `texture.write(value, uint2)` → `void` (a kernel's output; writes outside are dropped).
        case textureWrite(TypedExpression, TypedExpression, TypedExpression)
        /// `texture.get_width()` (`dimension` 0) / `get_height()` (1) → `uint`.
        case textureSize(TypedExpression, dimension: Int)
        /// `a, b`: evaluates both, value of `b`.
        case sequence(TypedExpression, TypedExpression)
    }

    public let kind: Kind
    public let type: KType
    public let range: SourceRange
    /// The expression or one inside it assigns (`=`, `op=`, `++`, `--`), calls a user
    /// function (which may write through `thread` reference and pointer arguments), or
    /// calls `modf` (which writes its second argument). Computed once, as the node is made
    /// from its operands, so the lowerer's questions about what a region assigns and whether
    /// an operand has effects skip whole subtrees instead of visiting every node of them
    /// (a loop body's scan cost ~600 instructions a node, docs/benchmarks.md).
    public let mayWrite: Bool

    public init(_ kind: Kind, type: KType, range: SourceRange) {
        self.kind = kind
        self.type = type
        self.range = range
        self.mayWrite = Self.mayWrite(kind)
    }

    private static func mayWrite(_ kind: Kind) -> Bool {
        switch kind {
        case .constant, .variable, .global: return false
        case .assign, .compoundAssign, .increment, .call: return true
        case .builtin(let builtin, let items): return builtin == .modf || items.contains { $0.mayWrite }
        case .construct(let items): return items.contains { $0.mayWrite }
        case .convert(let a), .unary(_, let a), .swizzle(let a, _), .member(let a, _), .addressOf(let a),
             .dereference(let a), .textureSize(let a, _):
            return a.mayWrite
        case .binary(_, let a, let b), .matrixMultiply(let a, let b), .index(let a, let b), .layerSample(let a, let b),
             .textureRead(let a, let b), .sequence(let a, let b), .textureSample(let a, _, let b):
            return a.mayWrite || b.mayWrite
        case .conditional(let a, let b, let c), .textureWrite(let a, let b, let c):
            return a.mayWrite || b.mayWrite || c.mayWrite
        }
    }
}
