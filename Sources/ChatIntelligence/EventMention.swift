import FoundationModels

/// The day a message names, as the model reads it.
@Generable(description: "The day a message names")
public enum EventDay: String, Sendable, Hashable, Codable, CaseIterable {
    case today, tonight, tomorrow, monday, tuesday, wednesday, thursday, friday, saturday, sunday
    /// A calendar date, in ``EventMention/date``.
    case date
    /// The message names no day.
    case unknown
}

/// The event a chat message mentions, as the model extracts it: the words of the message, not
/// yet a point in time. ``EventResolver`` resolves it against the message's own timestamp and
/// the reader's time zone (a model is not trusted with calendar arithmetic).
@Generable(description: "The event a chat message mentions")
public struct EventMention: Sendable, Equatable {
    @Guide(description: "A short title for the event, 1 to 6 words", .pattern(/^[^\n\r"\\]{1,60}$/))
    public var title: String

    @Guide(description: "The day the message names: today, tonight, tomorrow, a weekday, date, or unknown")
    public var day: EventDay

    @Guide(
        description: "The date as YYYY-MM-DD when the message gives a calendar date, else empty",
        .pattern(/^(20[0-9][0-9]-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01]))?$/))
    public var date: String

    @Guide(
        description: "The start time as 24-hour HH:MM (8am is 08:00, 7pm is 19:00), else empty",
        .pattern(/^(([01][0-9]|2[0-3]):[0-5][0-9])?$/))
    public var startTime: String

    @Guide(description: "How long it lasts, in minutes (60 when the message does not say)", .range(15...720))
    public var durationMinutes: Int

    @Guide(description: "Where it happens, in the message's words, else empty", .pattern(/^[^\n\r"\\]{0,80}$/))
    public var place: String

    public init(
        title: String, day: EventDay, date: String = "", startTime: String = "", durationMinutes: Int = 60,
        place: String = ""
    ) {
        self.title = title
        self.day = day
        self.date = date
        self.startTime = startTime
        self.durationMinutes = durationMinutes
        self.place = place
    }
}
