// The `streamResponse` overloads: the same shapes as `respond`, returning a stream of snapshots
// at once (not async). Generation starts immediately; a request made while another is running
// gives a stream that throws `concurrentRequests`. When nobody reads the stream any more (every
// reader broke out of its loop or was cancelled, or the stream was dropped), generation stops.

extension LanguageModelSession {
    /// Streams a text response to a prompt.
    public func streamResponse(to prompt: Prompt, options: GenerationOptions = GenerationOptions())
        -> sending ResponseStream<String>
    {
        stream(prompt, format: nil, options: options, contextOptions: ContextOptions(), as: String.self)
    }

    /// Streams a text response to a prompt.
    @_disfavoredOverload
    public func streamResponse(to prompt: String, options: GenerationOptions = GenerationOptions())
        -> sending ResponseStream<String>
    {
        streamResponse(to: Prompt(prompt), options: options)
    }

    /// Streams a text response to the prompt a builder closure lists.
    public func streamResponse(
        options: GenerationOptions = GenerationOptions(), @PromptBuilder prompt: () throws -> Prompt
    ) rethrows -> sending ResponseStream<String> {
        streamResponse(to: try prompt(), options: options)
    }

    /// Streams content that follows `schema`.
    public func streamResponse(
        to prompt: Prompt, schema: GenerationSchema, includeSchemaInPrompt: Bool = true,
        options: GenerationOptions = GenerationOptions()
    ) -> sending ResponseStream<GeneratedContent> {
        stream(
            prompt, format: Transcript.ResponseFormat(schema: schema), options: options,
            contextOptions: ContextOptions(includeSchemaInPrompt: includeSchemaInPrompt), as: GeneratedContent.self)
    }

    /// Streams content that follows `schema`.
    @_disfavoredOverload
    public func streamResponse(
        to prompt: String, schema: GenerationSchema, includeSchemaInPrompt: Bool = true,
        options: GenerationOptions = GenerationOptions()
    ) -> sending ResponseStream<GeneratedContent> {
        streamResponse(
            to: Prompt(prompt), schema: schema, includeSchemaInPrompt: includeSchemaInPrompt, options: options)
    }

    /// Streams content that follows `schema`, for the prompt a builder closure lists.
    public func streamResponse(
        schema: GenerationSchema, includeSchemaInPrompt: Bool = true, options: GenerationOptions = GenerationOptions(),
        @PromptBuilder prompt: () throws -> Prompt
    ) rethrows -> sending ResponseStream<GeneratedContent> {
        streamResponse(to: try prompt(), schema: schema, includeSchemaInPrompt: includeSchemaInPrompt, options: options)
    }

    /// Streams a value of a `Generable` type as it is generated: each snapshot's `content` is a
    /// `PartiallyGenerated` value with more of its properties filled in.
    public func streamResponse<Content: Generable>(
        to prompt: Prompt, generating type: Content.Type = Content.self, includeSchemaInPrompt: Bool = true,
        options: GenerationOptions = GenerationOptions()
    ) -> sending ResponseStream<Content> {
        stream(
            prompt, format: Self.format(for: type), options: options,
            contextOptions: ContextOptions(includeSchemaInPrompt: includeSchemaInPrompt), as: type)
    }

    /// Streams a value of a `Generable` type as it is generated.
    @_disfavoredOverload
    public func streamResponse<Content: Generable>(
        to prompt: String, generating type: Content.Type = Content.self, includeSchemaInPrompt: Bool = true,
        options: GenerationOptions = GenerationOptions()
    ) -> sending ResponseStream<Content> {
        streamResponse(
            to: Prompt(prompt), generating: type, includeSchemaInPrompt: includeSchemaInPrompt, options: options)
    }

    /// Streams a value of a `Generable` type, for the prompt a builder closure lists.
    public func streamResponse<Content: Generable>(
        generating type: Content.Type = Content.self, includeSchemaInPrompt: Bool = true,
        options: GenerationOptions = GenerationOptions(), @PromptBuilder prompt: () throws -> Prompt
    ) rethrows -> sending ResponseStream<Content> {
        streamResponse(
            to: try prompt(), generating: type, includeSchemaInPrompt: includeSchemaInPrompt, options: options)
    }
}

// MARK: - 27 SDK

extension LanguageModelSession {
    public func streamResponse(
        to prompt: Prompt, options: GenerationOptions = GenerationOptions(),
        contextOptions: ContextOptions = ContextOptions(), metadata: [String: any ConvertibleToGeneratedContent] = [:]
    ) -> sending ResponseStream<String> {
        stream(
            prompt, format: nil, options: options, contextOptions: contextOptions, metadata: metadata, as: String.self)
    }

    @_disfavoredOverload
    public func streamResponse(
        to prompt: String, options: GenerationOptions = GenerationOptions(),
        contextOptions: ContextOptions = ContextOptions(), metadata: [String: any ConvertibleToGeneratedContent] = [:]
    ) -> sending ResponseStream<String> {
        streamResponse(to: Prompt(prompt), options: options, contextOptions: contextOptions, metadata: metadata)
    }

