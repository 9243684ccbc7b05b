// The `respond` overloads, with Apple's labels and defaults. Each `to prompt: Prompt` overload
// has a disfavored `to prompt: String` twin.

extension LanguageModelSession {
    /// Responds to a prompt with text.
    @discardableResult
    nonisolated(nonsending) public func respond(
        to prompt: Prompt, options: GenerationOptions = GenerationOptions()
    ) async throws -> Response<String> {
        try await respond(prompt, format: nil, includeSchemaInPrompt: false, options: options, as: String.self)
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
            prompt, format: Transcript.ResponseFormat(schema: schema), includeSchemaInPrompt: includeSchemaInPrompt,
            options: options, as: GeneratedContent.self)
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
            prompt, format: Self.format(for: type), includeSchemaInPrompt: includeSchemaInPrompt, options: options,
            as: type)
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

    /// The response format for `type`: none for `String`, which is generated as plain text.
    package static func format<Content: Generable>(for type: Content.Type) -> Transcript.ResponseFormat? {
        type == String.self ? nil : Transcript.ResponseFormat(type: type)
    }

    nonisolated(nonsending) private func respond<Content: Generable>(
        _ prompt: Prompt, format: Transcript.ResponseFormat?, includeSchemaInPrompt: Bool, options: GenerationOptions,
        as type: Content.Type
    ) async throws -> Response<Content> {
        let spec = RequestSpec(
            prompt: prompt, options: options, format: format, includeSchemaInPrompt: includeSchemaInPrompt, as: type)
        let raw = try await run(spec, from: try claim(), onText: { _ in })
        return Response(
            content: try Content(raw.rawContent), rawContent: raw.rawContent, transcriptEntries: raw.entries,
            usage: raw.usage)
    }
}
