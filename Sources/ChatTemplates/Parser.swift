/// Builds the statement tree from tokens, following jinja2's grammar for the supported subset.
/// Tags, filters and tests that Jinja has but this renderer lacks are rejected here, at compile
/// time, with an `.unsupported` error naming them.
struct Parser {
    private let tokens: [Token]
    private var index = 0
    private var loopDepth = 0
    /// The end tags each open block waits for, innermost last (for error messages).
    private var openBlocks: [Set<String>] = []
    /// Expression and block nesting so far; bounded so hostile input cannot exhaust the stack.
    var depth = 0
    static let maximumDepth = 200

    /// Tags jinja2 knows that are not implemented.
    private static let unsupportedTags: Set<String> = [
        "macro", "call", "filter", "block", "extends", "include", "import", "from", "with",
        "autoescape", "do", "trans", "pluralize", "endtrans",
    ]

    /// Tags that only make sense closing or continuing a block.
    private static let closingTags: Set<String> = [
        "elif", "else", "endif", "endfor", "endset", "endraw", "endmacro", "endcall", "endfilter", "endblock",
        "endwith", "endautoescape",
    ]

    private static func describe(_ tags: Set<String>) -> String {
        tags.sorted().map { "'\($0)'" }.joined(separator: " or ")
    }

    init(tokens: [Token]) { self.tokens = tokens }

    static func parse(_ source: String) throws(TemplateError) -> [Statement] {
        var parser = Parser(tokens: try Lexer.tokenize(source))
        return try parser.parseBody(until: [])
    }

    // MARK: Token stream

    var current: Token {
        index < tokens.count ? tokens[index] : Token(kind: .eof, location: tokens.last?.location ?? .start)
    }

    var peek: Token { index + 1 < tokens.count ? tokens[index + 1] : Token(kind: .eof, location: current.location) }

    mutating func advance() { index += 1 }

    func syntaxError(_ message: String, at location: SourceLocation? = nil) -> TemplateError {
        TemplateError(.syntax, message, at: location ?? current.location)
    }

    static func describe(_ kind: Token.Kind) -> String {
        switch kind {
        case .text: return "template text"
        case .variableBegin: return "'{{'"
        case .variableEnd: return "end of print statement"
        case .blockBegin: return "'{%'"
        case .blockEnd: return "end of statement block"
        case .name(let name): return "'\(name)'"
        case .string: return "string"
        case .integer: return "integer"
        case .float: return "float"
        case .op(let op): return "'\(op)'"
        case .eof: return "end of template"
        }
    }

    func isName(_ name: String) -> Bool {
        if case .name(name) = current.kind { return true }
        return false
    }

    func isOp(_ op: String) -> Bool {
        if case .op(op) = current.kind { return true }
        return false
    }

    mutating func skipName(_ name: String) -> Bool {
        guard isName(name) else { return false }
        advance()
        return true
    }

    mutating func skipOp(_ op: String) -> Bool {
        guard isOp(op) else { return false }
        advance()
        return true
    }

    mutating func expect(_ kind: Token.Kind) throws(TemplateError) {
        guard current.kind == kind else {
            throw syntaxError("expected \(Self.describe(kind)), got \(Self.describe(current.kind))")
        }
        advance()
    }

    mutating func expectOp(_ op: String) throws(TemplateError) { try expect(.op(op)) }

    mutating func expectName() throws(TemplateError) -> String {
        guard case .name(let name) = current.kind else {
            throw syntaxError("expected a name, got \(Self.describe(current.kind))")
        }
        advance()
        return name
    }

    // MARK: Statements

    /// Statements up to a `{% name %}` tag whose name is in `endTags`; returns with that name as
    /// the current token (or at the end of the template when `endTags` is empty).
    private mutating func parseBody(until endTags: Set<String>) throws(TemplateError) -> [Statement] {
        if !endTags.isEmpty {
            if openBlocks.count >= Self.maximumDepth { throw syntaxError("blocks nested too deeply") }
            openBlocks.append(endTags)
        }
        defer { if !endTags.isEmpty { openBlocks.removeLast() } }
        var body: [Statement] = []
        while true {
            let token = current
            switch token.kind {
            case .eof:
                if !endTags.isEmpty {
                    throw syntaxError("unexpected end of template, expected \(Self.describe(endTags))")
                }
                return body
            case .text(let text):
                advance()
                body.append(Statement(kind: .text(text), location: token.location))
            case .variableBegin:
                advance()
                let expression = try parseTuple()
                try expect(.variableEnd)
                body.append(Statement(kind: .output(expression), location: token.location))
            case .blockBegin:
                advance()
                if case .name(let name) = current.kind, endTags.contains(name) { return body }
                body.append(try parseStatement())
            default:
                throw syntaxError("unexpected \(Self.describe(token.kind))")
            }
        }
    }

