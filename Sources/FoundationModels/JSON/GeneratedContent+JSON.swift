import JSONSyntax

extension GeneratedContent {
    /// Creates content from JSON text, which may be cut off anywhere.
    ///
    /// A response that is still streaming is incomplete JSON: `{"replies": ["Sure", "See y`.
    /// Such text parses to what has arrived (here a structure whose `replies` array holds
    /// `"Sure"` and `"See y"`), with ``isComplete`` false on every unfinished value. A key whose
    /// value has not started, and a literal or number sign cut off before it means anything,
    /// are left out.
    ///
    /// - Throws: ``LanguageModelSession/GenerationError/decodingFailure(_:)`` when the text is
    ///   not a prefix of valid JSON, or is empty; the message gives the byte offset.
    public init(json: String) throws {
        do {
            var parser = IncrementalJSONParser()
            try parser.append(json.utf8)
            self = try parser.finish()
        } catch {
            throw LanguageModelSession.GenerationError.decodingFailure(.init(debugDescription: error.description))
        }
    }

    /// This content as compact JSON, properties in order.
    public var jsonString: String {
        var output = ""
        writeJSON(to: &output)
        return output
    }

    /// Writes this content as JSON, with `comma` between members and elements and `colon`
    /// after keys (compact `","`/`":"`, or the spaced layout constrained decoding writes).
    package func writeJSON(to output: inout String, comma: String = ",", colon: String = ":") {
        switch kind {
        case .null:
            output += "null"
        case .bool(let value):
            output += value ? "true" : "false"
        case .number(let value):
            output += Self.jsonNumber(value)
        case .string(let value):
            Self.writeJSONString(value, to: &output)
        case .array(let elements):
            output += "["
            for (index, element) in elements.enumerated() {
                if index > 0 { output += comma }
                element.writeJSON(to: &output, comma: comma, colon: colon)
            }
            output += "]"
        case .structure(let properties, let orderedKeys):
            output += "{"
            var first = true
            for key in orderedKeys {
                guard let value = properties[key] else { continue }
                if !first { output += comma }
                first = false
                Self.writeJSONString(key, to: &output)
                output += colon
                value.writeJSON(to: &output, comma: comma, colon: colon)
            }
            output += "}"
        }
    }

    /// Integral values print without a fraction; non-finite values (which JSON cannot hold)
    /// print as null.
    package static func jsonNumber(_ value: Double) -> String {
        guard value.isFinite else { return "null" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }

    package static func writeJSONString(_ value: String, to output: inout String) {
        JSONStringLiteral.encode(value, to: &output)
    }
}
