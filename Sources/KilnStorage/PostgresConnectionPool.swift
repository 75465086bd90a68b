import Foundation
import Logging
import PostgresNIO

/// A few PostgreSQL connections shared by the server's worker threads, each call blocking
/// its thread until the database answers or `timeout` passes.
///
/// Why not PostgresNIO's own `PostgresClient`: it is async and runs on Swift's cooperative
/// thread pool, and `ShareStore` is called synchronously from worker threads. Blocking a
/// thread on a task that needs the same small pool deadlocks (seen: any caller on the pool,
/// as test runners are, hung every query on this 2-core machine). Connections driven by
/// `EventLoopFuture`s run on NIO's own event-loop threads, so waiting for one from any
/// other thread is safe. What this adds is the small part `PostgresClient` would have
/// given: reuse, a bound on connections, and dropping a connection that failed.
final class PostgresConnectionPool: @unchecked Sendable {
    private let configuration: PostgresConnection.Configuration
    private let group: any EventLoopGroup
    private let logger: Logger
    /// Most open connections; a caller past it waits for one to come back.
    let maxConnections: Int
    /// Seconds a call may wait: for a connection, then for its answer.
    let timeout: Double

    private let condition = NSCondition()
    private var idle: [PostgresConnection] = []
    private var open = 0
    private var nextID = 0

    init(configuration: PostgresConnection.Configuration, maxConnections: Int, timeout: Double,
         group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) {
        self.configuration = configuration
        self.group = group
        self.maxConnections = max(1, maxConnections)
        self.timeout = timeout
        var logger = Logger(label: "kiln.postgres")
        logger.logLevel = .critical
        self.logger = logger
    }

    deinit {
        for connection in idle { Self.close(connection) }
    }

    /// Closes without waiting, keeping the connection alive until it is closed (PostgresNIO
    /// requires a connection to be closed before it goes).
    private static func close(_ connection: PostgresConnection) {
        let closing: EventLoopFuture<Void> = connection.close()
        closing.whenComplete { _ in withExtendedLifetime(connection) {} }
    }

    /// Lends a connection to `body`. A connection is given back only when `body` succeeded
    /// or failed with the server's own error (a refused statement leaves it usable); after
    /// a timeout or a broken connection it is closed, and the next call opens a new one.
    /// A kept connection the server has closed meanwhile (PostgreSQL restarted, an idle
    /// timeout, a failover) fails on first use: then `body` runs once more on a new
    /// connection — every statement the stores run may be repeated (inserts that ignore
    /// conflicts, upserts, and transactions that rolled back).
    func withConnection<T>(_ body: (PostgresConnection, Deadline) throws -> T) throws -> T {
        let deadline = Deadline(seconds: timeout)
        var (connection, reused) = try lease(deadline)
        while true {
            do {
                let result = try body(connection, deadline)
                giveBack(connection, usable: true)
                return result
            } catch let error as PSQLError where error.serverInfo != nil && !connection.isClosed {
                giveBack(connection, usable: true)
                throw error
            } catch {
                giveBack(connection, usable: false)
                guard reused, !(error is StorageUnavailable), deadline.remaining > 0 else { throw error }
                (connection, reused) = try lease(deadline, fresh: true)
            }
        }
    }

    /// `body` inside `BEGIN` … `COMMIT` (`ROLLBACK` when it throws): all of it or none.
    func withTransaction<T>(_ body: (PostgresConnection, Deadline) throws -> T) throws -> T {
        try withConnection { connection, deadline in
            try run(connection, "BEGIN", deadline)
            do {
                let result = try body(connection, deadline)
                try run(connection, "COMMIT", deadline)
                return result
            } catch {
                _ = try? run(connection, "ROLLBACK", deadline)
                throw error
            }
        }
    }

    /// Runs one statement and collects its rows, waiting at most until `deadline`.
    @discardableResult
    func run(_ connection: PostgresConnection, _ query: PostgresQuery, _ deadline: Deadline) throws -> PostgresQueryResult {
        try wait(connection.query(query, logger: logger), on: connection.eventLoop, deadline)
    }

    // MARK: Leasing

    /// A kept connection (`reused`), or a new one; `fresh` skips the kept ones.
    private func lease(_ deadline: Deadline, fresh: Bool = false) throws -> (PostgresConnection, reused: Bool) {
        condition.lock()
        while true {
            if !fresh, let connection = idle.popLast() {
                if connection.isClosed { open -= 1; continue }   // closed by the server while idle
                condition.unlock()
                return (connection, true)
            }
            if fresh, open >= maxConnections, let kept = idle.popLast() {   // make room for the new one
                Self.close(kept)
                open -= 1
            }
            if open < maxConnections { break }
            guard condition.wait(until: deadline.date) else {
                condition.unlock()
                throw StorageUnavailable("all \(maxConnections) database connections stayed busy for \(timeout) s")
            }
        }
        open += 1
        nextID += 1
        let id = nextID
        condition.unlock()
        do {
            let eventLoop = group.next()
            let connecting = PostgresConnection.connect(on: eventLoop, configuration: configuration, id: id, logger: logger)
            do {
                return (try wait(connecting, on: eventLoop, deadline), false)
            } catch {
                connecting.whenSuccess { Self.close($0) }     // it may still succeed after the timeout
                throw error
            }
        } catch {
            condition.lock()
            open -= 1
            condition.signal()
            condition.unlock()
            throw error
        }
    }

    private func giveBack(_ connection: PostgresConnection, usable: Bool) {
        if !usable || connection.isClosed { Self.close(connection) }
        condition.lock()
        if usable && !connection.isClosed { idle.append(connection) } else { open -= 1 }
        condition.signal()
        condition.unlock()
    }

    /// Waits for `future` until `deadline`; past it the wait fails (the caller's connection
    /// is then dropped, which also ends whatever it was doing on the server).
    private func wait<T>(_ future: EventLoopFuture<T>, on eventLoop: any EventLoop, _ deadline: Deadline) throws -> T {
        let promise = eventLoop.makePromise(of: T.self)
        future.cascade(to: promise)
        let timer = eventLoop.scheduleTask(in: .nanoseconds(Int64(max(0, deadline.remaining) * 1e9))) {
            promise.fail(StorageUnavailable("no answer within \(self.timeout) s (--database-timeout)"))
        }
        defer { timer.cancel() }
        return try promise.futureResult.wait()
    }

    /// When a call's time is up.
    struct Deadline {
        let date: Date
        init(seconds: Double) { date = Date().addingTimeInterval(seconds) }
        var remaining: Double { date.timeIntervalSinceNow }
    }
}
