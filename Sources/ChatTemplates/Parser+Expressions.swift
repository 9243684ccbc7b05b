/// Expressions, by jinja2's precedence (loosest first): conditional `a if b else c`, `or`,
/// `and`, `not`, comparisons and `in`, `+ -`, `~`, `* / // %`, `**`, unary `- +`, then
/// primaries with postfix `.attr`, `[key]`, `(args)` and filters `|f` and tests `is t`.
extension Parser {
    /// Comma-separated expressions form a tuple (`{{ a, b }}`, `{% set x = 1, 2 %}`).
    mutating func parseTuple(withConditional: Bool = true, endName: String? = nil, explicitParentheses: Bool = false)
        throws(TemplateError) -> Expression
    {
        let location = current.location
        var items: [Expression] = []
        var isTuple = false
        while true {
            if !items.isEmpty { try expectOp(",") }
            if isTupleEnd(endName: endName) { break }
            items.append(withConditional ? try parseExpression() : try parseOr())
            if isOp(",") { isTuple = true } else { break }
        }
        if !isTuple {
            if let first = items.first { return first }
            if !explicitParentheses { throw syntaxError("expected an expression, got \(describeCurrent)") }
        }
        return Expression(kind: .tuple(items), location: location)
    }

    private var describeCurrent: String { Self.describe(current.kind) }

    private func isTupleEnd(endName: String?) -> Bool {
        switch current.kind {
        case .variableEnd, .blockEnd, .op(")"), .eof: return true
        case .name(let name): return name == endName
        default: return false
        }
    }

    mutating func parseExpression() throws(TemplateError) -> Expression {
        depth += 1
        defer { depth -= 1 }
        if depth > Self.maximumDepth { throw syntaxError("expression nested too deeply") }
        var expression = try parseOr()
        while isName("if") {
            let location = current.location
            advance()
            let condition = try parseOr()
            var otherwise: Expression?
            if skipName("else") { otherwise = try parseExpression() }
            expression = Expression(
                kind: .conditional(then: expression, condition: condition, otherwise: otherwise), location: location)
        }
        return expression
    }

    private mutating func parseOr() throws(TemplateError) -> Expression {
        var left = try parseAnd()
        while isName("or") {
            let location = current.location
            advance()
            left = Expression(kind: .or(left, try parseAnd()), location: location)
        }
        return left
    }

    private mutating func parseAnd() throws(TemplateError) -> Expression {
        var left = try parseNot()
        while isName("and") {
            let location = current.location
            advance()
            left = Expression(kind: .and(left, try parseNot()), location: location)
        }
        return left
    }

    private mutating func parseNot() throws(TemplateError) -> Expression {
        depth += 1
        defer { depth -= 1 }
        if depth > Self.maximumDepth { throw syntaxError("expression nested too deeply") }
        if isName("not") {
            let location = current.location
            advance()
            return Expression(kind: .unary(.not, try parseNot()), location: location)
        }
        return try parseCompare()
    }

    private mutating func parseCompare() throws(TemplateError) -> Expression {
        let first = try parseMath1()
        var operations: [(op: CompareOperator, operand: Expression)] = []
        let location = current.location
        while true {
            if case .op(let symbol) = current.kind, let op = CompareOperator(rawValue: symbol), op != .in, op != .notIn
            {
                advance()
                operations.append((op, try parseMath1()))
            } else if isName("in") {
                advance()
                operations.append((.in, try parseMath1()))
            } else if isName("not"), case .name("in") = peek.kind {
                advance()
                advance()
                operations.append((.notIn, try parseMath1()))
            } else {
                break
            }
        }
        if operations.isEmpty { return first }
        return Expression(kind: .compare(first, operations), location: location)
    }

    private var currentOp: String? { if case .op(let op) = current.kind { return op } else { return nil } }
    private var currentName: String? { if case .name(let name) = current.kind { return name } else { return nil } }

    private mutating func parseBinary(
        _ operators: [String: BinaryOperator], operand: (inout Parser) throws(TemplateError) -> Expression
    )
        throws(TemplateError) -> Expression
    {
        var left = try operand(&self)
        while let symbol = currentOp, let op = operators[symbol] {
            let location = current.location
            advance()
            let right = try operand(&self)
            left = Expression(kind: .binary(op, left, right), location: location)
        }
        return left
    }

