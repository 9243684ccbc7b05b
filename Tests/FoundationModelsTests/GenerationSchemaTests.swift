import Foundation
import FoundationModels
import GenerableFixtures
import TestSupport
import Testing

@Suite struct GenerationSchemaTests {
    @Test(.onTestThreads) func countGuideBecomesExactArrayBounds() {
        let schema = SearchSuggestions.generationSchema
        guard case .object(let object) = schema.root else {
            Issue.record("expected an object, got \(schema.root)")
            return
        }
        #expect(object.name == "SearchSuggestions")
        #expect(object.properties.map(\.name) == ["searchTerms"])
        #expect(object.properties[0].description == "A list of suggested search terms")
        #expect(
            object.properties[0].node
                == .array(element: .string(StringConstraints()), minimumCount: 4, maximumCount: 4))
        #expect(schema.definitions.isEmpty)
    }

    @Test(.onTestThreads) func everyGuideIsApplied() throws {
        let schema = Story.generationSchema
        guard case .object(let story) = schema.root else {
            Issue.record("expected an object")
            return
        }
        let nodes = Dictionary(uniqueKeysWithValues: story.properties.map { ($0.name, $0.node) })
        #expect(story.properties.map(\.name) == ["title", "characters", "hashtag", "genre", "rating"])
        #expect(nodes["characters"] == .array(element: .reference("Character"), minimumCount: 1, maximumCount: 3))
        #expect(nodes["hashtag"] == .string(StringConstraints(pattern: "#[a-z]+")))
        #expect(nodes["genre"] == .string(StringConstraints(choices: ["fantasy", "mystery", "romance"])))
        #expect(nodes["rating"] == .number(minimum: 0, maximum: 5))
        #expect(schema.problems.isEmpty)

        #expect(schema.definitions.map(\.name).sorted() == ["Character", "Sentiment"])
        guard case .object(let character) = schema.resolve(.reference("Character")) else {
            Issue.record("Character is not defined")
            return
        }
        #expect(character.description == "A person in the story")
        let characterNodes = Dictionary(uniqueKeysWithValues: character.properties.map { ($0.name, $0) })
        #expect(characterNodes["age"]?.node == .integer(minimum: 1, maximum: 120))
        #expect(characterNodes["mood"]?.node == .reference("Sentiment"))
        #expect(characterNodes["nickname"]?.isOptional == true)
        #expect(characterNodes["name"]?.isOptional == false)
        #expect(
            schema.resolve(.reference("Sentiment"))
                == .enumeration(name: "Sentiment", description: nil, cases: ["positive", "neutral", "negative"]))
    }

    @Test(.onTestThreads) func recursiveTypeRefersToItself() {
        let schema = TreeNode.generationSchema
        guard case .object(let node) = schema.root else {
            Issue.record("expected an object")
            return
        }
        #expect(
            node.properties[1].node == .array(element: .reference("TreeNode"), minimumCount: nil, maximumCount: nil))
        #expect(schema.definitions.map(\.name) == ["TreeNode"])
        #expect(schema.definitions[0].node == schema.root)
    }

    @Test(.onTestThreads) func enumWithAssociatedValuesIsAUnionOfCaseObjects() {
        guard case .anyOf(let name, let description, let choices) = NextAction.generationSchema.root else {
            Issue.record("expected anyOf")
            return
        }
        #expect(name == "NextAction")
        #expect(description == "Something the assistant can do next")
        #expect(choices.count == 4)
        #expect(choices[3] == .string(StringConstraints(choices: ["nothing"])))
        let wait = SchemaNode.object(
            ObjectNode(
                name: nil, description: nil,
                properties: [
                    SchemaProperty(
                        name: "wait", description: nil,
                        node: .object(
                            ObjectNode(
                                name: nil, description: nil,
                                properties: [
                                    SchemaProperty(
                                        name: "minutes", description: nil, node: .integer(minimum: nil, maximum: nil),
                                        isOptional: false)
                                ])), isOptional: false)
                ]))
        #expect(choices[1] == wait)
    }

    @Test(.onTestThreads) func builtInTypesHavePrimitiveSchemas() {
        #expect(String.generationSchema.root == .string(StringConstraints()))
        #expect(Int.generationSchema.root == .integer(minimum: nil, maximum: nil))
        #expect(Double.generationSchema.root == .number(minimum: nil, maximum: nil))
        #expect(Decimal.generationSchema.root == .number(minimum: nil, maximum: nil))
        #expect(Bool.generationSchema.root == .boolean)
        #expect(
            [[Int]].generationSchema.root
                == .array(
                    element: .array(
                        element: .integer(minimum: nil, maximum: nil), minimumCount: nil, maximumCount: nil),
                    minimumCount: nil, maximumCount: nil))
        #expect(GeneratedContent.generationSchema.root == .anyValue)
    }

    @Test(.onTestThreads) func guidesComposeOnNestedArrays() {
        struct Grid: Generable {
            var cells: [[Int]]
            static var generationSchema: GenerationSchema {
                GenerationSchema(
                    type: Self.self,
                    properties: [
                        .init(
                            name: "cells", type: [[Int]].self,
                            guides: [.count(2), .element(.count(3)), .element(.element(.range(0...9)))])
                    ])
            }
            init(_ content: GeneratedContent) throws { cells = try content.value(forProperty: "cells") }
            var generatedContent: GeneratedContent { GeneratedContent(properties: ["cells": cells]) }
        }
        guard case .object(let grid) = Grid.generationSchema.root else {
            Issue.record("expected an object")
            return
        }
        #expect(
            grid.properties[0].node
                == .array(
                    element: .array(element: .integer(minimum: 0, maximum: 9), minimumCount: 3, maximumCount: 3),
                    minimumCount: 2, maximumCount: 2))
    }

    @Test(.onTestThreads) func explicitNilMakesOptionalsRequiredAndNullable() {
        let schema = GenerationSchema(
            type: GeneratedContent.self, representNilExplicitlyInGeneratedContent: true,
            properties: [.init(name: "note", type: String?.self)])
        guard case .object(let object) = schema.root else {
            Issue.record("expected an object")
            return
        }
        #expect(object.properties[0].isOptional == false)
        #expect(
            object.properties[0].node
                == .anyOf(name: nil, description: nil, choices: [.string(StringConstraints()), .null]))
    }

    @Test(.onTestThreads) func codableRoundTripKeepsTheTree() throws {
        for schema in [
            Story.generationSchema, NextAction.generationSchema, TreeNode.generationSchema,
            ReplySuggestions.generationSchema,
        ] {
            let data = try JSONEncoder().encode(schema)
            let decoded = try JSONDecoder().decode(GenerationSchema.self, from: data)
            #expect(decoded.root == schema.root)
            #expect(Set(decoded.definitions) == Set(schema.definitions))
        }
    }

    /// The schema of `response_format: json_object` (any object) survives the trip, apart from an
    /// object of no properties (`additionalProperties` tells them apart).
    @Test(.onTestThreads) func anyObjectRoundTripsApartFromAnEmptyObject() throws {
        let any = GenerationSchema(primitive: .anyObject)
        let empty = GenerationSchema(primitive: .object(ObjectNode(name: nil, description: nil, properties: [])))
        for schema in [any, empty] {
            let decoded = try JSONDecoder().decode(GenerationSchema.self, from: JSONEncoder().encode(schema))
            #expect(decoded.root == schema.root)
        }
        #expect(any.jsonSchemaString == #"{"type":"object","additionalProperties":true}"#)
    }

    @Test(.onTestThreads) func schemaGoesIntoThePromptAsJSONSchema() throws {
        let text = ReplySuggestions.generationSchema.jsonSchemaString
        let schema = try GeneratedContent(json: text)
        #expect(try schema.value(String.self, forProperty: "type") == "object")
        #expect(
            try schema.value(String.self, forProperty: "description")
                == "Suggested replies to the last message of a conversation")
        let replies = try schema.value(GeneratedContent.self, forProperty: "properties").value(
            GeneratedContent.self, forProperty: "replies")
        #expect(try replies.value(Int.self, forProperty: "minItems") == 3)
        #expect(try replies.value(Int.self, forProperty: "maxItems") == 3)
        #expect(try replies.value(String.self, forProperty: "description") == "Three short replies the user could send")
    }

    @Test(.onTestThreads) func runtimeRegexGivesItsPattern() throws {
        let regex = try Regex("[0-9]{3}-[0-9]{4}")
        let schema = GenerationSchema(
            type: GeneratedContent.self, properties: [.init(name: "phone", type: String?.self, guides: [regex])])
        guard case .object(let object) = schema.root else {
            Issue.record("expected an object")
            return
        }
        // The pattern is the regex printed back by Swift, which escapes a literal `-`.
        #expect(object.properties[0].node == .string(StringConstraints(pattern: #"[0-9]{3}\-[0-9]{4}"#)))
        #expect(object.properties[0].isOptional)
        #expect(schema.problems.isEmpty)
    }
}

