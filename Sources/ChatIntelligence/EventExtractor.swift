import Foundation
import FoundationModels

/// Turns what a message says ("Saturday 8am") into a point in time: against the moment the
/// message was sent, in the reader's time zone.
///
/// - A weekday is its next occurrence after the day the message was sent; the same weekday is
///   that very day only when its time is still to come ("Saturday 8pm" sent on Saturday at noon).
/// - "tonight" without a time is 19:00; a day without a time is an all-day event.
/// - A calendar date is taken as written.
public enum EventResolver {
    public static func resolve(_ mention: EventMention, sentAt: Date, timeZone: TimeZone) -> CalendarEvent? {
        let calendar = Calendar.gregorian(in: timeZone)
        let sentDay = calendar.startOfDay(for: sentAt)
        var minutes = parseTime(mention.startTime)
        if mention.day == .tonight, minutes == nil { minutes = 19 * 60 }
        let day: Date?
        switch mention.day {
        case .today, .tonight: day = sentDay
        case .tomorrow: day = calendar.date(byAdding: .day, value: 1, to: sentDay)
        case .date: day = parseDate(mention.date, calendar: calendar)
        case .unknown: day = mention.date.isEmpty ? nil : parseDate(mention.date, calendar: calendar)
        default:
            guard let target = weekdayNumber(mention.day) else { return nil }
            let current = calendar.component(.weekday, from: sentDay)
            var delta = (target - current + 7) % 7
            if delta == 0 {
                let sentMinutes =
                    calendar.component(.hour, from: sentAt) * 60 + calendar.component(.minute, from: sentAt)
                if minutes.map({ $0 <= sentMinutes }) ?? true { delta = 7 }
            }
            day = calendar.date(byAdding: .day, value: delta, to: sentDay)
        }
        guard let day else { return nil }
        let title = TextMatching.trimmed(mention.title)
        let place = TextMatching.trimmed(mention.place)
        let location = place.isEmpty ? nil : place
        guard let minutes else {
            guard let next = calendar.date(byAdding: .day, value: 1, to: day) else { return nil }
            return CalendarEvent(
                title: title, start: day, end: next, isAllDay: true, location: location, timeZone: timeZone.identifier)
        }
        // Through date components, not seconds: a day with a daylight-saving change is not 24 h.
        var parts = calendar.dateComponents([.year, .month, .day], from: day)
        parts.hour = minutes / 60
        parts.minute = minutes % 60
        guard let start = calendar.date(from: parts) else { return nil }
        let end = start.addingTimeInterval(Double(max(15, mention.durationMinutes)) * 60)
        return CalendarEvent(
            title: title, start: start, end: end, isAllDay: false, location: location, timeZone: timeZone.identifier)
    }

    /// `"08:30"` → 510; nil for empty or malformed text.
    static func parseTime(_ text: String) -> Int? {
        let parts = text.split(separator: ":")
        guard parts.count == 2, let hour = Int(parts[0]), let minute = Int(parts[1]), (0...23).contains(hour),
            (0...59).contains(minute)
        else { return nil }
        return hour * 60 + minute
    }

    /// Midnight of `"2026-12-05"` in the calendar's zone; nil for an impossible date.
    static func parseDate(_ text: String, calendar: Calendar) -> Date? {
        let parts = text.split(separator: "-").compactMap { Int($0) }
        guard parts.count == 3 else { return nil }
        let components = DateComponents(year: parts[0], month: parts[1], day: parts[2])
        guard components.isValidDate(in: calendar) else { return nil }
        return calendar.date(from: components)
    }

    /// Gregorian weekday numbers: Sunday 1 … Saturday 7.
    static func weekdayNumber(_ day: EventDay) -> Int? {
        switch day {
        case .sunday: 1
        case .monday: 2
        case .tuesday: 3
        case .wednesday: 4
        case .thursday: 5
        case .friday: 6
        case .saturday: 7
        default: nil
        }
    }
}

