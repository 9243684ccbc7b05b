import Observation
import Synchronization

/// A key for a custom session property (27 SDK): its type and default value. Usually written by
/// ``SessionPropertyEntry()``.
public protocol SessionPropertyKey: SendableMetatype {
    /// The type of the property's value.
    associatedtype Value
    /// The value before anything set it.
    static var defaultValue: Value { get }
}

/// The properties of a session (27 SDK): its history, and custom properties declared with
/// ``SessionPropertyEntry()``, read and written with ``LanguageModelSession/SessionProperty``
/// from profiles, dynamic instructions and tools.
///
/// ```swift
/// extension SessionPropertyValues {
///     @SessionPropertyEntry var accountID: String = "anonymous"
/// }
/// ```
public final class SessionPropertyValues: Sendable, Observable {
    /// The session, for its history; weak, since the session owns this container.
    private let owner = Mutex(Owner())
    private let custom = Mutex(CustomValues())

    private struct Owner {
        weak var session: LanguageModelSession?
    }

    private var session: LanguageModelSession? { owner.withLock { $0.session } }
    private let registrar = ObservationRegistrar()

    /// Custom values by key. `@unchecked Sendable`: the values are only touched while holding
    /// the container's lock, and a value a key's type does not make `Sendable` is the app's
    /// own, as with Apple's framework (a session answers one request at a time).
    private struct CustomValues: @unchecked Sendable {
        var values: [ObjectIdentifier: Any] = [:]
    }

    package init() {}

    /// Makes this the container of `session` (done once, as the session is made).
    package func attach(to session: LanguageModelSession) {
        owner.withLock { $0.session = session }
    }

    /// The history portion of the session's transcript: the entries after its instructions.
    /// Setting it replaces them (from a hook, during a request, too).
    public var history: Transcript.HistoryView {
        get {
            registrar.access(self, keyPath: \.history)
            return session?.transcript.history ?? []
        }
        set {
            registrar.withMutation(of: self, keyPath: \.history) {
                session?.replaceHistory(with: newValue)
            }
        }
    }

    /// The value of a custom property.
    public subscript<K: SessionPropertyKey>(key: K.Type) -> K.Value {
        get {
            custom.withLock { $0.values[ObjectIdentifier(key)] as? K.Value } ?? K.defaultValue
        }
        set {
            nonisolated(unsafe) let value = newValue
            custom.withLock { $0.values[ObjectIdentifier(key)] = value }
        }
    }

    /// The properties of the session whose profile, instructions or tools run in this task.
    @TaskLocal package static var current: SessionPropertyValues?
}

extension LanguageModelSession {
    /// Reads and writes a property of the session whose profile, dynamic instructions or tool
    /// is running (27 SDK).
    ///
    /// ```swift
    /// struct CompactingProfile: LanguageModelSession.DynamicProfile {
    ///     @SessionProperty(\.history) var history
    ///
    ///     var body: some LanguageModelSession.DynamicProfile {
    ///         Profile { Instructions("Be brief.") }
    ///             .onResponse {
    ///                 if history.count > 100 { history = Transcript.HistoryView(history.suffix(50)) }
    ///             }
    ///     }
    /// }
    /// ```
    ///
    /// It can be read only while the session evaluates a profile's or instructions' body, runs
    /// one of its hooks, or calls one of its tools: elsewhere there is no session to read.
    @propertyWrapper
    public struct SessionProperty<Value>: Sendable {
        // The key path names a property of a Sendable class; `Sendable` itself is not in its
        // type (`ReferenceWritableKeyPath` is not Sendable), but it holds no state.
        nonisolated(unsafe) private let keyPath: ReferenceWritableKeyPath<SessionPropertyValues, Value>

        /// A property read through `keyPath` of the session's ``SessionPropertyValues``.
        public init(_ keyPath: ReferenceWritableKeyPath<SessionPropertyValues, Value>) {
            self.keyPath = keyPath
        }

        /// The property's value in the session that runs this code.
        public var wrappedValue: Value {
            get { Self.values()[keyPath: keyPath] }
            nonmutating set { Self.values()[keyPath: keyPath] = newValue }
        }

        private static func values() -> SessionPropertyValues {
            guard let values = SessionPropertyValues.current else {
                preconditionFailure(
                    "@SessionProperty was read outside a session: only a profile's or dynamic instructions' body, "
                        + "a profile's hooks and a session's tools can read session properties")
            }
            return values
        }
    }
}

extension Tool {
    /// A session property, read while the session calls the tool.
    public typealias SessionProperty = LanguageModelSession.SessionProperty
}
