/// Renders a parsed template against a context. One renderer per render call: it owns the
/// scope stack (jinja2 scoping: a `for` body gets a fresh scope per iteration, so `set` inside
/// a loop is not seen after it; `if` opens no scope).
final class Renderer {
    private var scopes: [[String: Value]]

    /// The globals Hugging Face's environment provides, after jinja2's own.
    static let globalNames: Set<String> = ["raise_exception", "namespace", "range", "dict", "strftime_now"]

    enum Flow {
        case normal, breakLoop, continueLoop
    }

    init(context: [String: Value]) {
        scopes = [context]
    }

    func lookup(_ name: String) -> Value {
        for scope in scopes.reversed() {
            if let value = scope[name] { return value }
        }
        if Self.globalNames.contains(name) { return .function(Function(kind: .global(name))) }
        return .undefined(.name(name))
    }

    // MARK: Statements

    func render(_ body: [Statement], into out: inout String) throws(TemplateError) -> Flow {
        for statement in body {
            switch statement.kind {
            case .text(let text):
                out += text
            case .output(let expression):
                let value = try evaluate(expression)
                if case .string(let text) = value { out += text } else { out += PythonFormat.str(value) }
            case .ifBlock(let branches, let otherwise):
                var chosen = otherwise
                for branch in branches where try evaluate(branch.condition).isTruthy {
                    chosen = branch.body
                    break
                }
                let flow = try render(chosen, into: &out)
                if flow != .normal { return flow }
            case .forLoop(let loop):
                try renderLoop(loop, into: &out)
            case .set(let target, let expression):
                let value = try evaluate(expression)
                try assign(value, to: target, at: statement.location)
            case .setBlock(let target, let body, let filters):
                var captured = ""
                _ = try render(body, into: &captured)
                var value = Value.string(captured)
                for filter in filters {
                    value = try applyFilter(filter.name, to: value, filter.arguments, at: filter.location)
                }
                try assign(value, to: target, at: statement.location)
            case .breakLoop:
                return .breakLoop
            case .continueLoop:
                return .continueLoop
            }
        }
        return .normal
    }

    private func renderLoop(_ loop: ForLoop, into out: inout String) throws(TemplateError) {
        let iterable = try evaluate(loop.iterable)
        var items = try locate(loop.iterable.location) { () throws(Failure) in try Self.iterate(iterable) }
        if let condition = loop.condition {
            var kept: [Value] = []
            for item in items {
                scopes.append([:])
                defer { scopes.removeLast() }
                try assign(item, to: loop.target, at: loop.iterable.location)
                if try evaluate(condition).isTruthy { kept.append(item) }
            }
            items = kept
        }
        if items.isEmpty {
            _ = try render(loop.otherwise, into: &out)
            return
        }
        let context = LoopContext(items: items)
        for (i, item) in items.enumerated() {
            context.index0 = i
            scopes.append(["loop": .loop(context)])
            defer { scopes.removeLast() }
            try assign(item, to: loop.target, at: loop.iterable.location)
            if try render(loop.body, into: &out) == .breakLoop { break }
        }
    }

    private func assign(_ value: Value, to target: AssignTarget, at location: SourceLocation) throws(TemplateError) {
        switch target {
        case .name(let name):
            scopes[scopes.count - 1][name] = value
        case .tuple(let targets):
            let items = try locate(location) { () throws(Failure) in try Self.iterate(value) }
            if items.count != targets.count {
                let problem = items.count < targets.count ? "not enough" : "too many"
                throw TemplateError(
                    .runtime, "\(problem) values to unpack (expected \(targets.count), got \(items.count))",
                    at: location)
            }
            for (item, target) in zip(items, targets) { try assign(item, to: target, at: location) }
        case .namespaceAttribute(let name, let attribute):
            guard case .namespace(let namespace) = lookup(name) else {
                throw TemplateError(.runtime, "cannot assign attribute on non-namespace object", at: location)
            }
            namespace.attributes[attribute] = value
        }
    }

    // MARK: Expressions

    /// Runs `body`, giving a failure the location of the expression that caused it.
    func locate<T>(_ location: SourceLocation, _ body: () throws(Failure) -> T) throws(TemplateError) -> T {
        do {
            return try body()
        } catch {
            throw TemplateError(error.kind, error.message, at: location)
        }
    }

