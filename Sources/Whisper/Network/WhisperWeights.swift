import Foundation
import Kernels
import TensorFormats

/// A linear layer: `y = W·x + b`, `W` stored `[out][in]`.
struct Linear {
    let weight: WeightMatrix
    /// `[out]`, or nil.
    let bias: UnsafePointer<Float>?

    var outputs: Int { weight.rows }
    var inputs: Int { weight.columns }

    /// `y[t] = W·x[t] + b` for `n` rows of `x`.
    func apply(_ x: UnsafePointer<Float>, rows n: Int, into y: UnsafeMutablePointer<Float>, pool: ThreadPool) {
        MatMul.matmul(weight, x, rows: n, y, pool: pool)
        if let bias {
            for t in 0..<n {
                let row = y + t * outputs
                for i in 0..<outputs { row[i] += bias[i] }
            }
        }
    }
}

/// A layer norm's scale and shift, `[width]` each.
struct Norm {
    let gamma: UnsafePointer<Float>
    let beta: UnsafePointer<Float>
}

struct EncoderLayer {
    let attentionNorm: Norm
    /// Q, K, V fused: `[3·width][width]`.
    let qkv: Linear
    let attentionOutput: Linear
    let feedForwardNorm: Norm
    let feedForwardIn: Linear
    let feedForwardOut: Linear
}

struct DecoderLayer {
    let selfAttentionNorm: Norm
    let selfQKV: Linear
    let selfOutput: Linear
    let crossNorm: Norm
    let crossQuery: Linear
    /// K, V of the encoder output fused: `[2·width][width]`.
    let crossKeyValue: Linear
    let crossOutput: Linear
    let feedForwardNorm: Norm
    let feedForwardIn: Linear
    let feedForwardOut: Linear
}

/// Every weight of a Whisper network, in the form the kernels take.
// @unchecked Sendable: immutable after loading; the buffers it points into are owned here.
final class WhisperWeights: @unchecked Sendable {
    let config: WhisperConfig
    let format: WhisperWeightFormat
    /// `[width][melBins·3 padded to 32]`: the first convolution as a product with its im2col rows.
    let conv1: Linear
    let conv1Columns: Int
    /// `[width][width·3]`.
    let conv2: Linear
    /// `[audioContext][width]`.
    let encoderPositions: UnsafePointer<Float>
    let encoderLayers: [EncoderLayer]
    let encoderNorm: Norm
    /// The token embeddings as the file has them (a row is read per token) and as the output
    /// projection's matrix (tied).
    let embeddings: UnsafeRawPointer
    let embeddingType: CTranslate2File.DataType
    let outputProjection: WeightMatrix
    /// `[textContext][width]`.
    let decoderPositions: UnsafePointer<Float>
    let decoderLayers: [DecoderLayer]
    let decoderNorm: Norm

    private let file: CTranslate2File
    private var buffers: [OwnedBuffer] = []

