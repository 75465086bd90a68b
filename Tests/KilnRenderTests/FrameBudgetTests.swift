import Foundation
import KilnBytecode
import KilnRender
import KilnVM
import Testing

/// Every frame keeps one account of its work (`RenderLimits.maxFrameWork`, weighted by
/// `Opcode.workCost`) and stops between batches when it runs over or is cancelled.
@Suite struct FrameBudgetTests {
    static let straight = """
        [[ stitchable ]] half4 shade(float2 position, float k) {
            float s = sin(position.x * k) + position.y / 7.0;
            return half4(half(s), 0, 0, 1);
        }
        """

    static let heavy = """
        [[ stitchable ]] half4 heavy(float2 position) {
            float s = position.x;
            for (int i = 0; i < 50; i++)
                for (int j = 0; j < 50; j++)
                    for (int k = 0; k < 50; k++)
                        s = s * 0.5 + 1.0;
            return half4(half(s * 0.25), 0, 0, 1);
        }
        """

    func render(_ source: String, _ function: String, width: Int, height: Int, maxFrameWork: Int,
                threads: Int = 2, cancellation: RenderCancellation? = nil) throws -> RGBAImage {
        var limits = RenderLimits.default
        limits.maxFrameWork = maxFrameWork
        return try Renderer.render(RenderRequest(library: try compile(source), functionName: function, width: width, height: height,
                                                 arguments: function == "shade" ? ["k": [0.3]] : [:], threads: threads, limits: limits,
                                                 cancellation: cancellation))
    }

    /// Without loops every batch runs the whole body once, so the frame's work is known
    /// exactly: batches × `laneCount` lanes × the body's summed costs. The budget allows exactly that.
    @Test func theAccountIsExact() throws {
        let library = try compile(Self.straight)
        let function = try #require(library.function(named: "shade"))
        let body = library.code[Int(function.body.lowerBound)..<Int(function.body.upperBound)]
        #expect(!body.contains { $0.opcode == .jany || $0.opcode == .jmp })
        let perBatch = body.reduce(0) { $0 + Int($1.opcode.workCost) }
        #expect(body.contains { $0.opcode == .fsin })       // a weighted instruction is in there
        // 96×4 in tiles of BatchTile.columns × BatchTile.rows (8×8: twelve tiles, half of each a helper row).
        let batches = (96 / BatchTile.columns) * ((4 + BatchTile.rows - 1) / BatchTile.rows)
        let exact = batches * laneCount * perBatch
        _ = try render(Self.straight, "shade", width: 96, height: 4, maxFrameWork: exact)
        let message = Draw.failure { try render(Self.straight, "shade", width: 96, height: 4, maxFrameWork: exact - 1) }
        #expect(message?.contains("limit maxFrameWork = \(exact - 1)") == true, "\(message ?? "rendered")")
    }

    @Test func aLoopUnderTheLaneBudgetStillStopsTheFrame() throws {
        let clock = ContinuousClock()
        var message: String?
        let elapsed = clock.measure {
            message = Draw.failure { try render(Self.heavy, "heavy", width: 2048, height: 2048, maxFrameWork: 1_000_000_000) }
        }
        #expect(message?.contains("the frame needs more work than allowed") == true, "\(message ?? "rendered")")
        // Without the account this frame is about 3·10¹² lane-instructions (minutes).
        #expect(elapsed < .seconds(30), "took \(elapsed)")
        // Small enough, the same shader renders.
        _ = try render(Self.heavy, "heavy", width: 8, height: 8, maxFrameWork: 1_000_000_000)
    }

    @Test func transcendentalsCostMoreThanAdds() {
        #expect(Opcode.fadd.workCost == 1)
        #expect(Opcode.fsin.workCost > 4 && Opcode.psin.workCost > Opcode.fsin.workCost && Opcode.patan2.workCost > Opcode.psin.workCost && Opcode.fatan2.workCost < Opcode.patan2.workCost)
        #expect(Opcode.allCases.allSatisfy { $0.workCost >= 1 })
    }

    @Test func aCancelledRenderStopsBetweenBatches() throws {
        let cancelled = RenderCancellation()
        cancelled.cancel()
        do {
            _ = try render(Self.straight, "shade", width: 64, height: 64, maxFrameWork: .max, cancellation: cancelled)
            Issue.record("a cancelled render finished")
        } catch let error as RenderError {
            #expect(error.isCancellation)
        }
        // Cancelled from another thread while a long frame renders: it ends soon after.
        let cancellation = RenderCancellation()
        // A thread of its own: the render's workers may occupy every GCD thread.
        Thread.detachNewThread {
            Thread.sleep(forTimeInterval: 0.2)
            cancellation.cancel()
        }
        let clock = ContinuousClock()
        var caught: RenderError?
        let elapsed = clock.measure {
            do { _ = try render(Self.heavy, "heavy", width: 2048, height: 2048, maxFrameWork: .max, cancellation: cancellation) }
            catch let error as RenderError { caught = error } catch {}
        }
        #expect(caught?.isCancellation == true)
        #expect(elapsed < .seconds(30), "took \(elapsed)")
        // Kernels and triangle draws keep the same account.
        let kernel = """
            kernel void k(texture2d<half, access::write> o [[texture(0)]], uint2 g [[thread_position_in_grid]]) {
                float s = 0; for (int i = 0; i < 1000; i++) s += sin(float(i));
                o.write(half4(half(s)), g);
            }
            """
        #expect(Draw.failure { try render(kernel, "k", width: 64, height: 64, maxFrameWork: 1_000_000) }?.contains("maxFrameWork") == true)
    }
}
