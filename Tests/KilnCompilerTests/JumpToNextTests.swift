import KilnBytecode
import Testing
@testable import KilnCompiler

/// `DeadCodeEliminator.removeJumpsToNext`: a jump (conditional or not) to the label right
/// after it, through markers only, goes; any other jump stays, and so do the labels jumps
/// still name.
@Suite struct JumpToNextTests {
    @Test func onlyJumpsToTheNextLabelGo() {
        var body: [IRInstruction] = [
            IRInstruction(opcode: .jmp, imm: 3),          // to label 3, but code comes first
            .debug(3),                                    // an event index that equals the label id
            IRInstruction(opcode: .fadd, a: 1, b: 0, c: 0),
            .label(3),
            IRInstruction(opcode: .jnone, a: 1, imm: 4),  // over nothing but a debug marker
            .debug(0),
            .label(4),
            IRInstruction(opcode: .jany, a: 1, imm: 3),   // a back edge
            IRInstruction(opcode: .ret),
        ]
        #expect(DeadCodeEliminator.removeJumpsToNext(&body))
        #expect(body.filter { !$0.isMarker }.map(\.opcode) == [.jmp, .fadd, .jany, .ret])
        #expect(body.filter(\.isLabel).map(\.imm) == [3])              // label 4 is named by nothing now
        #expect(!DeadCodeEliminator.removeJumpsToNext(&body))           // and nothing is left to do
    }
}
