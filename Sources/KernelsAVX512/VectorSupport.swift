// Helpers of the AVX-512 kernels. This module is compiled for x86-64-v4 with VNNI (Package.swift);
// `Kernels` calls into it only on a CPU that has them.

#if arch(x86_64)
    import _Builtin_intrinsics.intel

    /// Four bytes at `p` broadcast to every 32-bit lane (folds into `vpdpbusd`'s `{1to16}` operand).
    @inline(__always)
    func broadcast32(_ p: UnsafeRawPointer) -> __m512i { _mm512_set1_epi32(p.loadUnaligned(as: Int32.self)) }

    @inline(__always)
    func load512(_ p: UnsafeRawPointer) -> __m512i { _mm512_loadu_si512(p) }

    /// Sixteen f16 values at `p` as floats.
    @inline(__always)
    func halves16(_ p: UnsafeRawPointer) -> __m512 {
        _mm512_cvtph_ps(_mm256_loadu_si256(p.assumingMemoryBound(to: __m256i.self)))
    }

    /// `acc + Σ` of four u8 × s8 products per 32-bit lane.
    @inline(__always)
    func dpbusd(_ acc: __m512i, _ u: __m512i, _ s: __m512i) -> __m512i { _mm512_dpbusd_epi32(acc, u, s) }

    /// How far ahead of the block being computed decode kernels prefetch weights into L1; they
    /// also prefetch four times as far into L2. The hardware prefetcher stops at every 4 KB page
    /// and restarts cold; software prefetches that far ahead keep enough lines in flight for one
    /// core to stream at close to the memory's rate (1.5B decode: 17 → 25 tok/s on 2 threads).
    let prefetchDistance = 4096

    /// Requests the cache lines covering `bytes` bytes from `p`, for a block that a one-row kernel
    /// reads later. Tiles of four rows don't need it: their compute per byte hides the latency.
    @inline(__always)
    func prefetch<W: TileWidth>(_: W.Type, _ p: UnsafeRawPointer, bytes: Int) {
        guard W.count == 1 else { return }
        var line = 0
        while line < bytes {
            llvmPrefetch(p + prefetchDistance + line, 0, 3, 1)  // prefetcht0
            llvmPrefetch(p + 4 * prefetchDistance + line, 0, 2, 1)  // prefetcht1
            line += 64
        }
    }

    /// LLVM's prefetch intrinsic (address, write, locality 0–3, data cache); clang's
    /// `_mm_prefetch` is a macro Swift cannot import.
    @_silgen_name("llvm.prefetch.p0")
    func llvmPrefetch(_ address: UnsafeRawPointer, _ write: Int32, _ locality: Int32, _ cache: Int32)

    /// Lanes of the last, possibly partial, group of 16 outputs.
    @inline(__always)
    func laneMask(_ count: Int) -> __mmask16 { count >= 16 ? 0xFFFF : __mmask16((1 << count) - 1) }

    /// A number of activation rows processed together by one kernel call.
    protocol TileWidth { static var count: Int { get } }
    enum OneRow: TileWidth { static var count: Int { 1 } }
    enum FourRows: TileWidth { static var count: Int { 4 } }

    /// `body(0)`, …, `body(W.count − 1)`, unrolled so that each call sees a constant index (the
    /// accumulators in `InlineArray`s then live in registers; a rolled loop would keep them in memory).
    @inline(__always)
    func unroll<W: TileWidth>(_: W.Type, _ body: (Int) -> Void) {
        body(0)
        if W.count == 4 {
            body(1)
            body(2)
            body(3)
        }
    }
#endif
