/// How a route appears in the OpenAPI document. Routes carry one each (`RouteList.add`), and
/// `OpenAPIDocument` is generated from them, so the document and the router cannot disagree.
///
/// Error answers are derived, not listed per route: 400 for any input, 401 and 429 for
/// authenticated routes, 413/415 for a body; `errors` adds the route's own (403, 404, 409…).
public struct APIOperation: Sendable {
    /// A query parameter with its JSON schema (as a JSON text).
    public struct Query: Sendable {
        public var name: String
        public var schema: String
        public init(_ name: String, _ schema: String) {
            self.name = name
            self.schema = schema
        }
    }

    /// A success answer: status, description and the JSON schema of its body (nil: no body).
    public struct Answer: Sendable {
        public var status: Int
        public var description: String
        public var schema: String?
        /// The media types the body comes as (JSON unless the route answers with a file).
        public var mediaTypes: [String]
        public init(
            _ status: Int, _ description: String, _ schema: String? = nil, mediaTypes: [String] = ["application/json"]
        ) {
            self.status = status
            self.description = description
            self.schema = schema
            self.mediaTypes = mediaTypes
        }
    }

    public var id: String
    public var summary: String
    public var query: [Query] = []
    /// The JSON schema of the request body, if the route takes one.
    public var body: String?
    public var bodyRequired = true
    /// The media types the body may be sent as (JSON unless the route takes a file).
    public var bodyMediaTypes = ["application/json"]
    public var answers: [Answer]
    /// Error statuses beyond the derived ones, e.g. `[403, 404]`.
    public var errors: [Int] = []
    /// Shown as public (no security) even though the route is authenticated some other way.
    public var publicAtHTTPLevel = false
    /// Shown as authenticated (bearer token, 401) though the router does not check the token:
    /// the handler does, to answer in a shape of its own (the OpenAI-compatible routes).
    public var authenticatesItself = false

    public init(
        id: String, summary: String, query: [Query] = [], body: String? = nil, bodyRequired: Bool = true,
        bodyMediaTypes: [String] = ["application/json"], answers: [Answer], errors: [Int] = [],
        publicAtHTTPLevel: Bool = false, authenticatesItself: Bool = false
    ) {
        self.id = id
        self.summary = summary
        self.query = query
        self.body = body
        self.bodyRequired = bodyRequired
        self.bodyMediaTypes = bodyMediaTypes
        self.answers = answers
        self.errors = errors
        self.publicAtHTTPLevel = publicAtHTTPLevel
        self.authenticatesItself = authenticatesItself
    }

    /// A `$ref` to a component schema, as a JSON schema text.
    public static func ref(_ name: String) -> String { ##"{"$ref": "#/components/schemas/\##(name)"}"## }
}
