import Executors
import Foundation
import ServerKit
import Synchronization
import Whisper

/// The speech model behind `/v1/audio/transcriptions`: loaded at the first request, run on a
/// thread of its own that owns it, one transcription at a time, at most `capacity` admitted
/// (running or waiting). A request's task awaits its result without holding a thread.
public final class TranscriptionService: Sendable {
    /// Why a transcription was not run.
    package enum Refusal: Error, Equatable {
        /// No speech model: the reason says how to get one.
        case unavailable(String)
        /// `capacity` transcriptions are already admitted.
        case busy(capacity: Int)
    }

    /// The model's name as the API shows it, e.g. `whisper-base`.
    public let modelID: String
    /// How many transcriptions are admitted at once.
    public let capacity: Int
    private let unavailableReason: String
    private let admitted = Mutex(0)
    /// The one thread that loads and runs the model (nil: no model configured).
    private let worker: WorkerThreads<SpeechModelSlot>?

    /// A service for the model in `directory`.
    public init(modelID: String, directory: URL, capacity: Int = 4) {
        self.modelID = modelID
        self.capacity = capacity
        unavailableReason = ""
        worker = WorkerThreads(
            name: "sotto.transcriptions", resources: [SpeechModelSlot(directory: directory)], stackSize: 8 << 20)
    }

    /// A service without a model: every request is answered 503 with `reason`.
    public init(unavailable reason: String) {
        modelID = ""
        capacity = 0
        unavailableReason = reason
        worker = nil
    }

    deinit { worker?.stop() }

    /// Whether a model is configured (it may still fail to load).
    public var isAvailable: Bool { worker != nil }

    /// What the web app needs to know to offer dictation (`speech` in `GET /api/me`).
    package var state: SpeechState {
        SpeechState(available: isAvailable, model: isAvailable ? modelID : nil, message: unavailableReason)
    }

    /// Decodes the audio (`samples`) and transcribes it on the model's thread. Throws a
    /// ``Refusal``, or what `samples` throws.
    package func transcribe(
        options: TranscriptionOptions, samples: @escaping @Sendable () throws -> [Float]
    ) async throws -> Transcription {
        guard let worker else { throw Refusal.unavailable(unavailableReason) }
        let capacity = capacity
        let admittedNow = admitted.withLock { count in
            guard count < capacity else { return false }
            count += 1
            return true
        }
        guard admittedNow else { throw Refusal.busy(capacity: capacity) }
        defer { admitted.withLock { $0 -= 1 } }
        return try await worker.run { slot in
            let model = try slot.model().get()
            return model.transcribe(try samples(), options: options)
        }
    }
}

/// Speech to text as the web app sees it: whether the composers offer the microphone.
package struct SpeechState: Encodable, Sendable {
    /// Whether a speech model is configured (it loads at the first transcription).
    package var available: Bool
    /// The speech model's id, e.g. `whisper-base`.
    package var model: String?
    /// Why there is none and what to do; empty when there is one.
    package var message: String

    package init(available: Bool, model: String?, message: String) {
        self.available = available
        self.model = model
        self.message = message
    }
}

/// The speech model, loaded on first use by the one thread that owns the slot.
private final class SpeechModelSlot {
    private let directory: URL
    private var loaded: Result<WhisperModel, TranscriptionService.Refusal>?

    package init(directory: URL) {
        self.directory = directory
    }

    package func model() -> Result<WhisperModel, TranscriptionService.Refusal> {
        if let loaded { return loaded }
        let result: Result<WhisperModel, TranscriptionService.Refusal>
        do {
            result = .success(try WhisperModel(directory: directory))
        } catch {
            result = .failure(.unavailable("the speech model cannot be loaded: \(error)"))
        }
        loaded = result
        return result
    }
}
