import Foundation
import FoundationModels
import OpenAIWire
import ServerKit

/// Runs one planned completion on the seam: calls the model's executor, reads its channel,
/// applies the stop sequences and hands text on as it comes. Cancelling the task that runs
/// `run` (a client that hung up) cancels the executor, which stops the engine within a token.
package struct CompletionRunner: Sendable {
    package struct Outcome: Sendable {
        var text = ""
        var toolCalls: [ToolCallValue] = []
        var finishReason = "stop"
        var promptTokens = 0
        var completionTokens = 0
    }

    package let model: SystemLanguageModel

    /// Generates `plan`; `onText` gets each piece of content to send (false: stop, the client
    /// is gone). Throws `CancellationError` when stopped.
    package func run(_ plan: CompletionPlan, onText: @Sendable (String) async -> Bool) async throws -> Outcome {
        let channel = LanguageModelExecutorGenerationChannel()
        let executor = SystemLanguageModel.Executor(configuration: model.executorConfiguration)
        let model = self.model
        let request = plan.generation
        // On the caller's executor preference (the server's completions thread).
        let producer = Task {
            do {
                try await executor.respond(to: request, model: model, streamingInto: channel)
                channel.finish()
            } catch {
                channel.finish(throwing: error)
            }
        }
        // Returns only once the executor has: a stopped request has stopped the engine.
        do {
            let outcome = try await withTaskCancellationHandler {
                try await read(channel, plan: plan, onText: onText, stopGenerating: { producer.cancel() })
            } onCancel: {
                producer.cancel()
            }
            await producer.value
            return outcome
        } catch {
            producer.cancel()
            await producer.value
            throw error
        }
    }

    private func read(
        _ channel: LanguageModelExecutorGenerationChannel, plan: CompletionPlan,
        onText: @Sendable (String) async -> Bool, stopGenerating: () -> Void
    ) async throws -> Outcome {
        typealias Channel = LanguageModelExecutorGenerationChannel
        var outcome = Outcome()
        var full = ""
        var emitted = 0  // characters of `full` handed on
        var countedTokens = 0
        var usage: Channel.Usage?
        var calls: [(id: String, name: String, arguments: String)] = []
        let holdBack = max(0, (plan.stopSequences.map(\.count).max() ?? 0) - 1)
        var stopped = false

        func flush(upTo end: Int) async throws {
            guard end > emitted else { return }
            let start = full.index(full.startIndex, offsetBy: emitted)
            let piece = String(full[start..<full.index(full.startIndex, offsetBy: end)])
            emitted = end
            guard await onText(piece) else { throw CancellationError() }
        }

        reading: for try await event in channel {
            switch event.payload {
            case .response(let response):
                switch response.action.kind {
                case .appendText(let fragment):
                    countedTokens += fragment.tokenCount
                    full += fragment.content
                    if !plan.stopSequences.isEmpty {
                        let searchFrom = full.index(full.startIndex, offsetBy: max(0, emitted - holdBack))
                        let matches = plan.stopSequences.compactMap {
                            full.range(of: $0, range: searchFrom..<full.endIndex)
                        }
                        if let first = matches.min(by: { $0.lowerBound < $1.lowerBound }) {
                            full = String(full[..<first.lowerBound])
                            try await flush(upTo: full.count)
                            stopped = true
                            stopGenerating()
                            break reading
                        }
                    }
                    try await flush(upTo: max(emitted, full.count - holdBack))
                case .updateUsage(let value):
                    usage = value
                default:
                    break
                }
            case .toolCalls(let toolCalls):
                switch toolCalls.action.kind {
                case .toolCall(let call):
                    if case .appendArguments(let content, let tokenCount) = call.action.kind {
                        countedTokens += tokenCount
                        if let index = calls.firstIndex(where: { $0.id == call.id }) {
                            calls[index].arguments += content
                        } else {
                            calls.append((call.id, call.name, content))
                        }
                    } else if !calls.contains(where: { $0.id == call.id }) {
                        calls.append((call.id, call.name, ""))
                    }
                case .removeToolCall(let id):
                    calls.removeAll { $0.id == id }
                case .updateUsage(let value):
                    usage = value
                default:
                    break
                }
            case .reasoning(let reasoning):
                if case .updateUsage(let value) = reasoning.action.kind { usage = value }
            }
        }
        if !stopped { try await flush(upTo: full.count) }
        outcome.text = full
        outcome.toolCalls = calls.map {
            ToolCallValue(
                id: $0.id, type: "function",
                function: .init(name: $0.name, arguments: $0.arguments.isEmpty ? "{}" : $0.arguments))
        }
        outcome.promptTokens = usage?.input.totalTokenCount ?? 0
        outcome.completionTokens = max(usage?.output.totalTokenCount ?? 0, countedTokens)
        if !outcome.toolCalls.isEmpty {
            outcome.finishReason = "tool_calls"
        } else if !stopped, let maximum = plan.maximumTokens, outcome.completionTokens >= maximum {
            outcome.finishReason = "length"
        }
        return outcome
    }
}