/// Finds the event a chat message mentions and resolves it to a calendar event.
///
/// ```swift
/// let extractor = EventExtractor()
/// let event = try await extractor.event(
///     in: "Saturday 8am at the trailhead?", from: "Bob", sentAt: message.date,
///     timeZone: TimeZone(identifier: "America/Denver")!)
/// let file = event?.ics(uid: message.id, stamp: .now)
/// ```
public struct EventExtractor: Sendable {
    /// The model the results come from.
    public let model: any LanguageModel

    /// Events read by `model`: the on-device model unless another is given, or any model of the seam (one
    /// behind an OpenAI-compatible endpoint, say).
    public init(model: some LanguageModel = SystemLanguageModel.default) {
        self.model = model
    }

    /// The model's reading of `text`, with the day and time the text spells out itself (when it
    /// names exactly one of each) taking precedence.
    public func mention(in text: String, from author: String, sentAt: Date, timeZone: TimeZone) async throws
        -> EventMention
    {
        let session = LanguageModelSession(model: model, transcript: Self.transcript)
        let prompt = Self.prompt(text, from: author, sentAt: sentAt, timeZone: timeZone)
        var mention = try await session.respond(
            to: prompt, generating: EventMention.self, includeSchemaInPrompt: false,
            options: GenerationOptions(sampling: .greedy, maximumResponseTokens: 120)
        ).content
        let spelled = DateMentions(in: text)
        if let day = spelled.day, !spelled.hasCalendarDate {
            // "Saturday" is Saturday: a date the model worked out itself is not trusted.
            mention.day = day
            mention.date = ""
        }
        if let minutes = spelled.time {
            mention.startTime =
                String(format: "%02d:%02d", minutes / 60, minutes % 60)
        }
        return mention
    }

    /// The event `text` mentions, resolved against `sentAt` in `timeZone`; nil when it names
    /// no day.
    public func event(in text: String, from author: String, sentAt: Date, timeZone: TimeZone) async throws
        -> CalendarEvent?
    {
        let mention = try await mention(in: text, from: author, sentAt: sentAt, timeZone: timeZone)
        return EventResolver.resolve(mention, sentAt: sentAt, timeZone: timeZone)
    }

    package static let instructions = """
        You read a chat message and write down the event it mentions: a short title, the day, \
        the start time, how long it lasts and the place.

        Rules:
        - Use the message's own words. A weekday stays a weekday; never work out a date yourself.
        - The time on the 24-hour clock: 8am is 08:00, 2:30pm is 14:30, 7 in the evening is 19:00.
        - Leave the time, date or place empty when the message does not give it.
        """

    /// The prompt: who sent the message and when (the model sees the weekday it was sent on),
    /// then the message.
    package static func prompt(_ text: String, from author: String, sentAt: Date, timeZone: TimeZone) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = timeZone
        formatter.dateFormat = "EEEE yyyy-MM-dd HH:mm"
        return """
            Message from \(ReplyDrafter.singleLine(author, limit: 64)), sent \(formatter.string(from: sentAt)):
            \(ReplyDrafter.singleLine(text, limit: 600))
            """
    }

    package static let examples: [(text: String, mention: EventMention)] = [
        (
            "Dinner at Luigi's tomorrow at 7:30pm? I booked for two hours.",
            EventMention(
                title: "Dinner at Luigi's", day: .tomorrow, startTime: "19:30", durationMinutes: 120,
                place: "Luigi's")
        ),
        (
            "Reminder: dentist on 2026-03-14 at 9, it takes 45 minutes",
            EventMention(title: "Dentist", day: .date, date: "2026-03-14", startTime: "09:00", durationMinutes: 45)
        ),
        (
            "Team call Friday afternoon, 3pm, on the usual link",
            EventMention(title: "Team call", day: .friday, startTime: "15:00", place: "The usual link")
        ),
    ]

    package static let transcript: Transcript = {
        let sent = Date(timeIntervalSince1970: 1_767_000_000)  // a fixed Monday, 29 Dec 2025
        return StreamedResponse.transcript(
            instructions: instructions,
            examples: examples.map { (prompt($0.text, from: "Sam", sentAt: sent, timeZone: .gmt), $0.mention) })
    }()
}
