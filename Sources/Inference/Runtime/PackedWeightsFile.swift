import Digests
import Foundation
import GGUF
import Kernels

#if canImport(Glibc)
    import Glibc
#endif

/// A model's weight matrices saved in the kernels' interleaved layout, so that the next load
/// maps them instead of repacking (the 1.5B model: 0.7 s of copying becomes a few milliseconds).
///
/// One file per model file and kernel-set layout, `<directory>/<model file name>-<layout>-<key>.packed`,
/// the layout naming the interleaved layout of the kernel set (`r16u…` for AVX-512, `r8s…` for
/// AVX2 and portable) and the key the model file's device, inode, size and modification time and
/// this format's version: a re-pulled or edited model gets a new file (older ones of the same name
/// and layout are removed when it is written), and each kernel set keeps its own.
///
/// Layout, little-endian `UInt64`s: magic, version, entry count, then per matrix its GGML type,
/// rows, columns, offset and byte count; each matrix's bytes at its offset, 4096-aligned, in the
/// order the loader asks for them. The file is written under a temporary name, synced and renamed,
/// so a reader sees all of it or none. A file that does not match what the loader expects — magic,
/// version, shapes, sizes, length — is ignored and the model is repacked (and the file rewritten).
// @unchecked Sendable: an immutable read-only mapping.
final class PackedWeightsFile: @unchecked Sendable {
    struct Entry: Equatable {
        var type: UInt64
        var rows: Int
        var columns: Int
        var offset: Int
        var byteCount: Int
    }

    static let magic: UInt64 = 0x314B_4350_4F54_544F  // "OTTOPCK1"
    /// Bump when the interleaved layouts or this file's layout change.
    static let version: UInt64 = 2
    static let alignment = 4096

    let entries: [Entry]
    private let base: UnsafeRawPointer
    private let length: Int

