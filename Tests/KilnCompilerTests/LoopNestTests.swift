import KilnTestSupport
import Testing
@testable import KilnCompiler

/// The register allocator stretches live intervals over loops by walking the loop nest out
/// from each interval's ends (`RegisterAllocator.LoopNest`); it must reach exactly the
/// intervals of the plain fixed point — every loop against every interval until nothing
/// changes — which it replaced because that was quadratic in the number of loops.
@Suite struct LoopNestTests {
    /// Random structured loops over `positions`: opened and closed like brackets, two
    /// sometimes sharing a head (a second back edge to the same label).
    static func loops(positions: Int, random: inout SeededRandom) -> [(head: Int, edge: Int)] {
        var open: [Int] = [], loops: [(head: Int, edge: Int)] = []
        for position in 0..<positions {
            switch random.below(6) {
            case 0: open.append(position)
            case 1: open.append(position); open.append(position)
            case 2: if let head = open.popLast(), head < position { loops.append((head, position)) }
            default: break
            }
        }
        return loops
    }

    /// The plain fixed point the nest must agree with.
    static func bruteForce(_ start: inout Int, _ end: inout Int, carried: Bool, loops: [(head: Int, edge: Int)]) {
        var changed = true
        while changed {
            changed = false
            for (head, edge) in loops {
                changed = RegisterAllocator.LoopNest.stretch(start: &start, end: &end, carried: carried,
                                                             head: head, edge: edge) || changed
            }
        }
    }

    @Test(arguments: 0..<40)
    func theNestStretchesIntervalsAsTheFixedPointDoes(seed: Int) throws {
        var random = SeededRandom(state: UInt64(seed))
        let positions = 20 + random.below(300)
        let loops = Self.loops(positions: positions, random: &random)
        let nest = try #require(RegisterAllocator.LoopNest(loops, positions: positions))
        for _ in 0..<200 {
            let first = random.below(positions)
            var start = first
            var end = random.below(8) == 0 ? RegisterAllocator.forever : first + random.below(positions - first)
            let carried = random.below(3) == 0
            var (expectedStart, expectedEnd) = (start, end)
            Self.bruteForce(&expectedStart, &expectedEnd, carried: carried, loops: loops)
            nest.stretch(start: &start, end: &end, carried: carried)
            #expect(start == expectedStart && end == expectedEnd,
                    "seed \(seed): \(first)… carried \(carried) → \(start)...\(end), expected \(expectedStart)...\(expectedEnd)")
        }
    }

    @Test func loopsThatCrossAreNotANest() {
        #expect(RegisterAllocator.LoopNest([(head: 2, edge: 10), (head: 5, edge: 14)], positions: 20) == nil)
        #expect(RegisterAllocator.LoopNest([(head: 2, edge: 10), (head: 5, edge: 9), (head: 12, edge: 14)], positions: 20) != nil)
        #expect(RegisterAllocator.LoopNest([], positions: 20) != nil)
    }

    /// A unit live into a loop from before it reaches the back edge; one written inside an
    /// inner loop and read around the outer loop's back edge covers the outer loop.
    @Test func theRulesStretchThroughNestedLoops() throws {
        let nest = try #require(RegisterAllocator.LoopNest([(head: 10, edge: 40), (head: 20, edge: 30)], positions: 50))
        var (start, end) = (5, 25)
        nest.stretch(start: &start, end: &end, carried: false)
        #expect(start == 5 && end == 40)
        (start, end) = (22, 24)
        nest.stretch(start: &start, end: &end, carried: true)
        #expect(start == 10 && end == 40)
        (start, end) = (22, 24)
        nest.stretch(start: &start, end: &end, carried: false)
        #expect(start == 22 && end == 24)
    }
}
