import TestSupport
import Testing

@testable import HTTPCore

@Suite struct RequestDecoderTests {
    func decode(_ text: String, limits: HTTPRequestDecoder.Limits = .init()) -> [Result<HTTPRequest, HTTPFramingError>]
    {
        var decoder = HTTPRequestDecoder(limits: limits)
        decoder.append(Array(text.utf8))
        var results: [Result<HTTPRequest, HTTPFramingError>] = []
        while let result = decoder.next() { results.append(result) }
        return results
    }

    func failure(_ text: String, limits: HTTPRequestDecoder.Limits = .init()) -> HTTPFramingError? {
        guard case .failure(let error) = decode(text, limits: limits).last else { return nil }
        return error
    }

    @Test(.onTestThreads) func aRequestWithABodyAndAPipelinedOne() throws {
        let results = decode(
            "POST /a?x=1 HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nhelloGET /b HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(results.count == 2)
        let first = try results[0].get()
        #expect(first.method == "POST" && first.path == "/a" && first.queryString == "x=1")
        #expect(first.body == Array("hello".utf8))
        #expect(try results[1].get().path == "/b")
    }

    @Test(.onTestThreads) func bytesArrivingOneByOne() throws {
        let text = "POST /a HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\nabc"
        var decoder = HTTPRequestDecoder()
        var got: HTTPRequest?
        for byte in text.utf8 {
            #expect(got == nil)
            decoder.append([byte])
            if let result = decoder.next() { got = try result.get() }
        }
        #expect(got?.body == Array("abc".utf8))
        #expect(decoder.isIdle)
    }

    @Test(.onTestThreads) func chunkedBodiesAreDecoded() throws {
        let results = decode(
            "POST /c HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2;ext=1\r\nde\r\n0\r\n\r\nGET /n HTTP/1.1\r\nHost: h\r\n\r\n"
        )
        #expect(try results[0].get().body == Array("abcde".utf8))
        #expect(try results[1].get().path == "/n")
    }

    /// The request-smuggling shapes from issue 14: each is refused, and nothing after it is read.
    @Test(
        .onTestThreads,
        arguments: [
            (
                "two Content-Length", "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 20\r\nContent-Length: 2\r\n\r\n{}",
                400
            ),
            (
                "same Content-Length twice",
                "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\n{}", 400
            ),
            (
                "Content-Length and chunked",
                "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400
            ),
            (
                "space before the colon", "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding : chunked\r\n\r\n0\r\n\r\n",
                400
            ),
            ("signed length", "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: +2\r\n\r\n{}", 400),
            ("hex length", "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 0x2\r\n\r\n{}", 400),
            ("line folding", "GET / HTTP/1.1\r\nHost: h\r\nX-A: a\r\n  b\r\n\r\n", 400),
            ("bare LF", "GET / HTTP/1.1\nHost: h\n\n", 400),
            ("no Host", "GET / HTTP/1.1\r\n\r\n", 400),
            ("two Hosts", "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400),
            ("gzip coding", "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", 501),
            ("absolute target", "GET http://evil/ HTTP/1.1\r\nHost: h\r\n\r\n", 400),
            ("HTTP/2 text", "GET / HTTP/2.0\r\nHost: h\r\n\r\n", 400),
            ("NUL in a value", "GET / HTTP/1.1\r\nHost: h\r\nX-A: a\u{0}b\r\n\r\n", 400),
            ("bad chunk size", "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 400),
        ])
    func framingThatIsRefused(name: String, text: String, status: Int) {
        let results = decode(text + "GET /smuggled HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(results.count == 1, "\(name): \(results)")
        #expect(failure(text)?.status == status, "\(name)")
    }

    @Test(.onTestThreads) func tooManyHeadersIs431NotASilentDrop() {
        var text = "GET / HTTP/1.1\r\nHost: h\r\n"
        for index in 0..<64 { text += "X-\(index): v\r\n" }
        text += "Authorization: Bearer t\r\n\r\n"
        #expect(failure(text)?.status == 431)
        var fits = "GET / HTTP/1.1\r\nHost: h\r\n"
        for index in 0..<62 { fits += "X-\(index): v\r\n" }
        fits += "Authorization: Bearer t\r\n\r\n"
        let request = try? decode(fits).first?.get()
        #expect(request?.header("Authorization") == "Bearer t")
    }

    @Test(.onTestThreads) func headerNamesMatchWhateverTheirASCIICase() {
        let request = HTTPRequest(
            method: "GET", path: "/a%3Ab/c d/%F0%9F%98%80",
            headers: [("content-LENGTH", "3"), ("X-A_1", "x"), ("Accept", "a"), ("accept", "b")])
        #expect(request.header("Content-Length") == "3")
        #expect(request.header("x-a_1") == "x")
        #expect(request.header("Content-Lengt") == nil)
        #expect(request.header("X-A\u{7F}1") == nil)  // ASCII case only: `_` and DEL are not a pair
        #expect(request.headerValues("ACCEPT") == ["a", "b"])
        #expect(request.pathSegments == ["a:b", "c d", "😀"])
        #expect(HTTPRequest(method: "GET", path: "/a/%ZZ").pathSegments == nil)
    }

    @Test(.onTestThreads) func anOversizedHeadIs431EvenBeforeItEnds() {
        let text = "GET / HTTP/1.1\r\nHost: h\r\nX-Big: " + String(repeating: "a", count: 17_000)
        #expect(failure(text)?.status == 431)
    }

    @Test(.onTestThreads) func bodiesOverTheLimitAre413() {
        var limits = HTTPRequestDecoder.Limits()
        limits.maxBodyBytes = 10
        #expect(failure("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 11\r\n\r\n", limits: limits)?.status == 413)
        let chunked = "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\nb\r\nhello world\r\n0\r\n\r\n"
        #expect(failure(chunked, limits: limits)?.status == 413)
    }

    /// One route can take more than the rest; the limit is decided from the head, so a body
    /// over it is refused before any of it arrives.
    @Test(.onTestThreads) func aRouteCanHaveALargerBodyLimit() throws {
        var limits = HTTPRequestDecoder.Limits()
        limits.maxBodyBytes = 10
        limits.bodyLimit = { head in head.method == "POST" && head.path == "/upload" ? 20 : nil }
        let body = String(repeating: "x", count: 15)
        let upload = decode("POST /upload?a=1 HTTP/1.1\r\nHost: h\r\nContent-Length: 15\r\n\r\n" + body, limits: limits)
        #expect(try upload.first?.get().body.count == 15)
        #expect(
            failure("POST /other HTTP/1.1\r\nHost: h\r\nContent-Length: 15\r\n\r\n" + body, limits: limits)?.status
                == 413)
        #expect(
            failure("PUT /upload HTTP/1.1\r\nHost: h\r\nContent-Length: 15\r\n\r\n" + body, limits: limits)?.status
                == 413)
        // Over the route's own limit: refused on the head alone, naming that limit.
        let refused = failure("POST /upload HTTP/1.1\r\nHost: h\r\nContent-Length: 21\r\n\r\n", limits: limits)
        #expect(refused?.status == 413 && refused?.message == "request body over 20 bytes")
        let chunked = "POST /upload HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
        #expect(try decode(chunked + "f\r\n\(body)\r\n0\r\n\r\n", limits: limits).first?.get().body.count == 15)
        let tooLong = String(repeating: "y", count: 21)
        #expect(failure(chunked + "15\r\n\(tooLong)\r\n0\r\n\r\n", limits: limits)?.status == 413)
    }

    /// A failure after the head was read names the request's path (so the error body can follow
    /// the conventions of the routes under it); one before it, or of the next request, does not.
    @Test(.onTestThreads) func failuresAfterTheHeadCarryThePath() {
        var limits = HTTPRequestDecoder.Limits()
        limits.maxBodyBytes = 10
        let large = "POST /v1/chat/completions HTTP/1.1\r\nHost: h\r\nContent-Length: 11\r\n\r\n"
        #expect(failure(large, limits: limits)?.path == "/v1/chat/completions")
        let chunked =
            "POST /v1/x HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\nb\r\nhello world\r\n0\r\n\r\n"
        #expect(failure(chunked, limits: limits)?.path == "/v1/x")
        let twoLengths = "POST /v1/x HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n"
        #expect(failure(twoLengths)?.status == 400 && failure(twoLengths)?.path == "/v1/x")
        #expect(failure("POST /v1/x HTTP/1.1\nHost: h\n\n")?.path == nil)  // bare LF: no head read
        let pipelined = "GET /v1/models HTTP/1.1\r\nHost: h\r\n\r\nGARBAGE\r\n\r\n"
        #expect(failure(pipelined)?.path == nil)
    }

    @Test(.onTestThreads) func aShortBodyWaitsAndIsNotHandedOn() {
        var decoder = HTTPRequestDecoder()
        decoder.append(Array("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 20\r\n\r\n{}".utf8))
        #expect(decoder.next() == nil)
        #expect(decoder.isReadingBody)
    }

    @Test(.onTestThreads) func queryValuesMustBeValidPercentEncoding() {
        #expect(HTTPRequest(method: "GET", path: "/", queryString: "before=%ff").validatedQuery == nil)
        #expect(HTTPRequest(method: "GET", path: "/", queryString: "since=%zz").validatedQuery == nil)
        #expect(
            HTTPRequest(method: "GET", path: "/", queryString: "a=b+c&a=d&e").validatedQuery == ["a": "b c", "e": ""])
    }

    @Test(.onTestThreads) func keepAliveFollowsVersionAndConnection() {
        #expect(HTTPRequest(method: "GET", path: "/").wantsKeepAlive)
        #expect(!HTTPRequest(method: "GET", path: "/", headers: [("Connection", "close")]).wantsKeepAlive)
        #expect(!HTTPRequest(method: "GET", path: "/", minorVersion: 0).wantsKeepAlive)
        #expect(
            HTTPRequest(method: "GET", path: "/", headers: [("Connection", "Keep-Alive")], minorVersion: 0)
                .wantsKeepAlive)
    }

    @Test(.onTestThreads) func responsesAreOneBufferAndCannotBeSplit() {
        let response = HTTPResponse(
            status: 200, headers: [("X-A", "a\r\nSet-Cookie: x"), ("Content-Length", "99")], body: [65])
        let text = String(decoding: response.serialized(keepAlive: true, extraHeaders: [("X-B", "b")]), as: UTF8.self)
        #expect(text == "HTTP/1.1 200 OK\r\nX-A: aSet-Cookie: x\r\nX-B: b\r\nContent-Length: 1\r\n\r\nA")
    }
}
