import Dispatch
import Foundation
import FoundationModels
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Tells registered handlers when a file may have appeared, changed or gone, from the kernel's
/// directory events (inotify): what replaced polling the model file once a second.
///
/// Each registration names files; the watcher follows the directory of each (or, while that
/// directory does not exist, its nearest existing ancestor, so that its creation is seen too),
/// and calls the handler on any event there. Handlers run on the watcher's own queue, not on
/// Swift's cooperative pool, and must be quick.
final class FileWatcher: Sendable {
    /// The watcher of this process (one inotify descriptor for every model).
    static let shared = FileWatcher()

    private struct Registration {
        var files: [String]
        var handler: @Sendable () -> Void
        /// The directories watched for it now.
        var directories: Set<String> = []
    }

    private struct State {
        var registrations: [Int: Registration] = [:]
        var nextID = 0
        /// Watch descriptors by directory, and how many registrations use each.
        var watches: [String: (descriptor: Int32, users: Int)] = [:]
    }

    private let descriptor: Int32
    private let queue = DispatchQueue(label: "sotto.file-watcher")
    private let state = Mutex(State())
    /// Reads the descriptor when events arrive. `nonisolated(unsafe)`: set once in `init` and
    /// never touched again but to keep it alive (a dispatch source is thread-safe itself).
    nonisolated(unsafe) private let source: (any DispatchSourceRead)?

    private init() {
        descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        // Without inotify there are no events: availability is then only read on demand.
        source = descriptor >= 0 ? DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: queue) : nil
        source?.setEventHandler { [weak self] in self?.drainEvents() }
        source?.resume()
    }

    /// Calls `handler` on every change in the directories of `files`, until the returned
    /// observation is released.
    func watch(_ files: [String], handler: @escaping @Sendable () -> Void) -> EngineObservation {
        let id = state.withLock { state -> Int in
            state.nextID += 1
            state.registrations[state.nextID] = Registration(files: files, handler: handler)
            rearm(id: state.nextID, in: &state)
            return state.nextID
        }
        return EngineObservation { [weak self] in self?.remove(id) }
    }

    private func remove(_ id: Int) {
        state.withLock { state in
            guard let registration = state.registrations.removeValue(forKey: id) else { return }
            for directory in registration.directories { release(directory, in: &state) }
        }
    }

    /// Points registration `id` at the nearest existing directory of each of its files.
    private func rearm(id: Int, in state: inout State) {
        guard descriptor >= 0, var registration = state.registrations[id] else { return }
        let wanted = Set(registration.files.map { Self.nearestExistingDirectory(of: $0) })
        for directory in wanted.subtracting(registration.directories) {
            if let watch = state.watches[directory] {
                state.watches[directory] = (watch.descriptor, watch.users + 1)
            } else {
                let mask = UInt32(
                    IN_CREATE | IN_DELETE | IN_MOVED_TO | IN_MOVED_FROM | IN_CLOSE_WRITE | IN_ATTRIB | IN_DELETE_SELF
                        | IN_MOVE_SELF)
                let watch = inotify_add_watch(descriptor, directory, mask)
                guard watch >= 0 else { continue }
                state.watches[directory] = (watch, 1)
            }
        }
        for directory in registration.directories.subtracting(wanted) { release(directory, in: &state) }
        registration.directories = wanted.filter { state.watches[$0] != nil }
        state.registrations[id] = registration
    }

    private func release(_ directory: String, in state: inout State) {
        guard let watch = state.watches[directory] else { return }
        if watch.users > 1 {
            state.watches[directory] = (watch.descriptor, watch.users - 1)
        } else {
            inotify_rm_watch(descriptor, watch.descriptor)
            state.watches[directory] = nil
        }
    }

    /// Reads every pending event, re-arms the registrations (a directory may have appeared or
    /// gone), and calls the handlers once.
    private func drainEvents() {
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        var sawEvent = false
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count <= 0 { break }
            sawEvent = true
        }
        guard sawEvent else { return }
        let handlers = state.withLock { state -> [@Sendable () -> Void] in
            // Watches of directories that were deleted are gone from the kernel; forget them.
            for (directory, watch) in state.watches where !Self.isDirectory(directory) {
                inotify_rm_watch(descriptor, watch.descriptor)
                state.watches[directory] = nil
                for id in state.registrations.keys { state.registrations[id]?.directories.remove(directory) }
            }
            for id in state.registrations.keys { rearm(id: id, in: &state) }
            return state.registrations.values.map(\.handler)
        }
        handlers.forEach { $0() }
    }

    /// The directory of `file`, or its nearest ancestor that exists.
    static func nearestExistingDirectory(of file: String) -> String {
        var directory = (file as NSString).deletingLastPathComponent
        while !directory.isEmpty, directory != "/", !isDirectory(directory) {
            directory = (directory as NSString).deletingLastPathComponent
        }
        return directory.isEmpty ? "/" : directory
    }

    private static func isDirectory(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
    }
}
