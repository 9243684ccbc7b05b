import CSodium

@testable import Server
@testable import ServerKit

/// HMAC-SHA-256 through libsodium, to sign hand-made JWT payloads in tests.
enum HMACForTests {
    static func sign(_ message: [UInt8], key: [UInt8]) -> String {
        _ = sodium_init()
        var state = crypto_auth_hmacsha256_state()
        var output = [UInt8](repeating: 0, count: Int(crypto_auth_hmacsha256_BYTES))
        crypto_auth_hmacsha256_init(&state, key, key.count)
        crypto_auth_hmacsha256_update(&state, message, UInt64(message.count))
        crypto_auth_hmacsha256_final(&state, &output)
        return Base64URL.encode(output)
    }
}
