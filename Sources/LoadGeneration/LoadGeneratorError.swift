import CLibUV

/// Why a run cannot go on: a bad configuration, a resource the system refused, or a server that
/// did not do its part. `main` prints it and exits 1.
struct LoadGeneratorError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}

/// Throws when a libuv call returned an error code, naming the call and libuv's reason.
func check(_ code: Int32, _ call: String) throws {
    guard code >= 0 else { throw LoadGeneratorError("\(call) failed: \(uvError(code))") }
}

func uvError(_ code: Int32) -> String {
    String(cString: uv_strerror(code))
}
