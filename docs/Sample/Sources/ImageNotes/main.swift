import Foundation
import FoundationModels

// Usage: ImageNotes IMAGE [QUESTION]
// Asks the system model about a screenshot or a scanned page, streaming the answer as it comes,
// then prints what the request used.

let arguments = CommandLine.arguments.dropFirst()
guard let path = arguments.first else {
    print("usage: ImageNotes IMAGE [QUESTION]")
    exit(2)
}
let question = arguments.dropFirst().first ?? "What does this image say? Answer in one sentence."

let model = SystemLanguageModel.default
switch model.availability {
case .available:
    break
case .unavailable(.modelNotReady):
    print("The model is not ready yet (download it with `sotto model pull`).")
    exit(1)
case .unavailable(let reason):
    print("The model is unavailable: \(reason)")
    exit(1)
}
guard model.capabilities.contains(.vision) else {
    print("This model cannot read images.")
    exit(1)
}

let session = LanguageModelSession(
    model: model, instructions: "You help people understand screenshots and documents. Be brief.")

let stream = session.streamResponse(options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 80)) {
    question
    Attachment(imageURL: URL(fileURLWithPath: path)).label("the image")
}

var printed = ""
do {
    for try await snapshot in stream {
        // Each snapshot holds the whole answer so far; print what is new.
        FileHandle.standardOutput.write(Data(snapshot.content.dropFirst(printed.count).utf8))
        printed = snapshot.content
    }
    let response = try await stream.collect()
    print()
    let usage = response.usage
    print(
        "usage: \(usage.input.totalTokenCount) input tokens (\(usage.input.cachedTokenCount) cached), "
            + "\(usage.output.totalTokenCount) output tokens")
} catch let error as LanguageModelError {
    print("\nThe model could not read the image: \(error)")
    exit(1)
}
