import CSodium
import Digests

/// The secret of a one-time link (setup, invitation, reset): 32 random bytes as 43 base64url
/// characters, given once to whoever should use the link. The store keeps only its SHA-256, so
/// a copy of the database opens no account.
package enum LinkSecret {
    /// A new secret from libsodium's random source.
    package static func make() -> String {
        precondition(sodium_init() >= 0, "libsodium failed to initialise")
        var bytes = [UInt8](repeating: 0, count: 32)
        randombytes_buf(&bytes, bytes.count)
        return Base64URL.encode(bytes)
    }

    /// The SHA-256 of `secret` in hex: what the store keeps and looks links up by.
    package static func hash(_ secret: String) -> String {
        SHA256.hex(of: secret.utf8)
    }

    /// Whether `text` can be a secret at all (43 base64url characters): anything else is refused
    /// before it is looked up.
    package static func isWellFormed(_ text: String) -> Bool {
        text.utf8.count == 43
            && text.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                    || byte == 0x2D || byte == 0x5F
            }
    }
}
