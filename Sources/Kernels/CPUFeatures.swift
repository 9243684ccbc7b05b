#if arch(x86_64)
    import CCPUID
#endif

/// The instruction-set extensions of the CPU this process runs on that the kernel sets need,
/// read once from `cpuid` and, for register state the operating system must save, `xgetbv`.
public struct CPUFeatures: Sendable, CustomStringConvertible {
    /// Extension names as Linux's `/proc/cpuinfo` spells them.
    public let flags: Set<String>

    /// The extensions each kernel set is compiled for (Package.swift: x86-64-v4 + VNNI, x86-64-v3).
    static let required: [KernelSetID: [String]] = [
        .avx512: v3 + ["avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl", "avx512_vnni"],
        .avx2: v3,
        .portable: [],
        .scalar: [],
    ]
    private static let v3 = [
        "sse3", "ssse3", "sse4_1", "sse4_2", "popcnt", "cx16", "avx", "avx2", "fma", "f16c", "bmi1", "bmi2",
        "abm", "movbe",
    ]

    /// This CPU's features.
    public static let current = CPUFeatures(flags: detect())

    package init(flags: Set<String>) { self.flags = flags }

    /// Whether the CPU can run `set`.
    public func supports(_ set: KernelSetID) -> Bool { missing(for: set).isEmpty }

    /// The extensions `set` needs that this CPU lacks (or whose registers the OS does not save).
    public func missing(for set: KernelSetID) -> [String] {
        (Self.required[set] ?? []).filter { !flags.contains($0) }
    }

    public var description: String { flags.sorted().joined(separator: " ") }

    private static func detect() -> Set<String> {
        #if arch(x86_64)
            func cpuid(_ leaf: UInt32, _ subleaf: UInt32 = 0) -> (eax: UInt32, ebx: UInt32, ecx: UInt32, edx: UInt32) {
                var r: (UInt32, UInt32, UInt32, UInt32) = (0, 0, 0, 0)
                withUnsafeMutableBytes(of: &r) {
                    sotto_cpuid(leaf, subleaf, $0.baseAddress!.assumingMemoryBound(to: UInt32.self))
                }
                return (r.0, r.1, r.2, r.3)
            }
            var flags: Set<String> = []
            func read(_ register: UInt32, _ bits: [(Int, String)]) {
                for (bit, name) in bits where register >> UInt32(bit) & 1 == 1 { flags.insert(name) }
            }
            let highest = cpuid(0).eax
            let leaf1 = cpuid(1)
            read(
                leaf1.ecx,
                [
                    (0, "sse3"), (9, "ssse3"), (12, "fma"), (13, "cx16"), (19, "sse4_1"), (20, "sse4_2"), (22, "movbe"),
                    (23, "popcnt"), (28, "avx"), (29, "f16c"),
                ])
            if highest >= 7 {
                let leaf7 = cpuid(7)
                read(
                    leaf7.ebx,
                    [
                        (3, "bmi1"), (5, "avx2"), (8, "bmi2"), (16, "avx512f"), (17, "avx512dq"), (28, "avx512cd"),
                        (30, "avx512bw"), (31, "avx512vl"),
                    ])
                read(leaf7.ecx, [(11, "avx512_vnni")])
                if leaf7.eax >= 1 { read(cpuid(7, 1).eax, [(4, "avx_vnni")]) }
            }
            if cpuid(0x8000_0000).eax >= 0x8000_0001 { read(cpuid(0x8000_0001).ecx, [(5, "abm")]) }
            // Vector registers are only usable when the OS saves them across context switches.
            let osxsave = leaf1.ecx >> 27 & 1 == 1
            let xcr0 = osxsave ? sotto_xgetbv0() : 0
            if xcr0 & 0x6 != 0x6 {
                flags.subtract(["avx", "avx2", "fma", "f16c", "avx_vnni"])
                flags = flags.filter { !$0.hasPrefix("avx512") }
            } else if xcr0 & 0xE0 != 0xE0 {
                flags = flags.filter { !$0.hasPrefix("avx512") }
            }
            return flags
        #else
            return []
        #endif
    }
}
