import Foundation
import KilnTestSupport
import Testing

/// Release builds optimize the compiler with `profiles/compiler.profdata` (Package.swift
/// `compilerProfile`, README "Profile-guided compiler"). Nothing here times anything; these
/// check that the profile is there for every clone and build, is the kind of file LLVM reads,
/// and was trained away from the shaders the benchmarks time.
@Suite("The compiler's optimization profile")
struct ProfileGuidedBuildTests {
    @Test("profiles/compiler.profdata is an indexed LLVM profile with counts in it")
    func profileIsIndexed() throws {
        let bytes = try Data(contentsOf: RepositoryFiles.url("profiles/compiler.profdata"))
        // The indexed profile's magic number, 0xff 'lprofi' 0x81, little-endian on disk.
        #expect(Array(bytes.prefix(8)) == [0xFF, 0x6C, 0x70, 0x72, 0x6F, 0x66, 0x69, 0x81])
        // Thousands of functions' counters: an empty or truncated profile is a few hundred bytes.
        #expect(bytes.count > 100_000)
    }

    @Test("Release builds of both compiler modules read it, and rebuild when it changes")
    func packageUsesIt() {
        let manifest = RepositoryFiles.text("Package.swift")
        #expect(manifest.contains("\"/profiles/compiler.profdata\""))
        #expect(manifest.contains("-ir-profile-use="))
        #expect(manifest.contains("-disable-incremental-llvm-codegen"))
        #expect(manifest.contains("optimized + [.unsafeFlags([\"-Xfrontend\", \"-enable-lexical-lifetimes=false\","))
        #expect(manifest.contains("\"-Xfrontend\", \"-disable-llvm-merge-functions-pass\"],"))
        #expect(manifest.contains(".when(configuration: .release))] + compilerProfile"))
        // The container image builds with it too.
        #expect(RepositoryFiles.text("docker/Dockerfile").contains("COPY profiles ./profiles"))
    }

    @Test("The training corpus is Tests/, never the benchmarked shaders/ or bench/")
    func trainingIsHeldOut() {
        let script = RepositoryFiles.text("tools/pgo-profile.sh")
        let training = script.split(separator: "\n").filter { $0.contains("find ") && $0.contains(".metal") }
        #expect(training.count == 1)
        #expect(training.first?.contains("find Tests ") == true)
        #expect(!script.contains("find shaders") && !script.contains("find bench"))
        #expect(RepositoryFiles.text("Makefile").contains("bash tools/pgo-profile.sh"))
    }
}
