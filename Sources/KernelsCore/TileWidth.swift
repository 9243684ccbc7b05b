// Compile-time tile widths for the interleaved kernels: how many activation rows one call
// multiplies with each weight vector it loads.

/// A number of activation rows processed together by one kernel call.
public protocol TileWidth { static var count: Int { get } }
public enum OneRow: TileWidth { @inlinable public static var count: Int { 1 } }
public enum TwoRows: TileWidth { @inlinable public static var count: Int { 2 } }
public enum FourRows: TileWidth { @inlinable public static var count: Int { 4 } }

/// `body(0)` and `body(1)`, written out.
@inlinable @inline(__always)
public func forEach2(_ body: (Int) -> Void) {
    body(0)
    body(1)
}

/// `body(0)` … `body(3)`, written out: LLVM does not unroll a loop over the four chunks of a column
/// group in the larger kernels, and with a variable chunk index the values kept per chunk (in
/// `InlineArray`s, or lanes picked by index) go through the stack instead of registers.
@inlinable @inline(__always)
public func forEach4(_ body: (Int) -> Void) {
    body(0)
    body(1)
    body(2)
    body(3)
}

/// Q4_K or Q5_K: whether the quants have a fifth bit, known when a kernel is compiled.
public protocol KQuantFormat { static var fifth: Bool { get } }
public enum Q4KFormat: KQuantFormat { @inlinable public static var fifth: Bool { false } }
public enum Q5KFormat: KQuantFormat { @inlinable public static var fifth: Bool { true } }

/// `body(0)`, …, `body(W.count − 1)`, unrolled so that each call sees a constant index (the
/// accumulators in `InlineArray`s then live in registers; a rolled loop would keep them in memory).
@inlinable @inline(__always)
public func unroll<W: TileWidth>(_: W.Type, _ body: (Int) -> Void) {
    body(0)
    if W.count >= 2 { body(1) }
    if W.count == 4 {
        body(2)
        body(3)
    }
}

/// How far ahead of the block being computed the portable decode kernels prefetch weights into
/// L1; they also prefetch four times as far into L2. The hardware prefetcher stops at every 4 KB
/// page and restarts cold; software prefetches that far ahead keep enough lines in flight for one
/// core to stream at close to the memory's rate (1.5B decode on AVX-512, on a Xeon: 17 → 25 tok/s
/// on 2 threads). The AVX sets prefetch into L2 only (`prefetchL2`).
@usableFromInline let prefetchDistance = 4096

/// Requests the cache lines covering `bytes` bytes from `p`, for a block that a one-row kernel
/// reads later. Tiles of four rows don't need it: their compute per byte hides the latency.
@inlinable @inline(__always)
public func prefetch<W: TileWidth>(_: W.Type, _ p: UnsafeRawPointer, bytes: Int) {
    guard W.count == 1 else { return }
    forEachLine(bytes) { line in
        llvmPrefetch(p + prefetchDistance + line, 0, 3, 1)  // prefetcht0
        llvmPrefetch(p + 4 * prefetchDistance + line, 0, 2, 1)  // prefetcht1
    }
}

/// How far ahead the AVX2 and AVX-512 decode kernels prefetch, into L2 only: there the L1
/// prefetches only took load slots. Measured on the 1.5B model, 2 threads, AMD EPYC (Zen 4),
/// `sotto bench` alternating two builds: avx2 over 8 rounds, L1 at 4 KB + L2 at 16 KB 22.4 tok/s,
/// L2 alone at 12 KB 25.6 (better in each round); avx512 ahead in 11 of 14 rounds, and 24.2 vs
/// 21.9 tok/s (1.11×) in one `scripts/bench --baseline` run.
@usableFromInline let prefetchL2Distance = 12 * 1024

/// As `prefetch`, into L2 only, `prefetchL2Distance` ahead (the AVX2 and AVX-512 kernels), for
/// tiles of every width: a decode step of a few sequences streams the weights as one sequence
/// does (1.5B model, AMD EPYC Zen 3, avx2, 2 threads, forward pass of 2/4/8 one-row sequences:
/// 48.5/72.5/107.7 ms without, 37.3/51.6/95.7 ms with), and prefill, which reads each group from
/// cache for many rows, keeps its speed (117–119 tok/s either way).
@inlinable @inline(__always)
public func prefetchL2<W: TileWidth>(_: W.Type, _ p: UnsafeRawPointer, bytes: Int) {
    forEachLine(bytes) { line in llvmPrefetch(p + prefetchL2Distance + line, 0, 2, 1) }  // prefetcht1
}

/// The offset of each 64-byte cache line in `bytes` bytes.
@inlinable @inline(__always)
func forEachLine(_ bytes: Int, _ body: (Int) -> Void) {
    var line = 0
    while line < bytes {
        body(line)
        line += 64
    }
}

/// LLVM's prefetch intrinsic (address, write, locality 0–3, data cache); clang's `_mm_prefetch`
/// is a macro Swift cannot import.
@usableFromInline @_silgen_name("llvm.prefetch.p0")
func llvmPrefetch(_ address: UnsafeRawPointer, _ write: Int32, _ locality: Int32, _ cache: Int32)
