import ChatStore
import Foundation
import TestSupport
import Testing

@testable import Server
@testable import ServerKit

/// Runs the real `sotto serve`, kills it with SIGKILL in the middle of a burst of sends, restarts
/// it, and checks that every message the server acknowledged is stored.
@Suite struct CrashRecoveryTests {
    static let secret = "crash-test-secret-0123456789"

    /// The `sotto` executable built next to this test bundle (or `$SOTTO_BIN`).
    static func sottoBinary() throws -> String {
        var candidates: [String] = []
        if let explicit = ProcessInfo.processInfo.environment["SOTTO_BIN"] { candidates.append(explicit) }
        if let bundle = Bundle.main.executableURL?.deletingLastPathComponent() {
            candidates.append(bundle.appendingPathComponent("sotto").path)
        }
        let argument = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        candidates.append(argument.appendingPathComponent("sotto").path)
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw SocketError(
                description:
                    "sotto executable not found next to the tests (looked in \(candidates)); build it or set SOTTO_BIN")
        }
        return found
    }

    final class ServeProcess {
        let process = Process()
        let port: Int

        init(binary: String, home: String) throws {
            process.executableURL = URL(fileURLWithPath: binary)
            process.arguments = ["serve", "--port", "0"]
            process.environment = ProcessInfo.processInfo.environment.merging(
                ["SOTTO_HOME": home, "SOTTO_SECRET": CrashRecoveryTests.secret]) { $1 }
            let output = Pipe()
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
            var text = ""
            var port: Int?
            while port == nil {
                let chunk = output.fileHandleForReading.availableData
                guard !chunk.isEmpty else { break }
                text += String(decoding: chunk, as: UTF8.self)
                if let range = text.range(of: #"listening on http://127\.0\.0\.1:(\d+)"#, options: .regularExpression) {
                    port = Int(text[range].split(separator: ":").last ?? "")
                }
            }
            guard let port else { throw SocketError(description: "sotto serve did not report a port: \(text)") }
            self.port = port
        }

        func kill(_ signal: Int32) {
            Glibc.kill(process.processIdentifier, signal)
            process.waitUntilExit()
        }
    }

    @Test func everyAcknowledgedMessageSurvivesKill9() async throws {
        let binary = try Self.sottoBinary()
        let home = try TestFolders.make("crash")
        let seed = Process()
        seed.executableURL = URL(fileURLWithPath: binary)
        seed.arguments = ["seed", "demo"]
        seed.environment = ProcessInfo.processInfo.environment.merging(["SOTTO_HOME": home]) { $1 }
        seed.standardOutput = FileHandle.nullDevice
        try seed.run()
        seed.waitUntilExit()
        #expect(seed.terminationStatus == 0)

        let tokens = TokenAuthority(secret: Self.secret)
        let cid = DemoSeed.channel
        let first = try ServeProcess(binary: binary, home: home)
        let acknowledged = AcknowledgedIDs()
        let port = first.port
        let workers = (0..<4).map { worker in
            Task {
                let user: UserID = worker % 2 == 0 ? "alice" : "bob"
                let client = HTTPClient(port: port, token: tokens.token(for: user))
                for index in 0..<10_000 {
                    let id = "burst-\(worker)-\(index)"
                    guard
                        let response = try? await client.post(
                            channelPath(cid, "/messages"), ["id": id, "text": "burst \(index)"]),
                        response.status == 201 || response.status == 200
                    else { return }
                    acknowledged.insert(id)
                }
            }
        }
        func workersEnded() async { for worker in workers { await worker.value } }
        let deadline = Date().addingTimeInterval(60)
        while acknowledged.count < 60 {
            guard Date() < deadline else {
                first.kill(SIGKILL)
                await workersEnded()
                Issue.record("only \(acknowledged.count) sends acknowledged within 60 s")
                return
            }
            try? await Task.sleep(for: .seconds(0.005))
        }
        first.kill(SIGKILL)
        await workersEnded()
        let acked = acknowledged.all
        #expect(acked.count >= 60)

        let second = try ServeProcess(binary: binary, home: home)
        defer { second.kill(SIGTERM) }
        let client = HTTPClient(port: second.port, token: tokens.token(for: "alice"))
        var stored: [String] = []
        var before: String?
        repeat {
            let path = channelPath(cid, "/messages?limit=200" + (before.map { "&before=\($0)" } ?? ""))
            let page = try await client.get(path).json()
            let messages = (page["messages"] as? [[String: Any]]) ?? []
            stored += messages.compactMap { $0["id"] as? String }
            before = (page["has_more"] as? Bool == true) ? messages.first?["id"] as? String : nil
        } while before != nil
        let missing = acked.subtracting(stored)
        #expect(missing.isEmpty, "acknowledged but lost: \(missing.sorted().prefix(10))")
        #expect(Set(stored).count == stored.count)  // no duplicates either
        #expect(stored.count >= acked.count + DemoSeed.messages.count)
    }
}

/// Ids of acknowledged sends, shared by the sender threads.
final class AcknowledgedIDs: @unchecked Sendable {
    // @unchecked Sendable: `ids` is only touched inside `lock`.
    private let lock = NSLock()
    private var ids: Set<String> = []

    func insert(_ id: String) {
        lock.lock()
        ids.insert(id)
        lock.unlock()
    }

    var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return ids.count
    }

    var all: Set<String> {
        lock.lock()
        defer { lock.unlock() }
        return ids
    }
}
