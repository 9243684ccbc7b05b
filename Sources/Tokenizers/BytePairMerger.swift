/// Applies BPE merges to one word, working on token ids only.
///
/// Rule: repeatedly merge the adjacent pair with the lowest merge rank, the leftmost one on
/// ties (what llama.cpp's and Hugging Face's priority queues do). Short words use a direct
/// scan over a pair array; long words a linked list and a binary heap.
struct BytePairMerger {
    private let rules: UnsafePointer<UInt64>
    private let index: UnsafePointer<UInt32>
    private let mask: Int
    private let byteTokens: UnsafePointer<Int32>

    private var capacity = 0
    private var symbols: UnsafeMutablePointer<Int32>
    private var pairs: UnsafeMutablePointer<UInt64>
    private var previous: UnsafeMutablePointer<Int32>
    private var next: UnsafeMutablePointer<Int32>
    private var heap: [HeapEntry] = []

    /// Words up to this many bytes take the quadratic scan, which beats a heap at this size.
    static let defaultScanLimit = 48
    private let scanLimit: Int

    /// `rules` and `index` come from `MergeTable`. The pointers must outlive the merger (the
    /// caller holds them for one `encode` call).
    init(
        rules: UnsafePointer<UInt64>, index: UnsafeBufferPointer<UInt32>, byteTokens: UnsafePointer<Int32>,
        scanLimit: Int = defaultScanLimit
    ) {
        self.scanLimit = scanLimit
        self.rules = rules
        self.index = index.baseAddress!
        self.mask = index.count - 1
        self.byteTokens = byteTokens
        capacity = 256
        symbols = .allocate(capacity: capacity)
        pairs = .allocate(capacity: capacity)
        previous = .allocate(capacity: capacity)
        next = .allocate(capacity: capacity)
    }

    /// Frees the scratch buffers; the merger must not be used afterwards.
    func deallocate() {
        symbols.deallocate()
        pairs.deallocate()
        previous.deallocate()
        next.deallocate()
    }

    /// `rank << 32 | merged id` for the pair, or `MergeTable.missing`.
    @inline(__always)
    private func lookup(_ left: Int32, _ right: Int32) -> UInt64 {
        MergeTable.lookup(left, right, rules: rules, index: index, mask: mask)
    }

    private mutating func reserve(_ n: Int) {
        guard n > capacity else { return }
        deallocate()
        capacity = max(n, capacity * 2)
        symbols = .allocate(capacity: capacity)
        pairs = .allocate(capacity: capacity)
        previous = .allocate(capacity: capacity)
        next = .allocate(capacity: capacity)
    }

    /// Appends the ids of the word's UTF-8 bytes `word[0..<n]` to `out`.
    mutating func encode(_ word: UnsafePointer<UInt8>, count n: Int, into out: inout [Int]) {
        if n == 1 {
            let id = byteTokens[Int(word[0])]
            if id >= 0 { out.append(Int(id)) }
            return
        }
        reserve(n)
        for i in 0..<n { symbols[i] = byteTokens[Int(word[i])] }
        if n <= scanLimit {
            scanMerge(count: n, into: &out)
        } else {
            heapMerge(count: n, into: &out)
        }
    }

    // MARK: Short words

    private mutating func scanMerge(count n: Int, into out: inout [Int]) {
        var length = n
        for i in 0..<(n - 1) { pairs[i] = lookup(symbols[i], symbols[i + 1]) }
        while length > 1 {
            var best = MergeTable.missing
            var at = -1
            for i in 0..<(length - 1) where pairs[i] < best {  // strict: leftmost on ties
                best = pairs[i]
                at = i
            }
            if at < 0 { break }
            symbols[at] = Int32(truncatingIfNeeded: best & 0xFFFF_FFFF)
            // Drop symbol at + 1 and the pair that joined it.
            var i = at + 1
            while i < length - 1 {
                symbols[i] = symbols[i + 1]
                i += 1
            }
            i = at + 1
            while i < length - 2 {
                pairs[i] = pairs[i + 1]
                i += 1
            }
            length -= 1
            if at > 0 { pairs[at - 1] = lookup(symbols[at - 1], symbols[at]) }
            if at < length - 1 { pairs[at] = lookup(symbols[at], symbols[at + 1]) }
        }
        for i in 0..<length where symbols[i] >= 0 { out.append(Int(symbols[i])) }
    }

    // MARK: Long words

    private struct HeapEntry {
        /// `rank << 32 | left position`: the heap's order.
        var order: UInt64
        var right: Int32
        var leftID: Int32
        var rightID: Int32
        var merged: Int32
    }

    private mutating func push(_ left: Int32, _ right: Int32) {
        let value = lookup(symbols[Int(left)], symbols[Int(right)])
        if value == MergeTable.missing { return }
        let entry = HeapEntry(
            order: (value & 0xFFFF_FFFF_0000_0000) | UInt64(UInt32(left)), right: right,
            leftID: symbols[Int(left)], rightID: symbols[Int(right)],
            merged: Int32(truncatingIfNeeded: value & 0xFFFF_FFFF))
        heap.append(entry)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            if heap[parent].order <= entry.order { break }
            heap[child] = heap[parent]
            child = parent
        }
        heap[child] = entry
    }

    private mutating func pop() -> HeapEntry {
        let top = heap[0]
        let last = heap.removeLast()
        if !heap.isEmpty {
            var parent = 0
            let count = heap.count
            while true {
                var child = 2 * parent + 1
                if child >= count { break }
                if child + 1 < count && heap[child + 1].order < heap[child].order { child += 1 }
                if last.order <= heap[child].order { break }
                heap[parent] = heap[child]
                parent = child
            }
            heap[parent] = last
        }
        return top
    }

    private mutating func heapMerge(count n: Int, into out: inout [Int]) {
        heap.removeAll(keepingCapacity: true)
        for i in 0..<n {
            previous[i] = Int32(i - 1)
            next[i] = i + 1 < n ? Int32(i + 1) : -1
        }
        for i in 0..<(n - 1) { push(Int32(i), Int32(i + 1)) }
        while !heap.isEmpty {
            let e = pop()
            let left = Int(e.order & 0xFFFF_FFFF)
            let right = Int(e.right)
            // Stale entries: a side was merged since (ids only ever grow) or is gone.
            guard next[left] == e.right, symbols[left] == e.leftID, symbols[right] == e.rightID else { continue }
            symbols[left] = e.merged
            symbols[right] = -2  // removed
            let after = next[right]
            next[left] = after
            if after >= 0 { previous[Int(after)] = Int32(left) }
            if previous[left] >= 0 { push(previous[left], Int32(left)) }
            if after >= 0 { push(Int32(left), after) }
        }
        var i: Int32 = 0
        while i >= 0 {
            if symbols[Int(i)] >= 0 { out.append(Int(symbols[Int(i)])) }
            i = next[Int(i)]
        }
    }
}
