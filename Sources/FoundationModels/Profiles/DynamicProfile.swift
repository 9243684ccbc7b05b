extension LanguageModelSession {
    /// Which configuration a session runs with, decided from app state before every request
    /// (27 SDK): a body that resolves to one ``Profile``, with modifiers that set the model,
    /// sampling, reasoning, the history the model sees, and hooks.
    ///
    /// ```swift
    /// struct TutorProfile: LanguageModelSession.DynamicProfile {
    ///     var isQuizzing = false
    ///
    ///     var body: some LanguageModelSession.DynamicProfile {
    ///         if isQuizzing {
    ///             Profile { Instructions("Ask one question at a time.") }
    ///                 .temperature(0.2)
    ///         } else {
    ///             Profile { Instructions("Explain with examples.") }
    ///                 .historyTransform { Array($0.suffix(20)) }
    ///         }
    ///     }
    /// }
    /// let session = LanguageModelSession(profile: TutorProfile())
    /// ```
    ///
    /// Modifiers that set a value (`temperature`, `model`, …) apply from the outside in: an
    /// outer one gives a default that an inner one overrides. Hooks (`onPrompt`, `onResponse`,
    /// …) add up: each registered one runs, outer first. History transforms run outer first.
    public protocol DynamicProfile {
        /// The type of profile the body is.
        associatedtype Body: DynamicProfile

        /// The content of the profile.
        @DynamicProfileBuilder var body: Body { get }
    }

    /// A reusable wrapper around profile content.
    ///
    /// ```swift
    /// struct Terse: LanguageModelSession.DynamicProfileModifier {
    ///     func body(content: Content) -> some LanguageModelSession.DynamicProfile {
    ///         content.temperature(0).maximumResponseTokens(60)
    ///     }
    /// }
    /// ```
    public protocol DynamicProfileModifier {
        /// The type of profile the modifier's body makes.
        associatedtype Body: DynamicProfile
        /// The profile the modifier wraps.
        typealias Content = DynamicProfileModifierContent<Self>

        /// The modified profile.
        @DynamicProfileBuilder func body(content: Content) -> Body
    }

    /// A profile: dynamic instructions (the content and tools the model sees) bound to the
    /// configuration its modifiers set.
    public struct Profile: DynamicProfile, PrimitiveDynamicProfile {
        private let instructions: AnyDynamicInstructions

        /// A profile with the instructions and tools `content` lists.
        public init(@DynamicInstructionsBuilder _ content: () -> some DynamicInstructions) {
            instructions = AnyDynamicInstructions(content())
        }

        public var body: Never { preconditionFailure("Profile is a primitive of dynamic profiles") }

        package func apply(to resolved: inout ResolvedProfile) {
            resolved.instructions = instructions
            resolved.path.append("Profile")
        }
    }

    /// One of two profiles, as an `if`/`else` in a profile's body chose.
    public struct ConditionalDynamicProfile<TrueContent: DynamicProfile, FalseContent: DynamicProfile>: DynamicProfile,
        PrimitiveDynamicProfile
    {
        package enum Choice {
            case first(TrueContent)
            case second(FalseContent)
        }

        package let choice: Choice

        public var body: Never { preconditionFailure("ConditionalDynamicProfile is a primitive") }

        package func apply(to resolved: inout ResolvedProfile) {
            switch choice {
            case .first(let content):
                resolved.path.append("first")
                content.resolve(into: &resolved)
            case .second(let content):
                resolved.path.append("second")
                content.resolve(into: &resolved)
            }
        }
    }

    /// A profile of any type.
    public struct AnyDynamicProfile: DynamicProfile, PrimitiveDynamicProfile {
        private let profile: any DynamicProfile

        /// Erases the type of `dynamicProfile`.
        public init(_ dynamicProfile: any DynamicProfile) {
            profile = dynamicProfile
        }

        public var body: Never { preconditionFailure("AnyDynamicProfile is a primitive") }

        package func apply(to resolved: inout ResolvedProfile) {
            profile.resolve(into: &resolved)
        }
    }

    /// A profile with a modifier applied.
    public struct ModifiedDynamicProfile<Content: DynamicProfile, Modifier: DynamicProfileModifier>: DynamicProfile,
        PrimitiveDynamicProfile
    {
        package let content: Content
        package let modifier: Modifier

        public var body: Never { preconditionFailure("ModifiedDynamicProfile is a primitive") }

        package func apply(to resolved: inout ResolvedProfile) {
            if let setting = modifier as? any ProfileSettingModifier {
                // The outer setting first, so that what the content sets overrides it.
                setting.apply(to: &resolved)
                content.resolve(into: &resolved)
            } else {
                modifier.body(content: DynamicProfileModifierContent(content)).resolve(into: &resolved)
            }
        }
    }

    /// The content a ``DynamicProfileModifier`` wraps.
    public struct DynamicProfileModifierContent<Modifier: DynamicProfileModifier>: DynamicProfile,
        PrimitiveDynamicProfile
    {
        private let content: any DynamicProfile

        package init(_ content: any DynamicProfile) {
            self.content = content
        }

        public var body: Never { preconditionFailure("DynamicProfileModifierContent is a primitive") }

        package func apply(to resolved: inout ResolvedProfile) {
            content.resolve(into: &resolved)
        }
    }

    /// Builds a profile's body: one profile, chosen with `if`/`else` or `#available`.
    @resultBuilder
    public struct DynamicProfileBuilder {
        public static func buildBlock<Content: DynamicProfile>(_ content: Content) -> Content {
            content
        }

        public static func buildExpression<Content: DynamicProfile>(_ content: Content) -> Content {
            content
        }

        public static func buildEither<TrueContent, FalseContent>(first content: TrueContent)
            -> ConditionalDynamicProfile<TrueContent, FalseContent>
        {
            ConditionalDynamicProfile(choice: .first(content))
        }

        public static func buildEither<TrueContent, FalseContent>(second content: FalseContent)
            -> ConditionalDynamicProfile<TrueContent, FalseContent>
        {
            ConditionalDynamicProfile(choice: .second(content))
        }

        public static func buildLimitedAvailability(_ content: some DynamicProfile) -> AnyDynamicProfile {
            AnyDynamicProfile(content)
        }
    }
}

