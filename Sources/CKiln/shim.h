// The system libraries Kiln uses, seen from Swift. Only the module that wraps a
// library imports CKiln: KilnStorage (SHA-256 of shares and content), KilnRender (PNG);
// the compiler has its own SHA-256, so the `kiln` executable links none of them.
#include <openssl/sha.h>
#include <openssl/evp.h>
#include <png.h>

/// SHA-256 of `count` bytes into `digest` (32 bytes), through the digest's own functions
/// rather than the one-shot `SHA256()`: in OpenSSL 3 the one-shot goes through EVP, whose
/// first use initialises the library (configuration file, default provider) — about 6 M
/// instructions, a seventh of a whole `kiln compile`. These functions are deprecated since
/// 3.0 but compute the same digest with the same code (the CPU's SHA instructions where it
/// has them) and initialise nothing.
static inline void kiln_sha256(const unsigned char *bytes, size_t count, unsigned char *digest) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    SHA256_CTX context;
    SHA256_Init(&context);
    SHA256_Update(&context, bytes, count);
    SHA256_Final(digest, &context);
#pragma GCC diagnostic pop
}
