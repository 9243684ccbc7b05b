import Foundation
import FoundationModels
import OpenAIWire
import ServerKit

/// A chat completion request checked and mapped onto the model seam: the transcript, the tools
/// the model may call, the schema, the options, and what the server applies itself (stop
/// sequences).
package struct CompletionPlan: Sendable {
    package var generation: LanguageModelExecutorGenerationRequest
    package var stream: Bool
    package var includeUsage: Bool
    package var stopSequences: [String]
    package var maximumTokens: Int?
}

extension ChatCompletionRequest {
    /// Checks the request and maps it. `body` is the request's JSON parsed with key order kept
    /// (for schemas).
    ///
    /// - Throws: `OpenAIError` 400 naming the parameter at fault.
    package func plan(body: GeneratedContent) throws -> CompletionPlan {
        func bad(_ message: String, _ param: String) -> OpenAIError { .invalidRequest(message, param: param) }
        if let n, n != 1 { throw bad("only n = 1 is supported", "n") }
        if let temperature, !(0...2).contains(temperature) {
            throw bad("temperature must be between 0 and 2", "temperature")
        }
        if let topP, !(topP > 0 && topP <= 1) { throw bad("top_p must be greater than 0 and at most 1", "top_p") }
        for (value, name) in [(maxTokens, "max_tokens"), (maxCompletionTokens, "max_completion_tokens")] {
            if let value, value < 1 { throw bad("\(name) must be at least 1", name) }
        }
        let stopSequences = stop?.values ?? []
        if stopSequences.count > 4 { throw bad("stop takes at most 4 sequences", "stop") }
        if stopSequences.contains(where: \.isEmpty) { throw bad("a stop sequence must not be empty", "stop") }
        if streamOptions != nil && stream != true { throw bad("stream_options needs stream: true", "stream_options") }
        guard !messages.isEmpty else { throw bad("messages must not be empty", "messages") }

        // Tools, with their parameter schemas read from the ordered body.
        var definitions: [Transcript.ToolDefinition] = []
        let toolBodies = (try? body.properties()["tools"]?.elements()) ?? []
        for (index, tool) in (tools ?? []).enumerated() {
            let param = "tools[\(index)]"
            guard tool.type == "function" else { throw bad("only function tools are supported", "\(param).type") }
            let name = tool.function.name
            guard !name.isEmpty, name.count <= 64,
                name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") })
            else { throw bad("a function name is 1 to 64 of a-z, A-Z, 0-9, _ and -", "\(param).function.name") }
            guard !definitions.contains(where: { $0.name == name }) else {
                throw bad("two tools are named '\(name)'", "\(param).function.name")
            }
            let parameters: GenerationSchema
            let function =
                index < toolBodies.count ? try? toolBodies[index].properties()["function"]?.properties() : nil
            if let schema = function?["parameters"] {
                do {
                    parameters = try JSONSchemaReader.schema(
                        from: schema, name: name, path: "\(param).function.parameters")
                } catch let failure as JSONSchemaReader.Failure {
                    throw bad("\(failure)", "\(param).function.parameters")
                }
            } else {
                parameters = try JSONSchemaReader.schema(
                    from: GeneratedContent(
                        kind: .structure(
                            properties: ["type": GeneratedContent(kind: .string("object"))], orderedKeys: ["type"])),
                    name: name, path: "\(param).function.parameters")
            }
            definitions.append(
                Transcript.ToolDefinition(
                    name: name, description: tool.function.description ?? "", parameters: parameters))
        }
        var enabled = definitions
        var toolMode: GenerationOptions.ToolCallingMode? = definitions.isEmpty ? nil : .allowed
        switch toolChoice {
        case nil, .auto?: break
        case .none?:
            enabled = []
            toolMode = .disallowed
        case .required?:
            guard !definitions.isEmpty else { throw bad("tool_choice 'required' needs tools", "tool_choice") }
            toolMode = .required
        case .function(let name)?:
            guard let tool = definitions.first(where: { $0.name == name }) else {
                throw bad("tool_choice names '\(name)', which is not one of the tools", "tool_choice")
            }
            enabled = [tool]
            toolMode = .required
        }

        // The response's schema.
        var schema: GenerationSchema?
        var schemaInPrompt = true
        var jsonInstruction: String?
        switch responseFormat?.type {
        case nil, "text"?: break
        case "json_object"?:
            // Enforced by the same constrained decoding as a json_schema: any object whose
            // containers nest at most `Schema.anyObjectDepth` (6) deep, the object counting one
            // (bounded, it is a regular language). The model is told in words, not shown the
            // schema: a small model shown `{"type": "object"}` copies it as its answer.
            schema = GenerationSchema(primitive: .anyObject)
            schemaInPrompt = false
            jsonInstruction = "Answer with one JSON object and nothing else."
        case "json_schema"?:
            guard let format = responseFormat?.jsonSchema else {
                throw bad("response_format json_schema needs 'json_schema'", "response_format.json_schema")
            }
            let formatBody = try? body.properties()["response_format"]?.properties()["json_schema"]?.properties()
            guard let content = formatBody?["schema"] else {
                throw bad("json_schema needs a 'schema'", "response_format.json_schema.schema")
            }
            do {
                schema = try JSONSchemaReader.schema(
                    from: content, name: format.name, path: "response_format.json_schema.schema")
            } catch let failure as JSONSchemaReader.Failure {
                throw bad("\(failure)", "response_format.json_schema.schema")
            }
        case let other?:
            throw bad(
                "response_format type '\(other)' is not one of text, json_object, json_schema", "response_format.type")
        }

        // Options.
        let maximum = maxCompletionTokens ?? maxTokens
        var sampling: GenerationOptions.SamplingMode?
        if temperature == 0 {
            sampling = .greedy
        } else if let topP {
            sampling = .random(probabilityThreshold: topP, seed: seed.map { UInt64(bitPattern: $0) })
        } else if let seed {
            sampling = .random(probabilityThreshold: 1, seed: UInt64(bitPattern: seed))
        }
        let options = GenerationOptions(
            samplingMode: sampling, temperature: temperature == 0 ? nil : temperature, maximumResponseTokens: maximum,
            toolCallingMode: toolMode)

        let context = ContextOptions(includeSchemaInPrompt: schemaInPrompt)
        let transcript = try Self.transcript(
            messages, tools: definitions, options: options, schema: schema, context: context,
            extraInstruction: jsonInstruction)
        let generation = LanguageModelExecutorGenerationRequest(
            id: UUID(), transcript: transcript, enabledTools: enabled, schema: schema, generationOptions: options,
            contextOptions: context, metadata: [:])
        return CompletionPlan(
            generation: generation, stream: stream ?? false, includeUsage: streamOptions?.includeUsage ?? false,
            stopSequences: stopSequences, maximumTokens: maximum)
    }

