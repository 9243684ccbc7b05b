import ChatStore
import Foundation
import Testing

/// Issue 27: names that pass for another's are refused, each with a reason that says why;
/// names in any one script are not.
@Suite struct DisplayNameTests {
    static func store() async throws -> ChatStore {
        let store = try await TemporaryStore().store
        _ = try await store.upsertUsers([.init(id: "alice", name: "Alice"), .init(id: "bob", name: "Bob")], by: nil)
        return store
    }

    static func reason(_ name: String, store: ChatStore) async -> String? {
        do {
            _ = try await store.upsertUsers([.init(id: "mallory", name: name)], by: nil)
            return nil
        } catch let error as ChatStoreError {
            return error.description
        } catch {
            return "\(error)"
        }
    }

    @Test(arguments: [
        ("\u{0410}lice", "mixes"),  // Cyrillic А, Latin lice
        ("Ali\u{0441}e", "mixes"),  // Cyrillic с
        ("P\u{0430}ypal Support", "mixes"),
        ("Al\u{200D}ice", "invisible"),  // zero-width joiner
        ("Al\u{200B}ice", "invisible"),  // zero-width space
        ("Al\u{00AD}ice", "invisible"),  // soft hyphen
        ("Al\u{2060}ice", "invisible"),  // word joiner
        ("Ali\u{FE0F}ce", "invisible"),  // variation selector outside an emoji
        ("\u{202E}ecilA", "bidirectional"),
        ("Al\u{200F}ice", "bidirectional"),
        ("Alice\u{00A0}Smith", "space character"),
        ("Alice  Smith", "two spaces"),
        ("\u{FF21}lice", "variant"),  // fullwidth A
        ("\u{1D400}lice", "variant"),  // mathematical bold A
        ("\u{0392}\u{03BF}b", "mixes"),  // Greek Β and ο beside Latin b
    ])
    func lookalikesAreRefused(name: String, because word: String) async throws {
        let store = try await Self.store()
        let reason = await Self.reason(name, store: store)
        #expect(
            reason?.contains(word) == true,
            "\(name.unicodeScalars.map { String($0.value, radix: 16) }): \(reason ?? "accepted")")
        #expect(try await store.user("mallory") == nil)
    }

    @Test(arguments: [
        "Алиса",  // Cyrillic throughout
        "Ελένη Παπαδοπούλου",  // Greek
        "山田 太郎", "やまだ たろう", "東京タワー",  // Japanese mixes Han and kana
        "김민준", "محمد", "José Müller-Lüdenscheidt", "O'Brien", "Zoë", "Dev 👩‍💻", "Team ❤️",
        "Ivan Petrov", "Юрий Gagarin",  // one script per word
    ])
    func namesInOneScriptPerWordAreKept(name: String) async throws {
        let store = try await Self.store()
        await #expect(Self.reason(name, store: store) == nil)
        #expect(try await store.user("mallory")?.name == name)
    }

    /// A name wholly in another script that looks like a taken one is that one.
    @Test func aWholeScriptLookalikeOfATakenNameIsAConflict() async throws {
        let store = try await Self.store()
        for name in ["Вов", "ВОВ", "B0b", "АLICE".replacingOccurrences(of: "L", with: "Ӏ").lowercased()] {
            let reason = await Self.reason(name, store: store) ?? "accepted"
            #expect(
                reason.contains("looks like") || reason.contains("taken") || reason.contains("mixes"),
                "\(name): \(reason)")
        }
        // The holder keeps their own.
        #expect(try await store.upsertUsers([.init(id: "bob", name: "BOB")], by: "bob").first?.name == "BOB")
    }
}
