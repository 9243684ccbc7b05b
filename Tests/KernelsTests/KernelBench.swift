import Foundation
import GGUF
import Kernels
import KernelsCore
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Throughput figures for `scripts/bench-kernels` on the three models' matrix shapes. Prints, never
/// asserts speed. Runs only when SOTTO_BENCH=1 (it takes a while and wants a release build).
@Suite(.enabled(if: ProcessInfo.processInfo.environment["SOTTO_BENCH"] == "1"), .serialized)
struct KernelBench {
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String, type: GGMLType, rows: Int, columns: Int
        var testDescription: String { "\(name) \(rows)×\(columns)" }
    }

    static let cases = [
        Case(name: "smollm2 ffn_up Q4_1", type: .q4_1, rows: 1536, columns: 576),
        Case(name: "smollm2 ffn_down Q4_1", type: .q4_1, rows: 576, columns: 1536),
        Case(name: "smollm2 head Q8_0", type: .q8_0, rows: 49152, columns: 576),
        Case(name: "qwen0.5b ffn_up Q5_0", type: .q5_0, rows: 4864, columns: 896),
        Case(name: "qwen0.5b attn_q Q5_0", type: .q5_0, rows: 896, columns: 896),
        Case(name: "qwen0.5b head Q8_0", type: .q8_0, rows: 151936, columns: 896),
        Case(name: "qwen0.5b ffn_down Q6_K", type: .q6_K, rows: 896, columns: 4864 / 256 * 256),
        Case(name: "qwen1.5b ffn_up Q4_K", type: .q4_K, rows: 8960, columns: 1536),
        Case(name: "qwen1.5b ffn_down Q4_K", type: .q4_K, rows: 1536, columns: 8960 / 256 * 256),
        Case(name: "qwen1.5b ffn_down Q6_K", type: .q6_K, rows: 1536, columns: 8960 / 256 * 256),
    ]

    /// Wall-clock seconds of `body`, or with `cpu` the calling thread's CPU seconds (robust to
    /// other processes on a shared machine, meaningful for single-threaded runs only).
    static func seconds(cpu: Bool = false, _ body: () -> Void) -> Double {
        func now() -> Double {
            var t = timespec()
            clock_gettime(cpu ? CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC, &t)
            return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
        }
        let start = now()
        body()
        return now() - start
    }

    /// Best time of `rounds` rounds of `repeats` calls.
    static func best(rounds: Int = 7, repeats: Int, cpu: Bool = false, _ body: () -> Void) -> Double {
        var best = Double.infinity
        for _ in 0..<rounds {
            best = min(best, seconds(cpu: cpu) { for _ in 0..<repeats { body() } } / Double(repeats))
        }
        return best
    }

    @Test(.onTestThreads, arguments: cases)
    func matvec(_ c: Case) {
        var rng = SeededGenerator(seed: 1)
        // Several copies so the weights stream from memory, as in decode.
        let copies = max(1, (256 << 20) / (c.rows * c.columns / c.type.blockSize * c.type.bytesPerBlock))
        let one = randomWeights(c.type, rows: c.rows, columns: c.columns, using: &rng)
        let x = randomFloats(c.columns, using: &rng)
        var y = [Float](repeating: 0, count: c.rows)
        var line = "matvec \(c.name) \(c.rows)×\(c.columns):"
        for threads in [1, 2] {
            let pool = ThreadPool(threadCount: threads)
            for repack in [false, true] {
                let data = UnsafeMutableRawPointer.allocate(byteCount: one.count * copies, alignment: 64)
                defer { data.deallocate() }
                var mats: [WeightMatrix] = []
                for k in 0..<copies {
                    (data + k * one.count).copyMemory(from: one, byteCount: one.count)
                    let w = WeightMatrix(type: c.type, rows: c.rows, columns: c.columns, base: data + k * one.count)
                    mats.append(repack ? w.repacked() : w)
                }
                var k = 0
                let t = Self.best(repeats: max(copies, 3)) {
                    MatMul.matvec(mats[k % copies], x, &y, pool: pool)
                    k += 1
                }
                let gbs = Double(one.count) / t / 1e9
                line += String(format: "  %@%dT %.1f µs %.1f GB/s", repack ? "repacked " : "", threads, t * 1e6, gbs)
            }
        }
        print(line)
    }

    @Test(.onTestThreads, arguments: cases.filter { $0.rows < 20000 })
    func matmul(_ c: Case) {
        var rng = SeededGenerator(seed: 2)
        let n = 128
        let bytes = randomWeights(c.type, rows: c.rows, columns: c.columns, using: &rng)
        let x = randomFloats(n * c.columns, using: &rng)
        var y = [Float](repeating: 0, count: n * c.rows)
        var line = "matmul n=\(n) \(c.name):"
        bytes.withUnsafeBytes { raw in
            let plain = WeightMatrix(type: c.type, rows: c.rows, columns: c.columns, base: raw.baseAddress!)
            let packed = plain.repacked()
            for threads in [1, 2] {
                let pool = ThreadPool(threadCount: threads)
                for w in [plain, packed] where w.isRepacked || threads == 1 {
                    let t = Self.best(rounds: 3, repeats: 1, cpu: threads == 1) {
                        MatMul.matmul(w, x, rows: n, &y, pool: pool)
                    }
                    let gops = 2.0 * Double(n * c.rows * c.columns) / t / 1e9
                    line += String(
                        format: "  %@%dT %.2f ms %.1f GOP/s", w.isRepacked ? "repacked " : "", threads, t * 1e3, gops)
                }
            }
        }
        print(line)
    }

    /// Read bandwidth reference: summing 256 MB of floats, 1 and 2 threads.
    @Test(.onTestThreads) func readBandwidth() {
        let count = 64 << 20
        let data = UnsafeMutablePointer<Float>.allocate(capacity: count)
        defer { data.deallocate() }
        data.initialize(repeating: 1, count: count)
        for threads in [1, 2] {
            let pool = ThreadPool(threadCount: threads)
            let sums = UnsafeMutablePointer<SIMD16<Float>>.allocate(capacity: 2)
            let t = Self.best(rounds: 5, repeats: 1) {
                pool.run { thread, threads in
                    let lo = count / 16 * thread / threads, hi = count / 16 * (thread + 1) / threads
                    var a = SIMD16<Float>(), b = SIMD16<Float>()
                    let v = UnsafeRawPointer(data)
                    var i = lo
                    while i + 1 < hi {
                        a += v.loadUnaligned(fromByteOffset: 64 * i, as: SIMD16<Float>.self)
                        b += v.loadUnaligned(fromByteOffset: 64 * i + 64, as: SIMD16<Float>.self)
                        i += 2
                    }
                    sums[thread] = a + b
                }
            }
            print(String(format: "read bandwidth %dT: %.1f GB/s", threads, Double(count * 4) / t / 1e9))
            sums.deallocate()
        }
    }

    /// The same product again and again: weights in cache, so this is the kernels' compute rate.
    @Test(
        .onTestThreads,
        arguments: cases.filter { $0.rows < 20000 } + [
            Case(name: "L2-sized Q4_K", type: .q4_K, rows: 512, columns: 1536),
            Case(name: "L2-sized Q6_K", type: .q6_K, rows: 512, columns: 1536),
            Case(name: "L2-sized Q8_0", type: .q8_0, rows: 512, columns: 1536),
        ])
    func matvecInCache(_ c: Case) {
        var rng = SeededGenerator(seed: 1)
        let bytes = randomWeights(c.type, rows: c.rows, columns: c.columns, using: &rng)
        let x = randomFloats(c.columns, using: &rng)
        var y = [Float](repeating: 0, count: c.rows)
        var line = "matvec in cache \(c.name):"
        bytes.withUnsafeBytes { raw in
            let w = WeightMatrix(type: c.type, rows: c.rows, columns: c.columns, base: raw.baseAddress!).repacked()
            for threads in [1, 2] {
                let pool = ThreadPool(threadCount: threads)
                let t = Self.best(rounds: 15, repeats: 50, cpu: threads == 1) { MatMul.matvec(w, x, &y, pool: pool) }
                line += String(
                    format: "  %dT%@ %.1f µs %.1f GB/s", threads, threads == 1 ? " (cpu time)" : "", t * 1e6,
                    Double(bytes.count) / t / 1e9)
            }
        }
        print(line)
    }

    /// Load-time cost of `repacked()`, one thread.
    @Test(.onTestThreads) func repackSpeed() {
        var rng = SeededGenerator(seed: 4)
        for type in [GGMLType.q4_1, .q5_0, .q8_0, .q4_K, .q6_K] {
            let rows = 1024, columns = 1536
            let bytes = randomWeights(type, rows: rows, columns: columns, using: &rng)
            bytes.withUnsafeBytes { raw in
                let w = WeightMatrix(type: type, rows: rows, columns: columns, base: raw.baseAddress!)
                let t = Self.best(rounds: 3, repeats: 1, cpu: true) { _ = w.repacked() }
                print(String(format: "repack %@: %.0f MB/s", "\(type)", Double(bytes.count) / t / 1e6))
            }
        }
    }

    @Test(.onTestThreads) func threadPoolDispatch() {
        for threads in [1, 2] {
            let pool = ThreadPool(threadCount: threads)
            let t = Self.best(repeats: 20000) { pool.run { _, _ in } }
            print(String(format: "pool.run %dT: %.2f µs per empty job", threads, t * 1e6))
        }
    }

    @Test(.onTestThreads) func activationQuantization() {
        var rng = SeededGenerator(seed: 3)
        let x = randomFloats(8960, using: &rng)
        let kernels = KernelSelection.implementation(of: KernelSelection.default)!
        for kind in [ActivationKind.q8, .q8K] {
            let buffer = ActivationBuffer(kind: kind, columns: 8960 / 256 * 256, count: 1)
            let t = Self.best(repeats: 2000, cpu: true) {
                x.withUnsafeBufferPointer { buffer.quantize($0.baseAddress!, row: 0, with: kernels) }
            }
            print(String(format: "quantize %@ 8704 floats: %.2f µs", "\(kind)", t * 1e6))
            buffer.deallocate()
        }
    }
}
