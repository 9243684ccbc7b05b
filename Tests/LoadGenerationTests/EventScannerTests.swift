import TestSupport
import Testing

@testable import LoadGeneration

/// The receivers' byte-level reading of server events: the fields they count, wherever they
/// stand, and nothing read from a frame that is not one JSON object.
@Suite struct EventScannerTests {
    func scan(_ text: String) -> (type: String?, seq: Int64?, text: String?, id: String?)? {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBytes { raw in
            guard let fields = EventScanner.scan(raw) else { return nil }
            func slice(_ range: Range<Int>?) -> String? {
                range.map { String(decoding: bytes[$0], as: UTF8.self) }
            }
            return (slice(fields.type), fields.seq, slice(fields.text), slice(fields.id))
        }
    }

    @Test(.onTestThreads) func readsTheFieldsWhereverTheyStand() throws {
        let event = try #require(
            scan(
                #"{"seq":812,"cid":"messaging:load-3","created_at":"2026-12-02T05:00:00.123Z","message":{"cid":"messaging:load-3","id":"load-17","text":"message 17 123456789","user_id":"u42"},"type":"message.new"}"#
            ))
        #expect(event.type == "message.new")
        #expect(event.seq == 812)
        #expect(event.text == "message 17 123456789")
        #expect(event.id == "load-17")
        // A deletion's tombstone: the id names the message, the text is empty.
        let deleted = try #require(
            scan(
                #"{"message":{"deleted_at":"2026-12-02T05:00:01Z","id":"load-21","text":""},"seq":813,"type":"message.deleted"}"#
            ))
        #expect(deleted.type == "message.deleted" && deleted.id == "load-21" && deleted.text == "")
        let reordered = try #require(
            scan(#" { "type" : "message.new" , "message" : { "text" : "hi" , "id" : "x" } , "seq" : 9 } "#))
        #expect(reordered.type == "message.new" && reordered.seq == 9 && reordered.text == "hi")
    }

    @Test(.onTestThreads) func skipsWhatItDoesNotCountWhateverItHolds() throws {
        let event = try #require(
            scan(
                #"{"type":"hello","extra":[1,-2.5e3,true,false,null,{"text":"nested \"quoted\" \\ \u00e9"},[[]]],"user_id":"a\"b","last_seq":-1}"#
            ))
        #expect(event.type == "hello")
        #expect(event.seq == nil)
        #expect(event.text == nil)  // only message.text counts, not a `text` elsewhere
        #expect(try #require(scan(#"{"seq":1.5,"type":"x"}"#)).seq == nil)  // not an integer
        #expect(try #require(scan(#"{"seq":99999999999999999999,"type":"x"}"#)).seq == nil)  // past Int64
    }

    @Test(
        .onTestThreads,
        arguments: [
            "", "[]", "{", #"{"type":"a""#, #"{"type":"a",}"#, #"{"type":"a"} trailing"#, #"{"type":a}"#,
            #"{"type":"a\"}"#, "{\"type\":\"tab\there\"}", #"{"seq":-}"#, #"{"seq":1.}"#, #"{"x":tru}"#,
        ])
    func refusesWhatIsNotOneJSONObject(text: String) {
        #expect(scan(text) == nil)
    }

    @Test(.onTestThreads) func refusesNestingPastItsBound() {
        let deep = #"{"x":"# + String(repeating: "[", count: 40) + String(repeating: "]", count: 40) + "}"
        #expect(scan(deep) == nil)
        let shallow = #"{"x":"# + String(repeating: "[", count: 10) + String(repeating: "]", count: 10) + "}"
        #expect(scan(shallow) != nil)
    }
}