    init(
        file: CTranslate2File, config: WhisperConfig, format: WhisperWeightFormat, kernels: KernelSetID,
        pool: ThreadPool
    )
        throws(WhisperModelError)
    {
        self.file = file
        self.config = config
        self.format = format
        var loader = Loader(file: file, format: format, kernels: kernels, pool: pool)
        let width = config.width

        conv1Columns = (config.melBins * 3 + 31) / 32 * 32
        conv1 = try loader.linear(
            "encoder/conv1", shape: [width, config.melBins, 3], paddedColumns: conv1Columns)
        conv2 = try loader.linear("encoder/conv2", shape: [width, width, 3])
        encoderPositions = UnsafePointer(
            try loader.floats("encoder/position_encodings/encodings", shape: [config.audioContext, width]))
        var encoderLayers: [EncoderLayer] = []
        for i in 0..<config.encoderLayers {
            let p = "encoder/layer_\(i)"
            encoderLayers.append(
                EncoderLayer(
                    attentionNorm: try loader.norm("\(p)/self_attention/layer_norm", width: width),
                    qkv: try loader.linear("\(p)/self_attention/linear_0", shape: [3 * width, width]),
                    attentionOutput: try loader.linear("\(p)/self_attention/linear_1", shape: [width, width]),
                    feedForwardNorm: try loader.norm("\(p)/ffn/layer_norm", width: width),
                    feedForwardIn: try loader.linear("\(p)/ffn/linear_0", shape: [config.feedForwardWidth, width]),
                    feedForwardOut: try loader.linear("\(p)/ffn/linear_1", shape: [width, config.feedForwardWidth])))
        }
        self.encoderLayers = encoderLayers
        encoderNorm = try loader.norm("encoder/layer_norm", width: width)

        let embedding = try loader.variable("decoder/embeddings/weight", shape: [config.vocabularySize, width])
        embeddings = file.bytes(of: embedding).baseAddress!
        embeddingType = embedding.type
        outputProjection = try loader.matrix(
            file.variable(named: "decoder/projection/weight") ?? embedding, rows: config.vocabularySize, columns: width)
        decoderPositions = UnsafePointer(
            try loader.floats("decoder/position_encodings/encodings", shape: [config.textContext, width]))
        var decoderLayers: [DecoderLayer] = []
        for i in 0..<config.decoderLayers {
            let p = "decoder/layer_\(i)"
            decoderLayers.append(
                DecoderLayer(
                    selfAttentionNorm: try loader.norm("\(p)/self_attention/layer_norm", width: width),
                    selfQKV: try loader.linear("\(p)/self_attention/linear_0", shape: [3 * width, width]),
                    selfOutput: try loader.linear("\(p)/self_attention/linear_1", shape: [width, width]),
                    crossNorm: try loader.norm("\(p)/attention/layer_norm", width: width),
                    crossQuery: try loader.linear("\(p)/attention/linear_0", shape: [width, width]),
                    crossKeyValue: try loader.linear("\(p)/attention/linear_1", shape: [2 * width, width]),
                    crossOutput: try loader.linear("\(p)/attention/linear_2", shape: [width, width]),
                    feedForwardNorm: try loader.norm("\(p)/ffn/layer_norm", width: width),
                    feedForwardIn: try loader.linear("\(p)/ffn/linear_0", shape: [config.feedForwardWidth, width]),
                    feedForwardOut: try loader.linear("\(p)/ffn/linear_1", shape: [width, config.feedForwardWidth])))
        }
        self.decoderLayers = decoderLayers
        decoderNorm = try loader.norm("decoder/layer_norm", width: width)
        buffers = loader.buffers
    }

    /// Token `id`'s embedding into `out` (`width` floats).
    func embed(_ id: Int, into out: UnsafeMutablePointer<Float>) {
        let width = config.width
        WeightConversion.floats(
            embeddings + id * width * embeddingType.size, type: embeddingType, count: width, into: out)
    }
}

/// Reads variables, checking names, shapes and types, and converts them.
private struct Loader {
    let file: CTranslate2File
    let format: WhisperWeightFormat
    let kernels: KernelSetID
    let pool: ThreadPool
    var buffers: [OwnedBuffer] = []

    func variable(_ name: String, shape: [Int]) throws(WhisperModelError) -> CTranslate2File.Variable {
        guard let v = file.variable(named: name) else {
            throw WhisperModelError(.missingVariable, "no variable '\(name)'", path: file.path)
        }
        guard v.shape == shape else {
            throw WhisperModelError(
                .missingVariable, "'\(name)' has shape \(v.shape), expected \(shape)", path: file.path)
        }
        guard v.type == .float32 || v.type == .float16 || v.type == .bfloat16 else {
            throw WhisperModelError(
                .unsupported, "'\(name)' is \(v.type); this engine reads float weights (f32, f16, bf16)",
                path: file.path)
        }
        return v
    }

