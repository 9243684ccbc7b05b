import Foundation
import Whisper

/// The speech model behind `/v1/audio/transcriptions`: loaded at the first request, run on a
/// thread of its own, one transcription at a time, at most `capacity` admitted (running or
/// waiting). The request's handler thread waits for its result.
public final class TranscriptionService: @unchecked Sendable {
    // @unchecked Sendable: `jobs`, `admitted`, `model` and `loadFailure` are only touched while
    // holding `condition` (the model itself is Sendable and used on the worker thread).

    /// Why a transcription was not run.
    enum Refusal: Error, Equatable {
        /// No speech model: the reason says how to get one.
        case unavailable(String)
        /// `capacity` transcriptions are already admitted.
        case busy(capacity: Int)
    }

    /// The model's name as the API shows it, e.g. `whisper-base`.
    public let modelID: String
    /// How many transcriptions are admitted at once.
    public let capacity: Int
    private let directory: URL?
    private let unavailableReason: String
    private let condition = NSCondition()
    private var jobs: [() -> Void] = []
    private var admitted = 0
    private var worker: Thread?
    private var model: WhisperModel?
    private var loadFailure: String?

    /// A service for the model in `directory`.
    public init(modelID: String, directory: URL, capacity: Int = 4) {
        self.modelID = modelID
        self.directory = directory
        self.capacity = capacity
        unavailableReason = ""
    }

    /// A service without a model: every request is answered 503 with `reason`.
    public init(unavailable reason: String) {
        modelID = ""
        directory = nil
        capacity = 0
        unavailableReason = reason
    }

    /// Whether a model is configured (it may still fail to load).
    public var isAvailable: Bool { directory != nil }

    /// Transcribes on the worker thread, blocking the caller until the result is there.
    func transcribe(_ samples: [Float], options: TranscriptionOptions) throws(Refusal) -> Transcription {
        guard let directory else { throw .unavailable(unavailableReason) }
        condition.lock()
        guard admitted < capacity else {
            condition.unlock()
            throw .busy(capacity: capacity)
        }
        admitted += 1
        var outcome: Result<Transcription, Refusal>?
        jobs.append { [self] in
            let result: Result<Transcription, Refusal>
            switch loadedModel(directory) {
            case .success(let model): result = .success(model.transcribe(samples, options: options))
            case .failure(let error): result = .failure(error)
            }
            condition.lock()
            outcome = result
            admitted -= 1
            condition.broadcast()
            condition.unlock()
        }
        if worker == nil {
            let thread = Thread { [unowned self] in self.loop() }
            thread.name = "sotto.transcriptions"
            thread.stackSize = 8 << 20
            worker = thread
            thread.start()
        }
        condition.broadcast()
        while outcome == nil { condition.wait() }
        condition.unlock()
        return try outcome!.get()
    }

    /// The model, loaded on first use (on the worker thread).
    private func loadedModel(_ directory: URL) -> Result<WhisperModel, Refusal> {
        condition.lock()
        let (model, failure) = (self.model, loadFailure)
        condition.unlock()
        if let model { return .success(model) }
        if let failure { return .failure(.unavailable(failure)) }
        do {
            let loaded = try WhisperModel(directory: directory)
            condition.lock()
            self.model = loaded
            condition.unlock()
            return .success(loaded)
        } catch {
            condition.lock()
            loadFailure = "the speech model cannot be loaded: \(error)"
            condition.unlock()
            return .failure(.unavailable("the speech model cannot be loaded: \(error)"))
        }
    }

    private func loop() {
        while true {
            condition.lock()
            while jobs.isEmpty { condition.wait() }
            let job = jobs.removeFirst()
            condition.unlock()
            job()
        }
    }
}
