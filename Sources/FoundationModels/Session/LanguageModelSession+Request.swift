import Foundation

extension LanguageModelSession {
    /// One request, as the `respond` and `streamResponse` overloads describe it.
    package struct RequestSpec: Sendable {
        var prompt: Prompt
        var options: GenerationOptions
        var contextOptions: ContextOptions
        var metadata: [String: GeneratedContent]
        /// The structure the response must have; nil for free text.
        var format: Transcript.ResponseFormat?
        /// The id of the response's content (and of every snapshot of it).
        var responseID = GenerationID()
        /// Throws when content does not convert to the requested type.
        var validate: @Sendable (GeneratedContent) throws -> Void

        init<Content: Generable>(
            prompt: Prompt, options: GenerationOptions, contextOptions: ContextOptions,
            metadata: [String: any ConvertibleToGeneratedContent], format: Transcript.ResponseFormat?,
            as type: Content.Type
        ) {
            self.prompt = prompt
            self.options = options
            self.contextOptions = contextOptions
            self.metadata = metadata.mapValues(\.generatedContent)
            self.format = format
            self.validate = { content in
                do {
                    _ = try Content(content)
                } catch let error as GenerationError {
                    throw error
                } catch {
                    throw GenerationError.decodingFailure(
                        .init(
                            debugDescription:
                                "\(Content.self) could not be created from \(content.jsonString): \(error)"))
                }
            }
        }
    }

    /// What a finished request produced, before conversion to the requested type.
    package struct RawResponse: Sendable {
        var rawContent: GeneratedContent
        var entries: ArraySlice<Transcript.Entry>
        var usage: Usage
    }

    /// A request that stopped before its response: what it had produced, and why it stopped.
    private struct Interrupted: Swift.Error {
        var entries: [Transcript.Entry]
        var usage: Usage
        var cause: any Swift.Error
    }

    /// Runs a request on a claimed session (see ``claim()``), and releases the session.
    ///
    /// On failure the transcript goes back to `original` (or keeps what the request produced,
    /// under the `preserveTranscript` policy); on cancellation it keeps the prompt and the
    /// partial response, and `CancellationError` is thrown.
    ///
    /// - Parameter onText: each change to the response's text, for a stream.
    package func run(
        _ spec: RequestSpec, from original: Transcript,
        onText: @escaping @Sendable (TurnAccumulator.TextChange) -> Void
    ) async throws -> RawResponse {
        // The request's profile, hooks and tools read the session's properties.
        try await SessionPropertyValues.$current.withValue(properties) {
            try await runClaimed(spec, from: original, onText: onText)
        }
    }

    private func runClaimed(
        _ spec: RequestSpec, from original: Transcript,
        onText: @escaping @Sendable (TurnAccumulator.TextChange) -> Void
    ) async throws -> RawResponse {
        var original = original
        var spec = spec
        let setup: RequestSetup
        do {
            setup = try await prepare(&original)
        } catch {
            release(adding: .zero)
            throw error
        }
        if let profile = setup.profile {
            spec.options = profile.applied(to: spec.options)
            spec.contextOptions = profile.applied(to: spec.contextOptions)
        }
        let policy = setup.profile?.errorPolicy ?? transcriptErrorHandlingPolicy
        let interrupted: Interrupted
        do {
            let response = try await generate(spec, setup: setup, from: original, onText: onText)
            // Thrown after the release, so the transcript keeps the response.
            guard !release(adding: response.usage) else {
                throw LanguageModelSession.Error.transcriptMutationWhileResponding
            }
            return response
        } catch let error as LanguageModelSession.Error {
            throw error
        } catch let error as Interrupted {
            interrupted = error
        } catch {
            interrupted = Interrupted(entries: [], usage: .zero, cause: error)
        }
        let cancelled = interrupted.cause is CancellationError || Task.isCancelled
        if cancelled || policy?.kind == .preserve {
            setTranscript(Transcript(entries: original.entries + interrupted.entries))
        } else {
            setTranscript(original)
        }
        release(adding: interrupted.usage)
        throw cancelled ? CancellationError() : interrupted.cause
    }

