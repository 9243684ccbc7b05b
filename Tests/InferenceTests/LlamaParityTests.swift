import Kernels
import TestSupport
import Testing

@testable import Inference

/// Sotto against llama.cpp on the real quantized models, with the committed fixtures
/// (`scripts/make-llama-fixtures.py`: 11 prompts per model, 32 greedy steps each).
///
/// Both engines quantize every activation to 8 bits before each product. A one-ulp difference
/// anywhere upstream (float summation order in a dot product, an exp approximation) can move a
/// value to the next quantization step, so the two engines' logits differ by a noise of a few
/// tenths on these small models even though the arithmetic is the same (`ArchitectureParityTests`
/// shows agreement to 1e-6 when nothing is quantized). llama.cpp is as noisy against itself:
/// evaluating the same prompts token by token instead of in one batch moves its own top-50 logits
/// by up to 0.54 (SmolLM2) and changes its greedy continuation at steps whose top-2 gap is 0.073.
/// Exact agreement wherever llama.cpp's top two differ by more than 1e-3 is therefore out of reach
/// for any second implementation; the tests accept a choice that differs from llama.cpp's only
/// when it is llama.cpp's runner-up and llama.cpp's own gap is within the measured noise.
enum LlamaParity {
    struct Tolerance {
        /// Largest |Sotto − llama.cpp| allowed on llama.cpp's 50 highest final-position logits.
        /// Measured maxima: 0.604 (SmolLM2, Q4_1), 0.233 (Qwen-0.5B).
        let logits: Float
        /// Largest llama.cpp top-2 gap at which Sotto may pick the runner-up instead.
        let swapGap: Double
        /// Smallest share of teacher-forced steps where Sotto picks llama.cpp's token.
        /// Measured: 95 % (SmolLM2: 17 runner-up swaps in 352 steps), 99.4 % (Qwen: 2 in 352).
        let agreement: Double
    }

    /// For the kernel set of the machine the fixtures were made on (AVX-512, as llama.cpp's
    /// `-march=native` build there).
    static let tolerances = [
        "smollm2-135m": Tolerance(logits: 0.75, swapGap: 0.75, agreement: 0.9),
        "qwen2.5-coder-0.5b": Tolerance(logits: 0.3, swapGap: 0.3, agreement: 0.97),
    ]

    /// For the other instruction sets (avx2, portable), whose float arithmetic differs from the
    /// fixture's AVX-512 build in rounding (256- and 128-bit summation orders; no FMA in the
    /// baseline x86-64 target). llama.cpp is as far from its own fixture there:
    /// `scripts/llama-noise.py --flavor avx2` (llama.cpp 0.3.36 built with GGML_NATIVE=OFF and
    /// AVX2 + FMA + F16C only, the fixture's prompts) measured a top-50 logit difference of 0.747
    /// on SmolLM2 and 0.243 on Qwen-0.5B, with 14 and 5 of 352 teacher-forced choices differing
    /// (one of them on SmolLM2 not even the fixture's runner-up). The logit bound is 1.5 × that
    /// noise; the rules on choices are the native set's.
    static let otherInstructionSetTolerances = [
        "smollm2-135m": Tolerance(logits: 1.12, swapGap: 0.75, agreement: 0.9),
        "qwen2.5-coder-0.5b": Tolerance(logits: 0.365, swapGap: 0.3, agreement: 0.97),
    ]

    static let models = ["smollm2-135m", "qwen2.5-coder-0.5b"]

    static func check(_ id: String, kernels: KernelSetID) throws {
        let fixture = try LlamaFixture.load(id)
        let native = kernels == .avx512
        let tolerance = try #require((native ? Self.tolerances : Self.otherInstructionSetTolerances)[id])
        try #require(fixture.cases.count >= 8)
        let model = try TestModels.model(id, kernels: kernels)
        let evaluator = Evaluator(model: model, contextLength: 1024, threadCount: 2)
        var steps = 0
        var agreements = 0
        for fixtureCase in fixture.cases {
            // Final-position logits.
            evaluator.reset()
            let promptLogits = snapshot(try evaluator.evaluate(fixtureCase.prompt))
            var worst: Float = 0
            for pair in fixtureCase.top_logits {
                worst = max(worst, abs(promptLogits[Int(pair[0])] - Float(pair[1])))
            }
            #expect(
                worst <= tolerance.logits,
                "\(kernels) \(fixtureCase.name): max |Δlogit| on llama.cpp's top 50 is \(worst)")

            // Teacher-forced: along llama.cpp's greedy tokens, Sotto's choice at every step.
            var logits = promptLogits
            for step in 0..<fixtureCase.greedy.count {
                let ours = try #require(argmax(logits))
                steps += 1
                if ours == fixtureCase.greedy[step] {
                    agreements += 1
                } else {
                    #expect(
                        ours == fixtureCase.runner_up[step] && fixtureCase.gaps[step] <= tolerance.swapGap,
                        """
                        \(kernels) \(fixtureCase.name) step \(step): Sotto chose \(ours), llama.cpp \(fixtureCase.greedy[step]) \
                        (runner-up \(fixtureCase.runner_up[step]), gap \(fixtureCase.gaps[step]))
                        """)
                }
                logits = snapshot(try evaluator.evaluate([fixtureCase.greedy[step]]))
            }

            // Free-running greedy: identical until a permitted swap.
            evaluator.reset()
            logits = promptLogits
            try evaluator.evaluate(fixtureCase.prompt)
            for step in 0..<fixtureCase.greedy.count {
                let ours = try #require(argmax(logits))
                if ours != fixtureCase.greedy[step] {
                    #expect(
                        ours == fixtureCase.runner_up[step] && fixtureCase.gaps[step] <= tolerance.swapGap,
                        "\(kernels) \(fixtureCase.name): greedy diverges at step \(step) with llama.cpp's gap \(fixtureCase.gaps[step])"
                    )
                    break
                }
                logits = snapshot(try evaluator.evaluate([ours]))
            }
        }
        let share = Double(agreements) / Double(steps)
        #expect(
            share >= tolerance.agreement,
            "\(id) \(kernels): Sotto agrees with llama.cpp on \(agreements) of \(steps) steps")
    }
}

/// Whether this CPU runs `set` (suites of sets it lacks are reported as not run, with the reason).
func runs(_ set: KernelSetID) -> Bool { KernelSelection.available.contains(set) }

@Suite("llama.cpp parity on the avx512 kernels", .serialized, .enabled(if: runs(.avx512), "this CPU lacks AVX-512"))
struct AVX512LlamaParityTests {
    @Test(.onTestThreads, arguments: LlamaParity.models) func matchesLlamaCpp(_ id: String) throws {
        try LlamaParity.check(id, kernels: .avx512)
    }
}

@Suite(
    "llama.cpp parity on the avx2 kernels", .serialized, .enabled(if: runs(.avx2), "this CPU lacks AVX2 (x86-64-v3)"))
struct AVX2LlamaParityTests {
    @Test(.onTestThreads, arguments: LlamaParity.models) func matchesLlamaCpp(_ id: String) throws {
        try LlamaParity.check(id, kernels: .avx2)
    }
}

@Suite("llama.cpp parity on the portable kernels", .serialized)
struct PortableLlamaParityTests {
    @Test(.onTestThreads, arguments: LlamaParity.models) func matchesLlamaCpp(_ id: String) throws {
        try LlamaParity.check(id, kernels: .portable)
    }
}
