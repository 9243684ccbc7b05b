import TensorFormats

// Row-interleaved weight layouts for the vector kernels (the idea of ggml's `repack.cpp` and
// ik_llama.cpp's `_R4` types, with layouts of our own).
//
// Rows are taken in groups of R (16 for 512-bit vectors, 8 for 256-bit ones); a group stores,
// for each block column, the R rows' block data interleaved so that one vector of 4·R bytes holds
// the same 4 consecutive weights of all R rows. A dot-product instruction (`vpdpbusd`, or
// `vpmaddubsw` + `vpmaddwd`) against 4 activation bytes broadcast to every lane then yields one
// partial dot product per row, with no horizontal sums, and each weight vector serves every
// activation row of a prefill tile. The last group is padded with zero rows. Per group block
// column, offsets in bytes, row i in 0..<R:
//
// Q4_0 (18R): d[R] f16 | for c in 0..<4 at 2R + 4R·c: row i: qs[4c..<4c+4]
//   (low nibbles: elements 4c..<4c+4, high nibbles: elements 16+4c..<16+4c+4)
// Q4_1 (20R): d[R] f16 | m[R] f16 | nibbles as Q4_0 at 4R + 4R·c
// Q5_0 (22R): d[R] f16 | nibbles as Q4_0 | 8 masks of R/2 bytes at 18R: mask c (c < 4) bit 4i+t =
//   5th bit of element 4c+t of row i, mask 4+c the same for element 16+4c+t
// Q5_1 (24R): d[R] | m[R] | nibbles at 4R | masks as Q5_0 at 20R
// Q8_0 (34R): d[R] f16 | for c in 0..<8 at 2R + 4R·c: row i: qs[4c..<4c+4], xor `q8Bias`
// Q4_K (144R): d[R] f16 | dmin[R] f16 | for b in 0..<12 at 4R + R·b: row i: scales[b] (the packed
//   6-bit scales and mins, transposed) | for k in 0..<4, c in 0..<8 at 16R + 32R·k + 4R·c: row i:
//   qs[32k+4c..<32k+4c+4] (sub-block 2k low nibbles, 2k+1 high)
// Q5_K (176R): as Q4_K | at 144R + (R/2)·(8j + c), j sub-block, c in 0..<8: a mask whose bit 4i+t
//   is the 5th bit of element 32j + 4c + t of row i
// Q6_K (210R): d[R] f16 | sc[16][R] i8 at 2R | 32 × 4R bytes of low nibbles V_c at 18R: row i byte
//   t = low 4 bits of element 4c+t | (low 4 bits of element 128+4c+t) << 4 | 16 × 4R bytes of high
//   bits H_c at 146R: row i byte t = 2-bit highs of elements 4c+t, 64+4c+t, 128+4c+t, 192+4c+t at
//   bits 0, 2, 4, 6

/// How a kernel set stores repacked matrices: groups of `rows` rows, interleaved per block
/// column as described above.
public struct InterleavedLayout: Equatable, Sendable {
    /// Rows per group (8 or 16).
    public let rows: Int
    /// Added (mod 256) to every Q8_0 quant: 0x80 makes them unsigned for `vpdpbusd`, 0 keeps them signed.
    public let q8Bias: UInt8
    /// The types the set has interleaved kernels for (others stay in GGUF's rows).
    public let types: Set<GGMLType>

    /// Every type the layout describes.
    public static let allTypes: Set<GGMLType> = [.q4_0, .q4_1, .q5_0, .q5_1, .q8_0, .q4_K, .q5_K, .q6_K]

    public init(rows: Int, q8Bias: UInt8, types: Set<GGMLType> = allTypes) {
        precondition(rows == 8 || rows == 16, "groups of 8 or 16 rows")
        precondition(types.isSubset(of: Self.allTypes), "no interleaved layout for \(types.subtracting(Self.allTypes))")
        self.rows = rows
        self.q8Bias = q8Bias
        self.types = types
    }

    /// A short name for caches of repacked weights: the same name means the same bytes.
    public var name: String {
        let mask = types.reduce(0) { $0 | 1 << $1.rawValue }
        return "r\(rows)" + (q8Bias == 0 ? "s" : "u") + String(mask, radix: 16)
    }

    /// Whether matrices of `type` are repacked.
    public func supports(_ type: GGMLType) -> Bool { types.contains(type) }

    /// Bytes of one group's block column, or nil when `type` is not repacked.
    public func groupBlockBytes(_ type: GGMLType) -> Int? {
        supports(type) ? rows * type.bytesPerBlock : nil
    }

    /// Bytes of the 5th-bit masks of one group and 4-element chunk.
    private var maskBytes: Int { rows / 2 }

