import ChatStore
import Foundation
import Testing

/// Issue 27: one user cannot fill the disk. Every quota is refused with `quotaExceeded` in the
/// write that would pass it, and what was there stays.
@Suite struct QuotaTests {
    static func store() throws -> ChatStore {
        var options = ChatStore.Options()
        options.durability = .normal  // thousands of small writes; nothing here tests a crash
        let store = try TemporaryStore(options: options).store
        _ = try store.upsertUsers([.init(id: "alice", name: "Alice"), .init(id: "bob", name: "Bob")], by: nil)
        return store
    }

    static let settings = AssistantSettings(persona: "general", instructions: "", temperature: 0.7, language: nil)

    static func isQuota(_ error: any Error) -> Bool {
        if case .quotaExceeded? = error as? ChatStoreError { return true }
        return false
    }

    @Test func conversationsPerUser() throws {
        let store = try Self.store()
        for _ in 0..<StorageQuota.assistantConversations {
            _ = try store.createAssistantConversation(for: "alice", settings: Self.settings)
        }
        #expect(
            performing: { try store.createAssistantConversation(for: "alice", settings: Self.settings) },
            throws: Self.isQuota)
        #expect(
            try store.assistantConversations(for: "alice", limit: 2000).count == StorageQuota.assistantConversations)
        // Another user is not held by alice's.
        _ = try store.createAssistantConversation(for: "bob", settings: Self.settings)
    }

    @Test func messagesAndDividersPerConversation() throws {
        let store = try Self.store()
        let conversation = try store.createAssistantConversation(for: "alice", settings: Self.settings)
        for index in 0..<(StorageQuota.assistantMessagesPerConversation / 2 - 1) {
            _ = try store.appendAssistantMessage(
                .init(role: .user, text: "q\(index)"), to: conversation.id, for: "alice")
            _ = try store.appendAssistantMessage(
                .init(role: .assistant, text: "a\(index)"), to: conversation.id, for: "alice")
        }
        // One turn's room is left: a prompt is let in with its answer's place.
        _ = try store.appendAssistantMessage(.init(role: .user, text: "last"), to: conversation.id, for: "alice")
        _ = try store.appendAssistantMessage(.init(role: .assistant, text: "answer"), to: conversation.id, for: "alice")
        #expect(
            performing: {
                try store.appendAssistantMessage(.init(role: .user, text: "more"), to: conversation.id, for: "alice")
            }, throws: Self.isQuota)
        #expect(
            try store.assistantMessages(in: conversation.id, for: "alice").count
                == StorageQuota.assistantMessagesPerConversation)

        let other = try store.createAssistantConversation(for: "alice", settings: Self.settings)
        for index in 0..<StorageQuota.assistantDividersPerConversation {
            let settings = AssistantSettings(
                persona: "general", instructions: "", temperature: index % 2 == 0 ? 0.5 : 0.6, language: nil)
            _ = try store.updateAssistantSettings(other.id, to: settings, dividerText: "reset", for: "alice")
        }
        #expect(
            performing: {
                try store.updateAssistantSettings(other.id, to: Self.settings, dividerText: "reset", for: "alice")
            }, throws: Self.isQuota)
    }

    @Test func imagesWaitingPerUser() throws {
        let store = try Self.store()
        let small = AssistantImage(
            mimeType: "image/png", bytes: [0x89, 0x50, 0x4E, 0x47] + [UInt8](repeating: 1, count: 100))
        var conversation = try store.createAssistantConversation(for: "alice", settings: Self.settings)
        for index in 0..<StorageQuota.waitingImagesPerUser {
            if index % ChatStore.maxAssistantImages == 0 {
                conversation = try store.createAssistantConversation(for: "alice", settings: Self.settings)
            }
            _ = try store.addAssistantUpload(
                AssistantImage(mimeType: small.mimeType, bytes: small.bytes), to: conversation.id, for: "alice")
        }
        let fresh = try store.createAssistantConversation(for: "alice", settings: Self.settings)
        #expect(performing: { try store.addAssistantUpload(small, to: fresh.id, for: "alice") }, throws: Self.isQuota)
        // Sending one frees its place.
        let waiting = try store.assistantUploads(in: conversation.id, for: "alice")
        _ = try store.appendAssistantMessage(
            .init(role: .user, text: "look"), to: conversation.id, for: "alice", attaching: [waiting[0].id])
        _ = try store.addAssistantUpload(small, to: fresh.id, for: "alice")
    }

    @Test func bytesOfImagesWaiting() throws {
        let store = try Self.store()
        let megabytes8 = [UInt8](repeating: 7, count: 8 << 20)
        let allowed = StorageQuota.waitingImageBytesPerUser / megabytes8.count
        var conversation = try store.createAssistantConversation(for: "alice", settings: Self.settings)
        for index in 0..<allowed {
            if index % ChatStore.maxAssistantImages == 0 {
                conversation = try store.createAssistantConversation(for: "alice", settings: Self.settings)
            }
            _ = try store.addAssistantUpload(
                AssistantImage(mimeType: "image/png", bytes: megabytes8), to: conversation.id, for: "alice")
        }
        let fresh = try store.createAssistantConversation(for: "alice", settings: Self.settings)
        #expect(
            performing: {
                try store.addAssistantUpload(
                    AssistantImage(mimeType: "image/png", bytes: megabytes8), to: fresh.id, for: "alice")
            }, throws: Self.isQuota)
        // Deleting a conversation gives its bytes back.
        try store.deleteAssistantConversation(conversation.id, for: "alice")
        _ = try store.addAssistantUpload(
            AssistantImage(mimeType: "image/png", bytes: megabytes8), to: fresh.id, for: "alice")
    }

    @Test func channelsCreatedPerUser() throws {
        let store = try Self.store()
        for index in 0..<StorageQuota.channelsCreatedPerUser {
            _ = try store.getOrCreateChannel(
                ChannelID(type: "messaging", id: "c\(index)"), name: nil, members: [], by: "alice")
        }
        #expect(
            performing: {
                try store.getOrCreateChannel(
                    ChannelID(type: "messaging", id: "one-more"), name: nil, members: [], by: "alice")
            }, throws: Self.isQuota)
        // Opening one that exists is not creating one.
        #expect(
            try store.getOrCreateChannel(ChannelID(type: "messaging", id: "c0"), name: nil, members: [], by: "alice")
                .created == false)
    }
}
