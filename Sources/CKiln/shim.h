// The system libraries Kiln uses, seen from Swift. Only the module that wraps a
// library imports CKiln: KilnCompiler (SHA-256), KilnRender (PNG).
#include <openssl/sha.h>
#include <openssl/evp.h>
#include <png.h>
