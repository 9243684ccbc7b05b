import Foundation
import FoundationCompat
import TestSupport
import Testing

/// `String(localized:)` and its types, as Linux's Foundation lacks them: the key of an
/// interpolation has a placeholder per value, a string table is consulted, and the text as
/// written comes back when none has the key.
@Suite struct LocalizedStringTests {
    /// A bundle with an English `Localizable.strings` and an `Errors.strings`.
    private final class Bundled: @unchecked Sendable {
        // @unchecked Sendable: every property is a constant.
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("loc-\(UUID().uuidString).bundle")
        let bundle: Bundle

        init() throws {
            let english = url.appendingPathComponent("Resources/en.lproj")
            try FileManager.default.createDirectory(at: english, withIntermediateDirectories: true)
            try #""Hello %@" = "Welcome, %@!";"#.write(
                to: english.appendingPathComponent("Localizable.strings"), atomically: true, encoding: .utf8)
            try #""ModelUnavailable" = "The model is not ready (%2$@, %1$lld tries).";"#.write(
                to: english.appendingPathComponent("Errors.strings"), atomically: true, encoding: .utf8)
            bundle = try #require(Bundle(url: url))
        }

        deinit { try? FileManager.default.removeItem(at: url) }
    }

    @Test(.onTestThreads) func interpolationsMakeKeysWithPlaceholders() {
        let name = "Ada"
        let count = 3
        let value: String.LocalizationValue = "Hello \(name), \(count) new at 100% and \(2.5)"
        #expect(value.key == "Hello %@, %lld new at 100%% and %lf")
        #expect(value.description == "Hello Ada, 3 new at 100% and 2.500000")
    }

    @Test(.onTestThreads) func withoutATableTheTextComesBack() {
        let tries = 2
        #expect(String(localized: "The model failed after \(tries) tries.") == "The model failed after 2 tries.")
        #expect(String(localized: "missing.key", defaultValue: "Something went wrong") == "Something went wrong")
        let resource = LocalizedStringResource("A resource")
        #expect(String(localized: resource) == "A resource")
    }

    @Test(.onTestThreads) func aStringTableLocalizesAndMayReorderTheValues() throws {
        let bundled = try Bundled()
        let name = "Ada"
        #expect(String(localized: "Hello \(name)", bundle: bundled.bundle) == "Welcome, Ada!")
        let reason = "loading"
        #expect(
            String(
                localized: "ModelUnavailable", defaultValue: "Not ready after \(3) tries: \(reason)", table: "Errors",
                bundle: bundled.bundle) == "The model is not ready (loading, 3 tries).")
    }
}
