import Foundation
import TestSupport
import Testing

@testable import Server

@Suite struct OpenAPITests {
    func document() async throws -> [String: Any] {
        let routes = try await TestServer.shared().server.router.routes
        return try #require(
            try JSONSerialization.jsonObject(with: Data(OpenAPIDocument.json(for: routes).utf8)) as? [String: Any])
    }

    @Test func everyRouteIsDocumentedAndEveryDocumentedRouteExists() async throws {
        let server = try await TestServer.shared()
        let paths = try await #require(try document()["paths"] as? [String: [String: Any]])
        let methods: Set = ["get", "post", "put", "patch", "delete"]
        let documented = Set(
            paths.flatMap { path, item in item.keys.filter(methods.contains).map { "\($0.uppercased()) \(path)" } })
        let registered = Set(server.server.router.routes.map { "\($0.method) \($0.pattern)" })
        #expect(
            documented == registered,
            "only documented: \(documented.subtracting(registered)), only registered: \(registered.subtracting(documented))"
        )
    }

    @Test func publicRoutesAreMarkedWithoutSecurity() async throws {
        let server = try await TestServer.shared()
        let paths = try await #require(try document()["paths"] as? [String: [String: Any]])
        for route in server.server.router.routes {
            let operation = try #require(paths[route.pattern]?[route.method.lowercased()] as? [String: Any])
            let isPublic = (operation["security"] as? [Any])?.isEmpty == true
            // /api/connect authenticates inside the socket, so it is public at the HTTP level; the
            // OpenAI routes check their key themselves (to answer in OpenAI's shape).
            #expect(
                isPublic
                    == ((!route.authenticated && !route.operation.authenticatesItself)
                        || route.pattern == "/api/connect"),
                "\(route.method) \(route.pattern)")
        }
    }

    @Test func everyReferenceResolves() async throws {
        let document = try await document()
        var references: [String] = []
        func collect(_ value: Any) {
            if let object = value as? [String: Any] {
                if let reference = object["$ref"] as? String { references.append(reference) }
                object.values.forEach(collect)
            } else if let array = value as? [Any] {
                array.forEach(collect)
            }
        }
        collect(document)
        #expect(!references.isEmpty)
        for reference in references {
            var node: Any? = document
            for part in reference.dropFirst(2).split(separator: "/") { node = (node as? [String: Any])?[String(part)] }
            #expect(node != nil, "unresolved \(reference)")
        }
    }

    @Test func theServedDocumentIsThisOne() async throws {
        let server = try await TestServer.shared()
        let served = try await HTTPClient(port: server.port).get("/api/openapi.json")
        #expect(served.status == 200)
        #expect(served.text == OpenAPIDocument.json(for: server.server.router.routes))
    }

    /// Error answers come from what a route is (authenticated, takes a body, has a {cid}), so
    /// a route cannot forget one the router gives.
    @Test func errorAnswersFollowFromTheRoute() async throws {
        let server = try await TestServer.shared()
        let paths = try await #require(try document()["paths"] as? [String: [String: Any]])
        for route in server.server.router.routes {
            let operation = try #require(paths[route.pattern]?[route.method.lowercased()] as? [String: Any])
            let statuses = Set(try #require(operation["responses"] as? [String: Any]).keys)
            let name = "\(route.method) \(route.pattern)"
            if route.authenticated { #expect(statuses.isSuperset(of: ["401", "429"]), "\(name)") }
            if route.operation.body != nil { #expect(statuses.isSuperset(of: ["400", "413", "415"]), "\(name)") }
            if route.pattern.contains("{cid}") { #expect(statuses.contains("400"), "\(name)") }
            #expect(statuses.contains { $0.hasPrefix("2") || $0 == "101" }, "\(name) has no success answer")
        }
    }
}