    /// Writes the interleaved copy of `m` (GGUF's rows) to `dst`, whose groups are `groupStride` apart.
    public func pack(_ m: MatrixView, into dst: UnsafeMutableRawPointer, groupStride: Int) {
        let size = m.type.bytesPerBlock
        let bytes = groupBlockBytes(m.type)!
        for r in 0..<m.rows {
            let g = r / rows, i = r % rows
            for b in 0..<m.blocks {
                pack(m.type, block: m.row(r) + b * size, row: i, into: dst + g * groupStride + b * bytes)
            }
        }
    }

    /// Sets bits `4i ..< 4i+4` of the R-bit mask at `p` to `bits`.
    private func orMask(_ p: UnsafeMutableRawPointer, row i: Int, _ bits: UInt32) {
        let bit = 4 * i
        let byte = p + bit / 8
        byte.storeBytes(
            of: byte.load(as: UInt8.self) | UInt8(truncatingIfNeeded: bits << UInt32(bit % 8)), as: UInt8.self)
    }

    /// Bits `4i ..< 4i+4` of the mask at `p`.
    private func maskBits(_ p: UnsafeRawPointer, row i: Int) -> UInt32 {
        let bit = 4 * i
        return UInt32(p.load(fromByteOffset: bit / 8, as: UInt8.self) >> UInt8(bit % 8)) & 0xF
    }

