// The `streamResponse` overloads: the same shapes as `respond`, returning a stream of snapshots
// at once (not async). Generation starts immediately; a request made while another is running
// gives a stream that throws `concurrentRequests`.

extension LanguageModelSession {
    /// Streams a text response to a prompt.
    public func streamResponse(to prompt: Prompt, options: GenerationOptions = GenerationOptions()) -> ResponseStream<
        String
    > {
        stream(prompt, format: nil, includeSchemaInPrompt: false, options: options, as: String.self)
    }

    /// Streams a text response to a prompt.
    @_disfavoredOverload
    public func streamResponse(to prompt: String, options: GenerationOptions = GenerationOptions()) -> ResponseStream<
        String
    > {
        streamResponse(to: Prompt(prompt), options: options)
    }

    /// Streams a text response to the prompt a builder closure lists.
    public func streamResponse(
        options: GenerationOptions = GenerationOptions(), @PromptBuilder prompt: () throws -> Prompt
    ) rethrows -> ResponseStream<String> {
        streamResponse(to: try prompt(), options: options)
    }

    /// Streams content that follows `schema`.
    public func streamResponse(
        to prompt: Prompt, schema: GenerationSchema, includeSchemaInPrompt: Bool = true,
        options: GenerationOptions = GenerationOptions()
    ) -> ResponseStream<GeneratedContent> {
        stream(
            prompt, format: Transcript.ResponseFormat(schema: schema), includeSchemaInPrompt: includeSchemaInPrompt,
            options: options, as: GeneratedContent.self)
    }

    /// Streams content that follows `schema`.
    @_disfavoredOverload
    public func streamResponse(
        to prompt: String, schema: GenerationSchema, includeSchemaInPrompt: Bool = true,
        options: GenerationOptions = GenerationOptions()
    ) -> ResponseStream<GeneratedContent> {
        streamResponse(
            to: Prompt(prompt), schema: schema, includeSchemaInPrompt: includeSchemaInPrompt, options: options)
    }

    /// Streams content that follows `schema`, for the prompt a builder closure lists.
    public func streamResponse(
        schema: GenerationSchema, includeSchemaInPrompt: Bool = true, options: GenerationOptions = GenerationOptions(),
        @PromptBuilder prompt: () throws -> Prompt
    ) rethrows -> ResponseStream<GeneratedContent> {
        streamResponse(to: try prompt(), schema: schema, includeSchemaInPrompt: includeSchemaInPrompt, options: options)
    }

    /// Streams a value of a `Generable` type as it is generated: each snapshot's `content` is a
    /// `PartiallyGenerated` value with more of its properties filled in.
    public func streamResponse<Content: Generable>(
        to prompt: Prompt, generating type: Content.Type = Content.self, includeSchemaInPrompt: Bool = true,
        options: GenerationOptions = GenerationOptions()
    ) -> ResponseStream<Content> {
        stream(
            prompt, format: Self.format(for: type), includeSchemaInPrompt: includeSchemaInPrompt, options: options,
            as: type)
    }

    /// Streams a value of a `Generable` type as it is generated.
    @_disfavoredOverload
    public func streamResponse<Content: Generable>(
        to prompt: String, generating type: Content.Type = Content.self, includeSchemaInPrompt: Bool = true,
        options: GenerationOptions = GenerationOptions()
    ) -> ResponseStream<Content> {
        streamResponse(
            to: Prompt(prompt), generating: type, includeSchemaInPrompt: includeSchemaInPrompt, options: options)
    }

    /// Streams a value of a `Generable` type, for the prompt a builder closure lists.
    public func streamResponse<Content: Generable>(
        generating type: Content.Type = Content.self, includeSchemaInPrompt: Bool = true,
        options: GenerationOptions = GenerationOptions(), @PromptBuilder prompt: () throws -> Prompt
    ) rethrows -> ResponseStream<Content> {
        streamResponse(
            to: try prompt(), generating: type, includeSchemaInPrompt: includeSchemaInPrompt, options: options)
    }

    private func stream<Content: Generable>(
        _ prompt: Prompt, format: Transcript.ResponseFormat?, includeSchemaInPrompt: Bool, options: GenerationOptions,
        as type: Content.Type
    ) -> ResponseStream<Content> {
        let spec = RequestSpec(
            prompt: prompt, options: options, format: format, includeSchemaInPrompt: includeSchemaInPrompt, as: type)
        let core = ResponseStreamCore(isStructured: format != nil, responseID: spec.responseID)
        do {
            let original = try claim()
            Task {
                do {
                    core.finish(.success(try await self.run(spec, from: original, onText: core.append)))
                } catch {
                    core.finish(.failure(error))
                }
            }
        } catch {
            core.finish(.failure(error))
        }
        return ResponseStream(core: core)
    }
}