    private mutating func parseStatement() throws(TemplateError) -> Statement {
        let location = current.location
        guard case .name(let tag) = current.kind else { throw syntaxError("tag name expected") }
        let statement: Statement
        switch tag {
        case "if": statement = try parseIf()
        case "for": statement = try parseFor()
        case "set": statement = try parseSet()
        case "print":
            advance()
            statement = Statement(kind: .output(try parseTuple()), location: location)
            try expect(.blockEnd)
        case "break", "continue":
            advance()
            if loopDepth == 0 { throw syntaxError("'\(tag)' outside of a loop", at: location) }
            statement = Statement(kind: tag == "break" ? .breakLoop : .continueLoop, location: location)
            try expect(.blockEnd)
        default:
            if Self.unsupportedTags.contains(tag) {
                throw TemplateError(.unsupported, "unsupported tag '\(tag)'", at: location)
            }
            if Self.closingTags.contains(tag) {
                let expected = openBlocks.last.map { ", expected \(Self.describe($0))" } ?? ""
                throw syntaxError("unexpected tag '\(tag)'\(expected)", at: location)
            }
            throw syntaxError("unknown tag '\(tag)'", at: location)
        }
        return statement
    }

    /// The body after a tag's header, up to one of `endTags`; returns which end tag was found,
    /// leaving the stream after its name.
    private mutating func parseBlock(until endTags: Set<String>) throws(TemplateError) -> (
        body: [Statement], end: String
    ) {
        try expect(.blockEnd)
        let body = try parseBody(until: endTags)
        guard case .name(let end) = current.kind else { throw syntaxError("tag name expected") }
        advance()
        return (body, end)
    }

    private mutating func parseIf() throws(TemplateError) -> Statement {
        let location = current.location
        advance()
        var branches: [(condition: Expression, body: [Statement])] = []
        var otherwise: [Statement] = []
        while true {
            let condition = try parseTuple(withConditional: false)
            let (body, end) = try parseBlock(until: ["elif", "else", "endif"])
            branches.append((condition, body))
            if end == "elif" { continue }
            if end == "else" {
                otherwise = try parseBlock(until: ["endif"]).body
            }
            try expect(.blockEnd)
            break
        }
        return Statement(kind: .ifBlock(branches: branches, otherwise: otherwise), location: location)
    }

    private mutating func parseFor() throws(TemplateError) -> Statement {
        let location = current.location
        advance()
        let target = try parseAssignTarget(withNamespace: false, endName: "in")
        guard skipName("in") else { throw syntaxError("expected 'in', got \(Self.describe(current.kind))") }
        let iterable = try parseTuple(withConditional: false, endName: "recursive")
        var condition: Expression?
        if skipName("if") { condition = try parseExpression() }
        if isName("recursive") {
            throw TemplateError(.unsupported, "unsupported recursive for loop", at: current.location)
        }
        loopDepth += 1
        let (body, end) = try parseBlock(until: ["endfor", "else"])
        loopDepth -= 1
        var otherwise: [Statement] = []
        if end == "else" { otherwise = try parseBlock(until: ["endfor"]).body }
        try expect(.blockEnd)
        let loop = ForLoop(target: target, iterable: iterable, condition: condition, body: body, otherwise: otherwise)
        return Statement(kind: .forLoop(loop), location: location)
    }

    private mutating func parseSet() throws(TemplateError) -> Statement {
        let location = current.location
        advance()
        let target = try parseAssignTarget(withNamespace: true, endName: nil)
        if skipOp("=") {
            let value = try parseTuple()
            try expect(.blockEnd)
            return Statement(kind: .set(target, value), location: location)
        }
        var filters: [(name: String, arguments: Arguments, location: SourceLocation)] = []
        while skipOp("|") {
            let filterLocation = current.location
            let name = try parseDottedName()
            try Self.checkFilter(name, at: filterLocation)
            let arguments = isOp("(") ? try parseCallArguments() : .empty
            filters.append((name, arguments, filterLocation))
        }
        let body = try parseBlock(until: ["endset"]).body
        try expect(.blockEnd)
        return Statement(kind: .setBlock(target, body: body, filters: filters), location: location)
    }

    /// `name`, `a, b` or (for `set`) `ns.attr`.
    private mutating func parseAssignTarget(withNamespace: Bool, endName: String?) throws(TemplateError) -> AssignTarget
    {
        var targets: [AssignTarget] = []
        var isTuple = false
        while true {
            if !targets.isEmpty { try expectOp(",") }
            if let endName, isName(endName) { break }
            if case .blockEnd = current.kind { break }
            if isOp("=") { break }
            let location = current.location
            let name = try expectName()
            if ["true", "false", "none", "True", "False", "None"].contains(name) {
                throw syntaxError("can't assign to constant '\(name)'", at: location)
            }
            if withNamespace && isOp(".") {
                advance()
                targets.append(.namespaceAttribute(name, try expectName()))
            } else {
                targets.append(.name(name))
            }
            if isOp(",") { isTuple = true } else { break }
        }
        guard let first = targets.first else { throw syntaxError("expected an assignment target") }
        return isTuple ? .tuple(targets) : first
    }
}