extension Never: LanguageModelSession.DynamicProfile {}

extension LanguageModelSession.DynamicProfile {
    /// The profile type a dynamic profile activates.
    public typealias Profile = LanguageModelSession.Profile
    /// The protocol itself, for `some DynamicProfile` in bodies.
    public typealias DynamicProfile = LanguageModelSession.DynamicProfile
    /// A session property, read in the body or the hooks.
    public typealias SessionProperty = LanguageModelSession.SessionProperty

    /// Applies `modifier` to this profile.
    public func modifier<Modifier: LanguageModelSession.DynamicProfileModifier>(_ modifier: Modifier)
        -> LanguageModelSession.ModifiedDynamicProfile<Self, Modifier>
    {
        LanguageModelSession.ModifiedDynamicProfile(content: self, modifier: modifier)
    }
}

extension LanguageModelSession.DynamicProfileModifier {
    /// The protocol of the content, for `some DynamicProfile` in bodies.
    public typealias DynamicProfile = LanguageModelSession.DynamicProfile
    /// A session property, read in the modifier's body.
    public typealias SessionProperty = LanguageModelSession.SessionProperty
}

/// Profiles that contribute directly instead of through a body.
package protocol PrimitiveDynamicProfile {
    func apply(to resolved: inout ResolvedProfile)
}

extension LanguageModelSession.DynamicProfile {
    /// Evaluates the profile (its bodies, down to a ``LanguageModelSession/Profile``) into
    /// `resolved`.
    package func resolve(into resolved: inout ResolvedProfile) {
        if let primitive = self as? any PrimitiveDynamicProfile {
            primitive.apply(to: &resolved)
        } else {
            resolved.path.append(String(describing: Self.self))
            body.resolve(into: &resolved)
        }
    }
}
