import Foundation
import Testing
@testable import KilnCompileTool

/// `kiln compile`'s file and path operations without Foundation (`FileSystem`) mean what
/// the Foundation calls they replaced meant, and reading sources fails with the same clear
/// errors.
@Suite struct FileSystemTests {
    static let paths = [
        "wave.metal", "shaders/wave.metal", "/abs/shaders/wave.metal", "/wave.metal", "a/b/", "a//b.metal",
        "../up/x.h", "./here.metal", "noext", ".hidden", "dir/.hidden", "a.b.c", "/", "a/b.c/d", "trailing.",
    ]

    @Test(arguments: paths) func pathsSplitAsNSStringSplitsThem(_ path: String) {
        #expect(FileSystem.directory(of: path) == (path as NSString).deletingLastPathComponent)
        let last = FileSystem.lastComponent(of: path)
        #expect(last == (path as NSString).lastPathComponent)
        #expect(FileSystem.deletingExtension(last) == (last as NSString).deletingPathExtension)
    }

    /// `absolute` resolves `.` and `..` as `URL.standardizedFileURL` does; `relativePath`
    /// walks up and down between absolute paths. (Both work on bytes; these are what the
    /// substring versions they replaced returned.)
    @Test func absoluteAndRelativePathsMeanWhatTheySay() {
        for path in ["/a/b/c.metal", "/a/./b/../c.h", "/a//b/", "/", "/..", "/../a", "/a/b/..", "/a/.hidden/./x", "//x//y"] {
            #expect(ShaderSources.absolute(path) == URL(fileURLWithPath: path).standardizedFileURL.path, "\(path)")
        }
        let here = FileManager.default.currentDirectoryPath
        #expect(ShaderSources.absolute("x/../y.metal") == here + "/y.metal")
        #expect(ShaderSources.absolute(".") == here)
        #expect(ShaderSources.relativePath(from: "/a/b", to: "/a/b/c.metal") == "c.metal")
        #expect(ShaderSources.relativePath(from: "/a/b", to: "/a/b/d/c.h") == "d/c.h")
        #expect(ShaderSources.relativePath(from: "/a/b", to: "/a/e/c.h") == "../e/c.h")
        #expect(ShaderSources.relativePath(from: "/a/b/c", to: "/x.h") == "../../../x.h")
        #expect(ShaderSources.relativePath(from: "/", to: "/x.h") == "x.h")
        #expect(ShaderSources.relativePath(from: "/a/b", to: "/a/b") == "../b")
        #expect(ShaderSources.relativePath(from: "/a/bc", to: "/a/b/x.h") == "../b/x.h")
    }

    @Test func joinPutsOneSlashBetween() {
        #expect(FileSystem.join("a", "b.h") == "a/b.h")
        #expect(FileSystem.join("a/", "b.h") == "a/b.h")
        #expect(FileSystem.join("/", "b.h") == "/b.h")
        #expect(FileSystem.join("", "b.h") == "b.h")
    }

    /// `kiln compile … -o /dev/null` once renamed its temporary file over /dev/null, leaving
    /// a regular file there (run as root). A link to /dev/null stands in for it: written
    /// through, the link stays a link; replaced, it would become a regular file.
    @Test func aDeviceIsWrittenToNotReplaced() throws {
        let folder = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let link = folder.appendingPathComponent("null.kilnlib").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "/dev/null")
        #expect(FileSystem.isSpecialFile(link))
        try ShaderBuild.write(Array("KILNLIB\0".utf8), to: link)
        let kind = try FileManager.default.attributesOfItem(atPath: link)[.type] as? FileAttributeType
        #expect(kind == .typeSymbolicLink)
        #expect(FileSystem.isSpecialFile("/dev/null"))

        let plain = folder.appendingPathComponent("plain.kilnlib").path
        #expect(!FileSystem.isSpecialFile(plain))
        try ShaderBuild.write(Array("KILNLIB\0".utf8), to: plain)
        #expect(!FileSystem.isSpecialFile(plain) && !FileSystem.isSpecialFile(folder.path))
        #expect(try Data(contentsOf: URL(fileURLWithPath: plain)) == Data("KILNLIB\0".utf8))
    }

    @Test func sourcesAreReadWithClearErrors() throws {
        let folder = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let bom = folder.appendingPathComponent("bom.metal").path
        try Data([0xEF, 0xBB, 0xBF] + Array("float f;".utf8)).write(to: URL(fileURLWithPath: bom))
        #expect(try ShaderSources.readText(bom, limit: 100) == "float f;")

        let invalid = folder.appendingPathComponent("latin1.metal").path
        try Data([0x66, 0xE9, 0x0A]).write(to: URL(fileURLWithPath: invalid))
        #expect(throws: CommandFailure("\(invalid): not UTF-8 text")) { try ShaderSources.readText(invalid, limit: 100) }

        #expect(throws: CommandFailure("\(bom): file too large (11 bytes, limit 10)")) { try ShaderSources.readData(bom, limit: 10) }
        #expect(throws: CommandFailure("\(folder.path): is a directory")) { try ShaderSources.readData(folder.path, limit: 10) }
        let missing = folder.appendingPathComponent("missing.metal").path
        #expect(throws: CommandFailure("\(missing): no such file")) { try ShaderSources.readData(missing, limit: 10) }
    }

    @Test func writeMakesTheFoldersAndReplacesWhole() throws {
        let folder = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("x/y/z.kilnlib").path
        try ShaderBuild.write([1, 2, 3], to: path)
        try ShaderBuild.write([4, 5], to: path)
        #expect(FileManager.default.contents(atPath: path) == Data([4, 5]))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("x/y").path) == ["z.kilnlib"])
    }
}
