import FoundationModels

// History modifiers as Apple's `foundation-models-utilities` offers them, written with the public
// API: a rolling window over the transcript, and dropping the tool calls a later answer has
// used. Both act on what the model is shown (`historyTransform`); the session keeps the whole
// transcript.

extension LanguageModelSession.DynamicProfile {
    /// Shows the model only the most recent `entries` transcript entries.
    ///
    /// ```swift
    /// Profile { Instructions("You are a helpful assistant.") }
    ///     .rollingWindow(entries: 10)
    ///     .droppingCompletedToolCalls()
    /// ```
    public func rollingWindow(entries: Int) -> some DynamicProfile {
        rollingWindow(size: .entries(entries))
    }

    /// Shows the model only the most recent part of the transcript, as `size` measures it.
    public func rollingWindow(size: RollingWindowSize) -> some DynamicProfile {
        modifier(RollingWindowModifier(size: size))
    }

    /// Shows the model the tool calls and outputs of the last exchange only.
    public func droppingCompletedToolCalls() -> some DynamicProfile {
        modifier(DropCompletedToolCallsModifier())
    }
}

/// How a rolling window is measured.
public enum RollingWindowSize: Sendable {
    /// The most recent entries (all of them when there are fewer).
    case entries(Int)
}

private struct RollingWindowModifier: LanguageModelSession.DynamicProfileModifier {
    let size: RollingWindowSize

    func body(content: Content) -> some DynamicProfile {
        content.historyTransform { history in
            switch size {
            case .entries(let count): Array(history.suffix(count))
            }
        }
    }
}

private struct DropCompletedToolCallsModifier: LanguageModelSession.DynamicProfileModifier {
    func body(content: Content) -> some DynamicProfile {
        content.historyTransform { history in
            // Everything before the model's latest output loses its tool entries.
            let lastOutput =
                history.lastIndex { entry in
                    switch entry {
                    case .response, .toolCalls: true
                    default: false
                    }
                } ?? history.startIndex
            let earlier = history[..<lastOutput].filter { entry in
                switch entry {
                case .toolCalls, .toolOutput: false
                default: true
                }
            }
            return earlier + history[lastOutput...]
        }
    }
}
