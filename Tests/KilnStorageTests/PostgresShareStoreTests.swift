import Foundation
import KilnStorage
import Testing

/// What only the PostgreSQL store has: a URL, a server that may be away, several instances
/// starting on one database at once. The shared behaviour is `ShareStoreTests`.
@Suite struct PostgresShareStoreTests {
    /// URLs are checked before any connection: each refusal names what is wrong.
    @Test(arguments: [
        ("mysql://kiln@localhost/kiln", "not a PostgreSQL URL"),
        ("postgres://localhost/kiln", "names no user"),
        ("postgres://kiln@localhost", "names no database"),
        ("postgres://kiln@localhost/kiln?sslmode=maybe", "sslmode must be"),
        ("postgres://kiln@localhost/kiln?schema=a;DROP", "schema must be"),
        ("postgres://kiln@localhost/kiln?schema=Upper", "schema must be"),
        ("postgres://kiln@localhost/kiln?application_name=x", "does not know: application_name"),
    ])
    func badURLsAreRefusedClearly(_ url: String, _ message: String) {
        #expect {
            _ = try PostgresShareStore(url: url)
        } throws: { error in
            (error as? StorageError)?.message.contains(message) == true
        }
    }

    /// Nobody listening: the store refuses to open within its timeout, saying where it tried
    /// (`kiln serve --database` then exits with that message instead of serving without storage).
    @Test func anUnreachableServerIsAClearErrorAtStart() throws {
        let started = Date()
        #expect {
            _ = try PostgresShareStore(url: "postgres://kiln@127.0.0.1:9/kiln?sslmode=disable", timeout: 1)
        } throws: { error in
            "\(error)".contains("127.0.0.1:9") && error is StorageUnavailable
        }
        #expect(Date().timeIntervalSince(started) < 5)
    }

    /// Four instances starting together on a new schema: each migration runs once (the
    /// advisory lock), every instance opens, and they see each other's writes.
    @Test(.enabled(if: ShareStoreTests.postgresURL != nil)) func instancesStartingTogetherMigrateOnce() throws {
        let url = ShareStoreTests.postgresURL!
        let schema = "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let target = url + (url.contains("?") ? "&" : "?") + "schema=\(schema)"
        let stores = LockedStores()
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            if let store = try? PostgresShareStore(url: target) { stores.append(store) }
        }
        // `#require`: with no store open (the database went away) the test fails here
        // instead of indexing an empty array and taking the whole test process down.
        try #require(stores.values.count == 4)
        let id = try stores.values[0].saveState(ShareStoreTests.state(9))
        for store in stores.values {
            #expect(try store.loadState(id: id) == ShareStoreTests.state(9))
            #expect(try store.appliedMigrations() == ["v1", "v2", "v3"])
        }
    }

    /// The server drops the store's connections (a restart, a failover, an idle timeout):
    /// its kept connections are dead, and the next calls still succeed on new ones.
    @Test(.enabled(if: ShareStoreTests.postgresURL != nil)) func droppedConnectionsAreReplaced() throws {
        let place = UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let store = try ShareStoreTests.make("postgres", place: place)
        let id = try store.saveState(ShareStoreTests.state(11))
        DispatchQueue.concurrentPerform(iterations: 4) { _ in _ = try? store.loadState(id: id) }     // several kept connections
        // Connections name their schema (application_name kiln/SCHEMA): only this store's go.
        let psql = Process()
        psql.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        psql.arguments = ["psql", ShareStoreTests.postgresURL!, "-tAc",
                          "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = 'kiln/t_\(place)'"]
        let output = Pipe()
        psql.standardOutput = output
        try psql.run()
        psql.waitUntilExit()
        let killed = Int(String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        #expect(killed >= 1)
        Thread.sleep(forTimeInterval: 0.2)
        #expect(try store.loadState(id: id) == ShareStoreTests.state(11))
        #expect(try store.saveState(ShareStoreTests.state(12)) == ContentID.shareID(ShareStoreTests.state(12)))
        #expect(try store.counts().states == 2)
    }
}

final class LockedStores: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [PostgresShareStore] = []
    func append(_ item: PostgresShareStore) { lock.withLock { items.append(item) } }
    var values: [PostgresShareStore] { lock.withLock { items } }
}
