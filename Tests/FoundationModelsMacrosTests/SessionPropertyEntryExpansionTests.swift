import TestSupport
import Testing

@Suite struct SessionPropertyEntryExpansionTests {
    @Test(.onTestThreads) func aTypedEntryReadsAndWritesThroughItsKey() {
        let result = expand(
            """
            extension SessionPropertyValues {
                @SessionPropertyEntry var accountID: String = "anonymous"
            }
            """)
        #expect(result.diagnostics.isEmpty)
        #expect(
            result.source == """
                extension SessionPropertyValues {
                    var accountID: String {
                        get {
                            self[__Key_accountID.self]
                        }
                        set {
                            self[__Key_accountID.self] = newValue
                        }
                    }

                    nonisolated private struct __Key_accountID: FoundationModels.SessionPropertyKey {
                        static var defaultValue: String {
                            "anonymous"
                        }
                    }
                }
                """)
    }

    @Test(.onTestThreads) func anUntypedEntryLetsSwiftInferTheType() {
        let result = expand(
            """
            extension SessionPropertyValues {
                @SessionPropertyEntry var retries = 3
            }
            """)
        #expect(result.diagnostics.isEmpty)
        #expect(result.source.contains("static let defaultValue = 3"))
    }

    @Test(.onTestThreads) func anEntryNeedsADefault() {
        let result = expand(
            """
            extension SessionPropertyValues {
                @SessionPropertyEntry var accountID: String
            }
            """)
        #expect(result.diagnostics == ["2:5: '@SessionPropertyEntry' needs a default value: 'var name: Type = value'"])
    }
}
