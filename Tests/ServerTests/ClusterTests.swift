import ChatStore
import Foundation
import TestSupport
import Testing

@testable import Server

/// The PostgreSQL server the tests may use (`SOTTO_TEST_POSTGRES`, as `scripts/postgres start` prints it).
enum TestPostgres {
    static let url = ProcessInfo.processInfo.environment["SOTTO_TEST_POSTGRES"].flatMap { $0.isEmpty ? nil : $0 }
}

/// Several `sotto serve` on one PostgreSQL database (issue 26): an event written through one
/// reaches sockets held by another, in seq order; a client resumes on another server from its
/// last seq; reply suggestions follow a message stored by another server.
@Suite(
    .enabled(if: TestPostgres.url != nil, "needs SOTTO_TEST_POSTGRES: a PostgreSQL server (scripts/test starts one)"))
struct ClusterTests {
    /// A new database on the test server.
    static func database() throws -> ChatStore.Location {
        let server = try #require(TestPostgres.url)
        let name = "sotto_cluster_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        try Connection(postgresURL: server).execute("CREATE DATABASE \(name)")
        let database = try #require(server.range(of: "@/postgres"))
        return .postgresql(url: server.replacingCharacters(in: database, with: "@/" + name))
    }

    /// Two servers on one new database, each with its own suggester.
    static func twoServers(suggester: () -> (any ReplySuggester)? = { nil }) async throws -> (TestServer, TestServer) {
        let location = try database()
        var options = ChatStore.Options()
        options.readerCount = 2
        let one = try await TestServer(suggester: suggester(), storeOptions: options, location: location)
        let two = try await TestServer(suggester: suggester(), storeOptions: options, location: location)
        return (one, two)
    }

    static func stop(_ servers: TestServer...) {
        for server in servers { server.server.stop() }
    }

    @Test func eventsCrossServersInOrderAndAClientResumesOnAnother() async throws {
        let (one, two) = try await Self.twoServers()
        defer { Self.stop(one, two) }
        let (alice, bob, cid) = try await one.pair()

        // Alice on server one; Bob (and Alice, sometimes) write through server two, and one.
        let socket = try await one.socket(alice)
        _ = try await socket.receiveJSON()  // hello
        var sent: [String] = []
        for index in 0..<20 {
            let through = index % 3 == 0 ? one : two
            let author = index % 2 == 0 ? bob : alice
            _ = try await through.client(author).post(channelPath(cid, "/messages"), ["text": "m\(index)"])
            sent.append("m\(index)")
        }
        var seen: [(seq: Int, text: String)] = []
        while seen.count < sent.count {
            let event = try await socket.receive(until: { $0["type"] as? String == "message.new" })
            let message = try #require(event["message"] as? [String: Any])
            seen.append((try #require(event["seq"] as? Int), message["text"] as? String ?? ""))
        }
        #expect(seen.map(\.text) == sent)
        #expect(seen.map(\.seq) == seen.map(\.seq).sorted())

        // The server the socket was on is gone for this client: it resumes on the other from
        // its last seq, and gets what was sent meanwhile, once.
        let last = seen.last!.seq
        for text in ["while away 1", "while away 2"] {
            _ = try await one.client(bob).post(channelPath(cid, "/messages"), ["text": text])
        }
        let resumed = try await two.socket(alice, query: "since=\(last)")
        await #expect(try resumed.receiveJSON()?["type"] as? String == "hello")
        var replayed: [String] = []
        while replayed.count < 2 {
            let event = try await resumed.receive(until: { $0["type"] as? String == "message.new" })
            replayed.append((event["message"] as? [String: Any])?["text"] as? String ?? "")
        }
        #expect(replayed == ["while away 1", "while away 2"])
        _ = try await one.client(bob).post(channelPath(cid, "/messages"), ["text": "live again"])
        let live = try await resumed.receive(until: { $0["type"] as? String == "message.new" })
        #expect((live["message"] as? [String: Any])?["text"] as? String == "live again")
    }

    @Test func suggestionsFollowAMessageStoredByAnotherServer() async throws {
        let (one, two) = try await Self.twoServers(suggester: { GatedSuggester(open: true) })
        defer { Self.stop(one, two) }
        let (alice, bob, cid) = try await one.pair()
        let socket = try await one.socket(alice)
        _ = try await socket.receiveJSON()  // hello
        _ = try await one.client(bob).post(channelPath(cid, "/messages"), ["text": "Pizza tonight?"])
        _ = try await one.client(alice).get(channelPath(cid, "/suggestions"))  // Alice's row is open, on one
        _ = try await socket.receive(until: {
            $0["type"] as? String == "suggestions.updated" && $0["status"] as? String == "ready"
        })
        // Bob writes through the other server: Alice's server drafts hers again.
        _ = try await two.client(bob).post(channelPath(cid, "/messages"), ["text": "Or sushi?"])
        let redrafted = try await socket.receive(until: {
            $0["type"] as? String == "suggestions.updated"
                && ($0["suggestions"] as? [String])?.first == "Reply to Or sushi?"
        })
        #expect(redrafted["status"] as? String == "ready")
    }
}
