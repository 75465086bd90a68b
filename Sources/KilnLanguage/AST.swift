/// The syntax tree the parser produces and semantic analysis consumes.
///
/// It records what was written, with ranges, and nothing the checker decides: names are
/// unresolved, types are spelled, implicit conversions are absent. `CheckedProgram` is
/// the resolved form.

/// One translation unit after preprocessing: the declarations of a `.metal` file and
/// everything it includes, in order.
public struct TranslationUnit: Sendable {
    public var declarations: [Declaration]
    public init(declarations: [Declaration]) { self.declarations = declarations }
}

// MARK: - Declarations

public enum Declaration: Sendable {
    case function(FunctionDeclaration)
    /// Program-scope variable: `constant float3 K = …;`, `constexpr sampler s(filter::linear);`.
    case variable(VariableDeclaration)
    case structure(StructDeclaration)
    case enumeration(EnumDeclaration)
    /// `using X = T;` or `typedef T X;`.
    case typeAlias(TypeAliasDeclaration)
    /// `using namespace metal;`
    case usingNamespace(name: String, range: SourceRange)
}

/// `[[name(arguments)]]`, e.g. `[[stitchable]]`, `[[buffer(0)]]`, `[[user(uv)]]`.
public struct Attribute: Sendable {
    /// The attribute name without namespace (`stitchable`, `position`, `buffer`).
    public var name: String
    /// Arguments; an identifier argument such as `uv` in `user(uv)` is an `.identifier` expression.
    public var arguments: [Expression]
    public var range: SourceRange
    public init(name: String, arguments: [Expression], range: SourceRange) {
        self.name = name
        self.arguments = arguments
        self.range = range
    }
}

/// `vertex`, `fragment` or `kernel` before a function.
public enum FunctionQualifier: String, Sendable {
    case none, vertex, fragment, kernel
}

public struct FunctionDeclaration: Sendable {
    public var name: String
    public var nameRange: SourceRange
    public var qualifier: FunctionQualifier
    /// Attributes before the declaration or after the name (`[[stitchable]]`).
    public var attributes: [Attribute]
    public var returnType: TypeName
    public var parameters: [ParameterDeclaration]
    /// `nil` for a prototype.
    public var body: BlockStatement?
    /// The `///` doc comment lines right above, without the slashes (for `@arg`).
    public var documentation: [String]
    /// The whole declaration.
    public var range: SourceRange
    public init(name: String, nameRange: SourceRange, qualifier: FunctionQualifier, attributes: [Attribute],
                returnType: TypeName, parameters: [ParameterDeclaration], body: BlockStatement?,
                documentation: [String], range: SourceRange) {
        self.name = name
        self.nameRange = nameRange
        self.qualifier = qualifier
        self.attributes = attributes
        self.returnType = returnType
        self.parameters = parameters
        self.body = body
        self.documentation = documentation
        self.range = range
    }
}

public struct ParameterDeclaration: Sendable {
    public var type: TypeName
    /// Unnamed parameters are allowed in prototypes.
    public var name: String?
    public var nameRange: SourceRange?
    /// `float a[3]` as a parameter.
    public var arraySizes: [Expression]
    public var defaultValue: Expression?
    public var attributes: [Attribute]
    public var range: SourceRange
    public init(type: TypeName, name: String?, nameRange: SourceRange?, arraySizes: [Expression],
                defaultValue: Expression?, attributes: [Attribute], range: SourceRange) {
        self.type = type
        self.name = name
        self.nameRange = nameRange
        self.arraySizes = arraySizes
        self.defaultValue = defaultValue
        self.attributes = attributes
        self.range = range
    }
}

