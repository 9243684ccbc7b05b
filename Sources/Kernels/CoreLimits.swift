import CCPUID
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// How many cores this process may use: the CPU affinity mask (`taskset`, a container's cpuset)
/// capped by a cgroup CPU quota (`docker --cpus 1.5`, a systemd `CPUQuota=`), rounded up.
enum CoreLimits {
    static func available() -> Int {
        var cores = affinity() ?? ThreadPool.coreCount
        if let quota = quota() { cores = min(cores, quota) }
        return max(1, cores)
    }

    /// CPUs in this process's affinity mask.
    static func affinity() -> Int? {
        #if os(Linux)
            let count = Int(sotto_affinity_count())
            return count > 0 ? count : nil
        #else
            return nil
        #endif
    }

    /// The cgroup's CPU limit in whole CPUs (v2 `cpu.max`, else v1 `cpu.cfs_quota_us` / period),
    /// or nil when there is none.
    static func quota() -> Int? {
        func read(_ path: String) -> String? {
            (try? String(contentsOfFile: path, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        if let line = cgroupV2Directory().flatMap({ read($0 + "/cpu.max") }) {
            let fields = line.split(separator: " ")
            if fields.count == 2, let limit = Double(fields[0]), let period = Double(fields[1]), period > 0 {
                return Int((limit / period).rounded(.up))
            }
            return nil
        }
        if let limit = read("/sys/fs/cgroup/cpu/cpu.cfs_quota_us").flatMap(Double.init), limit > 0,
            let period = read("/sys/fs/cgroup/cpu/cpu.cfs_period_us").flatMap(Double.init), period > 0
        {
            return Int((limit / period).rounded(.up))
        }
        return nil
    }

    /// This process's cgroup v2 directory (`0::/path` in /proc/self/cgroup).
    private static func cgroupV2Directory() -> String? {
        guard let lines = try? String(contentsOfFile: "/proc/self/cgroup", encoding: .utf8) else { return nil }
        for line in lines.split(separator: "\n") where line.hasPrefix("0::") {
            let path = "/sys/fs/cgroup" + line.dropFirst(3)
            return FileManager.default.fileExists(atPath: path + "/cpu.max") ? path : nil
        }
        return nil
    }
}