@Suite struct SchemaInliningTests {
    @Test(.onTestThreads) func referencesAreReplacedByDefinitions() throws {
        let inlined = try Story.generationSchema.inlinedRoot()
        #expect(!inlined.references.contains("Character"))
        guard case .object(let story) = inlined, case .array(.object(let character), 1, 3) = story.properties[1].node
        else {
            Issue.record("unexpected \(inlined)")
            return
        }
        #expect(
            character.properties.first { $0.name == "mood" }?.node
                == .enumeration(name: "Sentiment", description: nil, cases: ["positive", "neutral", "negative"]))
    }

    @Test(.onTestThreads) func recursionIsCutWhereOutputStaysValid() throws {
        let inlined = try TreeNode.generationSchema.inlinedRoot(maximumDepth: 2)
        #expect(inlined.references.isEmpty)
        // Root, two levels of children, then children must be empty.
        var node = inlined
        var depth = 0
        while case .object(let object) = node, case .array(let element, _, let maximum) = object.properties[1].node {
            if maximum == 0 { break }
            node = element
            depth += 1
        }
        #expect(depth == 2)
    }

    @Test(.onTestThreads) func requiredSelfReferenceCannotBeInlined() throws {
        let loop = DynamicGenerationSchema(
            name: "Loop", properties: [.init(name: "next", schema: DynamicGenerationSchema(referenceTo: "Loop"))])
        let schema = try GenerationSchema(root: loop, dependencies: [])
        #expect(throws: LanguageModelSession.GenerationError.self) { try schema.inlinedRoot() }
    }
}