    private static let additive: [String: BinaryOperator] = ["+": .add, "-": .subtract]
    private static let concatenation: [String: BinaryOperator] = ["~": .concat]
    private static let multiplicative: [String: BinaryOperator] = [
        "*": .multiply, "/": .divide, "//": .floorDivide, "%": .modulo,
    ]
    private static let exponent: [String: BinaryOperator] = ["**": .power]

    private mutating func parseMath1() throws(TemplateError) -> Expression {
        try parseBinary(Self.additive) { (parser) throws(TemplateError) in try parser.parseConcat() }
    }

    private mutating func parseConcat() throws(TemplateError) -> Expression {
        try parseBinary(Self.concatenation) { (parser) throws(TemplateError) in try parser.parseMath2() }
    }

    private mutating func parseMath2() throws(TemplateError) -> Expression {
        try parseBinary(Self.multiplicative) {
            (parser) throws(TemplateError) in try parser.parsePow()
        }
    }

    private mutating func parsePow() throws(TemplateError) -> Expression {
        try parseBinary(Self.exponent) { (parser) throws(TemplateError) in try parser.parseUnary(withFilter: true) }
    }

    private mutating func parseUnary(withFilter: Bool) throws(TemplateError) -> Expression {
        depth += 1
        defer { depth -= 1 }
        if depth > Self.maximumDepth { throw syntaxError("expression nested too deeply") }
        let location = current.location
        var expression: Expression
        if skipOp("-") {
            expression = Expression(kind: .unary(.negate, try parseUnary(withFilter: false)), location: location)
        } else if skipOp("+") {
            expression = Expression(kind: .unary(.plus, try parseUnary(withFilter: false)), location: location)
        } else {
            expression = try parsePrimary()
        }
        expression = try parsePostfix(expression)
        if withFilter { expression = try parseFilterExpression(expression) }
        return expression
    }

    private mutating func parsePrimary() throws(TemplateError) -> Expression {
        let token = current
        switch token.kind {
        case .name(let name):
            advance()
            let kind: Expression.Kind =
                switch name {
                case "true", "True": .constant(.bool(true))
                case "false", "False": .constant(.bool(false))
                case "none", "None": .constant(.none)
                default: .name(name)
                }
            return Expression(kind: kind, location: token.location)
        case .string(var text):
            advance()
            // Adjacent string literals join, as in Python.
            while case .string(let more) = current.kind {
                text += more
                advance()
            }
            return Expression(kind: .constant(.string(text)), location: token.location)
        case .integer(let value):
            advance()
            return Expression(kind: .constant(.int(value)), location: token.location)
        case .float(let value):
            advance()
            return Expression(kind: .constant(.double(value)), location: token.location)
        case .op("("):
            advance()
            let inner = try parseTuple(explicitParentheses: true)
            try expectOp(")")
            return inner
        case .op("["):
            advance()
            var items: [Expression] = []
            while !isOp("]") {
                if !items.isEmpty { try expectOp(",") }
                if isOp("]") { break }
                items.append(try parseExpression())
            }
            try expectOp("]")
            return Expression(kind: .list(items), location: token.location)
        case .op("{"):
            advance()
            var pairs: [(key: Expression, value: Expression)] = []
            while !isOp("}") {
                if !pairs.isEmpty { try expectOp(",") }
                if isOp("}") { break }
                let key = try parseExpression()
                try expectOp(":")
                pairs.append((key, try parseExpression()))
            }
            try expectOp("}")
            return Expression(kind: .dict(pairs), location: token.location)
        default:
            throw syntaxError("unexpected \(describeCurrent)")
        }
    }

    private mutating func parsePostfix(_ base: Expression) throws(TemplateError) -> Expression {
        var expression = base
        while true {
            let location = current.location
            if skipOp(".") {
                switch current.kind {
                case .name(let name):
                    advance()
                    expression = Expression(kind: .attribute(expression, name), location: location)
                case .integer(let value):
                    advance()
                    let key = Expression(kind: .constant(.int(value)), location: location)
                    expression = Expression(kind: .item(expression, key), location: location)
                default:
                    throw syntaxError("expected name or number")
                }
            } else if skipOp("[") {
                expression = try parseSubscript(expression, location: location)
            } else if isOp("(") {
                expression = Expression(kind: .call(expression, try parseCallArguments()), location: location)
            } else {
                return expression
            }
        }
    }

