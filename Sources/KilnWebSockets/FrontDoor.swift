import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Accepts plain-HTTP connections, reads each request head, and either answers it itself
/// (a refusal: 400, 411, 413, 414, 431, 501, 505, 408 on a silent client, 503 when too
/// many wait) or hands the socket to libwebsockets (adopted on the service thread). Why it
/// exists: see `RequestHead`. One thread, one `poll` over the listening socket and the
/// connections still sending their head; each leaves within `headTimeout`, so silent or
/// dribbling clients cost a descriptor and a socket buffer each, bounded by `maxWaiting`.
///
/// The head is read with `MSG_PEEK` and stays in the socket until it is judged.
/// libwebsockets 4.1.6 can be handed bytes already read (`lws_adopt_socket_vhost_readbuf`),
/// but then serves them again as the request body: so a request with a body (or a
/// WebSocket handshake, whose first frames may follow) is handed over untouched and
/// libwebsockets reads its head itself, while a request without one is consumed and
/// handed over as a rewritten head (origin-form target, `Connection: close`), dropping
/// whatever was pipelined behind it. `SO_RCVLOWAT` makes `poll` wake only when more than
/// the bytes already peeked have arrived, so an incomplete head costs no busy loop.
///
/// Refusals close gracefully: the answer, then a half-close, then unread bytes are read
/// and dropped for up to `lingerSeconds` — closing a socket with unread bytes resets the
/// connection, and the client would lose the answer (RFC 9112 §9.6).
final class FrontDoor: @unchecked Sendable {
    struct Settings {
        var limits: RequestHeadLimits
        /// Seconds a connection may take to send its head (then 408 and close).
        var headTimeout: Double
        /// Most connections still sending their head; past it new ones get 503.
        var maxWaiting: Int
        /// Seconds a refused connection's leftover bytes are drained before closing.
        var lingerSeconds: Double = 2
    }

    private let listener: ListeningSocket
    private let settings: Settings
    private let handOff: (Int32, [UInt8]?) -> Void
    /// The peek buffer, shared by all visitors (one thread): room for the largest head the
    /// limits allow; a head not complete within it is too large.
    private var window: [UInt8]
    private var wakeDescriptors: [Int32] = [-1, -1]
    /// Held open to be given up when descriptors run out (see `shedWithoutDescriptors`).
    private var reserveDescriptor: Int32 = -1
    private let lock = NSLock()
    private var stopping = false
    private var thread: Thread?
    private let finished = DispatchSemaphore(value: 0)

    /// A connection the front door holds: still sending its head, or being refused.
    private struct Visitor {
        enum Phase { case reading, answering([UInt8], sent: Int), lingering }
        let descriptor: Int32
        /// Head bytes seen so far, still unread in the socket.
        var peeked = 0
        var deadline: Double
        /// Connections that trickle their head in many small pieces are looked at no more
        /// often than every `trickleInterval` seconds after the first `quickLooks` pieces.
        var looks = 0
        var quietUntil = 0.0
        var saysHEAD = false
        var phase: Phase = .reading
    }
    /// `POLLRDHUP` (the peer shut down its sending side): Linux's value; Glibc's Swift module
    /// leaves the GNU extension out.
    private static let pollReadHangUp: Int16 = 0x2000
    private static let quickLooks = 8
    private static let headMethod = Array("HEAD ".utf8)
    private static let trickleInterval = 0.02
    private var visitors: [Visitor] = []

    /// `handOff(descriptor, head)` receives an accepted connection, with the head
    /// libwebsockets must read first when the front door has consumed it (nil: the head is
    /// still in the socket); it owns the descriptor from then on.
    init(listener: ListeningSocket, settings: Settings, handOff: @escaping (Int32, [UInt8]?) -> Void) {
        self.listener = listener
        self.settings = settings
        self.handOff = handOff
        let limits = settings.limits
        window = [UInt8](repeating: 0, count: limits.maxTargetBytes + limits.maxFieldBytes + 4 * limits.maxFields + 64)
    }

