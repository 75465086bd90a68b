// swift-tools-version:6.0
import Foundation
import PackageDescription

/// Kiln: a shader compile-and-preview server.
/// Modules run one way down the pipeline:
/// KilnLanguage → KilnCompiler → KilnBytecode ← KilnVM → KilnRender → KilnCLI → kiln-cli,
/// and KilnCompiler → KilnCompileTool → kiln (plain compiles; everything else is handed to
/// kiln-cli, so a compile loads neither Foundation nor the server's C libraries).
/// The compiler and the VM never import each other; they meet in KilnBytecode.
/// Release builds of the modules a `kiln compile` runs through ask for generic type
/// metadata with direct accessor calls instead of mangled type names: instantiating a
/// type from its mangled name (say the storage of a `Set<FunctionID>`) checks the
/// `Hashable` requirement by scanning every protocol conformance record in the binary —
/// ~8 800 of them with Foundation, NIO and the database drivers linked in, ~0.5 M
/// instructions each time — while an accessor is handed the witness table it needs.
/// A sixth fewer instructions for a whole-process compile (docs/benchmarks.md). The
/// Makefile and the Docker image pass the same flag to every module, the dependencies
/// included (ArgumentParser's sets and dictionaries), which no setting here can reach.
let startup: [SwiftSetting] = [.unsafeFlags(["-Xfrontend", "-disable-concrete-type-metadata-mangled-name-accessors"],
                                            .when(configuration: .release))]
/// The hot modules also skip run-time exclusivity checks (every access to a class's stored
/// property otherwise calls into the runtime): the VM's lane loops, and the compiler and
/// front end, whose lowerer and checker are classes — 6–14 % of a compile's instructions
/// (callgrind). Debug builds, which the tests run, keep the checks.
let optimized: [SwiftSetting] = [.unsafeFlags(["-enforce-exclusivity=unchecked", "-Xfrontend",
                                               "-disable-concrete-type-metadata-mangled-name-accessors"],
                                              .when(configuration: .release))]

/// Release builds of the compiler's two modules are optimized with a profile of where a
/// compile spends its time: LLVM's IR-level profile-guided optimization lays hot code out
/// together, inlines along hot call paths and moves cold paths (errors, rare forms) out of
/// the way. `profiles/compiler.profdata` holds the counts, recorded by `make profile` while
/// an instrumented `kiln` compiled the training corpus — the shaders under `Tests/`, never
/// `shaders/` or `bench/`, which the benchmarks time. 5 % fewer instructions a compile and
/// 12–13 % less time (docs/benchmarks.md, "thirty-ninth session"); the libraries are the same
/// bytes (a profile changes how the compiler is compiled, never what it computes).
/// A profile older than the code still works: functions that changed lose their counts and
/// are optimized as without one, so regenerate it after larger compiler changes
/// (docs/compiler.md, "Built with a profile"). `make profile` sets KILN_PGO_GENERATE (where
/// the instrumented build writes its counts) and KILN_PGO_RUNTIME (LLVM's profile runtime,
/// which executables linking the instrumented modules then need).
/// `-disable-incremental-llvm-codegen`: the Swift frontend keeps an object file whose
/// unoptimized LLVM IR hashes the same as last time, and a new profile does not change that
/// IR, only what LLVM makes of it — without the flag a rebuild kept the old code.
let compilerProfile: [SwiftSetting] = {
    if let counts = Context.environment["KILN_PGO_GENERATE"] {
        return [.unsafeFlags(["-Xfrontend", "-ir-profile-generate=\(counts)"], .when(configuration: .release))]
    }
    // The file is LLVM 21's indexed format, written by Swift 6.3's llvm-profdata: newer
    // toolchains read it, an older one would stop the build, so it builds without instead.
    #if compiler(>=6.3)
    let profile = Context.packageDirectory + "/profiles/compiler.profdata"
    guard FileManager.default.fileExists(atPath: profile) else { return [] }
    return [.unsafeFlags(["-Xfrontend", "-ir-profile-use=\(profile)", "-Xfrontend", "-disable-incremental-llvm-codegen"],
                          .when(configuration: .release))]
    #else
    return []
    #endif
}()
/// LLVM's profile runtime, linked into the executables only while `make profile` builds them
/// instrumented.
let profileRuntime: [LinkerSetting] = Context.environment["KILN_PGO_RUNTIME"].map {
    [.unsafeFlags(["-Xlinker", $0, "-Xlinker", "-u__llvm_profile_runtime"], .when(configuration: .release))]
} ?? []