    private func generate(
        _ spec: RequestSpec, setup: RequestSetup, from original: Transcript,
        onText: @escaping @Sendable (TurnAccumulator.TextChange) -> Void
    ) async throws -> RawResponse {
        let prompt = Transcript.Prompt(
            metadata: spec.metadata, segments: spec.prompt.segments, options: spec.options,
            responseFormat: spec.format, contextOptions: spec.contextOptions)
        var entries: [Transcript.Entry] = [.prompt(prompt)]
        var usage = Usage.zero
        let hooks = setup.profile ?? ResolvedProfile()
        setTranscript(Transcript(entries: original.entries + entries))
        do {
            let schema = spec.format?.schema
            if let problems = schema?.problems, !problems.isEmpty {
                throw GenerationError.unsupportedGuide(.init(debugDescription: problems.joined(separator: "; ")))
            }
            for hook in hooks.onPrompt { try await hook(prompt) }
            let binding = setup.binding
            let executor = try binding.executor()
            let definitions = enabledToolDefinitions(of: setup.tools, for: spec.options)
            var round = 0
            while true {
                let toolsAllowed = !definitions.isEmpty && round < Self.maximumToolRounds
                // The model is shown the transcript through the profile's history transforms;
                // the session keeps it whole.
                let shown = setup.profile?.transformed(original.entries + entries) ?? original.entries + entries
                let request = LanguageModelExecutorGenerationRequest(
                    id: UUID(), transcript: Transcript(entries: shown),
                    enabledTools: toolsAllowed ? definitions : [], schema: schema, generationOptions: spec.options,
                    contextOptions: spec.contextOptions, metadata: spec.metadata)
                try binding.checkCapabilities(for: request)
                try Task.checkCancellation()
                let turn: TurnAccumulator
                do {
                    turn = try await runTurn(request, on: executor, onText: onText)
                } catch let failure as TurnFailure {
                    usage.add(failure.turn.usage)
                    if let reasoning = failure.turn.reasoningEntry { entries.append(reasoning) }
                    if failure.turn.hasResponse, !failure.turn.madeToolCalls {
                        entries.append(.response(partialResponse(of: failure.turn, spec: spec)))
                    }
                    throw failure.cause
                }
                usage.add(turn.usage)
                if let reasoning = turn.reasoningEntry {
                    entries.append(reasoning)
                    if case .reasoning(let entry) = reasoning {
                        for hook in hooks.onReasoning { try await hook(entry) }
                    }
                }
                if turn.madeToolCalls {
                    guard toolsAllowed else {
                        throw GenerationError.decodingFailure(
                            .init(
                                debugDescription:
                                    "The model called a tool when none could be called (round \(round + 1))."
                            ))
                    }
                    let calls = try turn.toolCalls()
                    entries.append(.toolCalls(calls))
                    setTranscript(Transcript(entries: original.entries + entries))
                    for call in calls { for hook in hooks.onToolCall { try await hook(call) } }
                    let outputs = try await callTools(Array(calls), of: setup.tools)
                    entries += outputs.map { .toolOutput($0) }
                    setTranscript(Transcript(entries: original.entries + entries))
                    for (call, output) in zip(calls, outputs) {
                        for hook in hooks.onToolOutput { try await hook(call, output) }
                    }
                    round += 1
                    continue
                }
                let text = turn.text
                let rawContent = try content(of: text, spec: spec)
                try spec.validate(rawContent)
                let structure = spec.format.map { Transcript.StructuredSegment(source: $0.name, content: rawContent) }
                let response = turn.responseEntry(structure: structure)
                entries.append(.response(response))
                let transcript = Transcript(entries: original.entries + entries)
                setTranscript(transcript)
                for hook in hooks.onResponse { try await hook(response) }
                return RawResponse(rawContent: rawContent, entries: transcript.entries[original.count...], usage: usage)
            }
        } catch {
            throw Interrupted(entries: entries, usage: usage, cause: error)
        }
    }

