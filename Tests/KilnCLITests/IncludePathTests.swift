import Foundation
import KilnBytecode
import Testing
@testable import KilnCLI
@testable import KilnCompileTool

/// A project laid out as SwiftUI shader collections lay theirs out: effects in nested
/// folders, shared headers reached with `../` paths and through `-I` folders.
@Suite("includes with paths")
struct IncludePathTests {
    /// Writes `files` (path relative to a new temporary folder → text); returns the folder.
    static func project(_ files: [String: String]) throws -> URL {
        let root = try TestSupport.temporaryDirectory()
        for (path, text) in files {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: url, atomically: true, encoding: .utf8)
        }
        return root
    }

    static let layout: [String: String] = [
        "Shaders/Effects/Water/ripple.metal": """
            #include <metal_stdlib>
            #include "../../../Headers/ShaderTypes.h"
            #include <Common/Uniforms.h>
            using namespace metal;

            [[ stitchable ]] float2 ripple(float2 position, float time) {
                return position + float2(rippleOffset(position, time), 0) * kStrength;
            }
            """,
        "Headers/ShaderTypes.h": """
            #pragma once
            #include "Math/Waves.h"
            """,
        "Headers/Math/Waves.h": """
            #pragma once
            static inline float rippleOffset(float2 p, float t) { return sin(length(p) * 0.1 - t); }
            """,
        "Shared/Common/Uniforms.h": """
            #pragma once
            constant float kStrength = 4.0;
            """,
    ]

    @Test("relative includes and -I folders compile as clang finds them")
    func compilesAProjectLayout() throws {
        let root = try Self.project(Self.layout)
        let output = root.appendingPathComponent("ripple.kilnlib").path
        let outcome = TestSupport.kiln("compile", root.appendingPathComponent("Shaders/Effects/Water/ripple.metal").path,
                                       "-I", root.appendingPathComponent("Shared").path, "-o", output)
        #expect(outcome.exitCode == 0, "\(outcome.errorOutput)")
        let library = try LibraryReader.decode([UInt8](try #require(FileManager.default.contents(atPath: output))))
        #expect(library.functions.map(\.name) == ["ripple"])
        // Without the -I folder the <Common/Uniforms.h> include is not found, at its line.
        let missing = TestSupport.kiln("compile", root.appendingPathComponent("Shaders/Effects/Water/ripple.metal").path, "-o", output)
        #expect(missing.exitCode == 1)
        #expect(missing.errorOutput.contains("ripple.metal:3:10: error: 'Common/Uniforms.h' file not found"), "\(missing.errorOutput)")
    }

    @Test("a diagnostic in a header names the header by its path")
    func headerDiagnosticsNameThePath() throws {
        var files = Self.layout
        files["Headers/Math/Waves.h"] = "static inline float rippleOffset(float2 p, float t) { return sin(lenght(p) - t); }\n"
        let root = try Self.project(files)
        let outcome = TestSupport.kiln("compile", root.appendingPathComponent("Shaders/Effects/Water/ripple.metal").path,
                                       "-I", root.appendingPathComponent("Shared").path, "--json")
        #expect(outcome.exitCode == 1)
        let report = try #require(try JSONSerialization.jsonObject(with: Data(outcome.output.utf8)) as? [String: Any])
        let diagnostics = try #require(report["diagnostics"] as? [[String: Any]])
        #expect(diagnostics.first?["file"] as? String == "../../../Headers/Math/Waves.h")
        #expect(diagnostics.first?["line"] as? Int == 1)
    }

    @Test("the loader brings every reached header, named relative to the first input")
    func loaderNamesFilesByRelativePath() throws {
        let root = try Self.project(Self.layout)
        let loaded = try ShaderSources.load([root.appendingPathComponent("Shaders/Effects/Water/ripple.metal").path],
                                            includeDirectories: [root.appendingPathComponent("Shared").path])
        #expect(loaded.files.map(\.name) == ["ripple.metal", "../../../Headers/ShaderTypes.h", "../../../Shared/Common/Uniforms.h",
                                             "../../../Headers/Math/Waves.h"])
        #expect(loaded.searchPaths == ["../../../Shared"])
        #expect(loaded.diskPaths.count == 4)
    }

    @Test("a project saved with CRLF line ends compiles, headers after the first line included")
    func crlfProjectCompiles() throws {
        // The loader's scan once split lines on `Character`s, and "\r\n" is one: it saw a
        // CRLF file as a single line and reported the second include as not found.
        let root = try Self.project([
            "a.metal": "#include <metal_stdlib>\r\nusing namespace metal;\r\n#include \"helper.h\"\r\n"
                + "[[ stitchable ]] half4 f(float2 p, half4 c) { return c * half(k()); }\r\n",
            "helper.h": "static float k() { return 0.5; }\r\n",
        ])
        let outcome = TestSupport.kiln("compile", root.appendingPathComponent("a.metal").path,
                                       "-o", root.appendingPathComponent("a.kilnlib").path)
        #expect(outcome.exitCode == 0, "\(outcome.errorOutput)")
    }

    @Test("the include scan finds every directive form, CRLF lines included, and nothing else")
    func includeScanFindsTheDirectives() {
        let text = "#include <metal_stdlib>\r\n  #  include \"a/b.h\"\r\n#include_next <c.h>\n#include \"\"\n"
            + "// #include \"comment.h\" (not at a line's start)\n#define X 1\n\t#include<d.h>\n#include \"unclosed.h"
        let found = ShaderSources.includes(in: text)
        #expect(found.map(\.path) == ["metal_stdlib", "a/b.h", "d.h"])
        #expect(found.map(\.isSystem) == [true, false, true])
    }
}
