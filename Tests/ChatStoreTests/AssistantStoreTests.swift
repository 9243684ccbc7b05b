import ChatStore
import Foundation
import Testing

/// The assistant's conversations: order, settings with their session-reset dividers, search,
/// delete with messages and images, and that nothing of one user reaches another.
@Suite struct AssistantStoreTests {
    static let general = AssistantSettings(
        persona: "general", instructions: "You are a helpful assistant.", temperature: 0.7)

    func seeded() async throws -> ChatStore {
        let temporary = try await TemporaryStore()
        _ = try await temporary.seeded()
        return temporary.store
    }

    /// Messages sent faster than one a millisecond put their conversation ahead of the clock; a
    /// conversation started then still goes to the top.
    @Test func aNewConversationGoesAboveOneThatRanAheadOfTheClock() async throws {
        let store = try await seeded()
        let busy = try await store.createAssistantConversation(for: "alice", title: "Busy", settings: Self.general)
        for index in 0..<200 {
            _ = try await store.appendAssistantMessage(.init(role: .user, text: "\(index)"), to: busy.id, for: "alice")
        }
        let new = try await store.createAssistantConversation(for: "alice", title: "New", settings: Self.general)
        await #expect(try store.assistantConversations(for: "alice").map(\.id) == [new.id, busy.id])
        await #expect(try store.assistantConversations(for: "alice").first?.updatedAt == new.updatedAt)
    }

    @Test func conversationsAreListedNewestFirstAndTheLastOpenedIsRemembered() async throws {
        let store = try await seeded()
        await #expect(try store.lastOpenedAssistantConversation(for: "alice") == nil)
        let first = try await store.createAssistantConversation(for: "alice", title: "Trip", settings: Self.general)
        let second = try await store.createAssistantConversation(for: "alice", title: "Recipes", settings: Self.general)
        await #expect(try store.assistantConversations(for: "alice").map(\.title) == ["Recipes", "Trip"])
        // A message moves its conversation to the top.
        _ = try await store.appendAssistantMessage(
            .init(role: .user, text: "Where to in May?"), to: first.id, for: "alice")
        await #expect(try store.assistantConversations(for: "alice").map(\.id) == [first.id, second.id])
        await #expect(try store.lastOpenedAssistantConversation(for: "alice")?.id == second.id)
        try await store.markAssistantConversationOpened(first.id, for: "alice")
        await #expect(try store.lastOpenedAssistantConversation(for: "alice")?.id == first.id)
        try await store.markAssistantConversationOpened(second.id, for: "alice")
        await #expect(try store.lastOpenedAssistantConversation(for: "alice")?.id == second.id)
        await #expect(try store.assistantConversations(for: "bob").isEmpty)
        await #expect(try store.lastOpenedAssistantConversation(for: "bob") == nil)
    }

