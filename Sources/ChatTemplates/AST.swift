/// The parsed form of a template: statements holding expressions, each with its source
/// location for error messages. Built once by `Parser`, rendered many times by `Renderer`.
struct Expression: Sendable {
    indirect enum Kind: Sendable {
        case constant(Constant)
        case name(String)
        case list([Expression])
        case tuple([Expression])
        case dict([(key: Expression, value: Expression)])
        /// `a.b`
        case attribute(Expression, String)
        /// `a[b]`
        case item(Expression, Expression)
        /// `a[start:stop:step]`
        case slice(Expression, start: Expression?, stop: Expression?, step: Expression?)
        case call(Expression, Arguments)
        /// `a | name(args)`
        case filter(Expression, name: String, Arguments)
        /// `a is [not] name(args)`
        case test(Expression, name: String, Arguments, negated: Bool)
        case unary(UnaryOperator, Expression)
        case binary(BinaryOperator, Expression, Expression)
        case and(Expression, Expression)
        case or(Expression, Expression)
        /// `a < b <= c`: chained comparisons.
        case compare(Expression, [(op: CompareOperator, operand: Expression)])
        /// `a if condition else b`; a missing `else` gives undefined.
        case conditional(then: Expression, condition: Expression, otherwise: Expression?)
    }

    var kind: Kind
    var location: SourceLocation
}

enum Constant: Sendable {
    case none
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
}

struct Arguments: Sendable {
    var positional: [Expression] = []
    var keyword: [(name: String, value: Expression)] = []

    static let empty = Arguments()
}

enum UnaryOperator: Sendable {
    case not, negate, plus
}

enum BinaryOperator: String, Sendable {
    case add = "+"
    case subtract = "-"
    case multiply = "*"
    case divide = "/"
    case floorDivide = "//"
    case modulo = "%"
    case power = "**"
    case concat = "~"
}

enum CompareOperator: String, Sendable {
    case equal = "=="
    case notEqual = "!="
    case less = "<"
    case lessOrEqual = "<="
    case greater = ">"
    case greaterOrEqual = ">="
    case `in` = "in"
    case notIn = "not in"
}

/// Where `set` and `for` store values.
enum AssignTarget: Sendable {
    case name(String)
    /// `a, b = …` unpacking.
    case tuple([AssignTarget])
    /// `ns.attr = …` on a namespace.
    case namespaceAttribute(String, String)
}

struct Statement: Sendable {
    indirect enum Kind: Sendable {
        case text(String)
        case output(Expression)
        case ifBlock(branches: [(condition: Expression, body: [Statement])], otherwise: [Statement])
        case forLoop(ForLoop)
        case set(AssignTarget, Expression)
        /// `{% set x %}…{% endset %}`, with optional filters applied to the captured text.
        case setBlock(
            AssignTarget, body: [Statement], filters: [(name: String, arguments: Arguments, location: SourceLocation)])
        case breakLoop
        case continueLoop
    }

    var kind: Kind
    var location: SourceLocation
}

struct ForLoop: Sendable {
    var target: AssignTarget
    var iterable: Expression
    var condition: Expression?
    var body: [Statement]
    var otherwise: [Statement]
}
