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
    ///
    /// A stream nobody reads stops its generation: when every iterator that read it has stopped
    /// before the end (the loop was left, or its task cancelled) and no `collect()` is waiting,
    /// or when the stream and its iterators are gone, generation stops within a token, the
    /// session is free for another request, and its transcript keeps the prompt and the partial
    /// response. (`collect()` on such a stream throws `CancellationError`.)
    public struct ResponseStream<Content>: AsyncSequence, Sendable where Content: Generable {
        public typealias Element = Snapshot
        public typealias Failure = any Swift.Error

        package let handle: StreamHandle

        package init(handle: StreamHandle) {
            self.handle = handle
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
            AsyncIterator(handle: handle)
        }

        /// Waits for the response to finish and returns it; returns at once if it already has,
        /// and rethrows its error if it failed.
        nonisolated(nonsending) public func collect() async throws -> sending Response<Content> {
            handle.collectStarted()
            defer { handle.collectEnded() }
            let raw = try await handle.core.result()
            return Response(
                content: try Content(raw.rawContent), rawContent: raw.rawContent, transcriptEntries: raw.entries,
                usage: raw.usage)
        }

        /// Reads the snapshots of a stream.
        public struct AsyncIterator: AsyncIteratorProtocol {
            private let core: ResponseStreamCore
            private let reader: StreamReader
            /// How many changes this iterator has turned into snapshots.
            private var consumed = 0
            private var outputTokens = 0
            private var text = ""
            private var parser: IncrementalJSONParser
            private var yieldedComplete = false
            private var finished = false

            fileprivate init(handle: StreamHandle) {
                core = handle.core
                reader = StreamReader(handle: handle)
                parser = IncrementalJSONParser(base: handle.core.responseID)
            }

            public mutating func next() async throws -> Snapshot? {
                try await next(isolation: nil)
            }

            public mutating func next(isolation actor: isolated (any Actor)?) async throws -> Snapshot? {
                while !finished {
                    let (changes, outcome) = core.changes(after: consumed)
                    if let change = changes.first {
                        // One snapshot per change, as the executor sent them.
                        consumed += 1
                        if let snapshot = snapshot(after: change) { return snapshot }
                        continue
                    }
                    if let outcome {
                        finished = true
                        reader.reachedEnd()
                        let raw = try outcome.get()
                        if yieldedComplete { return nil }
                        guard let content = try? Content.PartiallyGenerated(raw.rawContent) else { return nil }
                        return Snapshot(
                            content: content, rawContent: raw.rawContent, transcriptEntries: raw.entries,
                            usage: raw.usage)
                    }
                    await core.waitForChange(beyond: consumed)
                    if Task.isCancelled {
                        reader.stop()
                        throw CancellationError()
                    }
                }
                return nil
            }

            /// The snapshot after `change` to the response text; nil while it cannot be read yet
            /// (JSON that has not started a value, or does not yet convert to `PartiallyGenerated`).
            private mutating func snapshot(after change: TurnAccumulator.TextChange) -> Snapshot? {
                switch change {
                case .appended(let piece, let tokens):
                    outputTokens += tokens
                    if !core.isStructured {
                        text += piece
                    } else if (try? parser.append(piece.utf8)) == nil {
                        return nil
                    }
                case .replaced(let whole, let tokens):
                    outputTokens += tokens
                    if !core.isStructured {
                        text = whole
                    } else {
                        parser = IncrementalJSONParser(base: core.responseID)
                        if (try? parser.append(whole.utf8)) == nil { return nil }
                    }
                }
                let raw: GeneratedContent
                if core.isStructured {
                    guard let parsed = try? parser.snapshot() else { return nil }
                    raw = parsed
                } else {
                    raw = GeneratedContent(kind: .string(text), id: core.responseID, isComplete: false)
                }
                guard let content = try? Content.PartiallyGenerated(raw) else { return nil }
                yieldedComplete = raw.isComplete
                var usage = Usage.zero
                usage.output.totalTokenCount = outputTokens
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
        core.update(.appended(text, tokenCount: 0))
        core.finish(
            .success(
                LanguageModelSession.RawResponse(
                    rawContent: GeneratedContent(kind: .string(text), id: core.responseID), entries: entries[...],
                    usage: .zero)))
        self.init(handle: StreamHandle(core: core))
    }
}
