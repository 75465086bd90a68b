import CKiln

/// SHA-256 through OpenSSL's libcrypto (`kiln_sha256`, which skips OpenSSL 3's EVP start-up):
/// library provenance and the server's compile cache key.
public enum SHA256Digest {
    /// The 32-byte digest of `bytes`.
    public static func hash(_ bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        bytes.withUnsafeBufferPointer { input in
            kiln_sha256(input.baseAddress, input.count, &digest)
        }
        return digest
    }

    /// Lowercase hexadecimal of a digest.
    public static func hex(_ digest: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(digest.count * 2)
        for byte in digest {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 15)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
