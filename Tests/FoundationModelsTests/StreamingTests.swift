import FoundationModels
import GenerableFixtures
import TestSupport
import Testing

@Suite struct StreamingTests {
    @Test func structuredSnapshotsFillInOneReplyAtATime() async throws {
        let pieces = [#"{"re"#, #"plies": ["#, #""Sure"#, #" thing""#, #", "See"#, #" you there""#, #", "Maybe"]}"#]
        let backend = ScriptedModel(turns: [.text(pieces.joined(), pieces: pieces)])
        let session = LanguageModelSession(model: backend)
        let stream = session.streamResponse(to: "Hike on Saturday?", generating: ReplySuggestions.self)

        var seen: [[String]?] = []
        var ids: Set<GenerationID> = []
        for try await snapshot in stream {
            seen.append(snapshot.content.replies)
            ids.insert(snapshot.content.id)
            #expect(snapshot.rawContent.id == snapshot.content.id)
        }
        #expect(ids.count == 1)
        // The first reply appears (growing) before the second starts.
        let firstReplyOnly = seen.firstIndex { $0 == ["Sure thing"] }
        let secondStarted = seen.firstIndex { ($0?.count ?? 0) >= 2 }
        #expect(seen.contains { $0 == ["Sure"] })
        #expect(firstReplyOnly != nil && secondStarted != nil && firstReplyOnly! < secondStarted!)
        #expect(seen.last == ["Sure thing", "See you there", "Maybe"])
        // Snapshots are cumulative: nothing generated is ever lost.
        for (earlier, later) in zip(seen, seen.dropFirst()) {
            let before = earlier ?? [], after = later ?? []
            #expect(after.count >= before.count)
            for (old, new) in zip(before, after) { #expect(new.hasPrefix(old)) }
        }

        let response = try await stream.collect()
        #expect(response.content.replies == ["Sure thing", "See you there", "Maybe"])
        #expect(response.rawContent.id == ids.first)
        #expect(!session.isResponding)
        #expect(session.transcript.count == 2)
    }

    @Test func textSnapshotsAreCumulative() async throws {
        let backend = ScriptedModel(turns: [.text("Hello there, friend", pieces: ["Hel", "lo there", ", friend"])])
        let session = LanguageModelSession(model: backend)
        var texts: [String] = []
        for try await snapshot in session.streamResponse(to: "Greet me") {
            texts.append(snapshot.content)
        }
        #expect(Array(texts.prefix(3)) == ["Hel", "Hello there", "Hello there, friend"])
        #expect(texts.last == "Hello there, friend")
    }

    @Test func collectWithoutIteratingAndTwoReaders() async throws {
        let backend = ScriptedModel(turns: [.text("abc", pieces: ["a", "b", "c"])])
        let session = LanguageModelSession(model: backend)
        let stream = session.streamResponse { "Spell" }
        #expect(try await stream.collect().content == "abc")
        // Collecting again, and iterating after the end, both still work.
        #expect(try await stream.collect().content == "abc")
        var count = 0
        for try await _ in stream { count += 1 }
        #expect(count >= 3)
    }

    @Test func streamWhileRespondingFailsWithConcurrentRequests() async throws {
        let gate = Gate()
        let backend = ScriptedModel(turns: [.text("first")], gate: gate)
        let session = LanguageModelSession(model: backend)
        let first = session.streamResponse(to: "one")
        await gate.waitForArrival()
        let second = session.streamResponse(to: "two")
        await #expect {
            for try await _ in second {}
        } throws: { error in
            guard case LanguageModelSession.GenerationError.concurrentRequests = error else { return false }
            return true
        }
        gate.open()
        #expect(try await first.collect().content == "first")
    }

    @Test func streamErrorsReachIteratorsAndCollect() async throws {
        let backend = ScriptedModel(turns: [.text(#"{"replies": ["a""#, pieces: [#"{"replies": "#, #"["a""#])])
        let session = LanguageModelSession(model: backend)
        let stream = session.streamResponse(to: "x", generating: ReplySuggestions.self)
        var snapshots = 0
        await #expect(throws: LanguageModelSession.GenerationError.self) {
            for try await _ in stream { snapshots += 1 }
        }
        #expect(snapshots >= 1)
        await #expect(throws: LanguageModelSession.GenerationError.self) { try await stream.collect() }
        #expect(session.transcript.isEmpty)
    }

    @Test func dynamicSchemaStreamsGeneratedContent() async throws {
        let schema = try GenerationSchema(
            root: DynamicGenerationSchema(
                name: "Tags", properties: [.init(name: "tags", schema: .init(arrayOf: .init(type: String.self)))]),
            dependencies: [])
        let pieces = [#"{"tags": ["a""#, #", "b"]}"#]
        let backend = ScriptedModel(turns: [.text(pieces.joined(), pieces: pieces)])
        let session = LanguageModelSession(model: backend)
        var partial: [[String]] = []
        for try await snapshot in session.streamResponse(to: "Tag", schema: schema) {
            partial.append((try? snapshot.content.value([String].self, forProperty: "tags")) ?? [])
        }
        #expect(partial.first == ["a"])
        #expect(partial.last == ["a", "b"])
    }
}
