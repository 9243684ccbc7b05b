import ChatStore
import Foundation
import ServerKit
import Synchronization

/// Keeps a server's ``AccessList`` in step with the store: every `interval` it reads the store's
/// access version (one small read, on the store's reader threads) and, when it moved, reloads the
/// list and calls `changed` (the event hub then closes the sockets the list now refuses). `sotto
/// token revoke` and `sotto user disable` change the database from another process, so a
/// running server learns of them within `interval`.
///
/// An actor: one refresh at a time, whether the timer's or a test's.
actor UserAccessMonitor {
    private let store: ChatStore
    private let list: AccessList
    private let changed: @Sendable () -> Void
    private var version: Int64?
    private nonisolated let timer = Mutex<Task<Void, Never>?>(nil)

    /// How often a running server looks for revoked tokens and disabled users.
    static let defaultInterval: Duration = .seconds(1)

    init(store: ChatStore, list: AccessList, changed: @escaping @Sendable () -> Void) {
        self.store = store
        self.list = list
        self.changed = changed
    }

    /// Reads the store now, then every `interval` until ``stop()``.
    func start(interval: Duration = defaultInterval) async {
        await refresh()
        let task = Task.detached(priority: .utility) { [weak self] in
            while (try? await Task.sleep(for: interval)) != nil {
                guard let self else { return }
                await self.refresh()
            }
        }
        timer.withLock { $0 = task }
    }

    nonisolated func stop() {
        timer.withLock { task in
            task?.cancel()
            task = nil
        }
    }

    /// Reads the store now; true when the list changed.
    @discardableResult
    func refresh() async -> Bool {
        // A busy or failing database leaves the list as it was; the next tick tries again.
        guard let current = try? await store.accessVersion(), current != version,
            let restricted = try? await store.restrictedAccess()
        else { return false }
        let first = version == nil
        version = current
        list.replace(with: restricted)
        if !first { changed() }
        return true
    }
}
