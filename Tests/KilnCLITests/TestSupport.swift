import Foundation
import KilnCLI
import KilnTestSupport

/// Paths and helpers the CLI tests share.
enum TestSupport {
    /// The package root (`/…/main`), found from this file's path.
    static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func path(_ relative: String) -> String {
        packageRoot.appendingPathComponent(relative).path
    }

    /// The example shaders (`shaders/*.metal`), sorted.
    static var exampleShaders: [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path("shaders"))) ?? []
        return names.filter { $0.hasSuffix(".metal") }.sorted().map { path("shaders/" + $0) }
    }

    /// A fresh temporary folder for one test (removed when the test process exits).
    static func temporaryDirectory() throws -> URL {
        try ScratchFolder.make("kiln-cli-tests")
    }

    /// Runs `kiln` in-process with `arguments`.
    static func kiln(_ arguments: String...) -> Kiln.Outcome {
        Kiln.run(arguments: arguments)
    }

    /// The built `kiln` executable, next to the test bundle in the build folder.
    static var kilnExecutable: String? {
        var candidates: [URL] = []
        if let executable = Bundle.main.executableURL {
            candidates.append(executable.deletingLastPathComponent())
        }
        let argument0 = URL(fileURLWithPath: CommandLine.arguments.first ?? "")
        candidates.append(argument0.deletingLastPathComponent())
        for folder in candidates {
            // The test runner may sit inside a bundle folder (`X.xctest/…`); walk up a little.
            var directory = folder
            for _ in 0..<4 {
                let candidate = directory.appendingPathComponent("kiln")
                var isDirectory: ObjCBool = false
                if FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isDirectory),
                   !isDirectory.boolValue, FileManager.default.isExecutableFile(atPath: candidate.path) {
                    return candidate.path
                }
                directory = directory.deletingLastPathComponent()
            }
        }
        return nil
    }

    /// Runs the `kiln` executable as a subprocess.
    static func runExecutable(_ arguments: [String]) throws -> (status: Int32, output: String, error: String) {
        guard let executable = kilnExecutable else {
            throw CocoaError(.fileNoSuchFile)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = packageRoot
        let outPipe = Pipe(), errorPipe = Pipe()
        process.standardOutput = outPipe
        process.standardError = errorPipe
        try process.run()
        // Drain stderr on another thread while reading stdout here, so neither pipe can
        // fill up and block the child.
        let errorBox = DataBox()
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async {
            errorBox.data = errorPipe.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        let outData = outPipe.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        let errorData = errorBox.data
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: outData, as: UTF8.self),
                String(decoding: errorData, as: UTF8.self))
    }
}

/// Holds data read on another thread.
private final class DataBox: @unchecked Sendable {
    var data = Data()
}
