import Foundation
import KilnBytecode
import KilnCompiler
import KilnJSON
import KilnLanguage
import KilnTestSupport
import Testing

/// `JSONValue`, the compile report's Foundation-free writer, writes what `JSONSerialization`
/// reads back as the report's Foundation form (which the server sends), on one line.
@Suite struct JSONValueTests {
    /// Numbers, strings and nesting as Foundation writes them (arrays keep their order).
    @Test func scalarsAreWrittenAsFoundationWritesThem() throws {
        let values: [JSONValue] = [
            .number(0.2), .number(1e21), .number(-0.0), .number(100),
            .number(1e-7), .int(Int.min),
            .string("a\"b\\c\n\t\u{1}\u{7f}é/😀"), .bool(true), .null, .array([.int(1), .array([])]),
            JSONValue.float(0.2), JSONValue.float(.infinity), .object(["b": .int(1), "a": .null]),
        ]
        for value in values {
            let foundation = String(decoding: try JSONSerialization.data(withJSONObject: [value.foundationObject],
                                                                         options: [.sortedKeys, .withoutEscapingSlashes]),
                                    as: UTF8.self)
            #expect("[" + value.serialized + "]" == foundation, "\(value)")
        }
    }

    /// Every example and a failing source: the one-line report reads back as the object.
    @Test func reportsReadBackAsTheirFoundationForm() throws {
        var sources = RepositoryFiles.metalFiles(in: "shaders").map { SourceFile(name: $0, text: RepositoryFiles.text($0)) }
        sources.append(SourceFile(name: "bad.metal", text: "float f( {\n\"quote\" \t"))
        for source in sources {
            let result = Compiler.compile([source])
            let bytes = result.library.map(LibraryWriter.encode)
            let text = CompileReport.json(result: result, libraryBytes: bytes)
            #expect(!text.contains("\n"), "\(source.name)")
            let read = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? NSDictionary
            let object = CompileReport.object(result: result, libraryBytes: bytes) as NSDictionary
            #expect(read == object, "\(source.name)")
        }
    }
}
