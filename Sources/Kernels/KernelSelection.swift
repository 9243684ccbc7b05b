import KernelsAVX2
import KernelsAVX512
import KernelsCore
import KernelsPortable

#if canImport(Glibc)
    import Glibc
#endif

/// Chooses the kernel set a model runs on: once per process by default (the best this CPU
/// supports), or as asked by `SOTTO_KERNELS` or a command's `--kernels`, for tests and
/// benchmarks of every path on one machine.
///
/// ```swift
/// let set = try KernelSelection.resolve()          // .avx512 on this machine, .avx2 on a laptop
/// let model = try Model(path: path, kernels: .portable)
/// ```
public enum KernelSelection {
    /// The environment variable that names the set to use.
    public static let environmentVariable = "SOTTO_KERNELS"

    /// The sets this CPU runs, best first (`scalar` is always last).
    public static let available: [KernelSetID] = KernelSetID.allCases.filter {
        implementation(of: $0) != nil && CPUFeatures.current.supports($0)
    }

    /// The best set this CPU runs.
    public static var best: KernelSetID { available[0] }

    /// The set named by `name` (a `--kernels` flag), else by `SOTTO_KERNELS`, else the best.
    ///
    /// - Throws: `KernelSelectionError` for a name that is not a set, or a set this CPU (or this
    ///   build, on another architecture) cannot run.
    public static func resolve(_ name: String? = nil) throws(KernelSelectionError) -> KernelSetID {
        guard let name = name ?? environmentValue, !name.isEmpty else { return best }
        guard let id = KernelSetID(rawValue: name.lowercased()) else {
            throw KernelSelectionError(requested: name, reason: .unknown)
        }
        guard available.contains(id) else {
            let missing = CPUFeatures.current.missing(for: id)
            throw KernelSelectionError(
                requested: name, reason: implementation(of: id) == nil ? .notBuilt : .unsupported(missing: missing))
        }
        return id
    }

    /// The set models use when none is named: `resolve()`, or the best available when
    /// `SOTTO_KERNELS` names nothing usable (commands check it at start with `resolve()` and stop).
    public static let `default`: KernelSetID = (try? resolve()) ?? best

    private static var environmentValue: String? {
        getenv(environmentVariable).map { String(cString: $0) }
    }

    /// The implementation of `id` in this build, or nil (AVX sets on another architecture).
    package static func implementation(of id: KernelSetID) -> (any KernelSet.Type)? {
        switch id {
        case .avx512:
            #if arch(x86_64)
                return AVX512Kernels.self
            #else
                return nil
            #endif
        case .avx2:
            #if arch(x86_64)
                return AVX2Kernels.self
            #else
                return nil
            #endif
        case .portable: return PortableKernels.self
        case .scalar: return ScalarKernels.self
        }
    }
}

/// A kernel set that cannot be used, with the reason.
public struct KernelSelectionError: Error, Equatable, CustomStringConvertible {
    public enum Reason: Equatable, Sendable {
        /// Not the name of a set.
        case unknown
        /// This CPU (or operating system) lacks these extensions.
        case unsupported(missing: [String])
        /// This build has no such set (the AVX sets exist only on x86-64).
        case notBuilt
    }

    /// The name that was asked for.
    public let requested: String
    public let reason: Reason

    public var description: String {
        let sets = KernelSetID.allCases.map(\.rawValue).joined(separator: ", ")
        let here = KernelSelection.available.map(\.rawValue).joined(separator: ", ")
        switch reason {
        case .unknown:
            return
                "unknown kernel set '\(requested)' (\(KernelSelection.environmentVariable) or --kernels takes one of: \(sets))"
        case .unsupported(let missing):
            return
                "this CPU cannot run the \(requested) kernels (it lacks \(missing.joined(separator: ", "))); sets it runs: \(here)"
        case .notBuilt:
            return "the \(requested) kernels exist only on x86-64; sets this build runs: \(here)"
        }
    }
}