    func evaluate(_ expression: Expression) throws(TemplateError) -> Value {
        let location = expression.location
        switch expression.kind {
        case .constant(let constant):
            switch constant {
            case .none: return .none
            case .bool(let value): return .bool(value)
            case .int(let value): return .int(value)
            case .double(let value): return .double(value)
            case .string(let value): return .string(value)
            }
        case .name(let name):
            return lookup(name)
        case .list(let items):
            var values: [Value] = []
            values.reserveCapacity(items.count)
            for item in items { values.append(try evaluate(item)) }
            return .array(values)
        case .tuple(let items):
            var values: [Value] = []
            for item in items { values.append(try evaluate(item)) }
            return .tuple(values)
        case .dict(let pairs):
            var dict = OrderedDict()
            for pair in pairs {
                let key = try evaluate(pair.key)
                guard case .string(let name) = key else {
                    throw TemplateError(
                        .unsupported, "unsupported dict key of type '\(key.typeName)'", at: pair.key.location)
                }
                dict[name] = try evaluate(pair.value)
            }
            return .object(dict)
        case .attribute(let base, let name):
            let object = try evaluate(base)
            return try locate(location) { () throws(Failure) in try Self.attribute(name, of: object) }
        case .item(let base, let key):
            let object = try evaluate(base)
            let keyValue = try evaluate(key)
            return try locate(location) { () throws(Failure) in try Self.item(keyValue, of: object) }
        case .slice(let base, let start, let stop, let step):
            let object = try evaluate(base)
            let bounds = (try start.map(evaluate), try stop.map(evaluate), try step.map(evaluate))
            return try locate(location) { () throws(Failure) in
                try Self.slice(object, start: bounds.0, stop: bounds.1, step: bounds.2)
            }
        case .call(let callee, let arguments):
            let function = try evaluate(callee)
            let (positional, keyword) = try evaluateArguments(arguments)
            return try locate(location) { () throws(Failure) in try call(function, positional, keyword) }
        case .filter(let base, let name, let arguments):
            return try applyFilter(name, to: try evaluate(base), arguments, at: location)
        case .test(let base, let name, let arguments, let negated):
            let value = try evaluate(base)
            let (positional, keyword) = try evaluateArguments(arguments)
            let result = try locate(location) { () throws(Failure) in try test(name, value, positional, keyword) }
            return .bool(result != negated)
        case .unary(let op, let operand):
            let value = try evaluate(operand)
            if op == .not { return .bool(!value.isTruthy) }
            return try locate(location) { () throws(Failure) in try Operators.unary(op, value) }
        case .binary(let op, let left, let right):
            let a = try evaluate(left)
            let b = try evaluate(right)
            return try locate(location) { () throws(Failure) in try Operators.binary(op, a, b) }
        case .and(let left, let right):
            let a = try evaluate(left)
            return a.isTruthy ? try evaluate(right) : a
        case .or(let left, let right):
            let a = try evaluate(left)
            return a.isTruthy ? a : try evaluate(right)
        case .compare(let first, let operations):
            var left = try evaluate(first)
            for operation in operations {
                let right = try evaluate(operation.operand)
                let holds = try locate(operation.operand.location) { () throws(Failure) in
                    try Operators.compare(operation.op, left, right)
                }
                if !holds { return .bool(false) }
                left = right
            }
            return .bool(true)
        case .conditional(let then, let condition, let otherwise):
            if try evaluate(condition).isTruthy { return try evaluate(then) }
            guard let otherwise else {
                return .undefined(
                    Undefined(message: "the inline if-expression evaluated to false and no else section was defined"))
            }
            return try evaluate(otherwise)
        }
    }

    func evaluateArguments(_ arguments: Arguments) throws(TemplateError) -> ([Value], [(String, Value)]) {
        var positional: [Value] = []
        for argument in arguments.positional { positional.append(try evaluate(argument)) }
        var keyword: [(String, Value)] = []
        for argument in arguments.keyword { keyword.append((argument.name, try evaluate(argument.value))) }
        return (positional, keyword)
    }

    private func applyFilter(_ name: String, to value: Value, _ arguments: Arguments, at location: SourceLocation)
        throws(TemplateError) -> Value
    {
        let (positional, keyword) = try evaluateArguments(arguments)
        return try locate(location) { () throws(Failure) in try filter(name, value, positional, keyword) }
    }
}
