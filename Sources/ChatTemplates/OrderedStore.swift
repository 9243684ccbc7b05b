/// String-keyed storage that keeps insertion order (Python dict semantics). Chat messages have a
/// handful of keys, so lookups scan the entries; a hash index is built only for large objects.
struct OrderedStore<Element> {
    private(set) var entries: [(key: String, value: Element)] = []
    private var index: [String: Int]?

    private static var indexThreshold: Int { 12 }

    init() {}

    /// Entries whose keys are known to be distinct.
    init(uniqueEntries: [(key: String, value: Element)]) {
        entries = uniqueEntries
        if entries.count > Self.indexThreshold { buildIndex() }
    }

    var count: Int { entries.count }
    var isEmpty: Bool { entries.isEmpty }
    var keys: [String] { entries.map(\.key) }
    var values: [Element] { entries.map(\.value) }
    var pairs: [(key: String, value: Element)] { entries }

    private mutating func buildIndex() {
        var built: [String: Int] = [:]
        built.reserveCapacity(entries.count)
        for (i, entry) in entries.enumerated() { built[entry.key] = i }
        index = built
    }

    private func position(of key: String) -> Int? {
        if let index { return index[key] }
        return entries.firstIndex { $0.key == key }
    }

    /// Reads or writes `key`; writing nil removes it, a new key goes at the end.
    subscript(key: String) -> Element? {
        get { position(of: key).map { entries[$0].value } }
        set {
            if let i = position(of: key) {
                if let newValue {
                    entries[i].value = newValue
                } else {
                    entries.remove(at: i)
                    index = nil
                    if entries.count > Self.indexThreshold { buildIndex() }
                }
            } else if let newValue {
                entries.append((key, newValue))
                if index != nil {
                    index![key] = entries.count - 1
                } else if entries.count > Self.indexThreshold {
                    buildIndex()
                }
            }
        }
    }
}

extension OrderedStore: Sendable where Element: Sendable {}