/// A declaration of one or more variables sharing a type: `const float a = 1, b[2] = {0, 1};`.
public struct VariableDeclaration: Sendable {
    public var type: TypeName
    /// `constexpr` (also on samplers) — `static`, `inline` and similar are dropped by the parser.
    public var isConstexpr: Bool
    public var declarators: [Declarator]
    public var range: SourceRange
    public init(type: TypeName, isConstexpr: Bool, declarators: [Declarator], range: SourceRange) {
        self.type = type
        self.isConstexpr = isConstexpr
        self.declarators = declarators
        self.range = range
    }
}

public struct Declarator: Sendable {
    public var name: String
    public var nameRange: SourceRange
    /// `a[3][2]` → two sizes; `a[]` (size from initializer) → a `nil` size.
    public var arraySizes: [Expression?]
    public var initializer: Initializer?
    public var attributes: [Attribute]
    public var range: SourceRange
    public init(name: String, nameRange: SourceRange, arraySizes: [Expression?], initializer: Initializer?,
                attributes: [Attribute], range: SourceRange) {
        self.name = name
        self.nameRange = nameRange
        self.arraySizes = arraySizes
        self.initializer = initializer
        self.attributes = attributes
        self.range = range
    }
}

public indirect enum Initializer: Sendable {
    /// `= expression`
    case expression(Expression)
    /// `= { a, b, … }` or `{ a, b }` (possibly nested)
    case list([Initializer], SourceRange)
    /// `name(arguments)`: direct initialization, as in `constexpr sampler s(filter::linear)`
    /// or `float2 p(1, 2)`.
    case constructor([Expression], SourceRange)

    public var range: SourceRange {
        switch self {
        case .expression(let e): return e.range
        case .list(_, let r), .constructor(_, let r): return r
        }
    }
}

public struct StructDeclaration: Sendable {
    public var name: String
    public var nameRange: SourceRange
    public var fields: [FieldDeclaration]
    public var range: SourceRange
    public init(name: String, nameRange: SourceRange, fields: [FieldDeclaration], range: SourceRange) {
        self.name = name
        self.nameRange = nameRange
        self.fields = fields
        self.range = range
    }
}

public struct FieldDeclaration: Sendable {
    public var type: TypeName
    public var name: String
    public var nameRange: SourceRange
    public var arraySizes: [Expression]
    public var attributes: [Attribute]
    public var range: SourceRange
    public init(type: TypeName, name: String, nameRange: SourceRange, arraySizes: [Expression],
                attributes: [Attribute], range: SourceRange) {
        self.type = type
        self.name = name
        self.nameRange = nameRange
        self.arraySizes = arraySizes
        self.attributes = attributes
        self.range = range
    }
}

public struct EnumDeclaration: Sendable {
    public struct Case: Sendable {
        public var name: String
        public var value: Expression?
        public var range: SourceRange
        public init(name: String, value: Expression?, range: SourceRange) {
            self.name = name
            self.value = value
            self.range = range
        }
    }
    public var name: String
    public var nameRange: SourceRange
    /// `enum class` (cases must be qualified: `Mode::a`).
    public var isScoped: Bool
    /// `enum E : uint`.
    public var underlyingType: TypeName?
    public var cases: [Case]
    public var range: SourceRange
    public init(name: String, nameRange: SourceRange, isScoped: Bool, underlyingType: TypeName?, cases: [Case], range: SourceRange) {
        self.name = name
        self.nameRange = nameRange
        self.isScoped = isScoped
        self.underlyingType = underlyingType
        self.cases = cases
        self.range = range
    }
}

public struct TypeAliasDeclaration: Sendable {
    public var name: String
    public var nameRange: SourceRange
    public var type: TypeName
    public var range: SourceRange
    public init(name: String, nameRange: SourceRange, type: TypeName, range: SourceRange) {
        self.name = name
        self.nameRange = nameRange
        self.type = type
        self.range = range
    }
}

// MARK: - Types as written

/// Address spaces of MSL pointers and references.
public enum AddressSpace: String, Sendable, Hashable, CaseIterable {
    case device, constant, thread, threadgroup

