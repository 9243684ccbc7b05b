import GGUF

#if canImport(Glibc)
    import Glibc
#endif

// Row-interleaved weight layouts for the vector kernels (the idea of ggml's `repack.cpp` and
// ik_llama.cpp's `_R4` types, with layouts of our own).
//
// Rows are taken in groups of 16; a group stores, for each block column, the 16 rows' block data
// interleaved so that one 64-byte vector holds the same 4 consecutive weights of all 16 rows.
// `vpdpbusd` against 4 activation bytes broadcast to every lane then yields one partial dot
// product per row, with no horizontal sums, and each weight vector serves every activation row
// of a prefill tile. The last group is padded with zero rows. Per group block column:
//
// Q4_1 (320 B): d[16] f16 | m[16] f16 | for c in 0..<4: row i: qs[4c..<4c+4]
//   (low nibbles: elements 4c..<4c+4, high nibbles: elements 16+4c..<16+4c+4)
// Q5_0 (352 B): d[16] f16 | nibbles as Q4_1 | 8 × UInt64 masks: mask c (c < 4) bit 4i+t = 5th bit
//   of element 4c+t of row i, mask 4+c the same for element 16+4c+t
// Q8_0 (544 B): d[16] f16 | for c in 0..<8: row i: (qs[4c..<4c+4] xor 0x80), unsigned
// Q4_K (2304 B): d[16] f16 | dmin[16] f16 | for b in 0..<12: row i: scales[b] (the packed 6-bit
//   scales and mins, transposed) | for k in 0..<4, c in 0..<8: row i: qs[32k+4c..<32k+4c+4]
//   (sub-blocks 2k low nibbles, 2k+1 high)
// Q6_K (3360 B): d[16] f16 | sc[16][16] i8 | 32 × 64 B low nibbles V_c: row i byte t = low 4 bits
//   of element 4c+t | (low 4 bits of element 128+4c+t) << 4 | 16 × 64 B high bits H_c: row i
//   byte t = 2-bit highs of elements 4c+t, 64+4c+t, 128+4c+t, 192+4c+t at bits 0, 2, 4, 6

/// How a `WeightMatrix` stores its rows.
enum Packing: Sendable {
    /// GGUF's layout: each row its consecutive blocks.
    case rows
    /// Groups of 16 rows interleaved per block column (see Repack.swift).
    case interleaved16
}

/// Zeroed memory holding a repacked matrix; freed with the last `WeightMatrix` that uses it.
/// Large copies are anonymous mappings of ordinary pages. (Transparent huge pages spared decode
/// some TLB misses until the kernels prefetched far enough ahead to hide them; since then they
/// only made loading slower — faulting in and zeroing 2 MB pages took 1.9 s instead of 0.7 s for
/// the 1.5B model's copy on the development VM.)
final class RepackedStorage: @unchecked Sendable {
    // @unchecked Sendable: written once while repacking, read-only afterwards.
    let pointer: UnsafeMutableRawPointer
    let byteCount: Int
    private let mapped: Bool

    init(byteCount: Int) {
        self.byteCount = byteCount
        #if os(Linux)
            if byteCount >= 1 << 21,
                let p = mmap(nil, byteCount, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
                p != MAP_FAILED
            {
                pointer = p
                mapped = true
                return
            }
        #endif
        pointer = .allocate(byteCount: max(byteCount, 64), alignment: 64)
        pointer.initializeMemory(as: UInt8.self, repeating: 0, count: max(byteCount, 64))
        mapped = false
    }

    deinit {
        #if os(Linux)
            if mapped {
                munmap(pointer, byteCount)
                return
            }
        #endif
        pointer.deallocate()
    }
}

enum Interleave {
    static let rows = 16

    /// Bytes of one group's block column, or nil when `type` has no interleaved layout.
    static func groupBlockBytes(_ type: GGMLType) -> Int? {
        switch type {
        case .q4_1: 320
        case .q5_0: 352
        case .q8_0: 544
        case .q4_K: 2304
        case .q6_K: 3360
        default: nil
        }
    }

