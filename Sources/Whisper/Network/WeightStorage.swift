import Kernels
import TensorFormats

/// How the linear layers' weights are kept in memory. `model.bin` holds them as f16.
public enum WhisperWeightFormat: String, Sendable, CaseIterable {
    /// Quantized at load to Q8_0 (blocks of 32 with one f16 scale), so the kernels' tiled
    /// integer products run them.
    case q8_0
    /// The file's f16 rows as they are (products convert them to float on the fly).
    case f16
}

/// Memory owned by the loaded model: quantized copies, float vectors.
// @unchecked Sendable: written while loading, read-only afterwards.
final class OwnedBuffer: @unchecked Sendable {
    let pointer: UnsafeMutableRawPointer
    let byteCount: Int

    init(byteCount: Int) {
        self.byteCount = byteCount
        pointer = .allocate(byteCount: max(byteCount, 64), alignment: 64)
        pointer.initializeMemory(as: UInt8.self, repeating: 0, count: max(byteCount, 64))
    }

    deinit { pointer.deallocate() }

    var floats: UnsafeMutablePointer<Float> { pointer.assumingMemoryBound(to: Float.self) }
}

/// Converting the file's tensors into what the kernels take.
enum WeightConversion {
    /// `count` floats of a float variable (f32, f16 or bf16) at `source`.
    static func floats(
        _ source: UnsafeRawPointer, type: CTranslate2File.DataType, count: Int, into out: UnsafeMutablePointer<Float>
    ) {
        switch type {
        case .float32:
            for i in 0..<count { out[i] = source.loadUnaligned(fromByteOffset: 4 * i, as: Float.self) }
        case .float16:
            // A table: the baseline CPU has no F16C, and the conversion routine costs more than
            // the quantization it feeds.
            halfTable.withUnsafeBufferPointer { table in
                for i in 0..<count { out[i] = table[Int(source.loadUnaligned(fromByteOffset: 2 * i, as: UInt16.self))] }
            }
        case .bfloat16:
            for i in 0..<count { out[i] = bf16ToFloat(source.loadUnaligned(fromByteOffset: 2 * i, as: UInt16.self)) }
        case .int8, .int16, .int32:
            preconditionFailure("not a float type")
        }
    }

    /// Every binary16 value as a float (256 KB).
    static let halfTable: [Float] = (0...UInt16.max).map { halfToFloat($0) }

    /// Bytes of one Q8_0 block: an f16 scale and 32 signed bytes.
    static let q8_0BlockBytes = 34

    /// Quantizes `count` floats (a multiple of 32) into Q8_0 blocks at `out`, as ggml's
    /// `quantize_row_q8_0_ref`: `d = max|x| / 127`, `q = round(x / d)`.
    static func quantizeQ8_0(_ x: UnsafePointer<Float>, count: Int, into out: UnsafeMutableRawPointer) {
        precondition(count % 32 == 0, "Q8_0 rows are multiples of 32")
        for block in 0..<(count / 32) {
            let values = x + 32 * block
            var peak: Float = 0
            for i in 0..<32 { peak = max(peak, abs(values[i])) }
            let d = peak / 127
            let inverse: Float = d == 0 ? 0 : 1 / d
            let destination = out + q8_0BlockBytes * block
            destination.storeBytes(of: Float16(d).bitPattern, as: UInt16.self)
            for i in 0..<32 {
                // Half away from zero, by truncation (roundf is a library call on the baseline CPU).
                let v = values[i] * inverse
                let q = Int32(v + (v < 0 ? -0.5 : 0.5))
                destination.storeBytes(of: Int8(max(-127, min(127, q))), toByteOffset: 2 + i, as: Int8.self)
            }
        }
    }
}