    func start() throws {
        guard pipe(&wakeDescriptors) == 0 else {
            throw ServerError(description: "cannot create a pipe: \(String(cString: strerror(errno)))")
        }
        wakeDescriptors.forEach(Self.makeNonBlockingAndPrivate)
        reserveDescriptor = open("/dev/null", O_RDONLY | O_CLOEXEC)
        let thread = Thread { [self] in run() }
        thread.name = "kiln-front-door"
        self.thread = thread
        thread.start()
    }

    /// Stops accepting, closes every connection still held, and returns when the thread has.
    func stop() {
        lock.lock()
        let first = !stopping
        stopping = true
        lock.unlock()
        guard thread != nil else { return }
        if first {
            var byte: UInt8 = 1
            _ = write(wakeDescriptors[1], &byte, 1)
        }
        finished.wait()
        finished.signal()
    }

    private var isStopping: Bool {
        lock.lock(); defer { lock.unlock() }
        return stopping
    }

    /// `accept4` and `pipe2` would set these at once, but Glibc's Swift module leaves out
    /// GNU extensions; the front door's thread is the only one creating descriptors that
    /// matter here, and `kiln serve` runs no child processes, so the window is harmless.
    private static func makeNonBlockingAndPrivate(_ descriptor: Int32) {
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
    }

    /// `TCP_NODELAY`, which libwebsockets sets on the sockets it accepts itself but not on
    /// adopted ones. Without it a message written right after another — the library after
    /// the `compiled` reply, a coarse frame after both — waited in the kernel (Nagle) for
    /// the client's delayed acknowledgement of the first: 40 ms on Linux, 10 times the
    /// whole edit → first pixels of every case. Harmless on a Unix-domain socket (it fails).
    private static func sendSmallWritesAtOnce(_ descriptor: Int32) {
        var on: Int32 = 1
        _ = setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
    }

