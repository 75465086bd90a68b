import Foundation
import KilnTestSupport
import Testing
@testable import KilnServer

/// The protocol is defined once, in the server's types; the browser's frame reader and
/// docs/protocol.md are checked against them so neither can drift.
@Suite struct ProtocolDocumentTests {
    static let protocolText = RepositoryFiles.text("docs/protocol.md")

    /// `public/frames.js` exports `FRAME_HEADER` with `fields: { name: offset, … }`: the
    /// same names (camelCase) and offsets as `FrameHeader.Field`, the same size and magic.
    @Test func theBrowserReadsTheFrameHeaderAsTheServerWritesIt() throws {
        let script = RepositoryFiles.text("public/frames.js")
        let table = try #require(script.range(of: #"export const FRAME_HEADER = \{[\s\S]*?\n\};"#, options: .regularExpression),
                                 "public/frames.js defines no FRAME_HEADER table")
        let text = String(script[table])
        let fieldsBlock = try #require(text.range(of: #"fields: \{[^}]*\}"#, options: .regularExpression))
        let pairs = try NSRegularExpression(pattern: #"(\w+): (\d+)"#)
        let block = String(text[fieldsBlock])
        var fields: [String: Int] = [:]
        for match in pairs.matches(in: block, range: NSRange(block.startIndex..., in: block)) {
            let name = String(block[Range(match.range(at: 1), in: block)!])
            fields[name] = Int(block[Range(match.range(at: 2), in: block)!])
        }
        let expected = Dictionary(uniqueKeysWithValues: FrameHeader.Field.allCases.map { ("\($0)", $0.offset) })
        #expect(fields == expected)
        #expect(text.contains("bytes: \(FrameHeader.byteCount)"))
        #expect(text.contains("magic: \"KLNF\""))
        #expect(text.contains("version: \(FrameHeader.version)"))
        // Nobody else in the page re-types the offsets.
        let scripts = (try? FileManager.default.contentsOfDirectory(atPath: RepositoryFiles.url("public").path)) ?? []
        for name in scripts where name.hasSuffix(".js") && name != "frames.js" {
            guard let other = try? String(contentsOf: RepositoryFiles.url("public/\(name)"), encoding: .utf8) else { continue }
            #expect(!other.contains("getFloat64(12") && !other.contains("getUint32(20"), "\(name) reads frame header offsets itself")
        }
    }

    /// The offsets line above the header diagram in docs/protocol.md.
    @Test func theProtocolDocumentShowsTheFrameHeaderLayout() throws {
        let line = try #require(Self.protocolText.split(separator: "\n").first { $0.trimmingCharacters(in: .whitespaces).hasPrefix("0        4") })
        let offsets = line.split(separator: " ").compactMap { Int($0) }
        #expect(offsets == FrameHeader.Field.allCases.map(\.offset) + [FrameHeader.byteCount])
    }

    /// docs/protocol.md lists exactly the error codes of `ErrorCode`.
    @Test func theProtocolDocumentListsEveryErrorCode() throws {
        let start = try #require(Self.protocolText.range(of: "- `{\"type\":\"error\""))
        let end = try #require(Self.protocolText.range(of: "An error never closes", range: start.upperBound..<Self.protocolText.endIndex))
        let paragraph = String(Self.protocolText[start.upperBound..<end.lowerBound])
        let codes = try NSRegularExpression(pattern: #"`([a-z_]+)`"#).matches(in: paragraph, range: NSRange(paragraph.startIndex..., in: paragraph))
            .map { String(paragraph[Range($0.range(at: 1), in: paragraph)!]) }
            .filter { $0 != "path" }
        #expect(Set(codes) == Set(ErrorCode.allCases.map(\.rawValue)))
        #expect(codes.count == ErrorCode.allCases.count)
    }

    /// Every client message type in the protocol table decodes; every reply type the
    /// server can send is described.
    @Test func theProtocolDocumentAndTheDecoderAgreeOnMessageTypes() {
        let documented = ["compile", "preview.start", "preview.update", "preview.stop", "clock", "content.upload", "ping",
                          "debug", "heatmap", "share", "scene.set", "layer.add", "layer.update", "layer.remove"]
        for type in documented {
            #expect(Self.protocolText.contains("| `\(type)`") || Self.protocolText.contains("`\(type)` /") || Self.protocolText.contains("/ `\(type)`"),
                    "\(type) is not in the table")
            let result = ClientRequest.decode(text: #"{"type":"\#(type)"}"#, limits: .init(maxPreviewSide: 64, maxFPS: 60))
            if case .failure(let failure) = result { #expect(failure.error.code != .unknownType, "\(type)") }
        }
        for type in ["compiled", "superseded", "preview.started", "preview.stopped", "clock", "content.uploaded", "pong", "scene.rendered", "debug.trace", "heatmap", "shared", "error"] {
            #expect(Self.protocolText.contains(type), "reply \(type) is not documented")
        }
    }
}
