// The `respond` overloads, with Apple's labels and defaults: the 26 SDK's nine (each
// `to prompt: Prompt` overload with a disfavored `to prompt: String` twin), and the 27 SDK's
// nine with `contextOptions:` and `metadata:` in place of `includeSchemaInPrompt:`.

extension LanguageModelSession {
    /// Responds to a prompt with text.
    @discardableResult
    nonisolated(nonsending) public func respond(
        to prompt: Prompt, options: GenerationOptions = GenerationOptions()
    ) async throws -> Response<String> {
        try await respond(prompt, format: nil, options: options, contextOptions: ContextOptions(), as: String.self)
    }

    /// Responds to a prompt with text.
    @_disfavoredOverload @discardableResult
    nonisolated(nonsending) public func respond(
        to prompt: String, options: GenerationOptions = GenerationOptions()
    ) async throws -> Response<String> {
        try await respond(to: Prompt(prompt), options: options)
    }

    /// Responds with text to the prompt a builder closure lists.
    @discardableResult
    nonisolated(nonsending) public func respond(
        options: GenerationOptions = GenerationOptions(), @PromptBuilder prompt: () throws -> Prompt
    ) async throws -> Response<String> {
        try await respond(to: prompt(), options: options)
    }

    /// Responds to a prompt with content that follows `schema`.
    @discardableResult
    nonisolated(nonsending) public func respond(
        to prompt: Prompt, schema: GenerationSchema, includeSchemaInPrompt: Bool = true,
        options: GenerationOptions = GenerationOptions()
    ) async throws -> Response<GeneratedContent> {
        try await respond(
            prompt, format: Transcript.ResponseFormat(schema: schema), options: options,
            contextOptions: ContextOptions(includeSchemaInPrompt: includeSchemaInPrompt), as: GeneratedContent.self)
    }

    /// Responds to a prompt with content that follows `schema`.
    @_disfavoredOverload @discardableResult
    nonisolated(nonsending) public func respond(
        to prompt: String, schema: GenerationSchema, includeSchemaInPrompt: Bool = true,
        options: GenerationOptions = GenerationOptions()
    ) async throws -> Response<GeneratedContent> {
        try await respond(
            to: Prompt(prompt), schema: schema, includeSchemaInPrompt: includeSchemaInPrompt, options: options)
    }

    /// Responds with content that follows `schema` to the prompt a builder closure lists.
    @discardableResult
    nonisolated(nonsending) public func respond(
        schema: GenerationSchema, includeSchemaInPrompt: Bool = true, options: GenerationOptions = GenerationOptions(),
        @PromptBuilder prompt: () throws -> Prompt
    ) async throws -> Response<GeneratedContent> {
        try await respond(to: prompt(), schema: schema, includeSchemaInPrompt: includeSchemaInPrompt, options: options)
    }

    /// Responds to a prompt with a value of a `Generable` type.
    ///
    /// ```swift
    /// let suggestions = try await session.respond(to: prompt, generating: ReplySuggestions.self).content
    /// ```
    @discardableResult
    nonisolated(nonsending) public func respond<Content: Generable>(
        to prompt: Prompt, generating type: Content.Type = Content.self, includeSchemaInPrompt: Bool = true,
        options: GenerationOptions = GenerationOptions()
    ) async throws -> Response<Content> {
        try await respond(
            prompt, format: Self.format(for: type), options: options,
            contextOptions: ContextOptions(includeSchemaInPrompt: includeSchemaInPrompt), as: type)
    }

    /// Responds to a prompt with a value of a `Generable` type.
    @_disfavoredOverload @discardableResult
    nonisolated(nonsending) public func respond<Content: Generable>(
        to prompt: String, generating type: Content.Type = Content.self, includeSchemaInPrompt: Bool = true,
        options: GenerationOptions = GenerationOptions()
    ) async throws -> Response<Content> {
        try await respond(
            to: Prompt(prompt), generating: type, includeSchemaInPrompt: includeSchemaInPrompt, options: options)
    }

    /// Responds with a value of a `Generable` type to the prompt a builder closure lists.
    @discardableResult
    nonisolated(nonsending) public func respond<Content: Generable>(
        generating type: Content.Type = Content.self, includeSchemaInPrompt: Bool = true,
        options: GenerationOptions = GenerationOptions(), @PromptBuilder prompt: () throws -> Prompt
    ) async throws -> Response<Content> {
        try await respond(
            to: prompt(), generating: type, includeSchemaInPrompt: includeSchemaInPrompt, options: options)
    }
}

// MARK: - 27 SDK

extension LanguageModelSession {
    /// Responds to a prompt with text, with context options and metadata.
    @discardableResult
    nonisolated(nonsending) public func respond(
        to prompt: Prompt, options: GenerationOptions = GenerationOptions(),
        contextOptions: ContextOptions = ContextOptions(), metadata: [String: any ConvertibleToGeneratedContent] = [:]
    ) async throws -> Response<String> {
        try await respond(
            prompt, format: nil, options: options, contextOptions: contextOptions, metadata: metadata, as: String.self)
    }