    /// `messages` as a transcript: system and developer messages become the instructions (with
    /// every tool's definition), user messages prompts, assistant messages responses or tool
    /// calls, tool messages the outputs of the calls they answer.
    package static func transcript(
        _ messages: [OpenAIMessage], tools: [Transcript.ToolDefinition], options: GenerationOptions,
        schema: GenerationSchema?, context: ContextOptions, extraInstruction: String?
    ) throws -> Transcript {
        var instructions: [String] = []
        var entries: [Transcript.Entry] = []
        var callNames: [String: String] = [:]
        for (index, message) in messages.enumerated() {
            let param = "messages[\(index)]"
            let text = message.content?.text ?? ""
            switch message.role {
            case "system", "developer":
                guard entries.isEmpty else {
                    throw OpenAIError.invalidRequest(
                        "system messages must come before the conversation", param: "\(param).role")
                }
                instructions.append(text)
            case "user":
                guard message.content != nil else {
                    throw OpenAIError.invalidRequest("a user message needs content", param: "\(param).content")
                }
                let isLast = index == messages.count - 1
                entries.append(
                    .prompt(
                        Transcript.Prompt(
                            segments: [.text(.init(content: text))], options: isLast ? options : GenerationOptions(),
                            responseFormat: isLast ? schema.map { Transcript.ResponseFormat(schema: $0) } : nil,
                            contextOptions: isLast ? context : ContextOptions())))
            case "assistant":
                if let calls = message.toolCalls, !calls.isEmpty {
                    var transcriptCalls: [Transcript.ToolCall] = []
                    for (callIndex, call) in calls.enumerated() {
                        let arguments: GeneratedContent
                        do {
                            arguments = try GeneratedContent(json: call.function.arguments)
                        } catch {
                            throw OpenAIError.invalidRequest(
                                "the arguments of a tool call must be JSON",
                                param: "\(param).tool_calls[\(callIndex)].function.arguments")
                        }
                        callNames[call.id] = call.function.name
                        transcriptCalls.append(
                            Transcript.ToolCall(id: call.id, toolName: call.function.name, arguments: arguments))
                    }
                    if !text.isEmpty {
                        entries.append(.response(.init(assetIDs: [], segments: [.text(.init(content: text))])))
                    }
                    entries.append(.toolCalls(Transcript.ToolCalls(transcriptCalls)))
                } else {
                    entries.append(.response(.init(assetIDs: [], segments: [.text(.init(content: text))])))
                }
            case "tool":
                guard let id = message.toolCallID else {
                    throw OpenAIError.invalidRequest(
                        "a tool message needs tool_call_id", param: "\(param).tool_call_id")
                }
                guard let name = callNames[id] else {
                    throw OpenAIError.invalidRequest(
                        "tool_call_id '\(id)' answers no tool call of an earlier assistant message",
                        param: "\(param).tool_call_id")
                }
                entries.append(.toolOutput(.init(id: id, toolName: name, segments: [.text(.init(content: text))])))
            default:
                throw OpenAIError.invalidRequest(
                    "role must be system, developer, user, assistant or tool", param: "\(param).role")
            }
        }
        guard let last = messages.last, last.role == "user" || last.role == "tool" else {
            throw OpenAIError.invalidRequest(
                "the last message must be from the user or a tool", param: "messages[\(messages.count - 1)].role")
        }
        if let extraInstruction { instructions.append(extraInstruction) }
        if !instructions.isEmpty || !tools.isEmpty {
            let segments: [Transcript.Segment] =
                instructions.isEmpty ? [] : [.text(.init(content: instructions.joined(separator: "\n\n")))]
            entries.insert(.instructions(.init(segments: segments, toolDefinitions: tools)), at: 0)
        }
        return Transcript(entries: entries)
    }
}
