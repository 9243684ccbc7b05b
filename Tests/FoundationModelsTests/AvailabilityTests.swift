import Foundation
import FoundationModels
import Synchronization
import TestSupport
import Testing

/// `SystemLanguageModel.availability` is observable: observers hear when the model file
/// appears, while the model loads, and when a load fails. Nothing polls: the backend's locator
/// and engine say when something changed.
@Suite struct AvailabilityTests {
    /// Waits (at most `seconds`) for the next change of `model.availability`.
    private func nextChange(of model: SystemLanguageModel, within seconds: Int = 10) async -> Bool {
        let changed = Mutex(false)
        withObservationTracking {
            _ = model.availability
        } onChange: {
            changed.withLock { $0 = true }
        }
        for _ in 0..<(seconds * 100) {
            if changed.withLock({ $0 }) { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return false
    }

    @Test func observersHearTheModelFileAppear() async throws {
        let locator = StubLocator()
        let model = SystemLanguageModel.stub(.id("smollm2-135m"), locator: locator)
        #expect(model.availability == .unavailable(.modelNotReady))
        #expect(model.unavailableExplanation?.contains("sotto model pull") == true)
        async let changed = nextChange(of: model)
        try await Task.sleep(for: .milliseconds(50))
        locator.add(.id("smollm2-135m"))
        #expect(await changed)
        #expect(model.availability == .available)
        #expect(model.unavailableExplanation == nil)
    }

    @Test func observersHearALoadStartFinishAndFail() async throws {
        let engine = StubEngine()
        let model = SystemLanguageModel.stub(
            .id("smollm2-135m"), locator: StubLocator(files: [.id("smollm2-135m"): 1000]), engine: engine)
        let path = StubLocator.path(of: .id("smollm2-135m"))
        #expect(model.availability == .available)

        async let loading = nextChange(of: model)
        try await Task.sleep(for: .milliseconds(20))
        engine.set(.loading, for: path)
        #expect(await loading)
        #expect(model.availability == .unavailable(.modelNotReady))
        #expect(model.unavailableExplanation?.contains("loading") == true)

        async let loaded = nextChange(of: model)
        try await Task.sleep(for: .milliseconds(20))
        engine.set(.loaded, for: path)
        #expect(await loaded)
        #expect(model.availability == .available)

        async let failed = nextChange(of: model)
        try await Task.sleep(for: .milliseconds(20))
        engine.set(.failed("the file is not a GGUF model"), for: path)
        #expect(await failed)
        #expect(model.availability == .unavailable(.modelNotReady))
        #expect(model.unavailableExplanation == "the file is not a GGUF model")
    }

    @Test(.onTestThreads) func noEngineToRunTheModelIsSaidPlainly() throws {
        let engine = StubEngine()
        engine.setUnreachable("no Sotto engine service is running and no `sotto` binary was found")
        let model = SystemLanguageModel.stub(
            .id("smollm2-135m"), locator: StubLocator(files: [.id("smollm2-135m"): 1000]), engine: engine)
        #expect(model.availability == .unavailable(.modelNotReady))
        #expect(model.unavailableExplanation?.contains("no `sotto` binary") == true)
    }

    /// Each reason Apple's API has, for the condition Sotto maps to it.
    @Test(.onTestThreads) func availabilityMapsHonestly() {
        let gigabyte = 1 << 30
        let memory = UInt64(ProcessInfo.processInfo.physicalMemory)
        let off = StubLocator()
        off.turnOff()
        #expect(SystemLanguageModel.stub(nil, locator: off).availability == .unavailable(.appleIntelligenceNotEnabled))
        #expect(
            SystemLanguageModel.stub(.path("/x.gguf"), locator: StubLocator()).availability
                == .unavailable(.modelNotReady))
        #expect(
            SystemLanguageModel.stub(nil, locator: StubLocator(files: [nil: gigabyte / 4])).availability == .available)
        // A file larger than the machine's memory cannot be kept resident.
        let huge = Int(memory) + gigabyte
        let tooLarge = SystemLanguageModel.stub(nil, locator: StubLocator(files: [nil: huge]))
        #expect(tooLarge.availability == .unavailable(.deviceNotEligible))
        #expect(tooLarge.unavailableExplanation?.contains("this machine has") == true)
        #expect(SystemLanguageModel.fits(.init(path: "/x", size: gigabyte), physicalMemory: UInt64(8 * gigabyte)))
        #expect(!SystemLanguageModel.fits(.init(path: "/x", size: 8 * gigabyte), physicalMemory: UInt64(8 * gigabyte)))
    }
}
