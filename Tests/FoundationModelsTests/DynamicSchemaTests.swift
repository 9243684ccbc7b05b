import FoundationModels
import GenerableFixtures
import TestSupport
import Testing

@Suite struct DynamicSchemaTests {
    @Test(.onTestThreads) func referencesResolveToDependencies() throws {
        let person = DynamicGenerationSchema(
            name: "Person", description: "Someone",
            properties: [
                .init(name: "name", schema: DynamicGenerationSchema(type: String.self)),
                .init(
                    name: "age", schema: DynamicGenerationSchema(type: Int.self, guides: [.range(0...130)]),
                    isOptional: true),
                .init(
                    name: "pets",
                    schema: DynamicGenerationSchema(
                        arrayOf: DynamicGenerationSchema(referenceTo: "Pet"), minimumElements: 1, maximumElements: 2)),
            ])
        let pet = DynamicGenerationSchema(name: "Pet", anyOf: ["cat", "dog"])
        let schema = try GenerationSchema(root: person, dependencies: [pet])
        guard case .object(let object) = schema.root else {
            Issue.record("expected an object")
            return
        }
        #expect(object.name == "Person")
        #expect(object.description == "Someone")
        #expect(object.properties.map(\.name) == ["name", "age", "pets"])
        #expect(object.properties[1].node == .integer(minimum: 0, maximum: 130))
        #expect(object.properties[1].isOptional)
        #expect(object.properties[2].node == .array(element: .reference("Pet"), minimumCount: 1, maximumCount: 2))
        #expect(
            schema.resolve(.reference("Pet")) == .enumeration(name: "Pet", description: nil, cases: ["cat", "dog"]))
    }

    @Test(.onTestThreads) func unionsAndNull() throws {
        let value = DynamicGenerationSchema(
            name: "Value",
            anyOf: [DynamicGenerationSchema(type: Int.self), DynamicGenerationSchema(type: String.self), .null])
        let schema = try GenerationSchema(root: value, dependencies: [])
        #expect(
            schema.root
                == .anyOf(
                    name: "Value", description: nil,
                    choices: [.integer(minimum: nil, maximum: nil), .string(StringConstraints()), .null]))
    }

    @Test(.onTestThreads) func generableTypesBringTheirDefinitions() throws {
        let root = DynamicGenerationSchema(
            name: "Cast", properties: [.init(name: "lead", schema: DynamicGenerationSchema(type: Character.self))])
        let schema = try GenerationSchema(root: root, dependencies: [])
        #expect(Set(schema.definitions.map(\.name)) == ["Character", "Sentiment"])
    }

    @Test(.onTestThreads) func recursiveReferenceToTheRoot() throws {
        let node = DynamicGenerationSchema(
            name: "Node",
            properties: [
                .init(
                    name: "children",
                    schema: DynamicGenerationSchema(arrayOf: DynamicGenerationSchema(referenceTo: "Node")))
            ])
        let schema = try GenerationSchema(root: node, dependencies: [])
        #expect(schema.definitions.map(\.name) == ["Node"])
    }

    @Test(.onTestThreads) func duplicateDependencyNames() {
        let a = DynamicGenerationSchema(name: "A", anyOf: ["x"])
        #expect {
            _ = try GenerationSchema(root: DynamicGenerationSchema(referenceTo: "A"), dependencies: [a, a])
        } throws: { error in
            guard case GenerationSchema.SchemaError.duplicateType(_, let type, _) = error else { return false }
            return type == "A"
        }
    }

    @Test(.onTestThreads) func duplicateProperties() {
        let root = DynamicGenerationSchema(
            name: "R",
            properties: [
                .init(name: "p", schema: DynamicGenerationSchema(type: Int.self)),
                .init(name: "p", schema: DynamicGenerationSchema(type: String.self)),
            ])
        #expect {
            _ = try GenerationSchema(root: root, dependencies: [])
        } throws: { error in
            guard case GenerationSchema.SchemaError.duplicateProperty(let schema, let property, _) = error else {
                return false
            }
            return schema == "R" && property == "p"
        }
    }

    @Test(.onTestThreads) func emptyChoices() {
        #expect {
            _ = try GenerationSchema(root: DynamicGenerationSchema(name: "E", anyOf: [String]()), dependencies: [])
        } throws: { error in
            guard case GenerationSchema.SchemaError.emptyTypeChoices(let schema, _) = error else { return false }
            return schema == "E"
        }
    }

    @Test(.onTestThreads) func undefinedReferences() {
        let root = DynamicGenerationSchema(
            name: "R",
            properties: [
                .init(name: "a", schema: DynamicGenerationSchema(referenceTo: "Missing")),
                .init(name: "b", schema: DynamicGenerationSchema(referenceTo: "Absent")),
            ])
        #expect {
            _ = try GenerationSchema(root: root, dependencies: [])
        } throws: { error in
            guard case GenerationSchema.SchemaError.undefinedReferences(let schema, let references, _) = error else {
                return false
            }
            return schema == "R" && references == ["Absent", "Missing"]
        }
    }
}