    /// Writes the interleaved copy of `w` (plain rows) to `dst`.
    static func pack(_ w: WeightMatrix, into dst: UnsafeMutableRawPointer, groupStride: Int) {
        let blocks = w.columns / w.type.blockSize
        let size = w.type.bytesPerBlock
        let bytes = groupBlockBytes(w.type)!
        for r in 0..<w.rows {
            let g = r / rows, i = r % rows
            for b in 0..<blocks {
                pack(w.type, block: w.row(r) + b * size, row: i, into: dst + g * groupStride + b * bytes)
            }
        }
    }

    /// Copies one row's block into its place in a group block column.
    static func pack(_ type: GGMLType, block s: UnsafeRawPointer, row i: Int, into g: UnsafeMutableRawPointer) {
        func copy(_ from: Int, _ to: Int, _ count: Int) {
            (g + to).copyMemory(from: s + from, byteCount: count)
        }
        func byte(_ offset: Int) -> UInt8 { s.load(fromByteOffset: offset, as: UInt8.self) }
        switch type {
        case .q4_1:
            copy(0, 2 * i, 2)
            copy(2, 32 + 2 * i, 2)
            for c in 0..<4 { copy(4 + 4 * c, 64 + 64 * c + 4 * i, 4) }
        case .q5_0:
            copy(0, 2 * i, 2)
            for c in 0..<4 { copy(6 + 4 * c, 32 + 64 * c + 4 * i, 4) }
            let qh = s.loadUnaligned(fromByteOffset: 2, as: UInt32.self)
            for m in 0..<8 {
                let first = m < 4 ? 4 * m : 16 + 4 * (m - 4)
                let bits = UInt64((qh >> UInt32(first)) & 0xF) << UInt64(4 * i)
                let p = g + 288 + 8 * m
                p.storeBytes(of: p.loadUnaligned(as: UInt64.self) | bits, as: UInt64.self)
            }
        case .q8_0:
            copy(0, 2 * i, 2)
            for e in 0..<32 {
                g.storeBytes(of: byte(2 + e) ^ 0x80, toByteOffset: 32 + 64 * (e / 4) + 4 * i + e % 4, as: UInt8.self)
            }
        case .q4_K:
            copy(0, 2 * i, 2)
            copy(2, 32 + 2 * i, 2)
            for b in 0..<12 { copy(4 + b, 64 + 16 * b + i, 1) }
            for k in 0..<4 {
                for c in 0..<8 { copy(16 + 32 * k + 4 * c, 256 + 512 * k + 64 * c + 4 * i, 4) }
            }
        case .q6_K:
            copy(208, 2 * i, 2)
            for sub in 0..<16 { copy(192 + sub, 32 + 16 * sub + i, 1) }
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 256) { q in
                for half in 0..<2 {
                    for l in 0..<32 {
                        let (q1, q2, q3, q4) = q6Quads(s, ql: 64 * half, qh: 128 + 32 * half, l)
                        let o = 128 * half + l
                        q[o] = UInt8(q1 + 32)
                        q[o + 32] = UInt8(q2 + 32)
                        q[o + 64] = UInt8(q3 + 32)
                        q[o + 96] = UInt8(q4 + 32)
                    }
                }
                for c in 0..<32 {
                    for t in 0..<4 {
                        let e = 4 * c + t
                        let v = (q[e] & 0xF) | ((q[128 + e] & 0xF) << 4)
                        g.storeBytes(of: v, toByteOffset: 288 + 64 * c + 4 * i + t, as: UInt8.self)
                    }
                }
                for c in 0..<16 {
                    for t in 0..<4 {
                        let e = 4 * c + t
                        let h =
                            (q[e] >> 4) | ((q[64 + e] >> 4) << 2) | ((q[128 + e] >> 4) << 4) | ((q[192 + e] >> 4) << 6)
                        g.storeBytes(of: h, toByteOffset: 2336 + 64 * c + 4 * i + t, as: UInt8.self)
                    }
                }
            }
        default:
            preconditionFailure("no interleaved layout for \(type)")
        }
    }

