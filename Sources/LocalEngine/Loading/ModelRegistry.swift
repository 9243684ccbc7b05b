import Executors
import Foundation
import FoundationModels
import GGUF
import Inference
import Synchronization

/// Loads each model file once per process, and says how far it got: the header (quick), then
/// the weights. Headers are read on the engine's preparation thread and weights loaded on its
/// loading thread (``EngineThreads``), never on a cooperative thread nor while a lock is held;
/// everyone who asks for a model that is loading waits (suspended) for the same load. A failed
/// load is remembered with the file's size and modification time, and tried again once the
/// file changes.
package final class ModelRegistry: Sendable {
    /// The registry of this process.
    package static let shared = ModelRegistry()

    private struct Entry {
        var identity: FileIdentity?
        var header: Task<ModelHeader, any Error>?
        /// The header once it has been read.
        var readHeader: ModelHeader?
        /// The context length, once known.
        var contextLength: Int?
        var model: Task<LoadedModel, any Error>?
        var state: EngineModelState = .notLoaded
    }

    /// A file's size and modification time: a different file at the same path is a different model.
    private struct FileIdentity: Equatable {
        var size: Int
        var modified: Date

        init?(path: String) {
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
                let size = (attributes[.size] as? NSNumber)?.intValue,
                let modified = attributes[.modificationDate] as? Date
            else { return nil }
            self.size = size
            self.modified = modified
        }
    }

    private let entries = Mutex<[String: Entry]>([:])
    private let observers = Mutex<(next: Int, handlers: [Int: @Sendable () -> Void])>((0, [:]))
    /// Where repacked weights are kept (nil: no cache).
    private let packedWeightsDirectory: String?

    package init(packedWeightsDirectory: String? = nil) {
        self.packedWeightsDirectory = packedWeightsDirectory
    }

    /// The header of the model at `path`, reading it on first use.
    package func header(path: String) async throws -> ModelHeader {
        let identity = FileIdentity(path: path)
        let task = entries.withLock { entries -> Task<ModelHeader, any Error> in
            var entry = Self.current(entries[path], identity: identity)
            if let task = entry.header { return task }
            let task = Task(executorPreference: EngineThreads.preparation) { try ModelHeader(path: path) }
            entry.header = task
            entries[path] = entry
            return task
        }
        let header = try await task.value
        entries.withLock { entries in
            entries[path]?.readHeader = header
            entries[path]?.contextLength = header.contextLength
        }
        return header
    }

    /// The context length the model at `path` was trained for: from its header when it has been
    /// read, else read from the file's metadata now (a few milliseconds; the weights and the
    /// vocabulary are not touched); nil when the file cannot be read.
    package func contextLength(path: String) -> Int? {
        if let known = entries.withLock({ $0[path]?.contextLength }) { return known }
        guard let file = try? GGUFFile(path: path), let architecture = file.string(GGUFKey.architecture),
            let length = file.int(GGUFKey.contextLength(architecture))
        else { return nil }
        let identity = FileIdentity(path: path)
        entries.withLock { entries in
            var entry = Self.current(entries[path], identity: identity)
            entry.contextLength = length
            entries[path] = entry
        }
        return length
    }

    /// The loaded model at `path`, loading it on first use (the caller waits; others asking
    /// meanwhile wait for the same load).
    package func model(path: String) async throws -> LoadedModel {
        let identity = FileIdentity(path: path)
        let (task, started) = entries.withLock { entries -> (Task<LoadedModel, any Error>, Bool) in
            var entry = Self.current(entries[path], identity: identity)
            if let task = entry.model {
                entries[path] = entry
                return (task, false)
            }
            let packed = packedWeightsDirectory
            // The task's own code (the load) runs on the loading thread; it waits, suspended,
            // for the header read on the preparation thread.
            let task = Task(executorPreference: EngineThreads.loading) { [self] in
                let header = try await header(path: path)
                do {
                    // The header's chat format: the tokenizer and template are built once.
                    let model = try Model(path: path, packedWeightsDirectory: packed, chatFormat: header.chatFormat)
                    return LoadedModel(header: header, model: model)
                } catch {
                    throw LanguageModelSession.GenerationError.assetsUnavailable(
                        .init(debugDescription: "The model file \(path) could not be loaded: \(error)"))
                }
            }
            entry.model = task
            entry.state = .loading
            entries[path] = entry
            return (task, true)
        }
        if started {
            notify()
            Task(executorPreference: EngineThreads.preparation) { [self] in await record(task, path: path) }
        }
        return try await task.value
    }

    /// Starts loading `path` in the background.
    package func startLoading(path: String) {
        Task(executorPreference: EngineThreads.loading) { [self] in _ = try? await model(path: path) }
    }

    /// How far the model at `path` got.
    package func state(path: String) -> EngineModelState {
        let state = entries.withLock { $0[path].map { ($0.state, $0.identity) } }
        guard let (state, identity) = state else { return .notLoaded }
        // stat() outside the lock: a slow disk must not hold up everyone asking.
        if case .failed = state, identity != FileIdentity(path: path) { return .notLoaded }
        return state
    }

    /// Calls `handler` whenever a model's state changes, until the observation is released.
    package func observeStates(_ handler: @escaping @Sendable () -> Void) -> EngineObservation {
        let id = observers.withLock { observers in
            observers.next += 1
            observers.handlers[observers.next] = handler
            return observers.next
        }
        return EngineObservation { [weak self] in _ = self?.observers.withLock { $0.handlers.removeValue(forKey: id) } }
    }

    // MARK: Helpers

    /// The entry for a file now of `identity` (read before the lock is taken), forgotten if it
    /// failed on a file that has changed since.
    private static func current(_ entry: Entry?, identity: FileIdentity?) -> Entry {
        guard var entry, entry.identity == identity else { return Entry(identity: identity) }
        if case .failed = entry.state {
            entry = Entry(identity: identity)
        }
        return entry
    }

    private func record(_ task: Task<LoadedModel, any Error>, path: String) async {
        let outcome = await task.result
        entries.withLock { entries in
            guard var entry = entries[path], entry.model == task else { return }
            switch outcome {
            case .success: entry.state = .loaded
            case .failure(let error): entry.state = .failed(Self.reason(error))
            }
            entries[path] = entry
        }
        notify()
    }

    private func notify() {
        let handlers = observers.withLock { Array($0.handlers.values) }
        handlers.forEach { $0() }
    }

    private static func reason(_ error: any Error) -> String {
        if let error = error as? LanguageModelSession.GenerationError { return error.context.debugDescription }
        return "\(error)"
    }
}
