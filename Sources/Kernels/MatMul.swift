import KernelsCore
import Synchronization

/// Products of weight matrices with activation vectors (decode) and activation matrices (prefill).
///
/// Activations are quantized once per call to the integer format each weight type's kernel wants
/// (Q8 blocks of 32, or Q8_K blocks of 256), then every output is an integer dot product scaled in
/// float. Rows are split among the pool's threads in chunks.
public enum MatMul {
    /// `y[r] = Σ_c W[r][c]·x[c]` for every row `r` of `w`; `x` holds `w.columns` floats, `y` `w.rows`.
    public static func matvec(
        _ w: WeightMatrix, _ x: UnsafePointer<Float>, _ y: UnsafeMutablePointer<Float>, pool: ThreadPool
    ) {
        matmul(w, x, rows: 1, y, pool: pool)
    }

    /// `matvec` for several matrices sharing one input (Q/K/V, gate/up) in one parallel job.
    /// All matrices have the same `columns`; `ys[i]` receives `ws[i].rows` floats.
    public static func matvec(
        _ ws: [WeightMatrix], _ x: UnsafePointer<Float>, _ ys: [UnsafeMutablePointer<Float>], pool: ThreadPool
    ) {
        matmul(ws, x, rows: 1, ys, pool: pool)
    }

    /// `Y[t][r] = Σ_c X[t][c]·W[r][c]` for `n` input rows: `x` is `[n][w.columns]`, `y` is `[n][w.rows]`.
    public static func matmul(
        _ w: WeightMatrix, _ x: UnsafePointer<Float>, rows n: Int, _ y: UnsafeMutablePointer<Float>, pool: ThreadPool
    ) {
        withUnsafePointer(to: w) { w in
            withUnsafePointer(to: y) { y in
                product(UnsafeBufferPointer(start: w, count: 1), x, n, UnsafeBufferPointer(start: y, count: 1), pool)
            }
        }
    }

    /// `matmul` for several matrices sharing one input; `ys[i]` is `[n][ws[i].rows]`.
    public static func matmul(
        _ ws: [WeightMatrix], _ x: UnsafePointer<Float>, rows n: Int, _ ys: [UnsafeMutablePointer<Float>],
        pool: ThreadPool
    ) {
        precondition(ws.count == ys.count, "\(ws.count) matrices but \(ys.count) outputs")
        ws.withUnsafeBufferPointer { ws in ys.withUnsafeBufferPointer { ys in product(ws, x, n, ys, pool) } }
    }

    /// Below this many weight bytes a product runs on the calling thread: waking the pool would
    /// cost about as much as the work.
    static let parallelThreshold = 48 << 10

    /// Up to this many input rows a product streams the weights from memory (decode steps of a
    /// few sequences) rather than reusing them from cache across many rows (prefill).
    public static let streamingRows = 8

