import AudioDecoding
import Foundation

/// A clip and what the oracle (faster-whisper 1.2.1, ctranslate2 4.8.5) made of it, from
/// `scripts/make-whisper-fixtures.py`.
struct OracleFixture: Decodable {
    let text: String
    let samples: Int
    let mel_frames: Int
    let mel: [Float]
    let encoder_rows: [Int]
    let encoder: [[Float]]
    let encoder_mean_abs: Float
    let greedy_float32: [Int]
    let greedy_int8: [Int]
    let language: [LanguageField]

    enum LanguageField: Decodable {
        case code(String)
        case probability(Float)
        init(from decoder: any Decoder) throws {
            let c = try decoder.singleValueContainer()
            if let s = try? c.decode(String.self) {
                self = .code(s)
            } else {
                self = .probability(try c.decode(Float.self))
            }
        }
    }

    static let names = ["fox", "meeting"]

    static func load(_ name: String) throws -> OracleFixture {
        let url = Bundle.module.url(forResource: "Fixtures/\(name)", withExtension: "json")!
        return try JSONDecoder().decode(OracleFixture.self, from: Data(contentsOf: url))
    }

    /// The clip's 16 kHz samples.
    static func samples(_ name: String) throws -> [Float] {
        let url = Bundle.module.url(forResource: "Fixtures/\(name)", withExtension: "wav")!
        return try AudioInput.samples(wav: Array(try Data(contentsOf: url)))
    }
}