    @_disfavoredOverload @discardableResult
    nonisolated(nonsending) public func respond(
        to prompt: String, options: GenerationOptions = GenerationOptions(),
        contextOptions: ContextOptions = ContextOptions(), metadata: [String: any ConvertibleToGeneratedContent] = [:]
    ) async throws -> Response<String> {
        try await respond(to: Prompt(prompt), options: options, contextOptions: contextOptions, metadata: metadata)
    }

    @discardableResult
    nonisolated(nonsending) public func respond(
        options: GenerationOptions = GenerationOptions(), contextOptions: ContextOptions = ContextOptions(),
        metadata: [String: any ConvertibleToGeneratedContent] = [:], @PromptBuilder prompt: () throws -> Prompt
    ) async throws -> Response<String> {
        try await respond(to: prompt(), options: options, contextOptions: contextOptions, metadata: metadata)
    }

    @_disfavoredOverload @discardableResult
    nonisolated(nonsending) public func respond(
        to prompt: Prompt, schema: GenerationSchema, options: GenerationOptions = GenerationOptions(),
        contextOptions: ContextOptions = ContextOptions(includeSchemaInPrompt: true),
        metadata: [String: any ConvertibleToGeneratedContent] = [:]
    ) async throws -> Response<GeneratedContent> {
        try await respond(
            prompt, format: Transcript.ResponseFormat(schema: schema), options: options,
            contextOptions: contextOptions, metadata: metadata, as: GeneratedContent.self)
    }

    @_disfavoredOverload @discardableResult
    nonisolated(nonsending) public func respond(
        to prompt: String, schema: GenerationSchema, options: GenerationOptions = GenerationOptions(),
        contextOptions: ContextOptions = ContextOptions(includeSchemaInPrompt: true),
        metadata: [String: any ConvertibleToGeneratedContent] = [:]
    ) async throws -> Response<GeneratedContent> {
        try await respond(
            to: Prompt(prompt), schema: schema, options: options, contextOptions: contextOptions, metadata: metadata)
    }

    @_disfavoredOverload @discardableResult
    nonisolated(nonsending) public func respond(
        schema: GenerationSchema, options: GenerationOptions = GenerationOptions(),
        contextOptions: ContextOptions = ContextOptions(includeSchemaInPrompt: true),
        metadata: [String: any ConvertibleToGeneratedContent] = [:], @PromptBuilder prompt: () throws -> Prompt
    ) async throws -> Response<GeneratedContent> {
        try await respond(
            to: prompt(), schema: schema, options: options, contextOptions: contextOptions, metadata: metadata)
    }

    @discardableResult
    nonisolated(nonsending) public func respond<Content: Generable>(
        to prompt: Prompt, generating type: Content.Type = Content.self,
        options: GenerationOptions = GenerationOptions(),
        contextOptions: ContextOptions = ContextOptions(includeSchemaInPrompt: true),
        metadata: [String: any ConvertibleToGeneratedContent] = [:]
    ) async throws -> Response<Content> {
        try await respond(
            prompt, format: Self.format(for: type), options: options, contextOptions: contextOptions,
            metadata: metadata, as: type)
    }

    @_disfavoredOverload @discardableResult
    nonisolated(nonsending) public func respond<Content: Generable>(
        to prompt: String, generating type: Content.Type = Content.self,
        options: GenerationOptions = GenerationOptions(),
        contextOptions: ContextOptions = ContextOptions(includeSchemaInPrompt: true),
        metadata: [String: any ConvertibleToGeneratedContent] = [:]
    ) async throws -> Response<Content> {
        try await respond(
            to: Prompt(prompt), generating: type, options: options, contextOptions: contextOptions, metadata: metadata)
    }

    @discardableResult
    nonisolated(nonsending) public func respond<Content: Generable>(
        generating type: Content.Type = Content.self, options: GenerationOptions = GenerationOptions(),
        contextOptions: ContextOptions = ContextOptions(includeSchemaInPrompt: true),
        metadata: [String: any ConvertibleToGeneratedContent] = [:], @PromptBuilder prompt: () throws -> Prompt
    ) async throws -> Response<Content> {
        try await respond(
            to: prompt(), generating: type, options: options, contextOptions: contextOptions, metadata: metadata)
    }
}

extension LanguageModelSession {
    /// The response format for `type`: none for `String`, which is generated as plain text.
    package static func format<Content: Generable>(for type: Content.Type) -> Transcript.ResponseFormat? {
        type == String.self ? nil : Transcript.ResponseFormat(type: type)
    }

    nonisolated(nonsending) private func respond<Content: Generable>(
        _ prompt: Prompt, format: Transcript.ResponseFormat?, options: GenerationOptions,
        contextOptions: ContextOptions, metadata: [String: any ConvertibleToGeneratedContent] = [:],
        as type: Content.Type
    ) async throws -> Response<Content> {
        let spec = RequestSpec(
            prompt: prompt, options: options, contextOptions: contextOptions, metadata: metadata, format: format,
            as: type)
        let raw = try await run(spec, from: try claim(), onText: { _ in })
        return Response(
            content: try Content(raw.rawContent), rawContent: raw.rawContent, transcriptEntries: raw.entries,
            usage: raw.usage)
    }
}
