/// The days and clock times a text spells out in English ("Saturday", "tomorrow", "8am",
/// "7:30 pm", "14:00", "noon"), found without the model.
///
/// ``EventExtractor`` lets these override what the model read when the text names exactly one
/// of each: a small model copies "8am" as "20:00" now and then, and a pattern does not.
package struct DateMentions: Equatable, Sendable {
    /// Every day word, in order (`tonight` and `today` included).
    package var days: [EventDay] = []
    /// Every clock time, as minutes after midnight, in order.
    package var times: [Int] = []
    /// Whether the text also gives a calendar date ("2026-03-14", "14/3", "March 14"), which
    /// the model reads.
    package var hasCalendarDate = false

    package init(days: [EventDay] = [], times: [Int] = []) {
        self.days = days
        self.times = times
    }

    package init(in text: String) {
        let words = Self.words(of: text.lowercased())
        var index = 0
        while index < words.count {
            let word = words[index]
            if let day = Self.dayWords[word] {
                days.append(day)
            } else if Self.isCalendarDate(word)
                || (Self.months.contains(word) && index + 1 < words.count
                    && words[index + 1].allSatisfy(\.isNumber))
                || (word.allSatisfy(\.isNumber) && index + 1 < words.count
                    && Self.months.contains(words[index + 1]))
            {
                hasCalendarDate = true
            } else if word == "noon" || word == "midday" {
                times.append(12 * 60)
            } else if word == "midnight" {
                times.append(0)
            } else if let time = Self.clockTime(word, next: index + 1 < words.count ? words[index + 1] : nil) {
                times.append(time.minutes)
                if time.usedNext { index += 1 }
            }
            index += 1
        }
    }

    /// The single day the text names, if it names exactly one (repeats allowed).
    package var day: EventDay? { Set(days).count == 1 ? days[0] : nil }
    /// The single time the text names, if exactly one.
    package var time: Int? { Set(times).count == 1 ? times[0] : nil }

    static let dayWords: [String: EventDay] = [
        "today": .today, "tonight": .tonight, "tomorrow": .tomorrow, "monday": .monday, "tuesday": .tuesday,
        "wednesday": .wednesday, "thursday": .thursday, "friday": .friday, "saturday": .saturday, "sunday": .sunday,
        "mon": .monday, "tue": .tuesday, "tues": .tuesday, "wed": .wednesday, "thu": .thursday, "thurs": .thursday,
        "fri": .friday, "sat": .saturday, "sun": .sunday,
    ]

    static let months: Set<String> = [
        "january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november",
        "december", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec",
    ]

    /// "2026-03-14" or "14/3" (a run the word splitter keeps whole only for `-` and `/` below).
    static func isCalendarDate(_ word: String) -> Bool {
        let parts = word.split(whereSeparator: { $0 == "-" || $0 == "/" })
        return parts.count >= 2 && parts.count <= 3 && word.contains(where: { $0 == "-" || $0 == "/" })
            && parts.allSatisfy { !$0.isEmpty && $0.count <= 4 && $0.allSatisfy(\.isNumber) }
    }

    /// Runs of letters, digits, `:` and `.` (so "8:30", "8am", "p.m." stay whole), and `-` or
    /// `/` between digits (so "2026-03-14" and "14/3" do).
    static func words(of text: String) -> [String] {
        var words: [String] = []
        var current = ""
        for character in text {
            if character.isLetter || character.isNumber || character == ":" || character == "."
                || ((character == "-" || character == "/") && current.last?.isNumber == true)
            {
                current.append(character)
            } else if !current.isEmpty {
                words.append(current)
                current = ""
            }
        }
        if !current.isEmpty { words.append(current) }
        // A sentence's full stop is not part of its last word ("at 8am." → "8am").
        return words.map { word in
            var word = Substring(word)
            while word.hasSuffix("."), !word.hasSuffix("a.m."), !word.hasSuffix("p.m.") { word = word.dropLast() }
            return String(word)
        }.filter { !$0.isEmpty }
    }

    /// "8am", "8" + "am", "8:30pm", "8:30" + "p.m.", "14:00": minutes after midnight. A bare
    /// number without am/pm is not a time ("12 km"); a bare "h:mm" is read on the 24-hour clock.
    static func clockTime(_ word: String, next: String?) -> (minutes: Int, usedNext: Bool)? {
        var body = Substring(word)
        var meridiem: String?
        var usedNext = false
        for suffix in ["a.m.", "p.m.", "am", "pm"] where body.hasSuffix(suffix) {
            meridiem = String(suffix.prefix(1))
            body = body.dropLast(suffix.count)
            break
        }
        if meridiem == nil, let next, ["am", "pm", "a.m.", "p.m."].contains(next) {
            meridiem = String(next.prefix(1))
            usedNext = true
        }
        let parts = body.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCII) }),
            let hour = Int(parts[0]), parts[0].count <= 2
        else { return nil }
        var minute = 0
        if parts.count == 2 {
            guard parts[1].count == 2, let value = Int(parts[1]), (0..<60).contains(value) else { return nil }
            minute = value
        }
        switch meridiem {
        case "a"?:
            guard (1...12).contains(hour) else { return nil }
            return ((hour % 12) * 60 + minute, usedNext)
        case "p"?:
            guard (1...12).contains(hour) else { return nil }
            return ((hour % 12 + 12) * 60 + minute, usedNext)
        default:
            guard parts.count == 2, (0...23).contains(hour) else { return nil }
            return (hour * 60 + minute, false)
        }
    }

    /// Whether the text names a day or a clock time at all.
    package var isEmpty: Bool { days.isEmpty && times.isEmpty }
}
