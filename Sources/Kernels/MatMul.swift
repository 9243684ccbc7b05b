import GGUF
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
        matmul([w], x, rows: 1, [y], pool: pool)
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
        matmul([w], x, rows: n, [y], pool: pool)
    }

    /// `matmul` for several matrices sharing one input; `ys[i]` is `[n][ws[i].rows]`.
    public static func matmul(
        _ ws: [WeightMatrix], _ x: UnsafePointer<Float>, rows n: Int, _ ys: [UnsafeMutablePointer<Float>],
        pool: ThreadPool
    ) {
        precondition(ws.count == ys.count, "\(ws.count) matrices but \(ys.count) outputs")
        guard let columns = ws.first?.columns, n > 0 else { return }
        precondition(ws.allSatisfy { $0.columns == columns }, "matrices sharing an input need equal columns")

        let input = PreparedInput(ws, x, columns: columns, count: n, pool: pool)
        defer { input.deallocate() }

        // Work items: ranges of rows (or of interleaved row groups) of each matrix, for blocks of
        // input rows, taken from a shared counter so a descheduled thread delays no one.
        var items: [(matrix: Int, units: Range<Int>)] = []
        for (m, w) in ws.enumerated() {
            let unitRows = w.isRepacked ? Interleave.rows : 1
            let units = w.isRepacked ? w.groupCount : w.rows
            let perItem = max(1, (n == 1 ? 64 : 16) / unitRows)
            for lo in stride(from: 0, to: units, by: perItem) { items.append((m, lo..<min(units, lo + perItem))) }
        }
        let tokenBlock = 64
        let tokenBlocks = (n + tokenBlock - 1) / tokenBlock
        let total = items.count * tokenBlocks
        let next = Atomic<Int>(0)
        items.withUnsafeBufferPointer { items in
            pool.run { _, _ in
                while true {
                    let index = next.add(1, ordering: .relaxed).oldValue
                    if index >= total { break }
                    let item = items[index % items.count], tb = index / items.count
                    let tokens = (tb * tokenBlock)..<min(n, (tb + 1) * tokenBlock)
                    let w = ws[item.matrix]
                    if w.isRepacked {
                        GroupKernels.compute(w, input, tokens: tokens, groups: item.units, y: ys[item.matrix])
                    } else {
                        RowKernels.compute(w, input, tokens: tokens, rows: item.units, y: ys[item.matrix])
                    }
                }
            }
        }
    }
}

/// The input of a product, with the quantized forms its matrices need.
struct PreparedInput {
    let x: UnsafePointer<Float>
    let columns: Int
    let q8: ActivationBuffer?
    let q8K: ActivationBuffer?

    init(_ ws: [WeightMatrix], _ x: UnsafePointer<Float>, columns: Int, count: Int, pool: ThreadPool) {
        self.x = x
        self.columns = columns
        let kinds = Set(ws.map { ActivationKind($0.type) })
        q8 = kinds.contains(.q8) ? ActivationBuffer(kind: .q8, columns: columns, count: count) : nil
        q8K = kinds.contains(.q8K) ? ActivationBuffer(kind: .q8K, columns: columns, count: count) : nil
        let buffers = [q8, q8K].compactMap { $0 }
        if buffers.isEmpty { return }
        if count == 1 {
            for buffer in buffers { buffer.quantize(x, row: 0) }
        } else {
            pool.run { thread, threads in
                for row in stride(from: thread, to: count, by: threads) {
                    for buffer in buffers { buffer.quantize(x + row * columns, row: row) }
                }
            }
        }
    }

    func deallocate() {
        q8?.deallocate()
        q8K?.deallocate()
    }
}

extension ActivationKind: Hashable {}

enum RowKernels {
    /// `y[t·w.rows + r]` for the given input rows `t` and weight rows `r`.
    static func compute(
        _ w: WeightMatrix, _ input: PreparedInput, tokens: Range<Int>, rows: Range<Int>, y: UnsafeMutablePointer<Float>
    ) {
        let blocks = w.columns / w.type.blockSize
        let stride = w.rows
        switch w.type {
        case .f32, .f16, .bf16:
            for t in tokens {
                let x = input.x + t * input.columns
                for r in rows {
                    let p = w.row(r)
                    y[t * stride + r] =
                        switch w.type {
                        case .f32: Dot.f32(p, x, count: w.columns)
                        case .f16: Dot.f16(p, x, count: w.columns)
                        default: Dot.bf16(p, x, count: w.columns)
                        }
                }
            }
        case .q4_0, .q4_1, .q5_0, .q5_1, .q8_0:
            let act = input.q8!
            for t in tokens {
                let a = act.q8(t)
                for r in rows {
                    let p = w.row(r)
                    y[t * stride + r] =
                        switch w.type {
                        case .q4_0: Dot.q4_0(p, a, blocks: blocks)
                        case .q4_1: Dot.q4_1(p, a, blocks: blocks)
                        case .q5_0: Dot.q5_0(p, a, blocks: blocks)
                        case .q5_1: Dot.q5_1(p, a, blocks: blocks)
                        default: Dot.q8_0(p, a, blocks: blocks)
                        }
                }
            }
        case .q4_K, .q5_K, .q6_K:
            let act = input.q8K!
            for t in tokens {
                let a = act.q8K(t)
                for r in rows {
                    let p = w.row(r)
                    y[t * stride + r] =
                        switch w.type {
                        case .q4_K: Dot.q4_K(p, a, blocks: blocks)
                        case .q5_K: Dot.q5_K(p, a, blocks: blocks)
                        default: Dot.q6_K(p, a, blocks: blocks)
                        }
                }
            }
        case .q8_1, .q2_K, .q3_K, .q8_K:
            preconditionFailure("unsupported \(w.type)")
        }
    }
}
