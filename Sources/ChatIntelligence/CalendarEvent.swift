import Foundation

/// An event at a point in time, ready for a calendar: what ``EventResolver`` makes of an
/// ``EventMention``, and what an `.ics` file holds.
public struct CalendarEvent: Sendable, Equatable, Codable {
    public var title: String
    /// The first moment of the event (for an all-day event, midnight in ``timeZone``).
    public var start: Date
    /// The moment it ends (for an all-day event, the next midnight).
    public var end: Date
    /// Whether the message named a day but no time.
    public var isAllDay: Bool
    public var location: String?
    /// The time zone the event was resolved in (an IANA identifier: `Europe/Paris`).
    public var timeZone: String

    public init(title: String, start: Date, end: Date, isAllDay: Bool, location: String?, timeZone: String) {
        self.title = title
        self.start = start
        self.end = end
        self.isAllDay = isAllDay
        self.location = location
        self.timeZone = timeZone
    }

    /// The event as an iCalendar (RFC 5545) file: one `VEVENT`, timed events in UTC (every
    /// calendar shows them in its own zone), all-day ones as dates; text escaped, lines folded at
    /// 75 octets, CRLF line ends.
    ///
    /// - Parameters:
    ///   - uid: identifies the event, so that importing it twice updates it instead of adding a copy.
    ///   - stamp: when the file was made (`DTSTAMP`).
    ///   - description: a note to carry along (the message the event came from).
    public func ics(uid: String, stamp: Date, description: String? = nil) -> String {
        var lines = [
            "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Sotto//Chat//EN", "CALSCALE:GREGORIAN", "METHOD:PUBLISH",
            "BEGIN:VEVENT", "UID:" + Self.escaped(uid), "DTSTAMP:" + Self.utc(stamp),
        ]
        if isAllDay {
            let zone = TimeZone(identifier: timeZone) ?? .gmt
            lines.append("DTSTART;VALUE=DATE:" + Self.day(start, in: zone))
            lines.append("DTEND;VALUE=DATE:" + Self.day(end, in: zone))
        } else {
            lines.append("DTSTART:" + Self.utc(start))
            lines.append("DTEND:" + Self.utc(end))
        }
        lines.append("SUMMARY:" + Self.escaped(title))
        if let location, !location.isEmpty { lines.append("LOCATION:" + Self.escaped(location)) }
        if let description, !description.isEmpty { lines.append("DESCRIPTION:" + Self.escaped(description)) }
        lines += ["END:VEVENT", "END:VCALENDAR"]
        return lines.map(Self.folded).joined(separator: "\r\n") + "\r\n"
    }

    /// `20261205T160000Z`.
    static func utc(_ date: Date) -> String {
        let parts = Calendar.gregorian(in: .gmt).dateComponents(
            [.year, .month, .day, .hour, .minute, .second], from: date)
        return digits(parts.year, 4) + digits(parts.month, 2) + digits(parts.day, 2) + "T" + digits(parts.hour, 2)
            + digits(parts.minute, 2) + digits(parts.second, 2) + "Z"
    }

    /// `20261205`: the calendar day of `date` in `zone`.
    static func day(_ date: Date, in zone: TimeZone) -> String {
        let parts = Calendar.gregorian(in: zone).dateComponents([.year, .month, .day], from: date)
        return digits(parts.year, 4) + digits(parts.month, 2) + digits(parts.day, 2)
    }

    private static func digits(_ value: Int?, _ width: Int) -> String {
        let text = String(value ?? 0)
        return String(repeating: "0", count: max(0, width - text.count)) + text
    }

    /// TEXT values escape backslashes, semicolons, commas and line breaks (RFC 5545 §3.3.11).
    static func escaped(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": result += "\\\\"
            case ";": result += "\\;"
            case ",": result += "\\,"
            case "\n": result += "\\n"
            case "\r": continue
            default:
                // Other control characters are not allowed in TEXT.
                if scalar.value < 0x20 || scalar.value == 0x7F { continue }
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// A content line folded into lines of at most 75 octets, each continuation starting with a
    /// space, never inside a UTF-8 sequence (RFC 5545 §3.1).
    static func folded(_ line: String) -> String {
        var pieces: [String] = []
        var current = ""
        var octets = 0
        for character in line {
            let size = character.utf8.count
            let limit = pieces.isEmpty ? 75 : 74  // a continuation's leading space counts
            if octets + size > limit {
                pieces.append(current)
                current = ""
                octets = 0
            }
            current.append(character)
            octets += size
        }
        pieces.append(current)
        return pieces.joined(separator: "\r\n ")
    }
}

extension Calendar {
    /// The Gregorian calendar in `zone`.
    static func gregorian(in zone: TimeZone) -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        return calendar
    }
}
