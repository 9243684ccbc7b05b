/// Generated content carried through `Codable`: objects, arrays, strings, numbers, Booleans and
/// null map to the encoder's containers.
///
/// Decoders do not report object keys in document order, so a structure decoded this way has
/// its keys sorted; callers that need an order store it separately (as `x-order` does).
struct JSONValue: Codable {
    let content: GeneratedContent

    init(_ content: GeneratedContent) {
        self.content = content
    }

    private struct Key: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        if let object = try? decoder.container(keyedBy: Key.self) {
            var properties: [String: GeneratedContent] = [:]
            let keys = object.allKeys.map(\.stringValue).sorted()
            for key in keys {
                properties[key] = try object.decode(JSONValue.self, forKey: Key(stringValue: key)).content
            }
            content = GeneratedContent(kind: .structure(properties: properties, orderedKeys: keys))
        } else if var array = try? decoder.unkeyedContainer() {
            var elements: [GeneratedContent] = []
            while !array.isAtEnd { elements.append(try array.decode(JSONValue.self).content) }
            content = GeneratedContent(kind: .array(elements))
        } else {
            let single = try decoder.singleValueContainer()
            if single.decodeNil() {
                content = GeneratedContent(kind: .null)
            } else if let value = try? single.decode(Bool.self) {
                content = GeneratedContent(kind: .bool(value))
            } else if let value = try? single.decode(Double.self) {
                content = GeneratedContent(kind: .number(value))
            } else {
                content = GeneratedContent(kind: .string(try single.decode(String.self)))
            }
        }
    }

    func encode(to encoder: any Encoder) throws {
        switch content.kind {
        case .null:
            var single = encoder.singleValueContainer()
            try single.encodeNil()
        case .bool(let value):
            var single = encoder.singleValueContainer()
            try single.encode(value)
        case .number(let value):
            var single = encoder.singleValueContainer()
            if let integer = Int(exactly: value) { try single.encode(integer) } else { try single.encode(value) }
        case .string(let value):
            var single = encoder.singleValueContainer()
            try single.encode(value)
        case .array(let elements):
            var array = encoder.unkeyedContainer()
            for element in elements { try array.encode(JSONValue(element)) }
        case .structure(let properties, let orderedKeys):
            var object = encoder.container(keyedBy: Key.self)
            for key in orderedKeys {
                guard let value = properties[key] else { continue }
                try object.encode(JSONValue(value), forKey: Key(stringValue: key))
            }
        }
    }
}