    /// The address space spelled `word`, if any: `init(rawValue:)` after a test of the
    /// first byte. Why: the parser asks about every word before and after a type name
    /// (`const device float *`), nearly always a type name (`float2`, `half4`), and the
    /// standard library's `init(rawValue:)` is a string `switch` — a linear search by
    /// generic string comparison, ~450 instructions a call, 1 % of compiling a small shader.
    @inline(__always)
    public static func named(_ word: String) -> AddressSpace? {
        guard let first = word.utf8.first, first < 64 || firstBytes & 1 << (first - 64) != 0 else { return nil }
        return AddressSpace(rawValue: word)
    }

    /// Bit `b − 64` set for each case's first byte `b` (the spellings are lowercase ASCII,
    /// 64…127), derived from the cases so a new one cannot be missed by `named`. Bytes below
    /// 64 are not letters and fall through to `init(rawValue:)`, which refuses them.
    private static let firstBytes: UInt64 = allCases.reduce(0) { mask, space in
        let first = space.rawValue.utf8.first!
        precondition(first >= 64 && first < 128, "address-space spellings start with a letter")
        return mask | 1 << (first - 64)
    }
}

/// A type as spelled: `float2`, `const device float *`, `texture2d<half, access::read>`,
/// `SwiftUI::Layer`, `array<float, 4>`, `constant Uniforms &`.
public struct TypeName: Sendable {
    public enum Indirection: Sendable, Hashable {
        case none, pointer, reference
    }
    public enum GenericArgument: Sendable {
        case type(TypeName)
        case expression(Expression)
    }
    /// Name components: `["float2"]`, `["SwiftUI", "Layer"]`, `["access", "read"]`, `["metal", "float4"]`.
    public var path: [String]
    public var genericArguments: [GenericArgument]
    public var addressSpace: AddressSpace?
    public var isConst: Bool
    public var indirection: Indirection
    public var range: SourceRange
    public init(path: [String], genericArguments: [GenericArgument] = [], addressSpace: AddressSpace? = nil,
                isConst: Bool = false, indirection: Indirection = .none, range: SourceRange) {
        self.path = path
        self.genericArguments = genericArguments
        self.addressSpace = addressSpace
        self.isConst = isConst
        self.indirection = indirection
        self.range = range
    }

    /// The last path component: the name without `metal::`/`SwiftUI::`.
    public var baseName: String { path.last ?? "" }
}

// MARK: - Statements

public struct BlockStatement: Sendable {
    public var statements: [Statement]
    public var range: SourceRange
    public init(statements: [Statement], range: SourceRange) {
        self.statements = statements
        self.range = range
    }
}

public struct SwitchCase: Sendable {
    /// `case 1: case 2:` → two labels; `default:` → a `nil` label.
    public var labels: [Expression?]
    public var statements: [Statement]
    public var range: SourceRange
    public init(labels: [Expression?], statements: [Statement], range: SourceRange) {
        self.labels = labels
        self.statements = statements
        self.range = range
    }
}

public indirect enum Statement: Sendable {
    case block(BlockStatement)
    case declaration(VariableDeclaration)
    case expression(Expression)
    case ifStatement(condition: Expression, then: Statement, otherwise: Statement?, range: SourceRange)
    /// `for (initializer; condition; step) body`; the initializer is a declaration or an expression statement.
    case forStatement(initializer: Statement?, condition: Expression?, step: Expression?, body: Statement, range: SourceRange)
    case whileStatement(condition: Expression, body: Statement, range: SourceRange)
    case doWhileStatement(body: Statement, condition: Expression, range: SourceRange)
    case switchStatement(subject: Expression, cases: [SwitchCase], range: SourceRange)
    case breakStatement(SourceRange)
    case continueStatement(SourceRange)
    case returnStatement(Expression?, SourceRange)
    /// `;`
    case empty(SourceRange)

    public var range: SourceRange {
        switch self {
        case .block(let b): return b.range
        case .declaration(let d): return d.range
        case .expression(let e): return e.range
        case .ifStatement(_, _, _, let r), .forStatement(_, _, _, _, let r), .whileStatement(_, _, let r),
             .doWhileStatement(_, _, let r), .switchStatement(_, _, let r), .breakStatement(let r),
             .continueStatement(let r), .returnStatement(_, let r), .empty(let r):
            return r
        }
    }
}

