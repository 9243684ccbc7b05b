import Foundation
import FoundationModels
import LocalEngine
import TestSupport
import Testing

/// `prewarm()` on a model that is not loaded returns at once and loads in the background;
/// what a caller asks meanwhile (context size, availability, token counts) does not wait for
/// the load.
extension EngineTests {
    @Suite
    struct Prewarm {
        @Test func prewarmReturnsInUnderAMillisecondAndLoadsInTheBackground() async throws {
            _ = try RealModels.file(EngineModels.qwen)
            // An engine of its own: nothing is loaded in it yet.
            let host = LocalEngineHost(registry: ModelRegistry())
            let model = LocalLanguageModel(
                model: .id(EngineModels.qwen), contextSize: nil, store: RealModels.store, host: host)
            let target = try model.target()
            #expect(host.state(of: target) == .notLoaded)
            let session = LanguageModelSession(model: model, instructions: "You are terse.")

            // The fastest of five calls (the first one starts the load; the others find it under
            // way), so that a thread descheduled on a loaded machine does not count as a slow
            // return; none may come near the load's own time (over 100 ms for this model).
            let clock = ContinuousClock()
            var returns = [clock.measure { session.prewarm() }]
            for _ in 0..<4 {
                let other = LanguageModelSession(model: model, instructions: "You are terse.")
                returns.append(clock.measure { other.prewarm() })
            }
            print("prewarm() on an unloaded model returned after \(returns)")
            #expect(returns.min()! < .milliseconds(1))
            #expect(returns.max()! < .milliseconds(50))

            // While it loads, these answer without waiting for the load: the model is still
            // loading when they have answered (a machine's load only changes how often).
            var sawLoading = false
            var answeredDuringLoad = 0
            var slowest = Duration.zero
            for _ in 0..<6000 {
                let state = host.state(of: target)
                if state == .loaded { break }
                if state == .loading {
                    sawLoading = true
                    let asked = clock.now
                    #expect(model.contextSize == 4096)
                    let availability = model.availability
                    // (Still loading afterwards, so it was loading when availability was read.)
                    if host.state(of: target) == .loading { #expect(availability == .unavailable(.modelNotReady)) }
                    _ = try await model.tokenCount(for: "How many tokens is this?")
                    slowest = max(slowest, clock.now - asked)
                    if host.state(of: target) == .loading { answeredDuringLoad += 1 }
                }
                try await Task.sleep(for: .milliseconds(5))
            }
            print(
                "while loading: \(answeredDuringLoad) rounds of contextSize + availability + tokenCount "
                    + "answered before the load ended; the slowest took \(slowest)")
            #expect(host.state(of: target) == .loaded)
            #expect(model.availability == .available)
            if sawLoading { #expect(answeredDuringLoad > 0) }

            // The prompt is read ahead once the model is there (after the vocabulary index the
            // constrained decoder needs); then the prewarmed instructions are served from the cache.
            let runtime = try await host.runtime(for: target)
            for _ in 0..<1000 {
                if await runtime.slotCaches.contains(where: { !$0.isEmpty }) { break }
                try await Task.sleep(for: .milliseconds(10))
            }
            #expect(await runtime.slotCaches.contains { !$0.isEmpty })
            let response = try await session.respond(
                to: "Hi.", options: GenerationOptions(sampling: .greedy, maximumResponseTokens: 4))
            #expect(response.usage.input.cachedTokenCount > 0)
        }
    }
}