    /// The definitions of `tools` the model may call under `options` (none when tool calling
    /// is disallowed).
    private func enabledToolDefinitions(of tools: [any Tool], for options: GenerationOptions)
        -> [Transcript.ToolDefinition]
    {
        options.toolCallingMode?.kind == .disallowed ? [] : tools.map { Transcript.ToolDefinition(tool: $0) }
    }

    /// A turn that failed or was cancelled, with what it had produced.
    private struct TurnFailure: Swift.Error {
        var turn: TurnAccumulator
        var cause: any Swift.Error
    }

    /// Runs one model turn: the executor writes into a channel while this task reads it. When
    /// this task is cancelled, the executor's task is cancelled too and awaited (it stops within
    /// a token), and what it sent in the meantime is applied.
    private func runTurn(
        _ request: LanguageModelExecutorGenerationRequest, on executor: ErasedExecutor,
        onText: @escaping @Sendable (TurnAccumulator.TextChange) -> Void
    ) async throws -> TurnAccumulator {
        let channel = LanguageModelExecutorGenerationChannel()
        var turn = TurnAccumulator()
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    do {
                        try await executor.respond(request, channel)
                        channel.finish()
                    } catch {
                        channel.finish(throwing: error)
                    }
                }
                for try await event in channel {
                    if let change = turn.apply(event), !turn.madeToolCalls { onText(change) }
                }
            }
            return turn
        } catch {
            for event in channel.drain() { _ = turn.apply(event) }
            throw TurnFailure(turn: turn, cause: error)
        }
    }

    /// The response entry of a turn that stopped: its text so far (a structured response as the
    /// partial value it parses to, when it parses).
    private func partialResponse(of turn: TurnAccumulator, spec: RequestSpec) -> Transcript.Response {
        guard let format = spec.format, let partial = try? GeneratedContent(json: turn.text) else {
            return turn.responseEntry()
        }
        return turn.responseEntry(
            structure: Transcript.StructuredSegment(
                source: format.name, content: partial.identified(by: spec.responseID)))
    }

    /// The response text as content: parsed JSON when the request had a format, a string otherwise.
    private func content(of text: String, spec: RequestSpec) throws -> GeneratedContent {
        guard spec.format != nil else { return GeneratedContent(kind: .string(text), id: spec.responseID) }
        // The text is finished: a number at its very end is whole (the partial parser, made for
        // streaming, would take it as still growing), which the newline says.
        let content = try GeneratedContent(json: text + "\n")
        guard content.isComplete else {
            throw GenerationError.decodingFailure(
                .init(debugDescription: "The response ended before its JSON was complete: \(text)"))
        }
        return content.identified(by: spec.responseID)
    }

    /// Runs tool calls concurrently, returning their outputs in the order of the calls.
    private func callTools(_ calls: [Transcript.ToolCall], of available: [any Tool]) async throws
        -> [Transcript.ToolOutput]
    {
        let tools = try calls.map { call -> any Tool in
            guard let tool = available.first(where: { $0.name == call.toolName }) else {
                throw GenerationError.decodingFailure(
                    .init(debugDescription: "The model called an unknown tool '\(call.toolName)'."))
            }
            return tool
        }
        return try await withThrowingTaskGroup(of: (Int, Transcript.ToolOutput).self) { group in
            for (index, (call, tool)) in zip(calls, tools).enumerated() {
                group.addTask {
                    do {
                        let segments = try await tool.invoke(with: call.arguments)
                        return (index, Transcript.ToolOutput(id: call.id, toolName: call.toolName, segments: segments))
                    } catch let error as CancellationError {
                        throw error
                    } catch {
                        throw ToolCallError(tool: tool, underlyingError: error)
                    }
                }
            }
            var outputs = [Transcript.ToolOutput?](repeating: nil, count: calls.count)
            for try await (index, output) in group { outputs[index] = output }
            return outputs.compactMap { $0 }
        }
    }
}