    private static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) * 1e-9
    }

    private func run() {
        while !isStopping {
            var polled = [pollfd(fd: listener.descriptor, events: Int16(POLLIN), revents: 0),
                          pollfd(fd: wakeDescriptors[0], events: Int16(POLLIN), revents: 0)]
            let before = Self.now()
            for visitor in visitors {
                switch visitor.phase {
                case .answering: polled.append(pollfd(fd: visitor.descriptor, events: Int16(POLLOUT), revents: 0))
                case .reading where visitor.quietUntil > before:
                    polled.append(pollfd(fd: -1, events: 0, revents: 0))   // resting: poll skips negative descriptors
                case .reading, .lingering:
                    polled.append(pollfd(fd: visitor.descriptor, events: Int16(POLLIN) | Self.pollReadHangUp, revents: 0))
                }
            }
            let soonest = visitors.map { $0.quietUntil > before ? min($0.deadline, $0.quietUntil) : $0.deadline }
                .min().map { max(0, $0 - before) } ?? 1
            _ = poll(&polled, nfds_t(polled.count), Int32(min(1000, soonest * 1000 + 1)))
            if polled[1].revents != 0 {
                var sink = [UInt8](repeating: 0, count: 64)
                while read(wakeDescriptors[0], &sink, sink.count) > 0 {}
            }
            // Visitors first (their indices match `polled`), then new arrivals.
            let now = Self.now()
            var kept: [Visitor] = []
            kept.reserveCapacity(visitors.count)
            for (index, visitor) in visitors.enumerated() {
                var events = polled[index + 2].revents
                if polled[index + 2].fd < 0, case .reading = visitor.phase, visitor.quietUntil <= now { events = Int16(POLLIN) }
                if let next = serve(visitor, events: events, now: now) { kept.append(next) }
            }
            visitors = kept
            if polled[0].revents & Int16(POLLIN) != 0 { acceptArrivals(now: now) }
        }
        close(listener.descriptor)
        for visitor in visitors { close(visitor.descriptor) }
        visitors.removeAll()
        close(wakeDescriptors[0])
        close(wakeDescriptors[1])
        if reserveDescriptor >= 0 { close(reserveDescriptor) }
        finished.signal()
    }

    /// Accepts what is waiting (a bounded number per round, so one flood cannot starve the
    /// connections already held).
    private func acceptArrivals(now: Double) {
        for _ in 0 ..< 64 {
            let descriptor = accept(listener.descriptor, nil, nil)
            guard descriptor >= 0 else {
                if errno == EMFILE || errno == ENFILE { shedWithoutDescriptors() }
                return
            }
            Self.makeNonBlockingAndPrivate(descriptor)
            Self.sendSmallWritesAtOnce(descriptor)
            var visitor = Visitor(descriptor: descriptor, deadline: now + settings.headTimeout)
            // Only heads still arriving count: a connection already answered (a 408, a
            // refusal) and lingering until its client closes is on its way out, and counting
            // it refused a new client that came right after an answered one (a flaky e2e test).
            let waiting = visitors.reduce(0) { count, other in
                if case .reading = other.phase { return count + 1 }
                return count
            }
            if waiting >= settings.maxWaiting {
                // Too many heads in progress: refuse this one at once, gracefully.
                let refusal = HeadRefusal(status: 503, reason: "too many connections waiting to send a request (maxWaitingConnections = \(settings.maxWaiting))")
                visitor.phase = .answering(refusal.response(), sent: 0)
                visitor.deadline = now + settings.lingerSeconds
                if let next = serve(visitor, events: Int16(POLLOUT), now: now) {
                    // Over the bound only by connections on their way out (answered, lingering).
                    visitors.append(next)
                }
                continue
            }
            visitors.append(visitor)
        }
    }

    /// Out of descriptors, a waiting connection stays in the kernel's queue and `poll` would
    /// report it forever (a busy loop). The reserve descriptor is given up to accept it,
    /// tell it why, and close it (a best-effort answer: it may not have been read).
    private func shedWithoutDescriptors() {
        guard reserveDescriptor >= 0 else { return }
        close(reserveDescriptor)
        let descriptor = accept(listener.descriptor, nil, nil)
        if descriptor >= 0 {
            let answer = HeadRefusal(status: 503, reason: "the server is out of file descriptors").response()
            _ = answer.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            close(descriptor)
        }
        reserveDescriptor = open("/dev/null", O_RDONLY | O_CLOEXEC)
    }

    /// Moves one visitor on; nil when it has left (closed or handed to libwebsockets).
    private func serve(_ visitor: Visitor, events: Int16, now: Double) -> Visitor? {
        var visitor = visitor
        switch visitor.phase {
        case .reading:
            if events & Int16(POLLIN | POLLHUP | POLLERR) != 0 {
                let count = window.withUnsafeMutableBytes { recv(visitor.descriptor, $0.baseAddress, $0.count, Int32(MSG_PEEK)) }
                if count == 0 || (count < 0 && errno != EAGAIN && errno != EINTR) {
                    close(visitor.descriptor)   // gone before finishing its request
                    return nil
                }
                if count > visitor.peeked {
                    let previous = visitor.peeked
                    visitor.peeked = count
                    visitor.saysHEAD = window.starts(with: Self.headMethod)
                    // Parse only when a line may have ended, or the first line is already too
                    // long: a client dribbling a byte at a time costs no re-parsing.
                    if window[previous ..< count].contains(0x0A) || count > settings.limits.maxTargetBytes + 32 {
                        if let decided = decide(visitor, now: now) { return decided }
                    }
                    // Incomplete: wake when more than what is queued now has arrived.
                    Self.setLowWater(visitor.descriptor, count + 1)
                    visitor.looks += 1
                    if visitor.looks > Self.quickLooks { visitor.quietUntil = now + Self.trickleInterval }
                } else if count > 0, events & Self.pollReadHangUp | Int16(POLLHUP) != 0 {
                    close(visitor.descriptor)   // half-closed with an unfinished head: nothing more will come
                    return nil
                }
            }
            if now >= visitor.deadline {
                guard visitor.peeked > 0 else { close(visitor.descriptor); return nil }
                return refuse(visitor, HeadRefusal(status: 408, reason: "the request head did not arrive within \(settings.headTimeout) s"), now: now)
            }
            return visitor
        case .answering(let bytes, let sent):
            let count = bytes[sent...].withUnsafeBytes { send(visitor.descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count < 0 && errno != EAGAIN && errno != EINTR || now >= visitor.deadline {
                close(visitor.descriptor)
                return nil
            }
            let total = sent + max(0, count)
            if total < bytes.count {
                visitor.phase = .answering(bytes, sent: total)
                return visitor
            }
            shutdown(visitor.descriptor, Int32(SHUT_WR))
            visitor.phase = .lingering
            return visitor
        case .lingering:
            if events & Int16(POLLIN | POLLHUP | POLLERR) != 0 {
                let count = window.withUnsafeMutableBytes { recv(visitor.descriptor, $0.baseAddress, $0.count, 0) }
                if count == 0 || (count < 0 && errno != EAGAIN && errno != EINTR) {
                    close(visitor.descriptor)
                    return nil
                }
            }
            if now >= visitor.deadline { close(visitor.descriptor); return nil }
            return visitor
        }
    }

    /// Judges the head peeked so far: nil while it is incomplete (and may still fit),
    /// otherwise what became of the visitor (refused, or handed over and gone).
    private func decide(_ visitor: Visitor, now: Double) -> Visitor?? {
        let reading = RequestHead.read(Array(window[..<visitor.peeked]), limits: settings.limits)
        switch reading {
        case .incomplete where visitor.peeked < window.count:
            return nil
        case .incomplete:
            return refuse(visitor, HeadRefusal(status: 431, reason: "request head longer than \(window.count) bytes"), now: now)
        case .refused(let refusal):
            return refuse(visitor, refusal, now: now)
        case .accepted(var head, _):
            Self.setLowWater(visitor.descriptor, 1)
            let declaredBody = head.value("content-length").flatMap(Int.init) ?? 0
            if head.isUpgrade || declaredBody > 0 {
                handOff(visitor.descriptor, nil)
                return .some(nil)
            }
            // Nothing may follow but a pipelined next request, which this connection will
            // not serve (it closes after answering): read and dropped with the head, so
            // libwebsockets never parses a head the front door has not checked.
            consume(visitor.descriptor, visitor.peeked)
            head.fields.removeAll { $0.name.lowercased() == "connection" || $0.name.lowercased() == "keep-alive" }
            head.fields.append((name: "Connection", value: "close"))
            handOff(visitor.descriptor, head.serialized())
            return .some(nil)
        }
    }

    private static func setLowWater(_ descriptor: Int32, _ bytes: Int) {
        var value = Int32(clamping: bytes)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVLOWAT, &value, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Removes `count` bytes already peeked from the socket's queue (into the peek buffer,
    /// whose contents are no longer needed; `count` never exceeds its size).
    private func consume(_ descriptor: Int32, _ count: Int) {
        var left = count
        while left > 0 {
            let taken = window.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, left, 0) }
            if taken <= 0 { return }
            left -= taken
        }
    }

    private func refuse(_ visitor: Visitor, _ refusal: HeadRefusal, now: Double) -> Visitor? {
        var visitor = visitor
        let isHead = visitor.saysHEAD
        Self.setLowWater(visitor.descriptor, 1)   // lingering drains whatever arrives
        visitor.phase = .answering(refusal.response(forHead: isHead), sent: 0)
        visitor.deadline = now + settings.lingerSeconds
        return serve(visitor, events: Int16(POLLOUT), now: now)
    }
}