    mutating func floats(_ name: String, shape: [Int]) throws(WhisperModelError) -> UnsafeMutablePointer<Float> {
        let v = try variable(name, shape: shape)
        let buffer = OwnedBuffer(byteCount: 4 * v.count)
        buffers.append(buffer)
        WeightConversion.floats(file.bytes(of: v).baseAddress!, type: v.type, count: v.count, into: buffer.floats)
        return buffer.floats
    }

    mutating func norm(_ prefix: String, width: Int) throws(WhisperModelError) -> Norm {
        Norm(
            gamma: UnsafePointer(try floats("\(prefix)/gamma", shape: [width])),
            beta: UnsafePointer(try floats("\(prefix)/beta", shape: [width])))
    }

    /// A `[shape[0]][rest]` weight and its bias; rows padded with zeros to `paddedColumns`.
    mutating func linear(_ prefix: String, shape: [Int], paddedColumns: Int? = nil) throws(WhisperModelError) -> Linear
    {
        let v = try variable("\(prefix)/weight", shape: shape)
        let rows = shape[0]
        let columns = shape.dropFirst().reduce(1, *)
        let weight = try matrix(v, rows: rows, columns: columns, paddedColumns: paddedColumns ?? columns)
        let bias: UnsafePointer<Float>? =
            file.variable(named: "\(prefix)/bias") == nil
            ? nil : UnsafePointer(try floats("\(prefix)/bias", shape: [rows]))
        return Linear(weight: weight, bias: bias)
    }

    /// `v` as a matrix the kernels multiply: Q8_0 (quantized here) or the file's f16 rows.
    mutating func matrix(_ v: CTranslate2File.Variable, rows: Int, columns: Int, paddedColumns: Int? = nil)
        throws(WhisperModelError)
        -> WeightMatrix
    {
        let padded = paddedColumns ?? columns
        let source = file.bytes(of: v).baseAddress!
        if format == .f16, v.type == .float16, padded == columns {
            return WeightMatrix(type: .f16, rows: rows, columns: columns, base: source, kernels: kernels)
        }
        if format == .f16 {
            // A padded or non-f16 matrix in f16: convert row by row.
            let buffer = OwnedBuffer(byteCount: 2 * rows * padded)
            buffers.append(buffer)
            let row = UnsafeMutablePointer<Float>.allocate(capacity: columns)
            defer { row.deallocate() }
            for r in 0..<rows {
                WeightConversion.floats(source + r * columns * v.type.size, type: v.type, count: columns, into: row)
                let out = buffer.pointer + 2 * r * padded
                for c in 0..<columns {
                    out.storeBytes(of: Float16(row[c]).bitPattern, toByteOffset: 2 * c, as: UInt16.self)
                }
            }
            return WeightMatrix(type: .f16, rows: rows, columns: padded, base: buffer.pointer, kernels: kernels)
        }
        let rowBytes = padded / 32 * WeightConversion.q8_0BlockBytes
        let buffer = OwnedBuffer(byteCount: rows * rowBytes)
        let type = v.type
        let destination = buffer.pointer
        pool.run { thread, threads in
            let row = UnsafeMutablePointer<Float>.allocate(capacity: padded)
            defer { row.deallocate() }
            row.initialize(repeating: 0, count: padded)
            for r in Swift.stride(from: thread, to: rows, by: threads) {
                WeightConversion.floats(source + r * columns * type.size, type: type, count: columns, into: row)
                WeightConversion.quantizeQ8_0(row, count: padded, into: destination + r * rowBytes)
            }
        }
        let matrix = WeightMatrix(type: .q8_0, rows: rows, columns: padded, base: buffer.pointer, kernels: kernels)
        let packed = matrix.repacked(pool: pool)
        // A repacked copy owns its memory; the rows it was made from can go.
        if !packed.isRepacked { buffers.append(buffer) }
        return packed
    }
}
