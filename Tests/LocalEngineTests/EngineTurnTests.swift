import Foundation
import FoundationModels
import GenerableFixtures
import Guidance
import Inference
import LocalEngine
import TestSupport
import Testing
import Tokenizers

/// Tool-calling turns and prompts on Qwen's tokenizer and chat template, driven by scripted
/// tokens (no model is run).
extension EngineTests {
    @Suite
    struct Turns {
        let loaded: LoadedModel
        let format: ToolCallFormat
        let tool = Transcript.ToolDefinition(tool: WeatherTool())

        init() async throws {
            loaded = try await LocalEngineHost.shared.registry.model(path: try RealModels.path(RealModels.qwen))
            format = try #require(loaded.toolFormat)
        }

        /// Feeds `tokens` to a fresh turn constraint and collector as the runner would: forced
        /// tokens first, every other token checked against the mask.
        func play(_ script: [Int], schema: Schema? = nil, budget: Int = 200) throws -> (
            TurnConstraint, TurnCollector, String
        ) {
            let callSchema = try ToolCallFormat.callSchema(for: [tool])
            let callGrammar = try Grammar.shared(for: callSchema)
            let answer = try schema.map { try Grammar.shared(for: .anyOf([$0, callSchema])) }
            let constraint = TurnConstraint(
                format: format, answerGrammar: answer, callGrammar: callGrammar, index: loaded.vocabularyIndex,
                tokenizer: loaded.model.tokenizer, budget: budget)
            var collector = TurnCollector(
                tokenizer: loaded.model.tokenizer, calling: (format, callGrammar, loaded.vocabularyIndex))
            // The generation loop's detokenizer, whose text the collector takes.
            var detokenizer = StreamingDetokenizer(tokenizer: loaded.model.tokenizer)
            var streamed = ""
            var script = script[...]
            while !constraint.isComplete, !script.isEmpty {
                var chosen = constraint.forcedTokens()
                if chosen.isEmpty {
                    let token = script.removeFirst()
                    var mask = TokenMask(
                        vocabularySize: loaded.model.config.vocabularySize, allowingAll: true)
                    if constraint.restrict(&mask) { #expect(mask.contains(token), "token \(token) is masked") }
                    chosen = [token]
                } else {
                    // A forced token stands in for the script's own spelling of the same text.
                    let text = loaded.model.tokenizer.decode(chosen)
                    var skipped = ""
                    while skipped.count < text.count, !script.isEmpty {
                        skipped += loaded.model.tokenizer.decode([script.removeFirst()])
                    }
                }
                for token in chosen {
                    try constraint.accept(token)
                    if loaded.model.tokenizer.endOfGenerationTokenIDs.contains(token) { break }
                    streamed += collector.take(token, text: detokenizer.append(token))
                }
            }
            streamed += collector.finish(tail: detokenizer.flush())
            return (constraint, collector, streamed)
        }

        /// The tokens of the pieces, each tokenized on its own (as a model writes tags and JSON).
        func tokens(_ pieces: String...) -> [Int] {
            pieces.flatMap { loaded.model.tokenizer.encode($0, parseSpecial: true) }
        }

        @Test(.onTestThreads) func aTaggedCallIsGeneratedUnderTheCallGrammarAndClosed() throws {
            let script = tokens(
                "<tool_call>", "\n", "{\"name\": \"getWeather\", \"arguments\": {\"city\": \"Paris\"}}", "\n",
                "</tool_call>", "<|im_end|>")
            let (constraint, collector, streamed) = try play(script)
            #expect(streamed.isEmpty)
            #expect(collector.isCall)
            let calls = try collector.callTexts.finished.map(ToolCallFormat.parseCall)
            #expect(calls.map { $0.toolName } == ["getWeather"])
            #expect(try calls.first?.arguments.value(String.self, forProperty: "city") == "Paris")
            #expect(constraint.callCount == 1)
        }

        @Test(.onTestThreads) func aBareCallIsACallToo() throws {
            let script = tokens("{\"name\": \"getWeather\", \"arguments\": {\"city\": \"Oslo\"}}", "<|im_end|>")
            let (constraint, collector, streamed) = try play(script)
            #expect(streamed.isEmpty)
            #expect(constraint.isComplete)
            let calls = try collector.callTexts.finished.map(ToolCallFormat.parseCall)
            #expect(try calls.first?.arguments.value(String.self, forProperty: "city") == "Oslo")
        }

        @Test(.onTestThreads) func textIsStreamedOnceItCannotBeACall() throws {
            let (_, collector, streamed) = try play(tokens("\n\nIt is sunny today.<|im_end|>"))
            #expect(!collector.isCall)
            #expect(streamed == "\n\nIt is sunny today.")
            #expect(collector.text == streamed)
            let (_, json, jsonStreamed) = try play(tokens("{\"weather\": \"sunny\"}<|im_end|>"))
            #expect(!json.isCall)
            #expect(jsonStreamed == "{\"weather\": \"sunny\"}")
        }

        @Test(.onTestThreads) func aTextAnswerEndsWhereItOpensACall() throws {
            let (constraint, collector, streamed) = try play(tokens("Let me check.", "<tool_call>", "\n{\"name\""))
            #expect(constraint.isComplete)
            #expect(!collector.isCall)
            #expect(streamed == "Let me check.")
        }

        @Test(.onTestThreads) func aStructuredAnswerOrACallUnderTheUnionGrammar() throws {
            let schema = try ReplySuggestions.generationSchema.guidanceSchema()
            let (_, answer, streamed) = try play(tokens("{\"replies\": [\"a\", \"b\", \"c\"]}"), schema: schema)
            #expect(!answer.isCall)
            #expect(streamed == "{\"replies\": [\"a\", \"b\", \"c\"]}")
            let (_, call, callStreamed) = try play(
                tokens("{\"name\": \"getWeather\", \"arguments\": {\"city\": \"Rome\"}}"), schema: schema)
            #expect(call.isCall)
            #expect(callStreamed.isEmpty)
        }

        @Test(.onTestThreads) func repeatedAnsweredCallsAreRecognized() throws {
            let call = Transcript.ToolCall(
                id: "1", toolName: "getWeather", arguments: GeneratedContent(properties: ["city": "Paris"]))
            let transcript = Transcript(entries: [
                .prompt(Transcript.Prompt(segments: [.text(.init(content: "Weather?"))])),
                .toolCalls(Transcript.ToolCalls([call])),
                .toolOutput(
                    Transcript.ToolOutput(id: "1", toolName: "getWeather", segments: [.text(.init(content: "Sunny"))])),
            ])
            let again = Transcript.ToolCall(
                id: "", toolName: "getWeather", arguments: GeneratedContent(properties: ["city": "Paris"]))
            let other = Transcript.ToolCall(
                id: "", toolName: "getWeather", arguments: GeneratedContent(properties: ["city": "Rome"]))
            #expect(ModelRuntime.repeatsAnsweredCalls([again], in: transcript))
            #expect(!ModelRuntime.repeatsAnsweredCalls([again, other], in: transcript))
        }

        @Test(.onTestThreads) func promptsUseTheTemplatesOwnToolFormat() throws {
            let call = Transcript.ToolCall(
                id: "c1", toolName: "getWeather", arguments: GeneratedContent(properties: ["city": "Paris"]))
            let transcript = Transcript(entries: [
                .instructions(
                    Transcript.Instructions(segments: [.text(.init(content: "Be brief."))], toolDefinitions: [tool])),
                .prompt(Transcript.Prompt(segments: [.text(.init(content: "Weather in Paris?"))])),
                .toolCalls(Transcript.ToolCalls([call])),
                .toolOutput(
                    Transcript.ToolOutput(id: "c1", toolName: "getWeather", segments: [.text(.init(content: "21 °C"))])),
            ])
            let text = try loaded.renderer.text(
                for: LanguageModelExecutorGenerationRequest(transcript: transcript, tools: [tool]))
            #expect(text.hasPrefix("<|im_start|>system\nBe brief.\n\n# Tools"))
            #expect(
                text.contains(
                    #"{"type": "function", "function": {"name": "getWeather", "description": "Gets the current weather in a city.""#
                ))
            #expect(
                text.contains(
                    "<|im_start|>assistant\n<tool_call>\n{\"name\": \"getWeather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call><|im_end|>"
                ))
            #expect(text.contains("<|im_start|>user\n<tool_response>\n21 °C\n</tool_response><|im_end|>"))
            #expect(text.hasSuffix("<|im_start|>assistant\n"))
            // The tools stay in the prompt in a turn that may not call them.
            let last = try loaded.renderer.text(
                for: LanguageModelExecutorGenerationRequest(transcript: transcript, tools: []))
            #expect(last == text)
        }

        @Test(.onTestThreads) func earlierStructuredTurnsRenderAsTheyWereGenerated() throws {
            let format = Transcript.ResponseFormat(type: ReplySuggestions.self)
            let content = try GeneratedContent(json: #"{"replies": ["a", "b", "c"]}"#)
            let transcript = Transcript(entries: [
                .prompt(Transcript.Prompt(segments: [.text(.init(content: "First"))], responseFormat: format)),
                .response(
                    Transcript.Response(
                        assetIDs: [], segments: [.structure(.init(source: format.name, content: content))])),
                .prompt(Transcript.Prompt(segments: [.text(.init(content: "Second"))])),
            ])
            let text = try loaded.renderer.text(for: LanguageModelExecutorGenerationRequest(transcript: transcript))
            #expect(text.contains("First\n\nRespond with a JSON value that follows this JSON Schema:"))
            #expect(text.contains("<|im_start|>assistant\n{\"replies\": [\"a\", \"b\", \"c\"]}<|im_end|>"))
            // Empty instructions leave the template's own system prompt.
            #expect(text.hasPrefix("<|im_start|>system\nYou are Qwen"))
        }
    }
}