@Suite struct GuideSpellingTests {
    @Test(.onTestThreads) func guidesWithoutDescriptionsAndOtherNumberTypes() {
        guard case .object(let tuning) = Tuning.generationSchema.root else {
            Issue.record("expected an object")
            return
        }
        let nodes = Dictionary(uniqueKeysWithValues: tuning.properties.map { ($0.name, $0.node) })
        #expect(
            nodes["pair"] == .array(element: .integer(minimum: nil, maximum: nil), minimumCount: 2, maximumCount: 2))
        #expect(
            nodes["dice"] == .array(element: .integer(minimum: 1, maximum: 6), minimumCount: nil, maximumCount: nil))
        #expect(nodes["share"] == .number(minimum: 0, maximum: 1))
        #expect(nodes["weight"] == .number(minimum: 0.5, maximum: nil))
        #expect(nodes["price"] == .number(minimum: nil, maximum: 10))
        #expect(nodes["version"] == .string(StringConstraints(choices: ["v1"])))
        #expect(
            nodes["letters"]
                == .array(element: .string(StringConstraints(choices: ["a", "b"])), minimumCount: 1, maximumCount: 2))
        #expect(tuning.properties.first { $0.name == "letters" }?.isOptional == true)
        #expect(tuning.properties.first { $0.name == "share" }?.description == "A share")
    }
}
