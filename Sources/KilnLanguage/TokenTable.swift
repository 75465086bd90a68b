/// What the tokens of one compile refer to instead of holding it: spellings that are not
/// short ASCII words, and the annexes — `///` documentation and the macro expansion a
/// token came from. One table serves every file of a compile (the lexer fills it, the
/// preprocessor adds pasted and stringized spellings and expansions), and the parser reads
/// it; `Token` explains why tokens hold indexes instead of the values.
public struct TokenTable: Sendable {
    /// Documentation lines and expansion of the tokens whose `annex` is the index.
    struct Annex: Sendable {
        var documentation: [String]
        var expansion: Token.Expansion?
    }

    /// Spellings that are not stored inline (`TokenSpelling.stored(at:)`).
    private(set) var spellings: [String] = []
    /// Index 0 is the empty annex of every token without documentation or expansion.
    private(set) var annexes: [Annex] = [Annex(documentation: [], expansion: nil)]

    public init() {}

    /// The spelling of `token` (for literals: as written, suffix included).
    @inline(__always)
    public func text(of token: Token) -> String {
        token.spelling.inlineText ?? spellings[Int(token.spelling.low)]
    }

    /// `///` lines directly above `token`, without the slashes.
    public func documentation(of token: Token) -> [String] {
        annexes[Int(token.annex)].documentation
    }

    /// The macro expansion `token` came out of, if any.
    public func expansion(of token: Token) -> Token.Expansion? {
        token.isExpanded ? annexes[Int(token.annex)].expansion : nil
    }

    /// The stored form of `text`: inline when it can be, else added to the table.
    mutating func spelling(_ text: String) -> TokenSpelling {
        if let inline = TokenSpelling.inline(text) { return inline }
        spellings.append(text)
        return .stored(at: spellings.count - 1)
    }

    /// A token spelled `text`.
    public mutating func token(kind: Token.Kind, text: String, range: SourceRange, isAtLineStart: Bool = false,
                               hasLeadingSpace: Bool = false) -> Token {
        Token(kind: kind, spelling: spelling(text), range: range, isAtLineStart: isAtLineStart,
              hasLeadingSpace: hasLeadingSpace)
    }

    /// Gives `token` the spelling `text`.
    mutating func setText(_ text: String, of token: inout Token) {
        token.spelling = spelling(text)
    }

    /// A new annex; 0 when there is nothing to record.
    mutating func annex(documentation: [String], expansion: Token.Expansion?) -> Int32 {
        if documentation.isEmpty && expansion == nil { return 0 }
        annexes.append(Annex(documentation: documentation, expansion: expansion))
        return Int32(annexes.count - 1)
    }

    /// Marks `token` as coming from the expansion that `expansionAnnex` holds (an annex of
    /// just that expansion, made once per expansion by the caller), keeping the token's
    /// documentation: the usual token, without any, shares the annex and allocates nothing.
    mutating func setExpansion(annex expansionAnnex: Int32, of token: inout Token) {
        let documentation = annexes[Int(token.annex)].documentation
        token.annex = documentation.isEmpty
            ? expansionAnnex : annex(documentation: documentation, expansion: annexes[Int(expansionAnnex)].expansion)
        token.isExpanded = true
    }

    /// Replaces the documentation of `token`, keeping its expansion.
    mutating func setDocumentation(_ documentation: [String], of token: inout Token) {
        let current = annexes[Int(token.annex)]
        if current.documentation.isEmpty && documentation.isEmpty { return }
        token.annex = annex(documentation: documentation, expansion: current.expansion)
    }
}