/// The compiler's two modules also give up lexical lifetimes: an object may be released
/// after its last use instead of at the end of its variable's scope, which lets the
/// optimizer drop retain/release pairs across the parser's, checker's and lowerer's tree
/// walks — 2.6 % fewer instructions a compile and 3–4 % less time (docs/benchmarks.md,
/// "thirty-ninth session"). Safe here because nothing in KilnLanguage or KilnCompiler can
/// observe when an object dies: no `deinit`, no weak or unowned references, no `Unmanaged`
/// and no memory allocated by hand (a test greps for them; the one exception, the passes'
/// `PassTable`, hands out no pointer, so freeing it early cannot be seen). The VM and the renderer, which
/// hold pointers into buffers that classes own, keep lexical lifetimes.
///
/// They also keep LLVM's function merging off (`-disable-llvm-merge-functions-pass`). The
/// pass folds near-identical specializations (array growth for `[Int]` and `[UInt32]`,
/// hashing, metadata accessors) into one body that takes what differs as extra arguments
/// and is reached through thunks: a smaller binary, but the compile runs the shared body.
/// Without it: 0.2 % fewer instructions a compile and 1.8 % less time (five alternating
/// rounds over `shaders/`; docs/benchmarks.md, "forty-third session").
let compilerOptimized: [SwiftSetting] = optimized + [.unsafeFlags(["-Xfrontend", "-enable-lexical-lifetimes=false",
                                                                   "-Xfrontend", "-disable-llvm-merge-functions-pass"],
                                                                  .when(configuration: .release))] + compilerProfile

/// The executable exports no symbols. By default Swift links executables with
/// `--export-dynamic`, which put all 40 000 of Kiln's symbols in the dynamic symbol table,
/// and the Swift runtime's start-up `dladdr` scanned it: 1.5 M instructions in every
/// process. Nothing looks Kiln's symbols up by name (conformances and metadata are found
/// through their own sections; crash backtraces read the symbol table, which stays).
let exportNothing: [LinkerSetting] = [.unsafeFlags(["-Xlinker", "--no-export-dynamic"],
                                                   .when(platforms: [.linux], configuration: .release))]

/// `kiln`, the plain-compile executable, is linked statically — libc, libm and libstdc++
/// included — so its start-up has no dynamic loader work. Linked against those as shared
/// libraries, the loader spent 2.0 M of an empty compile's 2.9 M instructions relocating
/// them (mostly libstdc++'s own symbol lookups): an empty `kiln compile` took 3.6–4.4 ms,
/// against 2.0–2.7 ms static (docs/benchmarks.md, "A static `kiln`"). `kiln` needs nothing
/// glibc can only load dynamically (no NSS, iconv or dlopen of its own).
/// Not position-independent: glibc's static-PIE start-up refuses a run path, and SwiftPM
/// gives every executable one (`$ORIGIN`). That gives up address randomisation for this
/// executable only — it reads local files and writes one; everything that talks to a
/// network is `kiln-cli`, which stays PIE.
let staticExecutable: [LinkerSetting] = [.unsafeFlags(["-static-executable"],
                                                      .when(platforms: [.linux], configuration: .release))]

