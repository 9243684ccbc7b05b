import ChatStore
import Foundation
import Testing

/// Issue 27: one user cannot fill the disk. Every quota is refused with `quotaExceeded` in the
/// write that would pass it, and what was there stays.
@Suite struct QuotaTests {
    static func store() async throws -> ChatStore {
        var options = ChatStore.Options()
        options.durability = .normal  // thousands of small writes; nothing here tests a crash
        let store = try await TemporaryStore(options: options).store
        _ = try await store.upsertUsers([.init(id: "alice", name: "Alice"), .init(id: "bob", name: "Bob")], by: nil)
        return store
    }

    static let settings = AssistantSettings(persona: "general", instructions: "", temperature: 0.7, language: nil)

    static func isQuota(_ error: any Error) -> Bool {
        if case .quotaExceeded? = error as? ChatStoreError { return true }
        return false
    }

    @Test func conversationsPerUser() async throws {
        let store = try await Self.store()
        for _ in 0..<StorageQuota.assistantConversations {
            _ = try await store.createAssistantConversation(for: "alice", settings: Self.settings)
        }
        await #expect(
            performing: { try await store.createAssistantConversation(for: "alice", settings: Self.settings) },
            throws: Self.isQuota)
        #expect(
            try await store.assistantConversations(for: "alice", limit: 2000).count
                == StorageQuota.assistantConversations)
        // Another user is not held by alice's.
        _ = try await store.createAssistantConversation(for: "bob", settings: Self.settings)
    }

    @Test func messagesAndDividersPerConversation() async throws {
        let store = try await Self.store()
        let conversation = try await store.createAssistantConversation(for: "alice", settings: Self.settings)
        for index in 0..<(StorageQuota.assistantMessagesPerConversation / 2 - 1) {
            _ = try await store.appendAssistantMessage(
                .init(role: .user, text: "q\(index)"), to: conversation.id, for: "alice")
            _ = try await store.appendAssistantMessage(
                .init(role: .assistant, text: "a\(index)"), to: conversation.id, for: "alice")
        }
        // One turn's room is left: a prompt is let in with its answer's place.
        _ = try await store.appendAssistantMessage(.init(role: .user, text: "last"), to: conversation.id, for: "alice")
        _ = try await store.appendAssistantMessage(
            .init(role: .assistant, text: "answer"), to: conversation.id, for: "alice")
        await #expect(
            performing: {
                try await store.appendAssistantMessage(
                    .init(role: .user, text: "more"), to: conversation.id, for: "alice")
            }, throws: Self.isQuota)
        #expect(
            try await store.assistantMessages(in: conversation.id, for: "alice").count
                == StorageQuota.assistantMessagesPerConversation)

        let other = try await store.createAssistantConversation(for: "alice", settings: Self.settings)
        for index in 0..<StorageQuota.assistantDividersPerConversation {
            let settings = AssistantSettings(
                persona: "general", instructions: "", temperature: index % 2 == 0 ? 0.5 : 0.6, language: nil)
            _ = try await store.updateAssistantSettings(other.id, to: settings, dividerText: "reset", for: "alice")
        }
        await #expect(
            performing: {
                try await store.updateAssistantSettings(other.id, to: Self.settings, dividerText: "reset", for: "alice")
            }, throws: Self.isQuota)
    }

    @Test func imagesWaitingPerUser() async throws {
        let store = try await Self.store()
        let small = AssistantImage(
            mimeType: "image/png", bytes: [0x89, 0x50, 0x4E, 0x47] + [UInt8](repeating: 1, count: 100))
        var conversation = try await store.createAssistantConversation(for: "alice", settings: Self.settings)
        for index in 0..<StorageQuota.waitingImagesPerUser {
            if index % ChatStore.maxAssistantImages == 0 {
                conversation = try await store.createAssistantConversation(for: "alice", settings: Self.settings)
            }
            _ = try await store.addAssistantUpload(
                AssistantImage(mimeType: small.mimeType, bytes: small.bytes), to: conversation.id, for: "alice")
        }
        let fresh = try await store.createAssistantConversation(for: "alice", settings: Self.settings)
        await #expect(
            performing: { try await store.addAssistantUpload(small, to: fresh.id, for: "alice") }, throws: Self.isQuota)
        // Sending one frees its place.
        let waiting = try await store.assistantUploads(in: conversation.id, for: "alice")
        _ = try await store.appendAssistantMessage(
            .init(role: .user, text: "look"), to: conversation.id, for: "alice", attaching: [waiting[0].id])
        _ = try await store.addAssistantUpload(small, to: fresh.id, for: "alice")
    }

    @Test func bytesOfImagesWaiting() async throws {
        let store = try await Self.store()
        let megabytes8 = [UInt8](repeating: 7, count: 8 << 20)
        let allowed = StorageQuota.waitingImageBytesPerUser / megabytes8.count
        var conversation = try await store.createAssistantConversation(for: "alice", settings: Self.settings)
        for index in 0..<allowed {
            if index % ChatStore.maxAssistantImages == 0 {
                conversation = try await store.createAssistantConversation(for: "alice", settings: Self.settings)
            }
            _ = try await store.addAssistantUpload(
                AssistantImage(mimeType: "image/png", bytes: megabytes8), to: conversation.id, for: "alice")
        }
        let fresh = try await store.createAssistantConversation(for: "alice", settings: Self.settings)
        await #expect(
            performing: {
                try await store.addAssistantUpload(
                    AssistantImage(mimeType: "image/png", bytes: megabytes8), to: fresh.id, for: "alice")
            }, throws: Self.isQuota)
        // Deleting a conversation gives its bytes back.
        try await store.deleteAssistantConversation(conversation.id, for: "alice")
        _ = try await store.addAssistantUpload(
            AssistantImage(mimeType: "image/png", bytes: megabytes8), to: fresh.id, for: "alice")
    }

    @Test func channelsCreatedPerUser() async throws {
        let store = try await Self.store()
        for index in 0..<StorageQuota.channelsCreatedPerUser {
            _ = try await store.getOrCreateChannel(
                ChannelID(type: "messaging", id: "c\(index)"), name: nil, members: [], by: "alice")
        }
        await #expect(
            performing: {
                try await store.getOrCreateChannel(
                    ChannelID(type: "messaging", id: "one-more"), name: nil, members: [], by: "alice")
            }, throws: Self.isQuota)
        // Opening one that exists is not creating one.
        #expect(
            try await store.getOrCreateChannel(
                ChannelID(type: "messaging", id: "c0"), name: nil, members: [], by: "alice"
            )
            .created == false)
    }
}
