import FoundationModels
import Inference
import TestSupport
import Testing

@testable import LocalEngine

/// A conversation the model's chat template refuses is the conversation's fault, not a missing
/// model: `unsupportedTranscriptContent`, never `assetsUnavailable`.
extension EngineTests {
    @Suite
    struct TemplateErrors {
        @Test(.onTestThreads) func aConversationTheTemplateRefusesIsUnsupportedContentNotMissingAssets() throws {
            let path = try RealModels.path(RealModels.smollm)
            let header = try ModelHeader(path: path)
            // A template that, like some models' own, insists on a system message first.
            let template = """
                {% if messages[0]['role'] != 'system' %}{{ raise_exception('The first message must be a system message') }}{% endif %}\
                {% for message in messages %}{{ message['content'] }}{% endfor %}
                """
            let renderer = PromptRenderer(
                format: ChatFormat(
                    tokenizer: header.tokenizer, templateSource: template, addsBOS: false, addsEOS: false),
                passesTools: false)
            let prompt = Transcript.Entry.prompt(Transcript.Prompt(segments: [.text(.init(content: "Hello"))]))
            let request = LanguageModelExecutorGenerationRequest(transcript: Transcript(entries: [prompt]))
            do {
                _ = try renderer.tokens(for: request)
                Issue.record("the template's exception was not thrown")
            } catch LanguageModelError.unsupportedTranscriptContent(let context) {
                #expect(context.debugDescription.contains("chat template cannot render this conversation"))
                #expect(context.debugDescription.contains("The first message must be a system message"))
            } catch {
                Issue.record("expected unsupportedTranscriptContent, got \(error)")
            }
            // With the system message it asks for, the same template renders.
            let instructions = Transcript.Entry.instructions(
                Transcript.Instructions(segments: [.text(.init(content: "Be brief."))], toolDefinitions: []))
            let accepted = LanguageModelExecutorGenerationRequest(
                transcript: Transcript(entries: [instructions, prompt]))
            #expect(try renderer.text(for: accepted).contains("Hello"))
        }
    }
}