    /// Copies one row's block into its place in a group block column (which starts zeroed).
    public func pack(_ type: GGMLType, block s: UnsafeRawPointer, row i: Int, into g: UnsafeMutableRawPointer) {
        let R = rows
        func copy(_ from: Int, _ to: Int, _ count: Int) {
            (g + to).copyMemory(from: s + from, byteCount: count)
        }
        func byte(_ offset: Int) -> UInt8 { s.load(fromByteOffset: offset, as: UInt8.self) }
        /// Nibbles of a 32-element block at `qs` into chunks at `at`.
        func nibbles(from qs: Int, at: Int) {
            for c in 0..<4 { copy(qs + 4 * c, at + 4 * R * c + 4 * i, 4) }
        }
        /// The 32 fifth bits of a Q5 block (`qh` as UInt32) into masks at `at`.
        func fifthBits(_ qh: UInt32, at: Int) {
            for m in 0..<8 {
                let first = m < 4 ? 4 * m : 16 + 4 * (m - 4)
                orMask(g + at + maskBytes * m, row: i, (qh >> UInt32(first)) & 0xF)
            }
        }
        switch type {
        case .q4_0:
            copy(0, 2 * i, 2)
            nibbles(from: 2, at: 2 * R)
        case .q4_1:
            copy(0, 2 * i, 2)
            copy(2, 2 * R + 2 * i, 2)
            nibbles(from: 4, at: 4 * R)
        case .q5_0:
            copy(0, 2 * i, 2)
            nibbles(from: 6, at: 2 * R)
            fifthBits(s.loadUnaligned(fromByteOffset: 2, as: UInt32.self), at: 18 * R)
        case .q5_1:
            copy(0, 2 * i, 2)
            copy(2, 2 * R + 2 * i, 2)
            nibbles(from: 8, at: 4 * R)
            fifthBits(s.loadUnaligned(fromByteOffset: 4, as: UInt32.self), at: 20 * R)
        case .q8_0:
            copy(0, 2 * i, 2)
            for e in 0..<32 {
                g.storeBytes(
                    of: byte(2 + e) &+ q8Bias, toByteOffset: 2 * R + 4 * R * (e / 4) + 4 * i + e % 4, as: UInt8.self)
            }
        case .q4_K, .q5_K:
            copy(0, 2 * i, 2)
            copy(2, 2 * R + 2 * i, 2)
            for b in 0..<12 { copy(4 + b, 4 * R + R * b + i, 1) }
            let quants = type == .q4_K ? Layout.q4_KQs : Layout.q5_KQs
            for k in 0..<4 {
                for c in 0..<8 { copy(quants + 32 * k + 4 * c, 16 * R + 32 * R * k + 4 * R * c + 4 * i, 4) }
            }
            if type == .q5_K {
                for j in 0..<8 {
                    for c in 0..<8 {
                        var bits: UInt32 = 0
                        for t in 0..<4 {
                            bits |= UInt32((byte(Layout.q5_KQh + 4 * c + t) >> UInt8(j)) & 1) << UInt32(t)
                        }
                        orMask(g + 144 * R + maskBytes * (8 * j + c), row: i, bits)
                    }
                }
            }
        case .q6_K:
            copy(208, 2 * i, 2)
            for sub in 0..<16 { copy(192 + sub, 2 * R + R * sub + i, 1) }
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
                        g.storeBytes(of: v, toByteOffset: 18 * R + 4 * R * c + 4 * i + t, as: UInt8.self)
                    }
                }
                for c in 0..<16 {
                    for t in 0..<4 {
                        let e = 4 * c + t
                        let h =
                            (q[e] >> 4) | ((q[64 + e] >> 4) << 2) | ((q[128 + e] >> 4) << 4) | ((q[192 + e] >> 4) << 6)
                        g.storeBytes(of: h, toByteOffset: 146 * R + 4 * R * c + 4 * i + t, as: UInt8.self)
                    }
                }
            }
        default:
            preconditionFailure("no interleaved layout for \(type)")
        }
    }

    /// Rebuilds row `i`'s plain block from a group block column (the inverse of `pack`).
    public func unpack(_ type: GGMLType, group g: UnsafeRawPointer, row i: Int, into s: UnsafeMutableRawPointer) {
        let R = rows
        func copy(_ from: Int, _ to: Int, _ count: Int) {
            (s + to).copyMemory(from: g + from, byteCount: count)
        }
        func byte(_ offset: Int) -> UInt8 { g.load(fromByteOffset: offset, as: UInt8.self) }
        func put(_ v: UInt8, _ offset: Int) { s.storeBytes(of: v, toByteOffset: offset, as: UInt8.self) }
        func nibbles(at: Int, to qs: Int) {
            for c in 0..<4 { copy(at + 4 * R * c + 4 * i, qs + 4 * c, 4) }
        }
        func fifthBits(at: Int) -> UInt32 {
            var qh: UInt32 = 0
            for m in 0..<8 {
                let first = m < 4 ? 4 * m : 16 + 4 * (m - 4)
                qh |= maskBits(g + at + maskBytes * m, row: i) << UInt32(first)
            }
            return qh
        }
        switch type {
        case .q4_0:
            copy(2 * i, 0, 2)
            nibbles(at: 2 * R, to: 2)
        case .q4_1:
            copy(2 * i, 0, 2)
            copy(2 * R + 2 * i, 2, 2)
            nibbles(at: 4 * R, to: 4)
        case .q5_0:
            copy(2 * i, 0, 2)
            nibbles(at: 2 * R, to: 6)
            s.storeBytes(of: fifthBits(at: 18 * R), toByteOffset: 2, as: UInt32.self)
        case .q5_1:
            copy(2 * i, 0, 2)
            copy(2 * R + 2 * i, 2, 2)
            nibbles(at: 4 * R, to: 8)
            s.storeBytes(of: fifthBits(at: 20 * R), toByteOffset: 4, as: UInt32.self)
        case .q8_0:
            copy(2 * i, 0, 2)
            for e in 0..<32 { put(byte(2 * R + 4 * R * (e / 4) + 4 * i + e % 4) &- q8Bias, 2 + e) }
        case .q4_K, .q5_K:
            copy(2 * i, 0, 2)
            copy(2 * R + 2 * i, 2, 2)
            for b in 0..<12 { copy(4 * R + R * b + i, 4 + b, 1) }
            let quants = type == .q4_K ? Layout.q4_KQs : Layout.q5_KQs
            for k in 0..<4 {
                for c in 0..<8 { copy(16 * R + 32 * R * k + 4 * R * c + 4 * i, quants + 32 * k + 4 * c, 4) }
            }
            if type == .q5_K {
                for l in 0..<32 { put(0, Layout.q5_KQh + l) }
                for j in 0..<8 {
                    for c in 0..<8 {
                        let bits = maskBits(g + 144 * R + maskBytes * (8 * j + c), row: i)
                        for t in 0..<4 {
                            let l = Layout.q5_KQh + 4 * c + t
                            put(
                                s.load(fromByteOffset: l, as: UInt8.self) | UInt8((bits >> UInt32(t)) & 1) << UInt8(j),
                                l)
                        }
                    }
                }
            }
        case .q6_K:
            copy(2 * i, 208, 2)
            for sub in 0..<16 { copy(2 * R + R * sub + i, 192 + sub, 1) }
            var q = [UInt8](repeating: 0, count: 256)
            for c in 0..<32 {
                for t in 0..<4 {
                    let v = byte(18 * R + 4 * R * c + 4 * i + t), e = 4 * c + t
                    q[e] = v & 0xF
                    q[128 + e] = v >> 4
                }
            }
            for c in 0..<16 {
                for t in 0..<4 {
                    let h = byte(146 * R + 4 * R * c + 4 * i + t), e = 4 * c + t
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