// MARK: - Expressions

public enum UnaryOperator: String, Sendable {
    case plus = "+", minus = "-", logicalNot = "!", bitwiseNot = "~"
    case preIncrement = "++", preDecrement = "--"
    /// `&x` and `*p`: pointers to thread memory, as `thread T *` arguments (language.md §4).
    case addressOf = "&", dereference = "*"
}

public enum PostfixOperator: String, Sendable {
    case increment = "++", decrement = "--"
}

public enum BinaryOperator: String, Sendable, CaseIterable {
    case multiply = "*", divide = "/", remainder = "%"
    case add = "+", subtract = "-"
    case shiftLeft = "<<", shiftRight = ">>"
    case less = "<", lessEqual = "<=", greater = ">", greaterEqual = ">="
    case equal = "==", notEqual = "!="
    case bitwiseAnd = "&", bitwiseXor = "^", bitwiseOr = "|"
    case logicalAnd = "&&", logicalOr = "||"
    case comma = ","
}

/// `=` (operator `nil`) or a compound assignment `op=`.
public struct AssignmentOperator: Sendable, Hashable {
    public var compound: BinaryOperator?
    public init(compound: BinaryOperator?) { self.compound = compound }
    public var spelling: String { (compound?.rawValue ?? "") + "=" }
}

public struct Expression: Sendable {
    /// Only the cases that hold an `Expression` itself are `indirect` (boxed): the leaves —
    /// literals and names, about half of all nodes — are stored inline instead of in a box
    /// of their own.
    public enum Kind: Sendable {
        /// `42`, `0x1F`, `3u` (suffix lowercased: "", "u").
        case integerLiteral(UInt64, suffix: String)
        /// `1.0`, `.5f`, `2h`, `1e-3` (suffix lowercased: "", "f", "h").
        case floatLiteral(Double, suffix: String)
        case booleanLiteral(Bool)
        /// A possibly qualified name: `x`, `metal::sin`, `Mode::fast`, `float2`.
        case identifier(NamePath)
        indirect case unary(UnaryOperator, Expression)
        indirect case postfix(PostfixOperator, Expression)
        indirect case binary(BinaryOperator, Expression, Expression)
        indirect case assignment(AssignmentOperator, Expression, Expression)
        indirect case conditional(Expression, Expression, Expression)
        /// `f(a, b)`, `float2(x, y)` (constructors are calls of a type name),
        /// `layer.sample(p)` (callee is a `.member`).
        indirect case call(callee: Expression, arguments: [Expression])
        /// A constructor whose type is not a plain name: `array<float, 2>(…)`, `vec<float, 3>(…)`.
        indirect case construct(TypeName, [Expression])
        /// `(float)x`, `static_cast<int>(y)`.
        indirect case cast(TypeName, Expression)
        /// `a.b` or `a->b`.
        indirect case member(Expression, name: String, nameRange: SourceRange, arrow: Bool)
        indirect case index(Expression, Expression)
        /// `{ a, b }` where an expression is expected (`return {a, b};`, `float2 x = {…}` is an Initializer instead).
        case initializerList([Expression])
    }

    public var kind: Kind { didSet { height = Self.height(of: kind) } }
    public var range: SourceRange
    /// Levels from this node to its deepest leaf (a leaf is 1), kept with the node (see
    /// `Expression+Height.swift`).
    public private(set) var height: Int

    public init(_ kind: Kind, range: SourceRange) {
        self.kind = kind
        self.range = range
        self.height = Self.height(of: kind)
    }
}
