// KilnFuzz: one fuzz target over the whole untrusted-input surface of Kiln.
//
// Every input is used twice: as shader source text for `Compiler.compile` (lexer,
// preprocessor, parser, checker, compiler) and as library bytes for
// `LibraryReader.decode` (reader + verifier), followed by the disassembler and one batch
// of every function in the VM on whatever compiles or decodes (a verified library is all
// the VM needs to run memory-safely, hostile or not). Nothing may crash, hang or trap on
// any input. One property is checked too: a library the compiler produces must survive
// an encode/decode round trip.
//
// Two builds of this file:
// - the fuzzer (`-DFUZZING -sanitize=fuzzer -parse-as-library`, see README "Fuzzing"):
//   libFuzzer's `main` calls `LLVMFuzzerTestOneInput` with generated inputs;
// - the normal build: a corpus-replay tool, `KilnFuzz FILE|DIR…`, that runs the same
//   function over saved inputs (crash reproducers, the corpus) without libFuzzer.
import Foundation
import KilnBytecode
import KilnCompiler
import KilnLanguage
import KilnVM

/// Runs one input through every consumer of untrusted bytes.
func fuzzOne(_ bytes: [UInt8]) {
    // As source: invalid UTF-8 is repaired, as the server does with uploaded text.
    let source = SourceFile(name: "fuzz.metal", text: String(decoding: bytes, as: UTF8.self))
    let result = Compiler.compile([source])
    if let library = result.library {
        let encoded = LibraryWriter.encode(library)
        do {
            _ = try LibraryReader.decode(encoded)
        } catch {
            fatalError("the verifier rejects a library the compiler produced: \(error)")
        }
        runOneBatch(library)
    }
    // As a library: anything that decodes has been verified; print it to exercise the
    // disassembler's table lookups on hostile (but verified) input, and run it.
    if let library = try? LibraryReader.decode(bytes) {
        _ = Disassembler.disassemble(library)
        runOneBatch(library)
    }
}

/// Runs every function of a verified library for one batch, with zero arguments, empty
/// buffers, small textures (output textures too) and a small lane budget, so a hostile
/// library's loops end quickly. Budget errors are expected; a crash is a finding.
func runOneBatch(_ library: Library) {
    var limits = ExecutionLimits()
    limits.instructionBudgetPerLane = 4096
    let texel = [Float](repeating: 0.5, count: 4 * 4 * 4)
    for index in library.functions.indices.prefix(8) {
        let function = library.functions[index]
        let resources = DrawResources(
            uniforms: [UInt32](repeating: 0, count: Int(min(function.uniformWordCount, 1 << 12))),
            buffers: Array(repeating: [1, 2, 3, 4], count: Int(min(function.bufferCount, 32))),
            textures: Array(repeating: Texture(width: 4, height: 4, pixels: texel), count: Int(min(function.textureCount, 32))),
            limits: limits)
        guard let executor = try? Executor(PreparedFunction(library: library, functionIndex: index), resources: resources) else {
            continue
        }
        for slot in function.inputs {
            for component in 0..<min(slot.type.componentCount, 64) {
                let register = Int(slot.register) + component
                guard register < Int(function.registerCount) else { break }
                executor.floatLanes(UInt16(register)).update(repeating: 1.5, count: laneCount)
            }
        }
        _ = try? executor.run()
    }
}

#if FUZZING

/// libFuzzer's driver, called with our callback (see `KilnFuzzMain`).
@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(_ argc: UnsafeMutablePointer<CInt>,
                     _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
                     _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> CInt

/// The fuzzer's entry point. SwiftPM links an executable target with `main` aliased to
/// `KilnFuzz_main` (the name it gives the module's entry), so libFuzzer's own `main` is
/// never linked; this function takes that name and hands control to libFuzzer's driver.
@_cdecl("KilnFuzz_main")
public func kilnFuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    var count = argc
    var arguments = argv
    return runFuzzerDriver(&count, &arguments) { data, size in fuzzerTestOneInput(data, size) }
}

/// libFuzzer's entry point.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data, size > 0 else {
        fuzzOne([])
        return 0
    }
    fuzzOne(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}

#else

/// Corpus replay: every file argument, or every file in a directory argument.
func replay(_ arguments: [String]) -> Int32 {
    guard !arguments.isEmpty else {
        FileHandle.standardError.write(Data("usage: KilnFuzz FILE|DIR…  (replays inputs through the fuzz target)\n".utf8))
        return 2
    }
    var paths: [String] = []
    for argument in arguments {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: argument, isDirectory: &isDirectory) else {
            FileHandle.standardError.write(Data("KilnFuzz: \(argument): no such file\n".utf8))
            return 1
        }
        if isDirectory.boolValue {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: argument)) ?? []
            paths += names.sorted().map { (argument as NSString).appendingPathComponent($0) }
        } else {
            paths.append(argument)
        }
    }
    for path in paths {
        guard let data = FileManager.default.contents(atPath: path) else { continue }
        fuzzOne([UInt8](data))
        print("ok \(path) (\(data.count) bytes)")
    }
    print("replayed \(paths.count) input\(paths.count == 1 ? "" : "s")")
    return 0
}

// A declaration rather than a bare call: the fuzzer build parses this (inactive) branch
// in library mode (-parse-as-library), where top-level expressions are not allowed; in
// the normal build main.swift runs it at start-up.
func replayAndExit() {
    exit(replay(Array(CommandLine.arguments.dropFirst())))
}
let replayed: Void = replayAndExit()

#endif
