import Testing
@testable import KilnBytecode

/// One test per verification rule: each corrupts one field of a valid library and
/// expects exactly the message that names it.
@Suite("Verifier rules")
struct VerifierTests {
    func expectRejected(_ library: Library, _ message: String, limits: LibraryLimits = .default,
                        sourceLocation: SourceLocation = #_sourceLocation) {
        let error = #expect(throws: LibraryError.self, sourceLocation: sourceLocation) {
            try Verifier.verify(library, limits: limits)
        }
        #expect(error?.message == message, sourceLocation: sourceLocation)
        #expect(error?.offset == nil, "in-memory libraries have no byte offsets", sourceLocation: sourceLocation)
    }

    /// `library` with the instruction at body-relative `index` of function 0 changed.
    func patchBody(_ library: Library, _ index: Int, function: Int = 0, _ change: (inout Instruction) -> Void) -> (Library, Int) {
        var library = library
        let absolute = Int(library.functions[function].body.lowerBound) + index
        change(&library.code[absolute])
        return (library, absolute)
    }

    func patchPrologue(_ library: Library, _ index: Int, _ change: (inout Instruction) -> Void) -> (Library, Int) {
        var library = library
        let absolute = Int(library.functions[0].prologue.lowerBound) + index
        change(&library.code[absolute])
        return (library, absolute)
    }

    // MARK: registers

    @Test func sourceRegisterOutOfRange() {
        let (library, at) = patchBody(TestLibraries.wave, 4) { $0.c = 300 }
        expectRejected(library, "function 'wave': instruction \(at) (fadd): register 300 out of range (registerCount 9)")
    }

    @Test func destinationRegisterOutOfRange() {
        let (library, at) = patchBody(TestLibraries.wave, 5) { $0.a = 9 }
        expectRejected(library, "function 'wave': instruction \(at) (fsin): register 9 out of range (registerCount 9)")
    }

    @Test func ternaryThirdSourceOutOfRange() {
        let (library, at) = patchBody(TestLibraries.crossfade, 3) { $0.d = 28 }
        expectRejected(library, "function 'crossfade': instruction \(at) (fma): register 28 out of range (registerCount 28)")
    }

    @Test func conditionRegisterOutOfRange() {
        let (library, at) = patchBody(TestLibraries.wave, 2) { $0.a = 100 }
        expectRejected(library, "function 'wave': instruction \(at) (jz): register 100 out of range (registerCount 9)")
    }

    @Test func texwriteReadsFourRegistersOfAKernel() {
        let (wide, at) = patchBody(TestLibraries.stripes, 4) { $0.a = 5 }
        expectRejected(wide, "function 'stripes': instruction \(at) (texwrite): registers 5..<9 out of range (registerCount 8)")
        let (slot, _) = patchBody(TestLibraries.stripes, 4) { $0.imm = 1 }
        expectRejected(slot, "function 'stripes': instruction \(at) (texwrite): texture slot 1 out of range (textureCount 1)")
        var content = TestLibraries.stripes
        content.functions[0].parameters[0].binding = .texture(slot: 0)
        expectRejected(content, "function 'stripes': instruction \(at) (texwrite): texwrite to texture slot 0, which is not an output texture")
        var notKernel = TestLibraries.stripes
        notKernel.functions[0].kind = .fragment
        expectRejected(notKernel, "function 'stripes': instruction \(at) (texwrite): texwrite outside a kernel function")
    }

    @Test func sampleWritesFourRegisters() {
        let (library, at) = patchBody(TestLibraries.crossfade, 0) { $0.a = 25 }
        expectRejected(library, "function 'crossfade': instruction \(at) (sample): registers 25..<29 out of range (registerCount 28)")
    }

    @Test func texreadWritesFourRegisters() {
        let (library, at) = patchBody(TestLibraries.crossfade, 11) { $0.a = 27 }
        expectRejected(library, "function 'crossfade': instruction \(at) (texread): registers 27..<31 out of range (registerCount 28)")
    }

    @Test func texsizeWritesTwoRegisters() {
        let (library, at) = patchBody(TestLibraries.crossfade, 10) { $0.a = 27 }
        expectRejected(library, "function 'crossfade': instruction \(at) (texsize): registers 27..<29 out of range (registerCount 28)")
    }

    @Test func ldrReadsWholeArray() {
        let (library, at) = patchBody(TestLibraries.palette, 9) { $0.imm = 12 }
        expectRejected(library, "function 'palette': instruction \(at) (ldr): registers 10..<22 out of range (registerCount 21)")
    }

    @Test func strWritesWholeArray() {
        let (library, at) = patchBody(TestLibraries.palette, 5) { $0.a = 19 }
        expectRejected(library, "function 'palette': instruction \(at) (str): registers 19..<22 out of range (registerCount 21)")
    }

    @Test func registerArraysHaveALength() {
        let (library, at) = patchBody(TestLibraries.palette, 9) { $0.imm = 0 }
        expectRejected(library, "function 'palette': instruction \(at) (ldr): array length 0")
    }

    // MARK: pools and slots

    @Test func constantOutOfRange() {
        let (library, at) = patchBody(TestLibraries.palette, 0) { $0.imm = 9 }
        expectRejected(library, "function 'palette': instruction \(at) (const): constant 9 out of range (7 constants)")
    }

    @Test func ldkRangeOutOfPool() {
        let (library, at) = patchBody(TestLibraries.palette, 3) { $0.d = 8 }
        expectRejected(library, "function 'palette': instruction \(at) (ldk): constants 0..<8 out of range (7 constants)")
    }

    @Test func argumentWordOutOfRange() {
        let (library, at) = patchPrologue(TestLibraries.wave, 1) { $0.imm = 2 }
        expectRejected(library, "function 'wave': instruction \(at) (arg): argument word 2 out of range (uniformWordCount 2)")
    }

    @Test func bufferSlotOutOfRange() {
        let (library, at) = patchBody(TestLibraries.quad, 6) { $0.imm = 2 }
        expectRejected(library, "function 'quad': instruction \(at) (ldb): buffer slot 2 out of range (bufferCount 2)")
    }

    @Test func textureSlotOutOfRange() {
        let (library, at) = patchBody(TestLibraries.crossfade, 1) { $0.imm = 2 }
        expectRejected(library, "function 'crossfade': instruction \(at) (sample): texture slot 2 out of range (textureCount 2)")
    }

    @Test func sampleModeOutOfRange() {
        let (library, at) = patchBody(TestLibraries.crossfade, 0) { $0.mode = SampleMode.maxRawValue + 1 }
        expectRejected(library, "function 'crossfade': instruction \(at) (sample): sample mode 16 out of range (at most 15)")
    }

    @Test func modeOnlyOnSample() {
        let (library, at) = patchBody(TestLibraries.crossfade, 11) { $0.mode = 1 }
        expectRejected(library, "function 'crossfade': instruction \(at) (texread): unused field mode is 1, must be 0")
    }

    @Test func unusedFieldsAreZero() {
        let (library, at) = patchBody(TestLibraries.wave, 5) { $0.c = 1 }
        expectRejected(library, "function 'wave': instruction \(at) (fsin): unused field c is 1, must be 0")
        let (library2, at2) = patchBody(TestLibraries.wave, 8) { $0.imm = 3 }
        expectRejected(library2, "function 'wave': instruction \(at2) (ret): unused field imm is 3, must be 0")
    }

    // MARK: control flow and ranges

    @Test func jumpTargetStaysInItsRange() {
        // The loop's back edge retargeted into the prologue.
        let (library, at) = patchBody(TestLibraries.palette, 8) { $0.imm = 0 }
        expectRejected(library, "function 'palette': instruction \(at) (jany): jump target 0 outside the body 2..<17")
    }

    @Test func rangeInsideCode() {
        var library = TestLibraries.wave
        library.functions[0].body = 4..<14
        expectRejected(library, "function 'wave': body 4..<14 lies outside the code (13 instructions)")
    }

    @Test func rangeEndsWithRet() {
        var library = TestLibraries.wave
        library.functions[0].body = 4..<12
        expectRejected(library, "function 'wave': body 4..<12 does not end with ret")
    }

    @Test func rangeIsNotEmpty() {
        var library = TestLibraries.wave
        library.functions[0].prologue = 0..<0
        expectRejected(library, "function 'wave': prologue 0..<0 does not end with ret")
    }

    @Test func prologueWritesOnlyUniformRegisters() {
        let (library, at) = patchPrologue(TestLibraries.wave, 2) { $0.a = 3 }
        expectRejected(library, "function 'wave': instruction \(at) (const): the prologue writes register 3, which is not a uniform register (uniformRegisterCount 3)")
    }

    @Test func bodyNeverWritesUniformRegisters() {
        let (library, at) = patchBody(TestLibraries.wave, 0) { $0.a = 2 }
        expectRejected(library, "function 'wave': instruction \(at) (mov): the body writes uniform register 2 (uniformRegisterCount 3)")
    }

    @Test func multiRegisterDestinationsRespectTheUniformBoundary() {
        var library = TestLibraries.palette
        library.functions[0].uniformRegisterCount = 11
        library.functions[0].inputs = []
        let at = Int(library.functions[0].body.lowerBound)
        // The first body instruction writes r7, which is now uniform.
        expectRejected(library, "function 'palette': instruction \(at) (const): the body writes uniform register 7 (uniformRegisterCount 11)")
        let (glow, sampleAt) = patchBody(TestLibraries.glow, 1) { $0.a = 2 }
        expectRejected(glow, "function 'glow': instruction \(sampleAt) (sample): the body writes uniform register 2 (uniformRegisterCount 4)")
    }

    // MARK: function metadata

    @Test func uniformRegistersWithinRegisters() {
        var library = TestLibraries.wave
        library.functions[0].uniformRegisterCount = 10
        expectRejected(library, "function 'wave': uniformRegisterCount 10 exceeds registerCount 9")
    }

    @Test func inputRegistersInRange() {
        var library = TestLibraries.wave
        library.functions[0].inputs[0].register = 8
        expectRejected(library, "function 'wave': input 'position': registers 8..<10 out of range (registerCount 9)")
    }

    @Test func inputsAreNotUniformRegisters() {
        var library = TestLibraries.wave
        library.functions[0].inputs[0].register = 2
        expectRejected(library, "function 'wave': input 'position': register 2 is a uniform register (uniformRegisterCount 3)")
    }

    @Test func outputRegistersInRange() {
        var library = TestLibraries.crossfade
        library.functions[0].outputs[0].type = ValueType(.float, rows: 4, arrayLength: 2)
        #expect(throws: Never.self) { try Verifier.verify(library) }  // r20..r27 still fits
        library.functions[0].outputs[0].register = 21
        expectRejected(library, "function 'crossfade': output 'result': registers 21..<29 out of range (registerCount 28)")
    }

    @Test func discardRegisterInRange() {
        var library = TestLibraries.crossfade
        library.functions[0].discardRegister = 28
        expectRejected(library, "function 'crossfade': discard register 28 out of range (registerCount 28)")
    }

    @Test func valueTypeShape() {
        var library = TestLibraries.wave
        library.functions[0].outputs[0].type.rows = 0
        expectRejected(library, "function 'wave': output 'result': type float with 0 rows and 1 columns (each must be 1…4)")
    }

    @Test func functionNamesUnique() {
        var library = TestLibraries.combined
        library.functions[3].name = "wave"
        expectRejected(library, "function 'wave': name used by an earlier function")
    }

    @Test func functionNamesNonEmpty() {
        var library = TestLibraries.combined
        library.functions[1].name = ""
        expectRejected(library, "function 1: empty name")
    }

    @Test func declarationFileValid() {
        var library = TestLibraries.wave
        library.functions[0].file = 1
        expectRejected(library, "function 'wave': declaration file 1 out of range (1 sources)")
    }

    // MARK: parameters

    @Test func uniformBindingInsideTheBlock() {
        var library = TestLibraries.glow
        library.functions[0].parameters[3].binding = .uniform(word: 3)
        expectRejected(library, "function 'glow': parameter 3 'tint': uniform words 3..<6 out of range (uniformWordCount 5)")
    }

    @Test func bufferBindingSlotAndCountWord() {
        var library = TestLibraries.glow
        library.functions[0].parameters[4].binding = .buffer(slot: 1, countWord: 4)
        expectRejected(library, "function 'glow': parameter 4 'weights': buffer slot 1 out of range (bufferCount 1)")
        library.functions[0].parameters[4].binding = .buffer(slot: 0, countWord: 5)
        expectRejected(library, "function 'glow': parameter 4 'weights': count word 5 out of range (uniformWordCount 5)")
    }

    @Test func textureBindingSlot() {
        var library = TestLibraries.crossfade
        library.functions[0].parameters[2].binding = .texture(slot: 2)
        expectRejected(library, "function 'crossfade': parameter 2 'to': texture slot 2 out of range (textureCount 2)")
    }

    @Test func layerNeedsTextureZero() {
        var library = TestLibraries.glow
        library.functions[0].textureCount = 0
        expectRejected(library, "function 'glow': parameter 1 'layer': a layer needs texture slot 0 (textureCount 0)")
    }

    @Test func annotationValues() {
        var library = TestLibraries.glow
        library.functions[0].parameters[2].annotation?.defaultValue = [.nan]
        expectRejected(library, "function 'glow': parameter 2 'radius': annotation value is NaN")
        library.functions[0].parameters[2].annotation = ArgumentAnnotation(minimum: 5, maximum: 1)
        expectRejected(library, "function 'glow': parameter 2 'radius': annotation range 5.0...1.0 is empty")
        library.functions[0].parameters[2].annotation = ArgumentAnnotation(defaultValue: Array(repeating: 1, count: 17))
        expectRejected(library, "function 'glow': parameter 2 'radius': 17 default values, more than 16")
    }

    // MARK: library tables

    @Test func debugTableSorted() {
        var library = TestLibraries.wave
        library.debugLocations.swapAt(1, 2)
        expectRejected(library, "debug location 2: instruction 4 does not follow 7 (the table must be sorted)")
    }

    @Test func debugFileValid() {
        var library = TestLibraries.wave
        library.debugLocations[1].file = 1
        expectRejected(library, "debug location 1: file 1 out of range (1 sources)")
    }

    @Test func debugInstructionInRange() {
        var library = TestLibraries.wave
        library.debugLocations[3].firstInstruction = 13
        expectRejected(library, "debug location 3: instruction 13 out of range (13 instructions)")
    }

    @Test func sourceDigestIs32Bytes() {
        var library = TestLibraries.wave
        library.sources[0].sha256 = [1, 2, 3]
        expectRejected(library, "source 0 'wave.metal': SHA-256 is 3 bytes, not 32")
    }

    // MARK: limits

    @Test func registerLimit() {
        var limits = LibraryLimits()
        limits.maxRegisters = 8
        expectRejected(TestLibraries.wave, "function 'wave': registerCount 9 exceeds the limit of 8", limits: limits)
    }

    @Test func slotAndWordLimits() {
        var limits = LibraryLimits()
        limits.maxUniformWords = 4
        expectRejected(TestLibraries.glow, "function 'glow': uniformWordCount 5 exceeds the limit of 4", limits: limits)
        limits = LibraryLimits()
        limits.maxBuffers = 1
        expectRejected(TestLibraries.quad, "function 'quad': bufferCount 2 exceeds the limit of 1", limits: limits)
        limits = LibraryLimits()
        limits.maxTextures = 1
        expectRejected(TestLibraries.crossfade, "function 'crossfade': textureCount 2 exceeds the limit of 1", limits: limits)
    }

    @Test func libraryLimits() {
        var limits = LibraryLimits()
        limits.maxFunctions = 4
        expectRejected(TestLibraries.combined, "5 functions, more than the limit of 4", limits: limits)
        limits = LibraryLimits()
        limits.maxInstructions = 12
        expectRejected(TestLibraries.wave, "13 instructions, more than the limit of 12", limits: limits)
        limits = LibraryLimits()
        limits.maxConstants = 6
        expectRejected(TestLibraries.palette, "7 constants, more than the limit of 6", limits: limits)
    }
}

extension VerifierTests {
    @Test func parameterAndSlotLimits() {
        var limits = LibraryLimits()
        limits.maxParameters = 5
        expectRejected(TestLibraries.glow, "function 'glow': 6 parameters, more than the limit of 5", limits: limits)
        limits = LibraryLimits()
        limits.maxLaneSlots = 2
        expectRejected(TestLibraries.crossfade, "function 'crossfade': 3 lane slots, more than the limit of 2", limits: limits)
    }
}