    /// Maps the file at `path`; nil when it is missing or not a well-formed packed-weights file.
    init?(path: String) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_size >= 24 else { return nil }
        let length = Int(info.st_size)
        guard let mapping = mmap(nil, length, PROT_READ, MAP_SHARED | MAP_POPULATE, fd, 0), mapping != MAP_FAILED else {
            return nil
        }
        let words = UnsafeRawPointer(mapping)
        func word(_ i: Int) -> UInt64 { words.loadUnaligned(fromByteOffset: 8 * i, as: UInt64.self) }
        let count = Int(truncatingIfNeeded: word(2))
        guard word(0) == Self.magic, word(1) == Self.version, count >= 0, count <= 1 << 16, 24 + 40 * count <= length
        else {
            munmap(mapping, length)
            return nil
        }
        var entries: [Entry] = []
        for i in 0..<count {
            let w = 3 + 5 * i
            let entry = Entry(
                type: word(w), rows: Int(truncatingIfNeeded: word(w + 1)),
                columns: Int(truncatingIfNeeded: word(w + 2)),
                offset: Int(truncatingIfNeeded: word(w + 3)), byteCount: Int(truncatingIfNeeded: word(w + 4)))
            guard entry.offset >= 0, entry.byteCount >= 0, entry.offset % Self.alignment == 0,
                entry.offset <= length - entry.byteCount
            else {
                munmap(mapping, length)
                return nil
            }
            entries.append(entry)
        }
        self.entries = entries
        base = words
        self.length = length
    }

    deinit {
        munmap(UnsafeMutableRawPointer(mutating: base), length)
    }

    /// Matrix `index` of the file as an interleaved view of `plain` (the same tensor in the
    /// model file's layout), or nil when the entry does not describe it.
    func matrix(_ index: Int, matching plain: WeightMatrix) -> WeightMatrix? {
        guard index < entries.count else { return nil }
        let entry = entries[index]
        guard entry.type == UInt64(plain.type.rawValue), entry.rows == plain.rows, entry.columns == plain.columns,
            let expected = WeightMatrix.repackedByteCount(
                type: plain.type, rows: plain.rows, columns: plain.columns, kernels: plain.kernelSet),
            entry.byteCount == expected
        else { return nil }
        return WeightMatrix(
            type: plain.type, rows: plain.rows, columns: plain.columns, interleavedAt: base + entry.offset,
            kernels: plain.kernelSet)
    }

    /// Where the packed copy of the model file at `modelPath` for `kernels` lives in `directory`;
    /// nil when the model file cannot be examined or the set does not repack.
    static func location(forModelAt modelPath: String, in directory: String, kernels: KernelSetID) -> String? {
        guard let layout = WeightMatrix.repackedLayoutName(kernels: kernels) else { return nil }
        var info = stat()
        guard stat(modelPath, &info) == 0 else { return nil }
        let modified = Int64(info.st_mtim.tv_sec) &* 1_000_000_000 &+ Int64(info.st_mtim.tv_nsec)
        var hash = FNV1a()  // over the fields' little-endian bytes
        for field in [
            UInt64(info.st_dev), UInt64(info.st_ino), UInt64(info.st_size), UInt64(bitPattern: modified), version,
        ] {
            for shift in stride(from: 0, to: 64, by: 8) {
                hash.combine(UInt8(truncatingIfNeeded: field >> UInt64(shift)))
            }
        }
        let name = URL(fileURLWithPath: modelPath).lastPathComponent
        return directory + "/" + name + "-" + layout + "-" + String(hash.value, radix: 16) + ".packed"
    }

    /// Writes `matrices` (interleaved) to `path`: a temporary file, synced, then renamed over.
    /// Other packed files of the same model file name in that directory are removed. Does
    /// nothing if another process is writing the same file.
    static func write(_ matrices: [WeightMatrix], to path: String) throws {
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let partial = path + ".partial"
        // A leftover from a writer that died long ago is removed; a fresh one means someone is writing.
        if let attributes = try? FileManager.default.attributesOfItem(atPath: partial),
            let modified = attributes[.modificationDate] as? Date, Date().timeIntervalSince(modified) > 600
        {
            unlink(partial)
        }
        let fd = open(partial, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return }
        var finished = false
        defer {
            close(fd)
            if !finished { unlink(partial) }
        }
        var header: [UInt64] = [magic, version, UInt64(matrices.count)]
        var offset = (24 + 40 * matrices.count + alignment - 1) / alignment * alignment
        for w in matrices {
            header += [UInt64(w.type.rawValue), UInt64(w.rows), UInt64(w.columns), UInt64(offset), UInt64(w.byteCount)]
            offset = (offset + w.byteCount + alignment - 1) / alignment * alignment
        }
        try header.withUnsafeBytes { try writeAll(fd, $0.baseAddress!, $0.count, at: 0) }
        for (i, w) in matrices.enumerated() {
            try writeAll(fd, w.base, w.byteCount, at: Int(header[3 + 5 * i + 3]))
        }
        guard ftruncate(fd, off_t(offset)) == 0, fsync(fd) == 0 else { throw POSIXError(.EIO) }
        guard rename(partial, path) == 0 else { throw POSIXError(.EIO) }
        finished = true
        // Copies for earlier versions of the model file.
        let prefix =
            URL(fileURLWithPath: path).lastPathComponent.split(separator: "-").dropLast().joined(separator: "-") + "-"
        let stale = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        for name in stale
        where name.hasPrefix(prefix) && name.hasSuffix(".packed") && directory.path + "/" + name != path {
            unlink(directory.path + "/" + name)
        }
    }

    private static func writeAll(_ fd: Int32, _ bytes: UnsafeRawPointer, _ count: Int, at offset: Int) throws {
        var done = 0
        while done < count {
            let n = pwrite(fd, bytes + done, min(count - done, 1 << 30), off_t(offset + done))
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            done += n
        }
    }
}
