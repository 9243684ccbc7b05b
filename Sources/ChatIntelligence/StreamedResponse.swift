import FoundationModels

/// One response of the model, as a stream of what it has generated so far: each element maps a
/// snapshot's partially generated content (`streamResponse(to:generating:)`), and the last one
/// maps the finished content. Snapshots are cumulative, so each element replaces the one before.
///
/// The stream is pulled by its consumer: the model's stream is read in the consumer's own task,
/// on its executor (no task of its own, which would not inherit the consumer's executor and
/// would land on Swift's cooperative pool). Ending the stream early (the consumer stops
/// iterating, or its task is cancelled) drops the model's stream, which stops the generation.
enum StreamedResponse {
    static func make<Content: Generable, Output: Sendable>(
        _ type: Content.Type, in session: LanguageModelSession, prompt: String, options: GenerationOptions,
        partial: @escaping @Sendable (Content.PartiallyGenerated) -> Output?,
        final: @escaping @Sendable (Content) -> Output
    ) -> AsyncThrowingStream<Output, any Error> {
        let reader = PullReader {
            session.streamResponse(to: prompt, generating: type, includeSchemaInPrompt: false, options: options)
        }
        return AsyncThrowingStream {
            try await reader.next(partial: partial, final: final)
        }
    }

    /// The model's stream being pulled, and whether its last element was given.
    ///
    /// `@unchecked Sendable`: used only by the one task consuming the stream, one `next` at a time
    /// (an `AsyncThrowingStream(unfolding:)` calls its closure that way).
    private final class PullReader<Content: Generable>: @unchecked Sendable {
        private let start: () -> LanguageModelSession.ResponseStream<Content>
        private var stream: LanguageModelSession.ResponseStream<Content>?
        private var iterator: LanguageModelSession.ResponseStream<Content>.AsyncIterator?
        private var finished = false

        init(start: @escaping () -> LanguageModelSession.ResponseStream<Content>) {
            self.start = start
        }

        func next<Output>(
            partial: (Content.PartiallyGenerated) -> Output?, final: (Content) -> Output
        ) async throws -> Output? {
            guard !finished else { return nil }
            if stream == nil {
                let started = start()
                stream = started
                iterator = started.makeAsyncIterator()
            }
            do {
                while let snapshot = try await iterator?.next() {
                    try Task.checkCancellation()
                    if let value = partial(snapshot.content) { return value }
                }
                finished = true
                return final(try await stream!.collect().content)
            } catch {
                finished = true
                throw error
            }
        }
    }

    /// The last element of `stream`, or nil when it finished without one.
    static func last<Output>(of stream: AsyncThrowingStream<Output, any Error>) async throws -> Output? {
        var last: Output?
        for try await value in stream { last = value }
        return last
    }

    /// A transcript of `instructions` followed by worked examples (prompt, then the response as
    /// `Content`): small models copy the shape and length of what they were shown.
    static func transcript<Content: Generable>(
        instructions: String, examples: [(prompt: String, response: Content)]
    ) -> Transcript {
        var entries: [Transcript.Entry] = [
            .instructions(Transcript.Instructions(segments: [.text(.init(content: instructions))], toolDefinitions: []))
        ]
        for example in examples {
            entries.append(.prompt(Transcript.Prompt(segments: [.text(.init(content: example.prompt))])))
            entries.append(
                .response(
                    Transcript.Response(
                        assetIDs: [],
                        segments: [
                            .structure(
                                .init(
                                    source: String(describing: Content.self), content: example.response.generatedContent
                                ))
                        ])))
        }
        return Transcript(entries: entries)
    }

    /// Sampling for request number `attempt` of the same input: seeded, so the same attempt
    /// gives the same text, and "Try again" (the next attempt) gives another.
    static func options(attempt: Int, temperature: Double, maximumResponseTokens: Int) -> GenerationOptions {
        GenerationOptions(
            sampling: .random(top: 40, seed: UInt64(max(0, attempt)) &+ 11), temperature: temperature,
            maximumResponseTokens: maximumResponseTokens)
    }

    /// A response budget for rewriting `text`: about its token count twice over (a friendlier or
    /// more formal text may be longer), at least 48 and at most `cap` tokens.
    static func budget(for text: String, cap: Int = 600) -> Int {
        min(cap, max(48, text.utf8.count / 2 + 40))
    }
}