    /// Rebuilds row `i`'s plain block from a group block column (the inverse of `pack`).
    static func unpack(_ type: GGMLType, group g: UnsafeRawPointer, row i: Int, into s: UnsafeMutableRawPointer) {
        func copy(_ from: Int, _ to: Int, _ count: Int) {
            (s + to).copyMemory(from: g + from, byteCount: count)
        }
        func byte(_ offset: Int) -> UInt8 { g.load(fromByteOffset: offset, as: UInt8.self) }
        func put(_ v: UInt8, _ offset: Int) { s.storeBytes(of: v, toByteOffset: offset, as: UInt8.self) }
        switch type {
        case .q4_1:
            copy(2 * i, 0, 2)
            copy(32 + 2 * i, 2, 2)
            for c in 0..<4 { copy(64 + 64 * c + 4 * i, 4 + 4 * c, 4) }
        case .q5_0:
            copy(2 * i, 0, 2)
            for c in 0..<4 { copy(32 + 64 * c + 4 * i, 6 + 4 * c, 4) }
            var qh: UInt32 = 0
            for m in 0..<8 {
                let first = m < 4 ? 4 * m : 16 + 4 * (m - 4)
                let mask = g.loadUnaligned(fromByteOffset: 288 + 8 * m, as: UInt64.self)
                qh |= UInt32((mask >> UInt64(4 * i)) & 0xF) << UInt32(first)
            }
            s.storeBytes(of: qh, toByteOffset: 2, as: UInt32.self)
        case .q8_0:
            copy(2 * i, 0, 2)
            for e in 0..<32 { put(byte(32 + 64 * (e / 4) + 4 * i + e % 4) ^ 0x80, 2 + e) }
        case .q4_K:
            copy(2 * i, 0, 2)
            copy(32 + 2 * i, 2, 2)
            for b in 0..<12 { copy(64 + 16 * b + i, 4 + b, 1) }
            for k in 0..<4 {
                for c in 0..<8 { copy(256 + 512 * k + 64 * c + 4 * i, 16 + 32 * k + 4 * c, 4) }
            }
        case .q6_K:
            copy(2 * i, 208, 2)
            for sub in 0..<16 { copy(32 + 16 * sub + i, 192 + sub, 1) }
            var q = [UInt8](repeating: 0, count: 256)
            for c in 0..<32 {
                for t in 0..<4 {
                    let v = byte(288 + 64 * c + 4 * i + t), e = 4 * c + t
                    q[e] = v & 0xF
                    q[128 + e] = v >> 4
                }
            }
            for c in 0..<16 {
                for t in 0..<4 {
                    let h = byte(2336 + 64 * c + 4 * i + t), e = 4 * c + t
                    q[e] |= (h & 3) << 4
                    q[64 + e] |= ((h >> 2) & 3) << 4
                    q[128 + e] |= ((h >> 4) & 3) << 4
                    q[192 + e] |= ((h >> 6) & 3) << 4
                }
            }
            // ggml's Q6_K bit layout (see `q6Quads`).
            for half in 0..<2 {
                for l in 0..<32 {
                    let o = 128 * half + l
                    put((q[o] & 0xF) | ((q[o + 64] & 0xF) << 4), 64 * half + l)
                    put((q[o + 32] & 0xF) | ((q[o + 96] & 0xF) << 4), 64 * half + l + 32)
                    let high = (q[o] >> 4) | ((q[o + 32] >> 4) << 2) | ((q[o + 64] >> 4) << 4) | ((q[o + 96] >> 4) << 6)
                    put(high, 128 + 32 * half + l)
                }
            }
        default:
            preconditionFailure("no interleaved layout for \(type)")
        }
    }
}
