import Foundation
import KilnLanguage
import Testing
@testable import KilnCLI
@testable import KilnCompileTool

/// `kiln bench`'s native references compute the benchmark shaders exactly: a VM frame and
/// its native twin are the same bytes. Sizes that are not multiples of eight exercise the
/// partial runs at the right edge and the sampling at the image's edges; two thread counts
/// split the rows differently.
@Suite("Native benchmark twins") struct NativeShaderTests {
    @Test("every bench case: the native frame equals the VM frame byte for byte",
          arguments: BenchCase.all.map(\.name))
    func nativeEqualsVM(_ name: String) throws {
        let benchCase = try #require(BenchCase.all.first { $0.name == name })
        for (size, threads) in [(ImageSize(width: 77, height: 45), 1), (ImageSize(width: 128, height: 96), 2)] {
            let renderer = FrameRenderer(threads: threads)
            let text = try String(contentsOfFile: TestSupport.path("bench/\(benchCase.file)"), encoding: .utf8)
            let library = try #require(ShaderBuild.compile([SourceFile(name: benchCase.file, text: text)]).library)
            let function = try #require(library.function(named: benchCase.function))
            let contents = try renderer.loadContents(benchCase.content, benchCase.content2 ?? "checker", size: size)
            let names = Set(function.parameters.map(\.name))
            let arguments = benchCase.arguments(width: size.width, height: size.height).filter { names.contains($0.key) }
            let draw = try renderer.prepare(library: library, function: function, size: size, contents: contents,
                                            arguments: arguments, time: benchCase.time)
            let vm = try renderer.render(draw).bytes
            let native = renderer.renderNative(benchCase.native(size: size, contents: contents),
                                               size: size)
            #expect(Set(vm).count > 8, "\(name) \(size): a blank frame proves nothing")
            let differing = zip(vm, native).indices(where: { $0 != $1 })
            #expect(vm.count == native.count && differing.isEmpty,
                    "\(name) \(size): \(differing.count) bytes differ, first at byte \(differing.first ?? -1)")
        }
    }
}

private extension Sequence {
    func indices(where differs: (Element) -> Bool) -> [Int] {
        enumerated().filter { differs($0.element) }.map(\.offset)
    }
}
