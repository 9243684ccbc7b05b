import ChatStore
import Foundation
import TestSupport
import Testing

/// Migration v8 on a database of the build before (issue 27): names get their skeletons,
/// answers their model names without credentials, users their byte counts; access starts
/// unrestricted.
@Suite struct AccessMigrationTests {
    @Test func anOlderDatabaseIsBroughtUpToDate() async throws {
        let folder = try TestFolders.make("store")
        let path = folder + "/chat.sqlite"
        do {
            let old = try Connection(path: path)
            try Schema.migrator.through("v7: messages indexed for search at the end of their transaction").migrate(old)
            try old.execute(
                """
                INSERT INTO users(id, name, created_at, updated_at) VALUES ('bob', 'Bob', 0, 0);
                INSERT INTO assistant_conversations(id, owner, title, persona, instructions, temperature, created_at,
                    updated_at, opened_at) VALUES ('c1', 'bob', 'New chat', 'general', '', 0.7, 0, 0, 0);
                INSERT INTO assistant_messages(id, conversation_id, role, text, model, stopped, created_at) VALUES
                    ('m1', 'c1', 'user', 'hello', NULL, 0, 0),
                    ('m2', 'c1', 'assistant', 'hi there', 'm at http://operator:hunter2@10.0.0.5:8081/v1', 0, 0);
                """)
        }
        let store = try await ChatStore.open(path: path)
        let messages = try await store.assistantMessages(in: "c1", for: "bob")
        #expect(messages.last?.model == "m at http://10.0.0.5:8081/v1")
        #expect(try await store.access(of: "bob") == .unrestricted)
        #expect(try await store.accessVersion() == 0)
        // "B0b" looks like the Bob who was there before the migration.
        await #expect(throws: ChatStoreError.self) {
            try await store.upsertUsers([.init(id: "mallory", name: "B0b")], by: nil)
        }
        // The bytes counted: the conversation's two texts, given back when it goes.
        let conversation = try await store.createAssistantConversation(
            for: "bob", settings: AssistantSettings(persona: "general", instructions: "", temperature: 0.7))
        _ = try await store.appendAssistantMessage(.init(role: .user, text: "12345"), to: conversation.id, for: "bob")
        #expect(try await store.assistantBytes(of: "bob") == Int64("hello".utf8.count + "hi there".utf8.count + 5))
        try await store.deleteAssistantConversation("c1", for: "bob")
        #expect(try await store.assistantBytes(of: "bob") == 5)
    }

    @Test(.onTestThreads) func credentialsAreTakenOutOfURLs() {
        #expect(
            CredentialRedaction.redacted("m at http://u:p@host:1/v1 and https://x@y/z")
                == "m at http://host:1/v1 and https://y/z")
        #expect(CredentialRedaction.redacted("no url here") == "no url here")
        #expect(CredentialRedaction.redacted("http://host/path@notuser") == "http://host/path@notuser")
    }
}