    private mutating func parseSubscript(_ base: Expression, location: SourceLocation) throws(TemplateError)
        -> Expression
    {
        var start: Expression?
        if !isOp(":") { start = try parseExpression() }
        if skipOp("]") {
            guard let start else { throw syntaxError("expected subscript expression") }
            return Expression(kind: .item(base, start), location: location)
        }
        if isOp(",") {
            throw TemplateError(.unsupported, "unsupported tuple subscript", at: current.location)
        }
        try expectOp(":")
        var stop: Expression?
        var step: Expression?
        if !isOp(":") && !isOp("]") { stop = try parseExpression() }
        if skipOp(":") {
            if !isOp("]") { step = try parseExpression() }
        }
        try expectOp("]")
        return Expression(kind: .slice(base, start: start, stop: stop, step: step), location: location)
    }

    mutating func parseCallArguments() throws(TemplateError) -> Arguments {
        try expectOp("(")
        var arguments = Arguments()
        while !isOp(")") {
            if !arguments.positional.isEmpty || !arguments.keyword.isEmpty { try expectOp(",") }
            if isOp(")") { break }
            if isOp("*") || isOp("**") {
                throw TemplateError(.unsupported, "unsupported argument unpacking", at: current.location)
            }
            if case .name(let name) = current.kind, case .op("=") = peek.kind {
                advance()
                advance()
                arguments.keyword.append((name, try parseExpression()))
            } else {
                if !arguments.keyword.isEmpty { throw syntaxError("positional argument after keyword argument") }
                arguments.positional.append(try parseExpression())
            }
        }
        try expectOp(")")
        return arguments
    }

    mutating func parseDottedName() throws(TemplateError) -> String {
        var name = try expectNameToken()
        while skipOp(".") { name += "." + (try expectNameToken()) }
        return name
    }

    private mutating func expectNameToken() throws(TemplateError) -> String {
        guard let name = currentName else { throw syntaxError("expected a name, got \(describeCurrent)") }
        advance()
        return name
    }

    private mutating func parseFilterExpression(_ base: Expression) throws(TemplateError) -> Expression {
        var expression = base
        while true {
            if isOp("|") {
                advance()
                let location = current.location
                let name = try parseDottedName()
                try Self.checkFilter(name, at: location)
                let arguments = isOp("(") ? try parseCallArguments() : .empty
                expression = Expression(kind: .filter(expression, name: name, arguments), location: location)
            } else if isName("is") {
                advance()
                let negated = skipName("not")
                let location = current.location
                let name = try parseDottedName()
                try Self.checkTest(name, at: location)
                var arguments = Arguments.empty
                if isOp("(") {
                    arguments = try parseCallArguments()
                } else if startsTestArgument {
                    if isName("is") { throw syntaxError("you cannot chain multiple tests with is") }
                    arguments.positional = [try parsePostfix(try parsePrimary())]
                }
                expression = Expression(
                    kind: .test(expression, name: name, arguments, negated: negated), location: location)
            } else if isOp("(") {
                expression = Expression(kind: .call(expression, try parseCallArguments()), location: current.location)
            } else {
                return expression
            }
        }
    }

    /// A test takes one argument without parentheses: `x is divisibleby 3`, `x is sameas none`.
    private var startsTestArgument: Bool {
        switch current.kind {
        case .name(let name): return !["else", "or", "and"].contains(name)
        case .string, .integer, .float, .op("["), .op("{"): return true
        default: return false
        }
    }

    static func checkFilter(_ name: String, at location: SourceLocation) throws(TemplateError) {
        guard Filters.names.contains(name) else {
            throw TemplateError(.unsupported, "unsupported filter '\(name)'", at: location)
        }
    }

    static func checkTest(_ name: String, at location: SourceLocation) throws(TemplateError) {
        guard Tests.names.contains(name) else {
            throw TemplateError(.unsupported, "unsupported test '\(name)'", at: location)
        }
    }
}
