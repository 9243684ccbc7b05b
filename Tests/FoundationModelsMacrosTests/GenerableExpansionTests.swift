import TestSupport
import Testing

@Suite struct GenerableExpansionTests {
    @Test(.onTestThreads) func structExpandsToApplesShape() {
        let result = expand(
            """
            @Generable(description: "Replies")
            struct Suggestions {
                @Guide(description: "Three replies", .count(3))
                var replies: [String]
                var mood: Mood?
            }
            """)
        #expect(result.diagnostics.isEmpty)
        #expect(
            result.source == """
                struct Suggestions {
                    var replies: [String]
                    var mood: Mood?

                    nonisolated static var generationSchema: FoundationModels.GenerationSchema {
                        FoundationModels.GenerationSchema(
                            type: Self.self,
                            description: "Replies",
                            properties: [
                                FoundationModels.GenerationSchema.Property(name: "replies", description: "Three replies", type: [String].self, guides: [.count(3)]),
                                FoundationModels.GenerationSchema.Property(name: "mood", type: Mood?.self),
                            ]
                        )
                    }

                    nonisolated var generatedContent: FoundationModels.GeneratedContent {
                        var properties: [(Swift.String, any FoundationModels.ConvertibleToGeneratedContent)] = []
                        properties.append(("replies", self.replies))
                        if let value = self.mood {
                            properties.append(("mood", value))
                        }
                        return FoundationModels.GeneratedContent(
                            properties: properties,
                            id: nil,
                            uniquingKeysWith: { _, second in
                                second
                            }
                        )
                    }

                    nonisolated struct PartiallyGenerated: Identifiable, FoundationModels.ConvertibleFromGeneratedContent {
                        var id: FoundationModels.GenerationID
                        var replies: Swift.Array<String>.PartiallyGenerated?
                        var mood: Mood.PartiallyGenerated?

                        nonisolated init(_ content: FoundationModels.GeneratedContent) throws {
                            self.id = content.id ?? FoundationModels.GenerationID()
                            self.replies = try content.value(forProperty: "replies")
                            self.mood = try content.value(forProperty: "mood")
                        }
                    }
                }

                nonisolated extension Suggestions: FoundationModels.Generable {
                    nonisolated init(_ content: FoundationModels.GeneratedContent) throws {
                        self.replies = try content.value(forProperty: "replies")
                        self.mood = try content.value(forProperty: "mood")
                    }
                }
                """)
    }

    @Test(.onTestThreads) func simpleEnumExpandsToStringChoices() {
        let result = expand(
            """
            @Generable
            enum Mood {
                case happy, sad
            }
            """)
        #expect(result.diagnostics.isEmpty)
        #expect(
            result.source == """
                enum Mood {
                    case happy, sad

                    nonisolated static var generationSchema: FoundationModels.GenerationSchema {
                        FoundationModels.GenerationSchema(
                            type: Self.self,
                            anyOf: ["happy", "sad"]
                        )
                    }

                    nonisolated var generatedContent: FoundationModels.GeneratedContent {
                        switch self {
                        case .happy:
                            return FoundationModels.GeneratedContent("happy")
                        case .sad:
                            return FoundationModels.GeneratedContent("sad")
                        }
                    }
                }

                nonisolated extension Mood: FoundationModels.Generable {
                    nonisolated init(_ content: FoundationModels.GeneratedContent) throws {
                        let name = try content.value(Swift.String.self)
                        switch name {
                        case "happy":
                            self = .happy
                        case "sad":
                            self = .sad
                        default:
                            throw FoundationModels.LanguageModelSession.GenerationError.decodingFailure(.init(debugDescription: "\\(name.debugDescription) is not a case of Mood"))
                        }
                    }
                }
                """)
    }

    @Test(.onTestThreads) func enumWithAssociatedValuesUsesCaseObjects() {
        let result = expand(
            """
            @Generable
            enum Action {
                case reply(text: String)
                case wait(Int)
                case none
            }
            """)
        #expect(result.diagnostics.isEmpty)
        #expect(result.source.contains(#"FoundationModels.GenerationSchema._EnumCase(name: "none"),"#))
        #expect(result.source.contains(#"FoundationModels.GenerationSchema.Property(name: "_0", type: Int.self),"#))
        #expect(result.source.contains(#"self = try .reply(text: payload.value(forProperty: "text"))"#))
        #expect(result.source.contains(#"self = try .wait(payload.value(forProperty: "_0"))"#))
        #expect(result.source.contains(#"case .string(let name):"#))
    }

    @Test(.onTestThreads) func publicTypeGetsPublicMembers() {
        let result = expand(
            """
            @Generable
            public struct Tag {
                public var name: String
            }
            """)
        #expect(result.source.contains("public nonisolated static var generationSchema"))
        #expect(result.source.contains("public nonisolated var generatedContent"))
        #expect(result.source.contains("public nonisolated struct PartiallyGenerated"))
        #expect(result.source.contains("public var name: String.PartiallyGenerated?"))
        #expect(result.source.contains("public nonisolated init(_ content: FoundationModels.GeneratedContent) throws"))
    }

    @Test(.onTestThreads) func computedStaticAndObservedProperties() {
        let result = expand(
            """
            @Generable
            struct Note {
                static var count = 0
                var text: String {
                    didSet { print("changed") }
                }
                var length: Int { text.count }
                var shout: String {
                    get { text.uppercased() }
                    set { text = newValue }
                }
            }
            """)
        #expect(result.diagnostics.isEmpty)
        #expect(result.source.contains(#"Property(name: "text", type: String.self)"#))
        #expect(!result.source.contains(#"name: "length""#))
        #expect(!result.source.contains(#"name: "shout""#))
        #expect(!result.source.contains(#"name: "count""#))
    }

    @Test(.onTestThreads) func regexGuideIsPassedThrough() {
        let result = expand(
            """
            @Generable
            struct Code {
                @Guide(description: "Three capitals", /[A-Z]{3}/)
                var code: String
            }
            """)
        #expect(
            result.source.contains(
                #"Property(name: "code", description: "Three capitals", type: String.self, guides: [/[A-Z]{3}/])"#))
    }

    @Test(.onTestThreads) func sharedTypeAnnotationAppliesToEveryName() {
        let result = expand(
            """
            @Generable
            struct Point {
                var x, y: Double
            }
            """)
        #expect(result.diagnostics.isEmpty)
        #expect(result.source.contains(#"Property(name: "x", type: Double.self)"#))
        #expect(result.source.contains(#"Property(name: "y", type: Double.self)"#))
    }

    @Test(.onTestThreads) func generationIDPropertyIsNotInTheSchema() {
        let result = expand(
            """
            @Generable
            struct Item {
                var id: GenerationID
                var title: String
            }
            """)
        #expect(!result.source.contains(#"name: "id""#))
        #expect(result.source.contains("self.id = content.id ?? FoundationModels.GenerationID()"))
        #expect(result.source.contains("id: self.id,"))
    }

    @Test(.onTestThreads) func explicitNilWritesNullForMissingOptionals() {
        let result = expand(
            """
            @Generable(representNilExplicitlyInGeneratedContent: true)
            struct Profile {
                var bio: String?
            }
            """)
        #expect(result.source.contains("representNilExplicitlyInGeneratedContent: true"))
        #expect(result.source.contains(#"properties.append(("bio", self.bio))"#))
    }

    @Test(.onTestThreads) func keywordNamesAreEscapedInCodeOnly() {
        let result = expand(
            """
            @Generable
            struct Flags {
                var `default`: Bool
            }
            """)
        #expect(result.source.contains(#"Property(name: "default", type: Bool.self)"#))
        #expect(result.source.contains(#"self.`default` = try content.value(forProperty: "default")"#))
    }
}