    private static func product(
        _ ws: UnsafeBufferPointer<WeightMatrix>, _ x: UnsafePointer<Float>, _ n: Int,
        _ ys: UnsafeBufferPointer<UnsafeMutablePointer<Float>>, _ pool: ThreadPool
    ) {
        guard let columns = ws.first?.columns, let kernels = ws.first?.kernels, n > 0 else { return }
        var needsQ8 = false, needsQ8_1 = false, needsQ8K = false, bytes = 0
        for w in ws {
            precondition(w.columns == columns, "matrices sharing an input need equal columns")
            precondition(w.kernelSet == kernels.id, "matrices sharing an input need the same kernel set")
            switch ActivationKind(w.type) {
            case .float: break
            case .q8: needsQ8 = true
            case .q8_1: needsQ8_1 = true
            case .q8K: needsQ8K = true
            }
            bytes += w.rows * w.rowBytes
        }
        let q8Bytes = needsQ8 ? ActivationBuffer.byteCount(kind: .q8, columns: columns, count: n) : 0
        let q8_1Bytes = needsQ8_1 ? ActivationBuffer.byteCount(kind: .q8_1, columns: columns, count: n) : 0
        let q8KBytes = needsQ8K ? ActivationBuffer.byteCount(kind: .q8K, columns: columns, count: n) : 0
        let parallel = pool.threadCount > 1 && bytes * n >= parallelThreshold
        pool.withScratch(byteCount: q8Bytes + q8_1Bytes + q8KBytes) { scratch in
            let input = ProductInput(
                x: x, columns: columns,
                q8: needsQ8 ? ActivationBuffer(kind: .q8, columns: columns, count: n, base: scratch) : nil,
                q8_1: needsQ8_1
                    ? ActivationBuffer(kind: .q8_1, columns: columns, count: n, base: scratch + q8Bytes) : nil,
                q8K: needsQ8K
                    ? ActivationBuffer(kind: .q8K, columns: columns, count: n, base: scratch + q8Bytes + q8_1Bytes)
                    : nil)
            quantize(input, count: n, kernels: kernels, pool: parallel && n > 1 ? pool : nil)

            // Work items: ranges of rows (or of interleaved row groups) of each matrix, for blocks
            // of input rows, taken from a shared counter so a descheduled thread delays no one.
            withUnsafeTemporaryAllocation(of: Int.self, capacity: 2 * ws.count + 1) { table in
                let firstItem = table.baseAddress!, perItem = firstItem + ws.count + 1
                var items = 0
                for (m, w) in ws.enumerated() {
                    let unitRows = w.layout?.rows ?? 1
                    if n <= streamingRows && w.isRepacked {
                        // Decode streams weights (one sequence or a batch of a few): long runs keep
                        // each thread's reads sequential (fewer cold starts of the prefetchers),
                        // enough items keep threads balanced.
                        perItem[m] = min(16, max(4, w.groupCount / (8 * pool.threadCount)))
                    } else {
                        perItem[m] = max(1, (n == 1 ? 64 : 16) / unitRows)
                    }
                    firstItem[m] = items
                    items += ((w.isRepacked ? w.groupCount : w.rows) + perItem[m] - 1) / perItem[m]
                }
                firstItem[ws.count] = items
                let tokenBlock = 64
                let total = items * ((n + tokenBlock - 1) / tokenBlock)
                let next = Atomic<Int>(0)
                let work = { (_: Int, _: Int) in
                    var m = 0
                    while true {
                        let index = next.add(1, ordering: .relaxed).oldValue
                        if index >= total { break }
                        let item = index % items, tb = index / items
                        while item >= firstItem[m + 1] { m += 1 }
                        while item < firstItem[m] { m -= 1 }
                        let w = ws[m]
                        let lo = (item - firstItem[m]) * perItem[m]
                        let units = lo..<min(w.isRepacked ? w.groupCount : w.rows, lo + perItem[m])
                        let tokens = (tb * tokenBlock)..<min(n, (tb + 1) * tokenBlock)
                        if w.isRepacked {
                            kernels.groupProducts(w.view, input, tokens: tokens, groups: units, into: ys[m])
                        } else {
                            kernels.rowProducts(w.view, input, tokens: tokens, rows: units, into: ys[m])
                        }
                    }
                }
                if parallel { pool.run(work) } else { work(0, 1) }
            }
        }
    }

    /// Quantizes the `count` rows of `input.x` into its buffers, in parallel when given a pool.
    private static func quantize(_ input: ProductInput, count: Int, kernels: any KernelSet.Type, pool: ThreadPool?) {
        if input.q8 == nil && input.q8_1 == nil && input.q8K == nil { return }
        let work = { (thread: Int, threads: Int) in
            for row in Swift.stride(from: thread, to: count, by: threads) {
                let x = input.x + row * input.columns
                input.q8?.quantize(x, row: row, with: kernels)
                input.q8_1?.quantize(x, row: row, with: kernels)
                input.q8K?.quantize(x, row: row, with: kernels)
            }
        }
        if let pool { pool.run(work) } else { work(0, 1) }
    }
}
