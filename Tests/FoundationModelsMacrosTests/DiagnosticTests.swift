import TestSupport
import Testing

@Suite struct DiagnosticTests {
    @Test(.onTestThreads, arguments: ["class", "actor", "protocol"])
    func generableRejectsOtherDeclarations(keyword: String) {
        let result = expand(
            """
            @Generable
            \(keyword) Thing {
            }
            """)
        #expect(result.diagnostics == ["1:1: '@Generable' can only be applied to a struct or an enum"])
        #expect(!result.source.contains("generationSchema"))
    }

    @Test(
        .onTestThreads,
        arguments: [
            ("Date", "dates are not Generable"),
            ("URL", "URLs are not Generable"),
            ("Data", "Data is not Generable"),
            ("Any", "'Any' cannot be generated"),
            ("[String: Int]", "dictionaries are not Generable"),
            ("(Int) -> Void", "function types cannot be generated"),
            ("(Int, Int)", "tuples are not Generable"),
            ("any Error", "'any' types cannot be generated"),
            ("[Date]?", "dates are not Generable"),
            ("Foundation.UUID", "UUIDs are not Generable"),
            ("UInt8", "UInt8 is not Generable"),
        ])
    func propertyOfKnownNonGenerableType(type: String, reason: String) {
        let result = expand(
            """
            @Generable
            struct Event {
                var name: String
                var value: \(type)
            }
            """)
        #expect(result.diagnostics.count == 1)
        #expect(result.diagnostics.first?.contains(reason) == true)
        #expect(result.diagnostics.first?.hasPrefix("4:") == true)
        #expect(!result.source.contains("extension Event"))
    }

    @Test(.onTestThreads) func missingTypeAnnotation() {
        let result = expand(
            """
            @Generable
            struct Counter {
                var count = 0
            }
            """)
        #expect(result.diagnostics == ["3:9: '@Generable' needs an explicit type annotation on every stored property"])
    }

    /// As Apple's macro does: a constant with its value is the type's own, not generated.
    @Test(.onTestThreads) func letWithInitialValueIsLeftOut() {
        let result = expand(
            """
            @Generable
            struct Note {
                let id = UUID()
                let version: Int = 2
                var text: String
            }
            """)
        #expect(result.diagnostics.isEmpty)
        #expect(result.source.contains(#"Property(name: "text", type: String.self)"#))
        #expect(!result.source.contains(#"name: "id""#) && !result.source.contains(#"name: "version""#))
        #expect(!result.source.contains("self.version =") && !result.source.contains(#"self.id = try"#))
        #expect(!result.source.contains("var version:"))
        // PartiallyGenerated keeps its own `id` (a GenerationID), not the struct's UUID.
        #expect(result.source.contains("var id: FoundationModels.GenerationID"))
        #expect(!result.source.contains(#"forProperty: "id""#))
    }

    @Test(.onTestThreads) func letWithoutInitialValueIsFine() {
        let result = expand(
            """
            @Generable
            struct Version {
                let major: Int
            }
            """)
        #expect(result.diagnostics.isEmpty)
        #expect(result.source.contains(#"self.major = try content.value(forProperty: "major")"#))
    }

    @Test(.onTestThreads) func enumWithoutCases() {
        let result = expand(
            """
            @Generable
            enum Nothing {
            }
            """)
        #expect(result.diagnostics == ["2:6: '@Generable' enum must have at least one case"])
    }

    @Test(.onTestThreads) func enumAssociatedValueOfNonGenerableType() {
        let result = expand(
            """
            @Generable
            enum Reminder {
                case at(Date)
            }
            """)
        #expect(result.diagnostics.count == 1)
        #expect(result.diagnostics.first?.contains("dates are not Generable") == true)
    }

    @Test(.onTestThreads) func guideOnNonStoredDeclarations() {
        let result = expand(
            """
            struct Thing {
                @Guide(description: "no")
                func go() {}
                @Guide(description: "no")
                var computed: Int { 1 }
                @Guide(description: "no")
                static var shared: Int = 1
                @Guide(description: "yes")
                var stored: Int
            }
            """)
        #expect(
            result.diagnostics == [
                "2:5: '@Guide' can only be applied to a stored property",
                "4:5: '@Guide' can only be applied to a stored property",
                "6:5: '@Guide' can only be applied to a stored property",
            ])
    }
}
