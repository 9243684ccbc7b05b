import Synchronization

extension LanguageModelSession {
    /// The snapshots of a response as it is generated, then the finished response.
    ///
    /// ```swift
    /// let stream = session.streamResponse(to: prompt, generating: ReplySuggestions.self)
    /// for try await snapshot in stream {
    ///     show(snapshot.content.replies ?? [])
    /// }
    /// let response = try await stream.collect()
    /// ```
    ///
    /// Snapshots are cumulative: each holds everything generated so far (a `String` response's
    /// text so far, or a `Generable` type's `PartiallyGenerated` value with the same `id`
    /// throughout). Several iterators may read the same stream; each sees every snapshot.
    public struct ResponseStream<Content>: AsyncSequence, Sendable where Content: Generable {
        package let core: ResponseStreamCore

        package init(core: ResponseStreamCore) {
            self.core = core
        }

        /// The response so far.
        public struct Snapshot {
            /// What has been generated, as the partially generated form of the content type.
            public var content: Content.PartiallyGenerated
            /// What has been generated, as generated content.
            public var rawContent: GeneratedContent
            /// The transcript entries of the request: empty until the response is finished.
            public var transcriptEntries: ArraySlice<Transcript.Entry>
            /// Tokens so far (the output count grows with each snapshot; the input count is known
            /// once the response is finished).
            public var usage: Usage
        }

        public func makeAsyncIterator() -> AsyncIterator {
            AsyncIterator(core: core)
        }

        /// Waits for the response to finish and returns it; returns at once if it already has,
        /// and rethrows its error if it failed.
        nonisolated(nonsending) public func collect() async throws -> Response<Content> {
            let raw = try await core.result()
            return Response(
                content: try Content(raw.rawContent), rawContent: raw.rawContent, transcriptEntries: raw.entries,
                usage: raw.usage)
        }

        /// Reads the snapshots of a stream.
        public struct AsyncIterator: AsyncIteratorProtocol {
            private let core: ResponseStreamCore
            /// How many text pieces this iterator has turned into snapshots.
            private var consumed = 0
            private var yieldedComplete = false
            private var finished = false

            fileprivate init(core: ResponseStreamCore) {
                self.core = core
            }

            public mutating func next() async throws -> Snapshot? {
                try await next(isolation: nil)
            }

            public mutating func next(isolation actor: isolated (any Actor)?) async throws -> Snapshot? {
                while !finished {
                    let progress = core.progress
                    if progress.pieceEnds.count > consumed {
                        consumed += 1
                        let text = String(
                            decoding: progress.text.utf8.prefix(progress.pieceEnds[consumed - 1]), as: UTF8.self)
                        if let snapshot = snapshot(of: text) { return snapshot }
                        continue
                    }
                    if let outcome = progress.outcome {
                        finished = true
                        let raw = try outcome.get()
                        if yieldedComplete { return nil }
                        guard let content = try? Content.PartiallyGenerated(raw.rawContent) else { return nil }
                        return Snapshot(
                            content: content, rawContent: raw.rawContent, transcriptEntries: raw.entries,
                            usage: raw.usage)
                    }
                    await core.waitForProgress(beyond: consumed)
                    try Task.checkCancellation()
                }
                return nil
            }

            /// The snapshot for response text `text`; nil while it cannot be read yet (JSON that
            /// has not started a value, or does not yet convert to `PartiallyGenerated`).
            private mutating func snapshot(of text: String) -> Snapshot? {
                let raw: GeneratedContent
                if core.isStructured {
                    guard let parsed = try? GeneratedContent(json: text) else { return nil }
                    raw = parsed.identified(by: core.responseID)
                } else {
                    raw = GeneratedContent(kind: .string(text), id: core.responseID, isComplete: false)
                }
                guard let content = try? Content.PartiallyGenerated(raw) else { return nil }
                yieldedComplete = raw.isComplete
                var usage = Usage.zero
                usage.output.totalTokenCount = consumed
                return Snapshot(content: content, rawContent: raw, transcriptEntries: [], usage: usage)
            }
        }
    }
}

extension LanguageModelSession.ResponseStream.Snapshot: Sendable where Content.PartiallyGenerated: Sendable {}

extension LanguageModelSession.ResponseStream where Content == String {
    /// A stream that has already finished with `text`.
    package init(finishedWith text: String, entries: [Transcript.Entry]) {
        let core = ResponseStreamCore(isStructured: false, responseID: GenerationID())
        core.append(text)
        core.finish(
            .success(
                LanguageModelSession.RawResponse(
                    rawContent: GeneratedContent(kind: .string(text), id: core.responseID), entries: entries[...],
                    usage: .zero)))
        self.init(core: core)
    }
}

/// The shared state of a response stream: the response text so far (in the pieces the engine
/// produced), then the outcome. The generating task writes it; iterators and `collect()` read it.
package final class ResponseStreamCore: Sendable {
    struct Progress {
        var text = ""
        /// The UTF-8 length of `text` after each piece.
        var pieceEnds: [Int] = []
        var outcome: Result<LanguageModelSession.RawResponse, any Error>?
    }

    fileprivate struct State {
        var progress = Progress()
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var nextWaiter = 0
    }

    let isStructured: Bool
    let responseID: GenerationID
    private let state = Mutex(State())

    init(isStructured: Bool, responseID: GenerationID) {
        self.isStructured = isStructured
        self.responseID = responseID
    }

    var progress: Progress { state.withLock { $0.progress } }

    /// Adds a piece of response text.
    @Sendable func append(_ piece: String) {
        let waiters = state.withLock { state in
            state.progress.text += piece
            state.progress.pieceEnds.append(state.progress.text.utf8.count)
            return state.takeWaiters()
        }
        waiters.forEach { $0.resume() }
    }

    /// Records the outcome; later calls are ignored.
    func finish(_ outcome: Result<LanguageModelSession.RawResponse, any Error>) {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            guard state.progress.outcome == nil else { return [] }
            state.progress.outcome = outcome
            return state.takeWaiters()
        }
        waiters.forEach { $0.resume() }
    }

    /// The finished response, waiting for it if needed.
    func result() async throws -> LanguageModelSession.RawResponse {
        while true {
            let progress = self.progress
            if let outcome = progress.outcome { return try outcome.get() }
            await waitForProgress(beyond: progress.pieceEnds.count)
            try Task.checkCancellation()
        }
    }

    /// Returns when there are more than `pieces` pieces, the stream has finished, or the task is
    /// cancelled.
    func waitForProgress(beyond pieces: Int) async {
        let id = state.withLock { state in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ready = state.withLock { state in
                    if state.progress.pieceEnds.count > pieces || state.progress.outcome != nil || Task.isCancelled {
                        return true
                    }
                    state.waiters[id] = continuation
                    return false
                }
                if ready { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
        }
    }
}

extension ResponseStreamCore.State {
    fileprivate mutating func takeWaiters() -> [CheckedContinuation<Void, Never>] {
        defer { waiters = [:] }
        return Array(waiters.values)
    }
}