    @Test func messagesKeepTheirRoleTokensModelAndStoppedFlag() async throws {
        let store = try await seeded()
        let conversation = try await store.createAssistantConversation(for: "alice", settings: Self.general)
        _ = try await store.appendAssistantMessage(.init(role: .user, text: "Hello"), to: conversation.id, for: "alice")
        _ = try await store.appendAssistantMessage(
            .init(
                role: .assistant, text: "Hi! How can", inputTokens: 31, outputTokens: 4, model: "qwen2.5-coder-0.5b",
                stopped: true), to: conversation.id, for: "alice")
        let messages = try await store.assistantMessages(in: conversation.id, for: "alice")
        #expect(messages.map(\.role) == [.user, .assistant])
        #expect(messages[1].text == "Hi! How can" && messages[1].stopped && !messages[0].stopped)
        #expect(messages[1].inputTokens == 31 && messages[1].outputTokens == 4)
        #expect(messages[1].model == "qwen2.5-coder-0.5b" && messages[0].model == nil)
        try await store.deleteAssistantMessage(messages[1].id, in: conversation.id, for: "alice")
        await #expect(try store.assistantMessages(in: conversation.id, for: "alice").map(\.text) == ["Hello"])
        await #expect(throws: ChatStoreError.notFound(what: "message", id: messages[1].id)) {
            try await store.deleteAssistantMessage(messages[1].id, in: conversation.id, for: "alice")
        }
    }

    @Test func changingTheSettingsAppendsOneDividerAndKeepsEarlierMessages() async throws {
        let store = try await seeded()
        let conversation = try await store.createAssistantConversation(for: "alice", settings: Self.general)
        _ = try await store.appendAssistantMessage(
            .init(role: .user, text: "Remember 42"), to: conversation.id, for: "alice")
        let same = try await store.updateAssistantSettings(
            conversation.id, to: Self.general, dividerText: "reset", for: "alice")
        #expect(same.divider == nil)
        var concise = Self.general
        concise.persona = "concise"
        concise.instructions = "Answer in one sentence."
        concise.temperature = 0.2
        let changed = try await store.updateAssistantSettings(
            conversation.id, to: concise, dividerText: "The model's memory was reset", for: "alice")
        #expect(
            changed.conversation.instructions == "Answer in one sentence." && changed.conversation.temperature == 0.2)
        #expect(changed.divider?.role == .divider)
        let messages = try await store.assistantMessages(in: conversation.id, for: "alice")
        #expect(messages.map(\.role) == [.user, .divider])
        #expect(messages.map(\.text) == ["Remember 42", "The model's memory was reset"])
        await #expect(throws: ChatStoreError.self) {
            var hot = concise
            hot.temperature = 5
            _ = try await store.updateAssistantSettings(conversation.id, to: hot, dividerText: "x", for: "alice")
        }
    }

    @Test func searchFindsOnlyTheOwnersMessagesWithHighlightsAndNotDividers() async throws {
        let store = try await seeded()
        let old = try await store.createAssistantConversation(for: "alice", title: "Old trip", settings: Self.general)
        _ = try await store.appendAssistantMessage(
            .init(role: .user, text: "Plan a trip to Lisbon"), to: old.id, for: "alice")
        _ = try await store.appendAssistantMessage(
            .init(role: .assistant, text: "Lisbon in spring: trams and tiles."), to: old.id, for: "alice")
        _ = try await store.appendAssistantMessage(
            .init(role: .divider, text: "Lisbon reset"), to: old.id, for: "alice")
        let bobs = try await store.createAssistantConversation(for: "bob", title: "Bob's", settings: Self.general)
        _ = try await store.appendAssistantMessage(.init(role: .user, text: "Lisbon secrets"), to: bobs.id, for: "bob")

        let hits = try await store.searchAssistantMessages("lisbon", for: "alice")
        #expect(hits.count == 2)
        #expect(Set(hits.map(\.message.role)) == [.user, .assistant])
        #expect(hits.allSatisfy { $0.conversationTitle == "Old trip" && $0.message.conversationID == old.id })
        let user = try #require(hits.first { $0.message.role == .user })
        #expect(user.highlights == [[15, 21]])
        await #expect(try store.searchAssistantMessages("lisbon", for: "bob").map(\.message.text) == ["Lisbon secrets"])
        await #expect(try store.searchAssistantMessages("lisbon", for: "carol").isEmpty)
        await #expect(throws: ChatStoreError.self) { try await store.searchAssistantMessages("!!", for: "alice") }
    }

    @Test func deleteRemovesMessagesImagesAndSearchEntries() async throws {
        let store = try await seeded()
        let conversation = try await store.createAssistantConversation(for: "alice", settings: Self.general)
        let png = AssistantImage(mimeType: "image/png", bytes: [0x89, 0x50, 0x4E, 0x47, 1, 2, 3])
        let message = try await store.appendAssistantMessage(
            .init(role: .user, text: "What does this error say? zebra", images: [png]), to: conversation.id,
            for: "alice")
        #expect(message.images.map(\.byteCount) == [7])
        await #expect(
            try store.assistantMessages(in: conversation.id, for: "alice").first?.images.map(\.id) == [png.id])
        await #expect(try store.assistantImage(png.id, for: "alice").bytes == png.bytes)
        await #expect(throws: ChatStoreError.notFound(what: "image", id: png.id)) {
            try await store.assistantImage(png.id, for: "bob")
        }
        try await store.deleteAssistantConversation(conversation.id, for: "alice")
        await #expect(throws: ChatStoreError.notFound(what: "image", id: png.id)) {
            try await store.assistantImage(png.id, for: "alice")
        }
        await #expect(try store.searchAssistantMessages("zebra", for: "alice").isEmpty)
        await #expect(try store.assistantConversations(for: "alice").isEmpty)
        let leftovers = try await store.read { db in
            try db.row("SELECT (SELECT COUNT(*) FROM assistant_messages) + (SELECT COUNT(*) FROM assistant_images)") {
                $0.int(0)
            }
        }
        #expect(leftovers == 0)
    }

    @Test func uploadsWaitInTheirConversationMoveToTheMessageAndGoWithIt() async throws {
        let store = try await seeded()
        let conversation = try await store.createAssistantConversation(for: "alice", settings: Self.general)
        let other = try await store.createAssistantConversation(for: "alice", settings: Self.general)
        let png = AssistantImage(mimeType: "image/png", bytes: [0x89, 0x50, 0x4E, 0x47, 9])
        let jpeg = AssistantImage(mimeType: "image/jpeg", bytes: [0xFF, 0xD8, 0xFF, 7])
        await #expect(try store.addAssistantUpload(png, to: conversation.id, for: "alice").byteCount == 5)
        _ = try await store.addAssistantUpload(jpeg, to: conversation.id, for: "alice")
        await #expect(throws: ChatStoreError.notFound(what: "conversation", id: conversation.id)) {
            try await store.addAssistantUpload(
                AssistantImage(mimeType: "image/png", bytes: [1]), to: conversation.id, for: "bob")
        }
        // A waiting image is readable by its owner, in its conversation only.
        await #expect(try store.assistantImage(png.id, in: conversation.id, for: "alice").bytes == png.bytes)
        await #expect(throws: ChatStoreError.notFound(what: "image", id: png.id)) {
            try await store.assistantImage(png.id, in: other.id, for: "alice")
        }
        await #expect(throws: ChatStoreError.notFound(what: "image", id: png.id)) {
            try await store.assistantImage(png.id, for: "bob")
        }
        // Another conversation cannot send it; removing one leaves the other.
        await #expect(throws: ChatStoreError.notFound(what: "image", id: png.id)) {
            try await store.appendAssistantMessage(
                .init(role: .user, text: "hi"), to: other.id, for: "alice", attaching: [png.id])
        }
        try await store.deleteAssistantUpload(jpeg.id, in: conversation.id, for: "alice")
        await #expect(throws: ChatStoreError.notFound(what: "image", id: jpeg.id)) {
            try await store.assistantImage(jpeg.id, for: "alice")
        }
        // Sending moves it to the message, with its id; it is no longer waiting.
        let message = try await store.appendAssistantMessage(
            .init(role: .user, text: "What does it say?"), to: conversation.id, for: "alice", attaching: [png.id])
        #expect(message.images.map(\.id) == [png.id] && message.images.first?.mimeType == "image/png")
        await #expect(
            try store.assistantMessages(in: conversation.id, for: "alice").first?.images.map(\.id) == [png.id])
        await #expect(try store.assistantImage(png.id, in: conversation.id, for: "alice").bytes == png.bytes)
        await #expect(throws: ChatStoreError.notFound(what: "image", id: png.id)) {
            try await store.deleteAssistantUpload(png.id, in: conversation.id, for: "alice")
        }
        // An image may go without text; no text and no image is refused.
        let alone = try await store.addAssistantUpload(
            AssistantImage(mimeType: "image/png", bytes: [3]), to: conversation.id, for: "alice")
        let imageOnly = try await store.appendAssistantMessage(
            .init(role: .user, text: ""), to: conversation.id, for: "alice", attaching: [alone.id])
        #expect(imageOnly.text.isEmpty && imageOnly.images.map(\.id) == [alone.id])
        await #expect(throws: ChatStoreError.invalidArgument(field: "text", reason: "must not be empty")) {
            try await store.appendAssistantMessage(.init(role: .user, text: " "), to: conversation.id, for: "alice")
        }
        // At most four wait at once.
        for _ in 0..<ChatStore.maxAssistantImages {
            _ = try await store.addAssistantUpload(
                AssistantImage(mimeType: "image/png", bytes: [1]), to: other.id, for: "alice")
        }
        await #expect(throws: ChatStoreError.self) {
            try await store.addAssistantUpload(
                AssistantImage(mimeType: "image/png", bytes: [1]), to: other.id, for: "alice")
        }
        _ = try await store.addAssistantUpload(
            AssistantImage(mimeType: "image/png", bytes: [2]), to: conversation.id, for: "alice")
        try await store.deleteAssistantConversation(conversation.id, for: "alice")
        try await store.deleteAssistantConversation(other.id, for: "alice")
        let leftovers = try await store.read { db in
            try db.row("SELECT (SELECT COUNT(*) FROM assistant_uploads) + (SELECT COUNT(*) FROM assistant_images)") {
                $0.int(0)
            }
        }
        #expect(leftovers == 0)
    }

    @Test func anotherUsersConversationIsNotFoundForEveryOperation() async throws {
        let store = try await seeded()
        let conversation = try await store.createAssistantConversation(for: "alice", settings: Self.general)
        let message = try await store.appendAssistantMessage(
            .init(role: .user, text: "private"), to: conversation.id, for: "alice")
        let notFound = ChatStoreError.notFound(what: "conversation", id: conversation.id)
        await #expect(throws: notFound) { try await store.assistantConversation(conversation.id, for: "bob") }
        await #expect(throws: notFound) { try await store.assistantMessages(in: conversation.id, for: "bob") }
        await #expect(throws: notFound) { try await store.markAssistantConversationOpened(conversation.id, for: "bob") }
        await #expect(throws: notFound) {
            try await store.renameAssistantConversation(conversation.id, to: "mine", for: "bob")
        }
        await #expect(throws: notFound) {
            try await store.updateAssistantSettings(conversation.id, to: Self.general, dividerText: "x", for: "bob")
        }
        await #expect(throws: notFound) {
            try await store.appendAssistantMessage(.init(role: .user, text: "hi"), to: conversation.id, for: "bob")
        }
        await #expect(throws: notFound) {
            try await store.deleteAssistantMessage(message.id, in: conversation.id, for: "bob")
        }
        await #expect(throws: notFound) { try await store.deleteAssistantConversation(conversation.id, for: "bob") }
        // Still there, untouched, for its owner.
        await #expect(try store.assistantConversation(conversation.id, for: "alice").title == "New chat")
        await #expect(try store.assistantMessages(in: conversation.id, for: "alice").map(\.text) == ["private"])
    }

    @Test func badInputIsRefusedWithTheFieldNamed() async throws {
        let store = try await seeded()
        let conversation = try await store.createAssistantConversation(for: "alice", settings: Self.general)
        await #expect(throws: ChatStoreError.invalidArgument(field: "title", reason: "must not be empty")) {
            try await store.renameAssistantConversation(conversation.id, to: "   ", for: "alice")
        }
        await #expect(throws: ChatStoreError.invalidArgument(field: "text", reason: "must not be empty")) {
            try await store.appendAssistantMessage(.init(role: .user, text: " \n"), to: conversation.id, for: "alice")
        }
        await #expect(throws: ChatStoreError.self) {
            try await store.appendAssistantMessage(
                .init(role: .user, text: String(repeating: "a", count: 70_000)), to: conversation.id, for: "alice")
        }
        #expect(throws: ChatStoreError.self) { try ChatStore.validatedAssistantID("../etc") }
        await #expect(
            try store.renameAssistantConversation(conversation.id, to: "  Lisbon  ", for: "alice").title == "Lisbon")
    }

    /// An image made by an image model names it, waiting and once sent; the user's own does not.
    @Test func aGeneratedImageKeepsTheNameOfItsModelWhenSent() async throws {
        let store = try await seeded()
        let chat = try await store.createAssistantConversation(for: "alice", title: "Art", settings: Self.general)
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3]
        let made = try await store.addAssistantUpload(
            AssistantImage(mimeType: "image/png", bytes: png, generatedBy: "fake-diffusion"), to: chat.id, for: "alice")
        let own = try await store.addAssistantUpload(
            AssistantImage(mimeType: "image/png", bytes: png), to: chat.id, for: "alice")
        #expect(made.generatedBy == "fake-diffusion" && own.generatedBy == nil)
        await #expect(
            try store.assistantUploads(in: chat.id, for: "alice").map(\.generatedBy) == ["fake-diffusion", nil])
        await #expect(try store.assistantImage(made.id, for: "alice").generatedBy == "fake-diffusion")
        let sent = try await store.appendAssistantMessage(
            .init(role: .user, text: "Which is mine?"), to: chat.id, for: "alice", attaching: [made.id, own.id])
        #expect(sent.images.map(\.generatedBy) == ["fake-diffusion", nil])
        let stored = try await store.assistantMessages(in: chat.id, for: "alice")
        #expect(stored.last?.images.map(\.generatedBy) == ["fake-diffusion", nil])
        await #expect(try store.assistantImage(made.id, in: chat.id, for: "alice").generatedBy == "fake-diffusion")
        // In JSON it is there only when set.
        let json = String(decoding: try JSONEncoder().encode(sent.images), as: UTF8.self)
        #expect(json.components(separatedBy: "generated_by").count == 2, "\(json)")
    }
}
