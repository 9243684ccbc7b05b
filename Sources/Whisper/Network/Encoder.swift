import Kernels

/// Whisper's audio encoder: two convolutions with GELU, sinusoidal positions, pre-norm
/// transformer layers, a final layer norm.
struct Encoder {
    let weights: WhisperWeights
    let attention: AttentionRunner

    /// The encoder output for `frames` mel frames (`melBins` rows of `frames` values, row-major;
    /// `frames` even): `[frames / 2][width]`.
    func encode(mel: UnsafePointer<Float>, frames: Int, pool: ThreadPool) -> [Float] {
        let config = weights.config
        let width = config.width
        let bins = config.melBins
        let positions = frames / 2
        precondition(frames % 2 == 0 && positions <= config.audioContext, "\(frames) frames do not fit the encoder")

        // conv1 (kernel 3, padding 1) as a product with im2col rows: column c·3 + k of row t
        // holds mel[c][t + k − 1].
        let columns1 = weights.conv1Columns
        var im2col = [Float](repeating: 0, count: frames * columns1)
        im2col.withUnsafeMutableBufferPointer { rows in
            Layers.parallelRows(frames, pool: pool, minimumRows: 64) { t in
                let row = rows.baseAddress! + t * columns1
                for c in 0..<bins {
                    for k in 0..<3 {
                        let s = t + k - 1
                        row[c * 3 + k] = s >= 0 && s < frames ? mel[c * frames + s] : 0
                    }
                }
            }
        }
        var hidden1 = [Float](repeating: 0, count: frames * width)
        hidden1.withUnsafeMutableBufferPointer { h in
            weights.conv1.apply(im2col, rows: frames, into: h.baseAddress!, pool: pool)
            Layers.gelu(h.baseAddress!, count: frames * width, pool: pool)
        }
        // conv2 (kernel 3, stride 2, padding 1): column c·3 + k of row t holds h1[2t + k − 1][c].
        let columns2 = 3 * width
        var im2col2 = [Float](repeating: 0, count: positions * columns2)
        hidden1.withUnsafeBufferPointer { h in
            im2col2.withUnsafeMutableBufferPointer { rows in
                Layers.parallelRows(positions, pool: pool, minimumRows: 32) { t in
                    let row = rows.baseAddress! + t * columns2
                    for k in 0..<3 {
                        let s = 2 * t + k - 1
                        guard s >= 0 && s < frames else { continue }
                        let source = h.baseAddress! + s * width
                        for c in 0..<width { row[c * 3 + k] = source[c] }
                    }
                }
            }
        }
        var x = [Float](repeating: 0, count: positions * width)
        x.withUnsafeMutableBufferPointer { x in
            let x = x.baseAddress!
            weights.conv2.apply(im2col2, rows: positions, into: x, pool: pool)
            Layers.gelu(x, count: positions * width, pool: pool)
            Layers.add(weights.encoderPositions, into: x, count: positions * width)

            let normed = UnsafeMutablePointer<Float>.allocate(capacity: positions * width)
            let qkv = UnsafeMutablePointer<Float>.allocate(capacity: positions * 3 * width)
            let attended = UnsafeMutablePointer<Float>.allocate(capacity: positions * width)
            let hidden = UnsafeMutablePointer<Float>.allocate(capacity: positions * config.feedForwardWidth)
            let heads = config.encoderHeads, headWidth = config.headWidth
            let keyFloats = HeadLayout.keyFloats(positions: positions, width: headWidth)
            let keys = UnsafeMutablePointer<Float>.allocate(capacity: heads * keyFloats)
            let values = UnsafeMutablePointer<Float>.allocate(capacity: heads * positions * headWidth)
            keys.initialize(repeating: 0, count: heads * keyFloats)
            defer {
                normed.deallocate()
                qkv.deallocate()
                attended.deallocate()
                hidden.deallocate()
                keys.deallocate()
                values.deallocate()
            }
            for layer in weights.encoderLayers {
                Layers.layerNorm(x, rows: positions, width: width, layer.attentionNorm, into: normed, pool: pool)
                layer.qkv.apply(normed, rows: positions, into: qkv, pool: pool)
                // Keys and values of each head in the kernels' layout.
                Layers.parallelRows(heads, pool: pool, minimumRows: 2) { h in
                    let k = keys + h * keyFloats, v = values + h * positions * headWidth
                    for t in 0..<positions {
                        let row = qkv + t * 3 * width
                        HeadLayout.storeKey(row + width + h * headWidth, position: t, width: headWidth, into: k)
                        (v + t * headWidth).update(from: row + 2 * width + h * headWidth, count: headWidth)
                    }
                }
                let groups = (positions + 3) / 4
                attention.run(count: heads * groups, width: headWidth, maximumLength: positions, pool: pool) { index in
                    let h = index / groups, first = (index % groups) * 4
                    return AttentionRunner.Item(
                        query: qkv + first * 3 * width + h * headWidth, queryStride: 3 * width,
                        output: attended + first * width + h * headWidth, outputStride: width,
                        count: min(4, positions - first),
                        keys: keys + h * keyFloats, values: values + h * positions * headWidth, length: positions)
                }
                layer.attentionOutput.apply(attended, rows: positions, into: normed, pool: pool)
                Layers.add(normed, into: x, count: positions * width)

                Layers.layerNorm(x, rows: positions, width: width, layer.feedForwardNorm, into: normed, pool: pool)
                layer.feedForwardIn.apply(normed, rows: positions, into: hidden, pool: pool)
                Layers.gelu(hidden, count: positions * config.feedForwardWidth, pool: pool)
                layer.feedForwardOut.apply(hidden, rows: positions, into: normed, pool: pool)
                Layers.add(normed, into: x, count: positions * width)
            }
            Layers.layerNorm(x, rows: positions, width: width, weights.encoderNorm, into: x, pool: pool)
        }
        return x
    }
}
