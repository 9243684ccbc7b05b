import ChatIntelligence
import ChatStore
import Foundation
import FoundationModels
import ServerKit

/// The server's model features as job work: each turns ChatIntelligence's stream into the
/// results ``ModelJobs`` publishes, every result naming the model that produced it.
struct ModelFeatures: Sendable {
    /// The local model, or the fallback while the local one is unavailable.
    let model: any LanguageModel
    /// Its name, as each result carries it.
    let name: String

    init(_ choice: ServerModel.Choice) {
        model = choice.model
        name = choice.name
    }

    func writing(_ tool: WritingTool, text: String, attempt: Int) -> ModelJobs.Work {
        let tools = WritingTools(model: model)
        return streaming {
            tools.stream(tool, on: text, attempt: attempt)
        } result: {
            JobResult(text: $0)
        }
    }

    func translation(_ text: String, into language: TranslationLanguage) -> ModelJobs.Work {
        let translator = Translator(model: model)
        return streaming {
            translator.stream(text, into: language)
        } result: {
            JobResult(text: $0, language: language.code)
        }
    }

    func summary(of messages: [ChatMessage]) -> ModelJobs.Work {
        let summarizer = ThreadSummarizer(model: model)
        return streaming {
            summarizer.stream(messages)
        } result: {
            JobResult(text: $0)
        }
    }

    func searchSuggestions(for topic: String, messages: [String]) -> ModelJobs.Work {
        let suggester = SearchSuggester(model: model)
        return streaming {
            suggester.stream(for: topic, messages: messages)
        } result: {
            JobResult(terms: $0)
        }
    }

    /// The event `message` mentions, as a calendar file: a job that fails with a readable
    /// reason when the message names no day.
    func event(in message: Message, author: String, timeZone: TimeZone) -> ModelJobs.Work {
        let extractor = EventExtractor(model: model)
        return { _ in
            guard
                let event = try await extractor.event(
                    in: message.text, from: author, sentAt: message.createdAt.date, timeZone: timeZone)
            else {
                throw JobFailure(message: "This message does not say which day; there is no event to add.")
            }
            try Task.checkCancellation()
            let ics = event.ics(
                uid: "\(message.id.rawValue)@sotto", stamp: Date(),
                description: "From \(author)'s message: \(message.text)")
            return JobResult(
                model: name,
                event: .init(
                    title: event.title, start: Timestamp(event.start), end: Timestamp(event.end),
                    all_day: event.isAllDay, location: event.location, time_zone: event.timeZone),
                ics: ics, filename: Self.filename(for: event.title))
        }
    }

    /// Work that reads a stream of cumulative values, publishing each, and returns the last.
    func streaming<Value: Sendable>(
        _ makeStream: @escaping @Sendable () -> AsyncThrowingStream<Value, any Error>,
        result: @escaping @Sendable (Value) -> JobResult
    ) -> ModelJobs.Work {
        let name = name
        return { update in
            var last: JobResult?
            for try await value in makeStream() {
                var partial = result(value)
                partial.model = name
                last = partial
                update(partial)
            }
            try Task.checkCancellation()
            guard let last else { throw JobFailure(message: "The model wrote nothing; try again.") }
            return last
        }
    }

    /// A file name from an event's title: letters, digits and dashes, `event.ics` at worst.
    static func filename(for title: String) -> String {
        let words = title.lowercased().split { !($0.isLetter || $0.isNumber) }.prefix(6)
        let stem = words.joined(separator: "-").prefix(60)
        return (stem.isEmpty ? "event" : String(stem)) + ".ics"
    }
}
