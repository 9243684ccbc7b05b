import CSodium
import Executors
import Synchronization

/// Passwords hashed with argon2id through libsodium's `crypto_pwhash_argon2id_str`: memory-hard,
/// salted, the parameters kept in the stored string (`$argon2id$v=19$m=65536,t=2,p=1$…`), so a
/// later change of parameters still verifies the old hashes and can rehash them at sign-in.
///
/// Parameters: libsodium's "interactive" limits, 2 passes over 64 MiB (above OWASP's minimum of
/// 19 MiB and 2 passes); one hash takes about 0.1 s of one core. Hashing is blocking work, so it
/// runs on a thread of its own and never on Swift's cooperative pool; one thread bounds the
/// memory to one 64 MiB buffer and the rate to about ten sign-ins a second per server, and at
/// most ``maxWaiting`` requests wait for it (more are refused: the sign-in route answers 503).
///
/// A password is never logged, returned or kept: it is read from the request, hashed or
/// verified, and dropped.
package final class PasswordHasher: Sendable {
    package struct Busy: Error, CustomStringConvertible {
        package var description: String { "too many sign-ins at once; try again in a moment" }
    }

    /// The longest password taken (argon2 reads any length; a bound keeps a request small).
    package static let maxLength = 1024
    /// The shortest password a user may set.
    package static let minLength = 8
    package static let maxWaiting = 64

    package let opsLimit: UInt64
    package let memLimit: Int
    private let thread: WorkerThreads<Void>

    /// `opsLimit` and `memLimit` default to libsodium's interactive limits; tests pass the
    /// smallest argon2id accepts.
    package init(opsLimit: UInt64? = nil, memLimit: Int? = nil) {
        precondition(sodium_init() >= 0, "libsodium failed to initialise")
        self.opsLimit = opsLimit ?? UInt64(crypto_pwhash_argon2id_opslimit_interactive())
        self.memLimit = memLimit ?? Int(crypto_pwhash_argon2id_memlimit_interactive())
        thread = WorkerThreads(name: "sotto-passwords", count: 1)
    }

    deinit { thread.stop() }

    /// Parameters made for tests: argon2id's minimum passes and memory (fast, not for use).
    package static func forTests() -> PasswordHasher {
        PasswordHasher(
            opsLimit: UInt64(crypto_pwhash_argon2id_opslimit_min()),
            memLimit: Int(crypto_pwhash_argon2id_memlimit_min()))
    }

    /// The string to store for `password`.
    ///
    /// - Throws: ``Busy`` when ``maxWaiting`` requests are waiting already.
    package func hash(_ password: String) async throws -> String {
        try await run { [opsLimit, memLimit] in Self.hash(password, opsLimit: opsLimit, memLimit: memLimit) }
    }

    /// Whether `password` is the one `stored` was made from, in time that does not depend on
    /// where they differ. A `stored` that is no argon2id string never matches.
    package func verify(_ password: String, against stored: String) async throws -> Bool {
        try await run { Self.verify(password, against: stored) }
    }

    /// Spends the time a verification would, for a user that does not exist: a failed sign-in
    /// takes as long whether or not the name is taken.
    package func verifyNobody(_ password: String) async throws {
        let key = "\(opsLimit)/\(memLimit)"
        _ = try await run { [opsLimit, memLimit] in
            // A hash of nothing anyone can type, made with these parameters on first use.
            let dummy = Self.dummies.withLock { dummies in
                if let known = dummies[key] { return known }
                let made = Self.hash(String(repeating: "\u{1}", count: 16), opsLimit: opsLimit, memLimit: memLimit)
                dummies[key] = made
                return made
            }
            return Self.verify(password, against: dummy)
        }
    }

    /// Whether `stored` was made with other parameters than this hasher's (rehash at sign-in).
    package func needsRehash(_ stored: String) -> Bool {
        stored.withCString { crypto_pwhash_argon2id_str_needs_rehash($0, opsLimit, memLimit) != 0 }
    }

    private static let dummies = Mutex<[String: String]>([:])

    private static func hash(_ password: String, opsLimit: UInt64, memLimit: Int) -> String {
        var out = [CChar](repeating: 0, count: Int(crypto_pwhash_argon2id_strbytes()))
        // A terminator, not part of the password, so that even the empty one has an address.
        let bytes = Array(password.utf8CString)
        let result = bytes.withUnsafeBufferPointer { text in
            crypto_pwhash_argon2id_str(&out, text.baseAddress!, UInt64(text.count - 1), opsLimit, memLimit)
        }
        // Fails only when the memory cannot be had.
        precondition(result == 0, "argon2id could not allocate \(memLimit) bytes")
        let end = out.firstIndex(of: 0) ?? out.endIndex
        return String(decoding: out[..<end].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func verify(_ password: String, against stored: String) -> Bool {
        let bytes = Array(password.utf8CString)
        return stored.withCString { hash in
            bytes.withUnsafeBufferPointer { text in
                crypto_pwhash_argon2id_str_verify(hash, text.baseAddress!, UInt64(text.count - 1)) == 0
            }
        }
    }

    private func run<T: Sendable>(_ work: @escaping @Sendable () -> T) async throws -> T {
        guard thread.queuedCount < Self.maxWaiting else { throw Busy() }
        return try await thread.run { work() }
    }
}
