import CTesseract
import Executors
import Foundation

/// Reads the text in images with Tesseract (its English model, Debian's `tesseract-ocr-eng`).
///
/// One Tesseract instance, which is not thread-safe, owned by a thread of its own (a
/// ``Executors/ThreadExecutor``): recognitions run one at a time, off Swift's cooperative
/// threads.
// @unchecked Sendable: `api` and `failure` are created, used and ended only on `executor`'s
// thread (`recognizeNow` checks it).
final class TextRecognizer: @unchecked Sendable {
    /// What Tesseract read: the text, and the boxes of the words it is confident about.
    struct Recognition: Sendable {
        var text: String
        var wordBoxes: [(x: Int, y: Int, width: Int, height: Int)]
    }

    static let shared = TextRecognizer()

    private let executor = ThreadExecutor(name: "sotto.ocr")
    private var api: OpaquePointer?
    private var failure: String?

    /// Words read with less confidence than this (0–100) are left out of the text and of the
    /// text coverage. Rendered or scanned text reads at 90 and more; what Tesseract makes of the
    /// grain of a photo reads at 80 at most, nearly all of it below 70 (`photo.jpg` in the
    /// engine's test fixtures), and the rest is punctuation, which needs a letter or digit to pass.
    static let minimumWordConfidence: Float = 70

    private init() {}

    /// Runs `body` on the recognizer's thread, where it may call ``recognizeNow(_:)`` (and do the
    /// rest of an image's blocking work: reading, decoding).
    func run<T: Sendable>(_ body: @escaping @Sendable (TextRecognizer) throws -> T) async throws -> T {
        try await executor.run { [self] in try body(self) }
    }

    /// Reads the text in `image`.
    ///
    /// - Throws: ``ImageReadingError/recognizerUnavailable(_:)`` when Tesseract or its English
    ///   data cannot be loaded.
    func recognize(_ image: DecodedImage) async throws -> Recognition {
        try await run { try $0.recognizeNow(image) }
    }

    /// ``recognize(_:)`` on the recognizer's thread (inside ``run(_:)``).
    func recognizeNow(_ image: DecodedImage) throws -> Recognition {
        executor.checkIsolated()
        let api = try ready()
        TessBaseAPISetImage2(api, ctesseract_pix(image.pix))
        // Screenshots and scans carry no resolution; Tesseract's guess for 0 is noisy.
        TessBaseAPISetSourceResolution(api, 96)
        guard TessBaseAPIRecognize(api, nil) == 0 else {
            TessBaseAPIClear(api)
            return Recognition(text: "", wordBoxes: [])
        }
        defer { TessBaseAPIClear(api) }
        // Only the words Tesseract is confident about: on a photo it "reads" shapes as letters,
        // and that noise would reach the model as the image's text.
        var lines: [[String]] = []
        var boxes: [(x: Int, y: Int, width: Int, height: Int)] = []
        if let iterator = TessBaseAPIGetIterator(api) {
            defer { TessResultIteratorDelete(iterator) }
            let page = TessResultIteratorGetPageIterator(iterator)
            var startsLine = true
            repeat {
                if TessPageIteratorIsAtBeginningOf(page, RIL_TEXTLINE) != 0 { startsLine = true }
                var (left, top, right, bottom): (Int32, Int32, Int32, Int32) = (0, 0, 0, 0)
                guard TessPageIteratorBoundingBox(page, RIL_WORD, &left, &top, &right, &bottom) != 0 else { continue }
                guard TessResultIteratorConfidence(iterator, RIL_WORD) >= Self.minimumWordConfidence,
                    let raw = TessResultIteratorGetUTF8Text(iterator, RIL_WORD)
                else { continue }
                let word = String(cString: raw)
                TessDeleteText(raw)
                guard word.unicodeScalars.contains(where: CharacterSet.alphanumerics.contains) else { continue }
                if startsLine || lines.isEmpty { lines.append([]) }
                startsLine = false
                lines[lines.count - 1].append(word)
                boxes.append((Int(left), Int(top), Int(right - left), Int(bottom - top)))
            } while TessResultIteratorNext(iterator, RIL_WORD) != 0
        }
        let text = lines.map { $0.joined(separator: " ") }.joined(separator: "\n")
        return Recognition(text: text, wordBoxes: boxes)
    }

    /// The Tesseract instance, created on first use.
    private func ready() throws -> OpaquePointer {
        if let api { return api }
        if let failure { throw ImageReadingError.recognizerUnavailable(failure) }
        // Tesseract's OpenMP threads would compete with the engine's own compute pool.
        setenv("OMP_THREAD_LIMIT", "1", 0)
        guard let created = TessBaseAPICreate() else {
            failure = "Tesseract could not be started"
            throw ImageReadingError.recognizerUnavailable(failure!)
        }
        let dataPath = ProcessInfo.processInfo.environment["TESSDATA_PREFIX"]
        let status = dataPath.map { TessBaseAPIInit3(created, $0, "eng") } ?? TessBaseAPIInit3(created, nil, "eng")
        guard status == 0 else {
            TessBaseAPIDelete(created)
            failure =
                "Tesseract's English data (eng.traineddata) cannot be loaded"
                + (dataPath.map { " from TESSDATA_PREFIX=\($0)" } ?? "") + "; install tesseract-ocr-eng"
            throw ImageReadingError.recognizerUnavailable(failure!)
        }
        _ = TessBaseAPISetVariable(created, "debug_file", "/dev/null")
        api = created
        return created
    }
}
