#if canImport(Glibc)
import Glibc
#endif

/// Machine code in memory the CPU may execute: written while the pages are writable, then
/// made read-and-execute only (never both at once, W^X), unmapped with the object.
/// nil where the system refuses either step (a sandbox that forbids executable mappings):
/// then everything runs in the interpreter.
final class ExecutableMemory: @unchecked Sendable {
    let base: UnsafeRawPointer
    private let size: Int

    init?(_ bytes: [UInt8]) {
        #if canImport(Glibc) && arch(x86_64)
        guard !bytes.isEmpty else { return nil }
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let size = (bytes.count + page - 1) / page * page
        guard let mapping = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
              mapping != MAP_FAILED else { return nil }
        bytes.withUnsafeBytes { mapping.copyMemory(from: $0.baseAddress!, byteCount: bytes.count) }
        guard mprotect(mapping, size, PROT_READ | PROT_EXEC) == 0 else {
            munmap(mapping, size)
            return nil
        }
        base = UnsafeRawPointer(mapping)
        self.size = size
        #else
        return nil
        #endif
    }

    deinit {
        #if canImport(Glibc) && arch(x86_64)
        munmap(UnsafeMutableRawPointer(mutating: base), size)
        #endif
    }
}
