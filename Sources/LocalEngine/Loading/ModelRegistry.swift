import Foundation
import FoundationModels
import GGUF
import Inference
import Synchronization

/// Loads each model file once per process, and says how far it got: the header (quick), then
/// the weights. Loads run in tasks of their own, never while a lock is held; everyone who asks
/// for a model that is loading waits for the same load. A failed load is remembered with the
/// file's size and modification time, and tried again once the file changes.
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
        let task = entries.withLock { entries -> Task<ModelHeader, any Error> in
            var entry = current(entries[path], path: path)
            if let task = entry.header { return task }
            let task = Task.detached(priority: .userInitiated) { try ModelHeader(path: path) }
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
        entries.withLock { entries in
            var entry = current(entries[path], path: path)
            entry.contextLength = length
            entries[path] = entry
        }
        return length
    }

    /// The loaded model at `path`, loading it on first use (the caller waits; others asking
    /// meanwhile wait for the same load).
    package func model(path: String) async throws -> LoadedModel {
        let (task, started) = entries.withLock { entries -> (Task<LoadedModel, any Error>, Bool) in
            var entry = current(entries[path], path: path)
            if let task = entry.model {
                entries[path] = entry
                return (task, false)
            }
            let packed = packedWeightsDirectory
            let task = Task.detached(priority: .userInitiated) { [self] in
                let header = try await header(path: path)
                do {
                    let model = try Model(path: path, packedWeightsDirectory: packed)
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
            Task.detached { [self] in await record(task, path: path) }
        }
        return try await task.value
    }

    /// Starts loading `path` in the background.
    package func startLoading(path: String) {
        Task.detached(priority: .utility) { [self] in _ = try? await model(path: path) }
    }

    /// How far the model at `path` got.
    package func state(path: String) -> EngineModelState {
        entries.withLock { entries in
            guard let entry = entries[path] else { return .notLoaded }
            if case .failed = entry.state, entry.identity != FileIdentity(path: path) { return .notLoaded }
            return entry.state
        }
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

    /// The entry for `path`, forgotten if it failed on a file that has changed since.
    private func current(_ entry: Entry?, path: String) -> Entry {
        let identity = FileIdentity(path: path)
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
