import Foundation
import GGUF
import Kernels
import KernelsCore
import TestSupport
import Testing

/// Kernel-only throughput on the real models: every weight matrix of a decode step (Q/K/V and
/// gate/up grouped, as the engine calls them, then the LM head) and of a prefill batch. Attention,
/// norms and the rest of the forward pass are not included, so these are upper bounds to set
/// against llama.cpp's end-to-end figures (decode 129/51/35 tok/s, pp512 302/243/99 tok/s on this
/// machine). Runs with SOTTO_BENCH=1; a missing model is skipped by name (TestSupport's RealModels).
@Suite(.enabled(if: ProcessInfo.processInfo.environment["SOTTO_BENCH"] == "1"), .serialized)
struct ModelBench {
    static let models = ["smollm2-135m", "qwen2.5-coder-0.5b", "qwen2.5-coder-1.5b"]

    /// The matrix groups of one forward pass, in call order.
    static func groups(_ file: GGUFFile) -> [[WeightMatrix]] {
        func matrix(_ name: String) -> WeightMatrix? {
            guard let t = file.tensor(named: name), t.shape.count == 2 else { return nil }
            return WeightMatrix(
                type: t.type, rows: t.shape[1], columns: t.shape[0], base: file.bytes(of: t).baseAddress!)
        }
        var groups: [[WeightMatrix]] = []
        var layer = 0
        while let q = matrix("blk.\(layer).attn_q.weight") {
            groups.append([q, matrix("blk.\(layer).attn_k.weight")!, matrix("blk.\(layer).attn_v.weight")!])
            groups.append([matrix("blk.\(layer).attn_output.weight")!])
            groups.append([matrix("blk.\(layer).ffn_gate.weight")!, matrix("blk.\(layer).ffn_up.weight")!])
            groups.append([matrix("blk.\(layer).ffn_down.weight")!])
            layer += 1
        }
        groups.append([matrix("output.weight") ?? matrix("token_embd.weight")!])
        return groups
    }

    @Test(.onTestThreads, arguments: models)
    func model(_ id: String) throws {
        let path = try RealModels.path(id)
        let file = try GGUFFile(path: path)
        let loadPool = ThreadPool()
        let packed = Self.groups(file).map { $0.map { $0.repacked(pool: loadPool, releasingSource: true) } }
        let bytes = packed.joined().reduce(0) { $0 + $1.rows * $1.rowBytes }
        let widest = packed.joined().map { max($0.rows, $0.columns) }.max()!
        let n = 128
        let x = UnsafeMutablePointer<Float>.allocate(capacity: n * widest)
        let y = UnsafeMutablePointer<Float>.allocate(capacity: n * widest * 2)
        defer {
            x.deallocate()
            y.deallocate()
        }
        var rng = SeededGenerator(seed: 9)
        for i in 0..<(n * widest) { x[i] = Float.random(in: -1...1, using: &rng) }

        var line = "model \(id) (\(bytes / 1_000_000) MB of matrices):"
        for threads in [1, 2] {
            let pool = ThreadPool(threadCount: threads)
            func pass(_ rows: Int) {
                for (i, group) in packed.enumerated() {
                    let last = i == packed.count - 1
                    var outputs: [UnsafeMutablePointer<Float>] = []
                    var offset = 0
                    for w in group {
                        outputs.append(y + offset)
                        offset += w.rows * (last ? 1 : rows)
                    }
                    if last || rows == 1 {
                        MatMul.matvec(group, x, outputs, pool: pool)
                    } else {
                        MatMul.matmul(group, x, rows: rows, outputs, pool: pool)
                    }
                }
            }
            // One thread: CPU time, which other processes on a shared machine do not inflate.
            let decode = KernelBench.best(rounds: 10, repeats: 1, cpu: threads == 1) { pass(1) }
            let prefill = KernelBench.best(rounds: 2, repeats: 1, cpu: threads == 1) { pass(n) }
            line += String(
                format: "  %dT%@ decode %.1f ms/token %.0f tok/s %.1f GB/s, prefill %.0f tok/s", threads,
                threads == 1 ? " (cpu time)" : "", decode * 1e3,
                1 / decode, Double(bytes) / decode / 1e9, Double(n) / prefill)
        }
        print(line)
    }
}
