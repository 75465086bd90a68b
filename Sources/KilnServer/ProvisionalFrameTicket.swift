import Foundation

/// Where an edit's provisional frame is, shared by its render and the edit's full compile,
/// so that a provisional frame that has started is always finished and sent before the
/// edit's `compiled` (docs/server.md, "Two compile tiers").
///
/// Why the compile waits instead of cancelling: the full compile (about 2 ms for raymarch
/// after the quick one) and the provisional render (0.6–1.2 ms on one thread, 384 pixels
/// at stride 8) are close, so whichever finished first decided whether the edit got its
/// early pixels — on a loaded machine, none of three edits did. A coarse frame is a
/// millisecond or so of work and, once started, is first pixels sooner than the full
/// library's own coarse frame could be; a render that has not started by then never will.
final class ProvisionalFrameTicket: @unchecked Sendable {
    /// `done`: sent or dropped, or skipped because the full compile came first.
    private enum State { case queued, rendering, done }

    private let condition = NSCondition()
    private var state = State.queued

    /// Called by the render before it starts: false when the full compile came first
    /// (then there is nothing to render).
    func start() -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard state == .queued else { return false }
        state = .rendering
        return true
    }

    /// Called by the render when its frame is sent or dropped.
    func finish() {
        condition.lock()
        state = .done
        condition.broadcast()
        condition.unlock()
    }

    /// Called by the full compile before it installs its library and answers: a render
    /// not started yet is abandoned, one under way is waited for.
    func settle() {
        condition.lock()
        if state == .queued { state = .done }
        while state == .rendering { condition.wait() }
        condition.unlock()
    }
}