    public func streamResponse(
        options: GenerationOptions = GenerationOptions(), contextOptions: ContextOptions = ContextOptions(),
        metadata: [String: any ConvertibleToGeneratedContent] = [:], @PromptBuilder prompt: () throws -> Prompt
    ) rethrows -> sending ResponseStream<String> {
        streamResponse(to: try prompt(), options: options, contextOptions: contextOptions, metadata: metadata)
    }

    @_disfavoredOverload
    public func streamResponse(
        to prompt: Prompt, schema: GenerationSchema, options: GenerationOptions = GenerationOptions(),
        contextOptions: ContextOptions = ContextOptions(includeSchemaInPrompt: true),
        metadata: [String: any ConvertibleToGeneratedContent] = [:]
    ) -> sending ResponseStream<GeneratedContent> {
        stream(
            prompt, format: Transcript.ResponseFormat(schema: schema), options: options,
            contextOptions: contextOptions, metadata: metadata, as: GeneratedContent.self)
    }

    @_disfavoredOverload
    public func streamResponse(
        to prompt: String, schema: GenerationSchema, options: GenerationOptions = GenerationOptions(),
        contextOptions: ContextOptions = ContextOptions(includeSchemaInPrompt: true),
        metadata: [String: any ConvertibleToGeneratedContent] = [:]
    ) -> sending ResponseStream<GeneratedContent> {
        streamResponse(
            to: Prompt(prompt), schema: schema, options: options, contextOptions: contextOptions, metadata: metadata)
    }

    @_disfavoredOverload
    public func streamResponse(
        schema: GenerationSchema, options: GenerationOptions = GenerationOptions(),
        contextOptions: ContextOptions = ContextOptions(includeSchemaInPrompt: true),
        metadata: [String: any ConvertibleToGeneratedContent] = [:], @PromptBuilder prompt: () throws -> Prompt
    ) rethrows -> sending ResponseStream<GeneratedContent> {
        streamResponse(
            to: try prompt(), schema: schema, options: options, contextOptions: contextOptions, metadata: metadata)
    }

    public func streamResponse<Content: Generable>(
        to prompt: Prompt, generating type: Content.Type = Content.self,
        options: GenerationOptions = GenerationOptions(),
        contextOptions: ContextOptions = ContextOptions(includeSchemaInPrompt: true),
        metadata: [String: any ConvertibleToGeneratedContent] = [:]
    ) -> sending ResponseStream<Content> {
        stream(
            prompt, format: Self.format(for: type), options: options, contextOptions: contextOptions,
            metadata: metadata, as: type)
    }

    @_disfavoredOverload
    public func streamResponse<Content: Generable>(
        to prompt: String, generating type: Content.Type = Content.self,
        options: GenerationOptions = GenerationOptions(),
        contextOptions: ContextOptions = ContextOptions(includeSchemaInPrompt: true),
        metadata: [String: any ConvertibleToGeneratedContent] = [:]
    ) -> sending ResponseStream<Content> {
        streamResponse(
            to: Prompt(prompt), generating: type, options: options, contextOptions: contextOptions, metadata: metadata)
    }

    public func streamResponse<Content: Generable>(
        generating type: Content.Type = Content.self, options: GenerationOptions = GenerationOptions(),
        contextOptions: ContextOptions = ContextOptions(includeSchemaInPrompt: true),
        metadata: [String: any ConvertibleToGeneratedContent] = [:], @PromptBuilder prompt: () throws -> Prompt
    ) rethrows -> sending ResponseStream<Content> {
        streamResponse(
            to: try prompt(), generating: type, options: options, contextOptions: contextOptions, metadata: metadata)
    }
}

extension LanguageModelSession {
    private func stream<Content: Generable>(
        _ prompt: Prompt, format: Transcript.ResponseFormat?, options: GenerationOptions,
        contextOptions: ContextOptions, metadata: [String: any ConvertibleToGeneratedContent] = [:],
        as type: Content.Type
    ) -> ResponseStream<Content> {
        let spec = RequestSpec(
            prompt: prompt, options: options, contextOptions: contextOptions, metadata: metadata, format: format,
            as: type)
        let core = ResponseStreamCore(isStructured: format != nil, responseID: spec.responseID)
        let handle = StreamHandle(core: core)
        do {
            let original = try claim()
            // The generating task holds the core, never the handle: when the last stream and
            // iterator are gone, the handle's deinit cancels the task. It runs on the executor
            // the caller's task prefers (a plain `Task {}` would drop that preference and wait
            // for Swift's cooperative pool).
            let task = Task.preferringCurrentExecutor {
                do {
                    core.finish(.success(try await self.run(spec, from: original, onText: core.update)))
                } catch {
                    core.finish(.failure(error))
                }
            }
            handle.attach(task)
        } catch {
            core.finish(.failure(error))
        }
        return ResponseStream(handle: handle)
    }
}
