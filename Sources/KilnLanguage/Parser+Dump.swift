/// A compact S-expression rendering of the syntax tree, for tests and debugging
/// (`(binary + (id a) (binary * (id b) (id c)))`). Ranges are left out.
extension Parser {
    public static func dump(_ unit: TranslationUnit) -> String {
        unit.declarations.map(dump).joined(separator: "\n")
    }

    public static func dump(_ declaration: Declaration) -> String {
        switch declaration {
        case .function(let f):
            let attributes = f.attributes.isEmpty ? "" : " " + f.attributes.map(dump).joined(separator: " ")
            let parameters = f.parameters.map { p -> String in
                var text = "(param \(dump(p.type)) \(p.name ?? "_")"
                for size in p.arraySizes { text += " [\(dump(size))]" }
                for attribute in p.attributes { text += " " + dump(attribute) }
                if let value = p.defaultValue { text += " = \(dump(value))" }
                return text + ")"
            }.joined(separator: " ")
            let qualifier = f.qualifier == .none ? "" : " \(f.qualifier.rawValue)"
            let body = f.body.map { " " + dump(Statement.block($0)) } ?? " prototype"
            return "(function\(qualifier)\(attributes) \(dump(f.returnType)) \(f.name) (\(parameters))\(body))"
        case .variable(let v):
            return dump(v)
        case .structure(let s):
            let fields = s.fields.map { field -> String in
                var text = "(field \(dump(field.type)) \(field.name)"
                for size in field.arraySizes { text += " [\(dump(size))]" }
                for attribute in field.attributes { text += " " + dump(attribute) }
                return text + ")"
            }
            return "(struct \(s.name)\(fields.isEmpty ? "" : " ")\(fields.joined(separator: " ")))"
        case .enumeration(let e):
            let cases = e.cases.map { c in c.value.map { "(\(c.name) \(dump($0)))" } ?? c.name }
            return "(enum\(e.isScoped ? " class" : "") \(e.name)\(e.underlyingType.map { " : " + dump($0) } ?? "") \(cases.joined(separator: " ")))"
        case .typeAlias(let a):
            return "(alias \(a.name) \(dump(a.type)))"
        case .usingNamespace(let name, _):
            return "(using namespace \(name))"
        }
    }

    static func dump(_ attribute: Attribute) -> String {
        attribute.arguments.isEmpty ? "[[\(attribute.name)]]"
            : "[[\(attribute.name)(\(attribute.arguments.map(dump).joined(separator: ", ")))]]"
    }

    static func dump(_ type: TypeName) -> String {
        var text = ""
        if type.isConst { text += "const " }
        if let space = type.addressSpace { text += space.rawValue + " " }
        text += type.path.joined(separator: "::")
        if !type.genericArguments.isEmpty {
            text += "<" + type.genericArguments.map { argument -> String in
                switch argument {
                case .type(let t): return dump(t)
                case .expression(let e): return dump(e)
                }
            }.joined(separator: ", ") + ">"
        }
        switch type.indirection {
        case .none: break
        case .pointer: text += "*"
        case .reference: text += "&"
        }
        return text
    }

    static func dump(_ variable: VariableDeclaration) -> String {
        let declarators = variable.declarators.map { d -> String in
            var text = d.name
            for size in d.arraySizes { text += "[\(size.map(dump) ?? "")]" }
            for attribute in d.attributes { text += " " + dump(attribute) }
            if let initializer = d.initializer { text += " = " + dump(initializer) }
            return text
        }
        return "(var\(variable.isConstexpr ? " constexpr" : "") \(dump(variable.type)) \(declarators.joined(separator: ", ")))"
    }

    static func dump(_ initializer: Initializer) -> String {
        switch initializer {
        case .expression(let e): return dump(e)
        case .list(let items, _): return "{" + items.map(dump).joined(separator: ", ") + "}"
        case .constructor(let arguments, _): return "(" + arguments.map(dump).joined(separator: ", ") + ")"
        }
    }

    public static func dump(_ statement: Statement) -> String {
        switch statement {
        case .block(let b): return "{" + b.statements.map { " " + dump($0) }.joined() + " }"
        case .declaration(let v): return dump(v)
        case .expression(let e): return dump(e) + ";"
        case .ifStatement(let c, let t, let o, _):
            return "(if \(dump(c)) \(dump(t))\(o.map { " else " + dump($0) } ?? ""))"
        case .forStatement(let i, let c, let s, let b, _):
            return "(for \(i.map(dump) ?? "_"); \(c.map(dump) ?? "_"); \(s.map(dump) ?? "_") \(dump(b)))"
        case .whileStatement(let c, let b, _): return "(while \(dump(c)) \(dump(b)))"
        case .doWhileStatement(let b, let c, _): return "(do \(dump(b)) while \(dump(c)))"
        case .switchStatement(let subject, let cases, _):
            let groups = cases.map { group -> String in
                let labels = group.labels.map { $0.map { "case " + dump($0) } ?? "default" }.joined(separator: " ")
                return "(\(labels):" + group.statements.map { " " + dump($0) }.joined() + ")"
            }
            return "(switch \(dump(subject)) \(groups.joined(separator: " ")))"
        case .breakStatement: return "break;"
        case .continueStatement: return "continue;"
        case .returnStatement(let value, _): return value.map { "(return \(dump($0)))" } ?? "(return)"
        case .empty: return ";"
        }
    }

    public static func dump(_ expression: Expression) -> String {
        switch expression.kind {
        case .integerLiteral(let value, let suffix): return "\(value)\(suffix)"
        case .floatLiteral(let value, let suffix): return "\(value)\(suffix)"
        case .booleanLiteral(let value): return "\(value)"
        case .identifier(let path): return path.joined(separator: "::")
        case .unary(let op, let operand): return "(\(op.rawValue) \(dump(operand)))"
        case .postfix(let op, let operand): return "(post\(op.rawValue) \(dump(operand)))"
        case .binary(let op, let left, let right): return "(\(op.rawValue) \(dump(left)) \(dump(right)))"
        case .assignment(let op, let left, let right): return "(\(op.spelling) \(dump(left)) \(dump(right)))"
        case .conditional(let c, let t, let f): return "(? \(dump(c)) \(dump(t)) \(dump(f)))"
        case .call(let callee, let arguments):
            return "(call \(dump(callee))\(arguments.map { " " + dump($0) }.joined()))"
        case .construct(let type, let arguments):
            return "(construct \(dump(type))\(arguments.map { " " + dump($0) }.joined()))"
        case .cast(let type, let operand): return "(cast \(dump(type)) \(dump(operand)))"
        case .member(let base, let name, _, let arrow): return "(\(arrow ? "->" : ".") \(dump(base)) \(name))"
        case .index(let base, let index): return "(index \(dump(base)) \(dump(index)))"
        case .initializerList(let items): return "{" + items.map(dump).joined(separator: ", ") + "}"
        }
    }
}