/// `kiln-cli` — the server, `kiln bench` and every command but a plain compile — allocates
/// with mimalloc (Debian's libmimalloc, linked ahead of libc, so it replaces `malloc` and
/// `free` for the Swift runtime too). A compile makes about 2 000 small objects (tokens'
/// strings, tree nodes, arrays) and frees them together; glibc's malloc, whose per-thread
/// cache holds seven blocks of a size, took 13 % of a small shader's compile instructions
/// (`_int_malloc`, `_int_free`, consolidation): with mimalloc a compile runs 10 % fewer
/// instructions and takes 13–16 % less time (docs/benchmarks.md, "mimalloc").
/// `--no-as-needed`: nothing calls mimalloc by name, and the library must stay loaded.
let fastAllocator: [LinkerSetting] = [.unsafeFlags(["-Xlinker", "--no-as-needed", "-Xlinker", "-lmimalloc", "-Xlinker", "--as-needed"],
                                                    .when(platforms: [.linux]))]

let package = Package(
    name: "Kiln",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "kiln", targets: ["kiln"]),
        .executable(name: "kiln-cli", targets: ["kiln-cli"]),
        .library(name: "KilnCompiler", targets: ["KilnCompiler"]),
        .library(name: "KilnVM", targets: ["KilnVM"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // SQLite for permalinks (KilnStorage); links the system libsqlite3 (libsqlite3-dev).
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        // PostgreSQL for several instances sharing one database (`kiln serve --database postgres://…`).
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
    ],
    targets: [
        // C shim over the system libraries (OpenSSL's libcrypto, libpng). No C type leaves
        // the module that wraps it.
        .systemLibrary(name: "CKiln", path: "Sources/CKiln"),
        // Process start-up before any Swift code runs: refuses an x86-64-v4 or -v3 build on an older
        // CPU (README "CPU level") and tunes glibc's malloc for repeated compiles
        // (docs/compiler.md); plain C, always compiled for the baseline.
        .target(name: "CKilnCPU"),
        .target(name: "KilnBytecode", swiftSettings: startup),
        .target(name: "KilnLanguage", swiftSettings: compilerOptimized),
        // SHA-256 blocks on the CPU's SHA instructions, for KilnCompiler's `SHA256Digest`
        // (plain C, no library: Swift cannot reach the instructions).
        .target(name: "CKilnSHA"),
        .target(name: "KilnCompiler", dependencies: ["KilnLanguage", "KilnBytecode", "CKilnSHA"], swiftSettings: compilerOptimized),
        // The server's and the CLI's JSON through Foundation (`JSONText`, `CompactJSON`, the
        // compile report as Foundation objects): kept out of KilnCompiler, whose own
        // `CompileReport` and `JSONValue` are Foundation-free for the `kiln` executable.
        .target(name: "KilnJSON", dependencies: ["KilnCompiler", "KilnLanguage", "KilnBytecode"]),
        .target(name: "KilnVM", dependencies: ["KilnBytecode"], swiftSettings: optimized),
        .target(name: "KilnRender", dependencies: ["KilnVM", "KilnBytecode", "CKiln"], swiftSettings: optimized),
        // Scenes: a declarative layer stack (camera, sources, slotted layers) composited with caching.
        // It gets libraries through a SceneLibraryProvider, so it never imports the compiler.
        .target(name: "KilnScene", dependencies: ["KilnRender", "KilnBytecode", "KilnVM"]),
        // The only code that touches libwebsockets: HTTP + WebSocket + TLS, no shader knowledge.
        .target(name: "KilnWebSockets", dependencies: ["CKiln"]),
        // What the server keeps: shared states (permalinks) and content by hash, behind one
        // protocol; SQLite through GRDB, PostgreSQL through PostgresNIO. No shader knowledge.
        .target(name: "KilnStorage", dependencies: ["CKiln", .product(name: "GRDB", package: "GRDB.swift"),
                                                    .product(name: "PostgresNIO", package: "postgres-nio")]),
        // Sessions, protocol, compile cache, frame scheduling, limits, metrics.
        .target(name: "KilnServer", dependencies: ["KilnWebSockets", "KilnJSON", "KilnCompiler", "KilnLanguage", "KilnBytecode", "KilnRender", "KilnVM", "KilnScene", "KilnStorage"]),
        // `kiln compile` and what it needs, without the server's libraries: the `kiln`
        // executable runs plain compiles with only this linked (CommandLauncher).
        // No Foundation, no ArgumentParser, no system library: start-up is most of a compile.
        .target(name: "KilnCompileTool", dependencies: ["KilnLanguage", "KilnCompiler", "KilnBytecode"], swiftSettings: startup),
        .target(name: "KilnCLI", dependencies: [
            "CKilnCPU", "KilnCompileTool", "KilnJSON", "KilnLanguage", "KilnCompiler", "KilnBytecode", "KilnVM", "KilnRender", "KilnServer", "KilnWebSockets", "KilnScene",
            "KilnStorage",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ], swiftSettings: startup),
        // Two executables (CommandLauncher): `kiln` compiles and hands every other command
        // line to `kiln-cli`, installed beside it.
        .executableTarget(name: "kiln", dependencies: ["CKilnCPU", "KilnCompileTool"], linkerSettings: staticExecutable + profileRuntime),
        .executableTarget(name: "kiln-cli", dependencies: ["KilnCLI"], linkerSettings: exportNothing + fastAllocator + profileRuntime),
        // libFuzzer target over the whole compile + verify pipeline (see README "Fuzzing").
        // A normal build makes a corpus-replay tool; `-DFUZZING -sanitize=fuzzer` makes the fuzzer.
        .executableTarget(name: "KilnFuzz", dependencies: ["KilnCompiler", "KilnLanguage", "KilnBytecode", "KilnVM"],
                          linkerSettings: profileRuntime),
        // Helpers shared by the test targets: repository files, golden files, seeded generators.
        .target(name: "KilnTestSupport", path: "Tests/KilnTestSupport"),
        .testTarget(name: "KilnLanguageTests", dependencies: ["KilnLanguage", "KilnTestSupport"], exclude: ["Golden"]),
        .testTarget(name: "KilnBytecodeTests", dependencies: ["KilnBytecode", "KilnTestSupport"], exclude: ["Golden"]),
        .testTarget(name: "KilnCompilerTests", dependencies: ["KilnCompiler", "KilnJSON", "CKiln", "KilnLanguage", "KilnBytecode", "KilnTestSupport"]),
        .testTarget(name: "KilnVMTests", dependencies: ["KilnVM", "KilnBytecode", "KilnCompiler", "KilnTestSupport"]),
        .testTarget(name: "KilnRenderTests", dependencies: ["KilnRender", "KilnVM", "KilnCompiler", "KilnBytecode", "KilnLanguage", "KilnTestSupport"],
                    exclude: ["Golden", "Fixtures"]),
        .testTarget(name: "KilnSceneTests", dependencies: ["KilnScene", "KilnRender", "KilnVM", "KilnServer", "KilnCLI", "KilnCompileTool", "KilnTestSupport"], exclude: ["Golden"]),
        .testTarget(name: "KilnIntegrationTests", dependencies: ["KilnLanguage", "KilnCompiler", "KilnBytecode", "KilnVM", "KilnTestSupport"]),
        .testTarget(name: "KilnServerTests", dependencies: ["KilnServer", "KilnJSON", "KilnWebSockets", "KilnBytecode", "KilnLanguage", "KilnCompiler", "KilnVM", "KilnStorage", "KilnTestSupport"]),
        .testTarget(name: "KilnStorageTests", dependencies: ["KilnStorage", "KilnTestSupport"]),
        .testTarget(name: "KilnCLITests", dependencies: ["KilnCLI", "KilnCompileTool", "KilnCompiler", "KilnLanguage", "KilnBytecode", "KilnRender", "KilnTestSupport"], exclude: ["Golden"]),
    ],
    swiftLanguageModes: [.v5]
)
