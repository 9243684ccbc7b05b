import Foundation
import TestSupport
import Testing

@testable import ChatIntelligence

/// The date action without a model: reading days and times, resolving them against the
/// message's time in the reader's zone, and the `.ics` file.
@Suite struct CalendarEventTests {
    let denver = TimeZone(identifier: "America/Denver")!

    func date(_ text: String, in zone: TimeZone) -> Date {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = zone
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        return formatter.date(from: text)!
    }

    func local(_ date: Date, in zone: TimeZone) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = zone
        formatter.dateFormat = "EEE yyyy-MM-dd HH:mm"
        return formatter.string(from: date)
    }

    @Test(.onTestThreads) func readsDaysAndTimesSpelledOut() {
        #expect(
            DateMentions(in: "Let's meet Saturday 8am at the trailhead")
                == DateMentions(days: [.saturday], times: [480]))
        #expect(DateMentions(in: "tomorrow at 7:30 pm?").times == [19 * 60 + 30])
        #expect(DateMentions(in: "Call at 14:00, not 8 p.m.").times == [14 * 60, 20 * 60])
        #expect(DateMentions(in: "Lunch at noon tonight").days == [.tonight])
        #expect(DateMentions(in: "Lunch at noon tonight").times == [12 * 60])
        #expect(DateMentions(in: "It's about 12 km, 3 hours").isEmpty)  // bare numbers are not times
        #expect(DateMentions(in: "Meet at 8am.").times == [480])
        #expect(DateMentions(in: "12am and 12pm").times == [0, 12 * 60])
        #expect(DateMentions(in: "on 2026-03-14 at 9").hasCalendarDate)
        #expect(DateMentions(in: "Friday March 6").hasCalendarDate)
        #expect(!DateMentions(in: "Friday at 6").hasCalendarDate)
        #expect(DateMentions(in: "Saturday or Sunday").day == nil)  // two days: the model decides
    }

    @Test(.onTestThreads) func aWeekdayIsItsNextOccurrence() throws {
        // Tuesday 1 December 2026, 04:44 in Denver.
        let sent = date("2026-12-01 04:44", in: denver)
        let saturday = try #require(
            EventResolver.resolve(
                EventMention(
                    title: "Hike", day: .saturday, startTime: "08:00", durationMinutes: 120, place: "Trailhead"),
                sentAt: sent, timeZone: denver))
        #expect(local(saturday.start, in: denver) == "Sat 2026-12-05 08:00")
        #expect(saturday.end.timeIntervalSince(saturday.start) == 7200)
        #expect(!saturday.isAllDay && saturday.location == "Trailhead" && saturday.timeZone == "America/Denver")
        // The same weekday is that day while its time is still to come, else a week later.
        let laterToday = EventResolver.resolve(
            EventMention(title: "Call", day: .tuesday, startTime: "09:00"), sentAt: sent, timeZone: denver)
        #expect(laterToday.map { local($0.start, in: denver) } == "Tue 2026-12-01 09:00")
        let alreadyPast = EventResolver.resolve(
            EventMention(title: "Call", day: .tuesday, startTime: "04:00"), sentAt: sent, timeZone: denver)
        #expect(alreadyPast.map { local($0.start, in: denver) } == "Tue 2026-12-08 04:00")
    }

    @Test(.onTestThreads) func relativeDaysDatesAndNoTime() throws {
        let sent = date("2026-12-31 22:00", in: denver)
        let tomorrow = EventResolver.resolve(
            EventMention(title: "Brunch", day: .tomorrow, startTime: "11:00"), sentAt: sent, timeZone: denver)
        #expect(tomorrow.map { local($0.start, in: denver) } == "Fri 2027-01-01 11:00")
        let tonight = EventResolver.resolve(EventMention(title: "Party", day: .tonight), sentAt: sent, timeZone: denver)
        #expect(tonight.map { local($0.start, in: denver) } == "Thu 2026-12-31 19:00")
        let dated = EventResolver.resolve(
            EventMention(title: "Dentist", day: .date, date: "2027-03-14", startTime: "09:00", durationMinutes: 45),
            sentAt: sent, timeZone: denver)
        #expect(dated.map { local($0.start, in: denver) } == "Sun 2027-03-14 09:00")
        let allDay = try #require(
            EventResolver.resolve(EventMention(title: "Trip", day: .friday), sentAt: sent, timeZone: denver))
        #expect(allDay.isAllDay && local(allDay.start, in: denver) == "Fri 2027-01-01 00:00")
        #expect(EventResolver.resolve(EventMention(title: "?", day: .unknown), sentAt: sent, timeZone: denver) == nil)
        #expect(
            EventResolver.resolve(
                EventMention(title: "?", day: .date, date: "2027-02-30"), sentAt: sent, timeZone: denver)
                == nil)
    }

    /// 8 March 2026 is 23 hours long in Denver: 08:00 is still 08:00 local.
    @Test(.onTestThreads) func daylightSavingDaysKeepTheLocalTime() throws {
        let sent = date("2026-03-05 12:00", in: denver)  // a Thursday
        let event = try #require(
            EventResolver.resolve(
                EventMention(title: "Run", day: .sunday, startTime: "08:00"), sentAt: sent, timeZone: denver))
        #expect(local(event.start, in: denver) == "Sun 2026-03-08 08:00")
        #expect(CalendarEvent.utc(event.start) == "20260308T140000Z")  // MDT, UTC−6
    }

    @Test(.onTestThreads) func writesAnICalendarFile() throws {
        let start = date("2026-12-05 08:00", in: denver)
        let event = CalendarEvent(
            title: "Hike; ridge, trail", start: start, end: start.addingTimeInterval(5400), isAllDay: false,
            location: "Trailhead\\parking", timeZone: "America/Denver")
        let ics = event.ics(
            uid: "demo-8@sotto", stamp: Date(timeIntervalSince1970: 0),
            description: "From Bob's message: " + String(repeating: "é", count: 60) + "\nsee you")
        #expect(ics.hasPrefix("BEGIN:VCALENDAR\r\nVERSION:2.0\r\n") && ics.hasSuffix("END:VCALENDAR\r\n"))
        let lines = ics.components(separatedBy: "\r\n")
        #expect(lines.contains("DTSTART:20261205T150000Z") && lines.contains("DTEND:20261205T163000Z"))
        #expect(lines.contains("DTSTAMP:19700101T000000Z") && lines.contains("UID:demo-8@sotto"))
        #expect(lines.contains("SUMMARY:Hike\\; ridge\\, trail") && lines.contains("LOCATION:Trailhead\\\\parking"))
        // Folded at 75 octets, never inside a character; unfolded it is the text, escaped.
        #expect(lines.allSatisfy { $0.utf8.count <= 75 })
        let unfolded = ics.replacingOccurrences(of: "\r\n ", with: "")
        #expect(
            unfolded.contains("DESCRIPTION:From Bob's message: " + String(repeating: "é", count: 60) + "\\nsee you"))
        #expect(!ics.replacingOccurrences(of: "\r\n", with: "").contains("\n"))

        let allDay = CalendarEvent(
            title: "Trip", start: date("2027-01-01 00:00", in: denver), end: date("2027-01-02 00:00", in: denver),
            isAllDay: true, location: nil, timeZone: "America/Denver")
        let dayLines = allDay.ics(uid: "x", stamp: .now).components(separatedBy: "\r\n")
        #expect(dayLines.contains("DTSTART;VALUE=DATE:20270101") && dayLines.contains("DTEND;VALUE=DATE:20270102"))
        #expect(!dayLines.contains { $0.hasPrefix("LOCATION") })
    }
}
