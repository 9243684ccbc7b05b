import ChatStore
import Foundation
import Synchronization

/// Keeps a server's ``AccessList`` in step with the store: every `interval` it reads the store's
/// access version (one small read, on a queue of its own) and, when it moved, reloads the list
/// and calls `changed` (the event hub then closes the sockets the list now refuses). `sotto
/// token revoke` and `sotto user disable` change the database from another process, so a
/// running server learns of them within `interval`.
final class UserAccessMonitor: @unchecked Sendable {
    // @unchecked Sendable: `timer` and `version` are only touched on `queue` (start, stop and
    // every refresh run there).
    private let store: ChatStore
    private let list: AccessList
    private let changed: @Sendable () -> Void
    private let queue = DispatchQueue(label: "sotto.access")
    private var timer: (any DispatchSourceTimer)?
    private var version: Int64?

    /// How often a running server looks for revoked tokens and disabled users.
    static let defaultInterval: DispatchTimeInterval = .seconds(1)

    init(store: ChatStore, list: AccessList, changed: @escaping @Sendable () -> Void) {
        self.store = store
        self.list = list
        self.changed = changed
    }

    /// Reads the store now, then every `interval`.
    func start(interval: DispatchTimeInterval = defaultInterval) {
        queue.sync {
            refreshOnQueue()
            let timer = DispatchSource.makeTimerSource(queue: queue)
            timer.schedule(deadline: .now() + interval, repeating: interval)
            timer.setEventHandler { [weak self] in self?.refreshOnQueue() }
            timer.resume()
            self.timer = timer
        }
    }

    func stop() {
        queue.sync {
            timer?.cancel()
            timer = nil
        }
    }

    /// Reads the store now (tests); true when the list changed.
    @discardableResult
    func refresh() -> Bool {
        queue.sync { refreshOnQueue() }
    }

    @discardableResult
    private func refreshOnQueue() -> Bool {
        // A busy or failing database leaves the list as it was; the next tick tries again.
        guard let current = try? store.accessVersion(), current != version,
            let restricted = try? store.restrictedAccess()
        else { return false }
        let first = version == nil
        version = current
        list.replace(with: restricted)
        if !first { changed() }
        return true
    }
}
