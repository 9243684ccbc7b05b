import Foundation

extension LanguageModelSession {
    /// One request, as the `respond` and `streamResponse` overloads describe it.
    package struct RequestSpec: Sendable {
        var prompt: Prompt
        var options: GenerationOptions
        /// The structure the response must have; nil for free text.
        var format: Transcript.ResponseFormat?
        var includeSchemaInPrompt: Bool
        /// The id of the response's content (and of every snapshot of it).
        var responseID = GenerationID()
        /// Throws when content does not convert to the requested type.
        var validate: @Sendable (GeneratedContent) throws -> Void

        init<Content: Generable>(
            prompt: Prompt, options: GenerationOptions, format: Transcript.ResponseFormat?, includeSchemaInPrompt: Bool,
            as type: Content.Type
        ) {
            self.prompt = prompt
            self.options = options
            self.format = format
            self.includeSchemaInPrompt = includeSchemaInPrompt
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

    /// Runs a request on a claimed session (see ``claim()``), and releases the session. On
    /// failure the transcript goes back to `original`.
    package func run(
        _ spec: RequestSpec, from original: Transcript, onText: @escaping @Sendable (String) -> Void
    ) async throws -> RawResponse {
        var usage = Usage.zero
        do {
            let response = try await generate(spec, from: original, usage: &usage, onText: onText)
            release(adding: usage)
            return response
        } catch {
            setTranscript(original)
            release(adding: usage)
            throw error
        }
    }

    private func generate(
        _ spec: RequestSpec, from original: Transcript, usage: inout Usage, onText: @escaping @Sendable (String) -> Void
    ) async throws -> RawResponse {
        var entries: [Transcript.Entry] = [
            .prompt(
                Transcript.Prompt(segments: spec.prompt.segments, options: spec.options, responseFormat: spec.format))
        ]
        setTranscript(Transcript(entries: original.entries + entries))
        let schema = spec.format?.schema
        if let problems = schema?.problems, !problems.isEmpty {
            throw GenerationError.unsupportedGuide(.init(debugDescription: problems.joined(separator: "; ")))
        }
        let backend = try model.backend()
        let definitions = toolDefinitions
        var round = 0
        while true {
            let toolsAllowed = !tools.isEmpty && round < Self.maximumToolRounds
            let request = GenerationRequest(
                transcript: Transcript(entries: original.entries + entries), tools: toolsAllowed ? definitions : [],
                schema: schema, includeSchemaInPrompt: spec.includeSchemaInPrompt, options: spec.options)
            let promptTokens = try await backend.promptTokenCount(for: request)
            guard promptTokens < backend.contextSize else {
                throw GenerationError.exceededContextWindowSize(
                    .init(
                        debugDescription:
                            "Content contains \(promptTokens) tokens, which exceeds the maximum allowed context size of \(backend.contextSize)"
                    ))
            }
            try Task.checkCancellation()
            let output = try await backend.generate(request, onText: onText)
            usage.add(Usage(output))
            switch output.content {
            case .toolCalls(let calls):
                guard toolsAllowed, !calls.isEmpty else {
                    throw GenerationError.decodingFailure(
                        .init(
                            debugDescription: "The model called a tool when none could be called (round \(round + 1)).")
                    )
                }
                let identified = calls.map { call in
                    call.id.isEmpty
                        ? Transcript.ToolCall(id: UUID().uuidString, toolName: call.toolName, arguments: call.arguments)
                        : call
                }
                entries.append(.toolCalls(Transcript.ToolCalls(identified)))
                setTranscript(Transcript(entries: original.entries + entries))
                entries += try await callTools(identified).map { .toolOutput($0) }
                setTranscript(Transcript(entries: original.entries + entries))
                round += 1
            case .text(let text):
                let rawContent = try content(of: text, spec: spec)
                try spec.validate(rawContent)
                let segment: Transcript.Segment =
                    if let format = spec.format {
                        .structure(source: format.name, content: rawContent)
                    } else {
                        .text(Transcript.TextSegment(content: text))
                    }
                entries.append(.response(Transcript.Response(assetIDs: [], segments: [segment])))
                let transcript = Transcript(entries: original.entries + entries)
                setTranscript(transcript)
                return RawResponse(rawContent: rawContent, entries: transcript.entries[original.count...], usage: usage)
            }
        }
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
    private func callTools(_ calls: [Transcript.ToolCall]) async throws -> [Transcript.ToolOutput] {
        let tools = try calls.map { call -> any Tool in
            guard let tool = self.tools.first(where: { $0.name == call.toolName }) else {
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
