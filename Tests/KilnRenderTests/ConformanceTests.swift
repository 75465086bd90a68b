import Foundation
import KilnBytecode
import KilnRender
import KilnVM
import Testing

/// One positive case of `Tests/Conformance/cases.json`.
struct ConformanceCase: CustomTestStringConvertible, Sendable {
    var id: String
    var file: String
    var function: String
    var kind: String
    var width: Int
    var height: Int
    var content: String?
    var content2: String?
    var arguments: [String: [Float]]
    var time: Float?
    var maxAbs: Int
    var percentOverOne: Double

    var testDescription: String { id }

    static let all: [ConformanceCase] = {
        let url = Paths.conformance.appendingPathComponent("cases.json")
        guard let data = try? Data(contentsOf: url),
              let root = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let cases = root["cases"] as? [[String: Any]] else { return [] }
        return cases.map { item in
            var arguments: [String: [Float]] = [:]
            for argument in item["args"] as? [[String: Any]] ?? [] {
                let name = argument["name"] as! String
                switch argument["value"] {
                case let number as NSNumber: arguments[name] = [number.floatValue]
                case let list as [NSNumber]: arguments[name] = list.map(\.floatValue)
                default: break
                }
            }
            let tolerance = item["tolerance"] as? [String: Any] ?? [:]
            return ConformanceCase(
                id: item["id"] as! String, file: item["file"] as! String, function: item["function"] as! String,
                kind: item["kind"] as! String, width: item["width"] as! Int, height: item["height"] as! Int,
                content: item["content"] as? String, content2: item["content2"] as? String, arguments: arguments,
                time: (item["time"] as? NSNumber)?.floatValue,
                maxAbs: (tolerance["max_abs_8bit"] as? NSNumber)?.intValue ?? 2,
                percentOverOne: (tolerance["pct_over_1"] as? NSNumber)?.doubleValue ?? 0.5)
        }
    }()
}

extension ConformanceCase {
    /// The render request of this case for its compiled `library`, contents loaded.
    func request(_ library: Library) throws -> RenderRequest {
        func texture(_ path: String?) throws -> Texture? {
            try path.map { try loadPNG(Paths.conformance.appendingPathComponent($0)).premultipliedTexture() }
        }
        return RenderRequest(library: library, functionName: function, width: width, height: height,
                             content: try texture(content), content2: try texture(content2), arguments: arguments,
                             time: time)
    }
}

@Suite struct ConformanceTests {
    @Test func theCaseListIsComplete() {
        #expect(ConformanceCase.all.count == 24)
    }

    /// Every public conformance case renders within its tolerance of the reference
    /// (premultiplied RGBA8 bytes compared as they are).
    @Test(arguments: ConformanceCase.all)
    func rendersLikeTheReference(_ testCase: ConformanceCase) throws {
        let source = try String(contentsOf: Paths.conformance.appendingPathComponent(testCase.file), encoding: .utf8)
        let library = try compile(source, name: testCase.id + ".metal")
        let function = try #require(library.function(named: testCase.function))
        #expect(function.kind.name == testCase.kind)
        let request = try testCase.request(library)
        let actual = try Renderer.render(request)
        let expected = try loadPNG(Paths.conformance.appendingPathComponent("refs/\(testCase.id).png"))
        let difference = ImageDifference(actual, expected)
        let passes = difference.maxAbs <= testCase.maxAbs && difference.percentOverOne <= testCase.percentOverOne
        if !passes {
            let folder = writeArtifacts("conformance/\(testCase.id)", [
                "actual.png": actual, "expected.png": expected, "diff.png": ImageDifference.heatMap(actual, expected),
            ])
            Issue.record("\(testCase.id): max difference \(difference.maxAbs) levels (allowed \(testCase.maxAbs)), \(String(format: "%.2f", difference.percentOverOne))% of pixels over 1 level (allowed \(testCase.percentOverOne)%); images in \(folder)")
        }
    }
}
