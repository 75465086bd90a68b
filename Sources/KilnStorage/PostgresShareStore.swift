import Foundation
import Logging
import PostgresNIO

/// `ShareStore` in PostgreSQL through PostgresNIO, for several `kiln serve` instances
/// sharing one database (`kiln serve --database postgres://…`, docs/deploy.md). The same
/// tables and the same answers as `SQLiteShareStore` (both pass `ShareStoreTests`); every
/// write is one transaction. Each call blocks its worker until the database answers, at
/// most `timeout` seconds: a database that stops answering costs a share one clear
/// `unavailable` refusal, not a worker held forever (`PostgresConnectionPool`).
public final class PostgresShareStore: ShareStore, @unchecked Sendable {
    private let pool: PostgresConnectionPool
    public let limits: StorageLimits
    /// Seconds one call may wait for the database (`--database-timeout`).
    public var timeout: Double { pool.timeout }
    /// Where it connects, without the password, for messages.
    public let location: String

    /// Connects and migrates the schema, which proves the database is reachable.
    /// `url`: `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?schema=NAME&sslmode=disable|prefer|require|verify-full]`.
    public init(url: String, limits: StorageLimits = StorageLimits(), timeout: Double = 5, maxConnections: Int = 8) throws {
        let target = try PostgresURL(url)
        pool = PostgresConnectionPool(configuration: target.configuration(timeout: timeout), maxConnections: maxConnections, timeout: timeout)
        self.limits = limits
        location = target.description
        try call { try self.migrate(schema: target.schema) }
    }

    // MARK: Schema

    /// The schema's history, in order. Never edit a shipped migration: add the next one.
    /// The same tables as `SQLiteShareStore.migrator`, in PostgreSQL's types.
    static let migrations: [(name: String, statements: [String])] = [
        ("v1", [
            "CREATE TABLE share (id text PRIMARY KEY, state bytea NOT NULL, created double precision NOT NULL)",
            "CREATE TABLE content (sha256 text PRIMARY KEY, bytes bytea NOT NULL, created double precision NOT NULL)",
        ]),
        ("v2", [
            // History: every version that compiled, per client, its files in `content`.
            """
            CREATE TABLE version (client text NOT NULL, sha256 text NOT NULL, first double precision NOT NULL,
                                  last double precision NOT NULL, PRIMARY KEY (client, sha256))
            """,
            "CREATE INDEX version_by_client ON version (client, last)",
        ]),
        ("v3", [
            // Share quotas: bytes each client address shared on each UTC day.
            "CREATE TABLE quota (client text NOT NULL, day bigint NOT NULL, bytes bigint NOT NULL, PRIMARY KEY (client, day))",
        ]),
    ]

    /// The advisory lock key of migrations ("kiln" in ASCII).
    static let migrationLock: Int64 = 0x6B69_6C6E

    /// Applies the migrations not yet applied, each in its own transaction. Instances that
    /// start together take turns on a transaction-scoped advisory lock, so each migration
    /// runs once.
    private func migrate(schema: String?) throws {
        for migration in Self.migrations {
            try pool.withTransaction { db, deadline in
                try pool.run(db, "SELECT pg_advisory_xact_lock(\(Self.migrationLock))", deadline)
                // Under the lock: two `IF NOT EXISTS` at once can both try, and one fails.
                if let schema { try pool.run(db, "CREATE SCHEMA IF NOT EXISTS \(unescaped: schema)", deadline) }
                try pool.run(db, "CREATE TABLE IF NOT EXISTS kiln_migration (name text PRIMARY KEY, applied double precision NOT NULL)", deadline)
                guard try pool.run(db, "SELECT 1 FROM kiln_migration WHERE name = \(migration.name)", deadline).isEmpty else { return }
                for statement in migration.statements { try pool.run(db, PostgresQuery(unsafeSQL: statement), deadline) }
                try pool.run(db, "INSERT INTO kiln_migration (name, applied) VALUES (\(migration.name), \(Date().timeIntervalSince1970))", deadline)
            }
        }
    }

    /// The migrations applied, in order.
    public func appliedMigrations() throws -> [String] {
        try call {
            try pool.withConnection { db, deadline in
                try pool.run(db, "SELECT name FROM kiln_migration ORDER BY name", deadline).map { try $0.decode(String.self) }
            }
        }
    }

    // MARK: ShareStore

    public func saveState(_ json: [UInt8]) throws -> String {
        guard json.count <= limits.maxStateBytes else {
            throw StorageError("the state is \(json.count) bytes, more than the limit of \(limits.maxStateBytes) (--max-share-bytes)")
        }
        let id = ContentID.shareID(json)
        try execute("INSERT INTO share (id, state, created) VALUES (\(id), \(Data(json)), \(Date().timeIntervalSince1970)) ON CONFLICT DO NOTHING")
        return id
    }

    public func loadState(id: String) throws -> [UInt8]? {
        guard ContentID.isShareID(id) else { return nil }
        return try fetchBytes("SELECT state FROM share WHERE id = \(id)")
    }

    public func saveContent(_ bytes: [UInt8]) throws -> String {
        guard bytes.count <= limits.maxContentBytes else {
            throw StorageError("the content is \(bytes.count) bytes, more than the limit of \(limits.maxContentBytes) (--max-share-content-bytes)")
        }
        let hash = ContentID.sha256Hex(bytes)
        try execute("INSERT INTO content (sha256, bytes, created) VALUES (\(hash), \(Data(bytes)), \(Date().timeIntervalSince1970)) ON CONFLICT DO NOTHING")
        return hash
    }

    public func loadContent(hash: String) throws -> [UInt8]? {
        guard ContentID.isSHA256Hex(hash) else { return nil }
        return try fetchBytes("SELECT bytes FROM content WHERE sha256 = \(hash)")
    }

    /// One statement on its own.
    private func execute(_ query: PostgresQuery) throws {
        _ = try call { try pool.withConnection { db, deadline in try pool.run(db, query, deadline) } }
    }

    /// The first column of the first row as bytes, nil without rows.
    private func fetchBytes(_ query: PostgresQuery) throws -> [UInt8]? {
        try call {
            try pool.withConnection { db, deadline in
                try pool.run(db, query, deadline).first.map { [UInt8](try $0.decode(Data.self)) }
            }
        }
    }

    public func saveVersion(client: String, files: [UInt8], time: Double) throws -> String {
        guard ContentID.isClientID(client) else { throw StorageError("not a client id") }
        guard files.count <= limits.maxStateBytes else {
            throw StorageError("the version is \(files.count) bytes, more than the limit of \(limits.maxStateBytes) (--max-share-bytes)")
        }
        let hash = ContentID.sha256Hex(files), keep = max(1, limits.maxVersionsPerClient)
        try call {
            try pool.withTransaction { db, deadline in
                try pool.run(db, "INSERT INTO content (sha256, bytes, created) VALUES (\(hash), \(Data(files)), \(time)) ON CONFLICT DO NOTHING",
                             deadline)
                try pool.run(db, """
                    INSERT INTO version (client, sha256, first, last) VALUES (\(client), \(hash), \(time), \(time))
                    ON CONFLICT (client, sha256) DO UPDATE
                      SET first = LEAST(version.first, excluded.first), last = GREATEST(version.last, excluded.last)
                    """, deadline)
                // The quota, as SQLiteShareStore.pruneVersions: the least recently compiled
                // versions past it go, with the files no other client's history holds.
                let forgotten = try pool.run(db, """
                    DELETE FROM version WHERE client = \(client) AND sha256 IN
                      (SELECT sha256 FROM version WHERE client = \(client) ORDER BY last DESC, sha256 OFFSET \(keep))
                    RETURNING sha256
                    """, deadline).map { try $0.decode(String.self) }
                for stale in forgotten {
                    try pool.run(db, "DELETE FROM content WHERE sha256 = \(stale) AND NOT EXISTS (SELECT 1 FROM version WHERE sha256 = \(stale))",
                                 deadline)
                }
            }
        }
        return hash
    }

    public func versions(client: String, limit: Int) throws -> [Version] {
        guard ContentID.isClientID(client) else { return [] }
        return try call {
            try pool.withConnection { db, deadline in
                try pool.run(db, """
                    SELECT v.sha256, v.first, v.last, octet_length(c.bytes)::bigint FROM version v JOIN content c ON c.sha256 = v.sha256
                    WHERE v.client = \(client) ORDER BY v.last DESC LIMIT \(max(0, limit))
                    """, deadline).map { row in
                    let (hash, first, last, bytes) = try row.decode((String, Double, Double, Int).self)
                    return Version(sha256: hash, firstCompiled: first, lastCompiled: last, bytes: bytes)
                }
            }
        }
    }

    public func charge(client: String, bytes: Int, day: Int, limit: Int) throws -> Bool {
        guard bytes >= 0, bytes <= limit else { return false }
        return try call {
            try pool.withConnection { db, deadline in
                // One statement, one round trip: the earlier days go, and the upsert counts
                // only when it fits, so instances charging one client at once cannot both fit.
                try !pool.run(db, """
                    WITH forgotten AS (DELETE FROM quota WHERE client = \(client) AND day < \(day))
                    INSERT INTO quota (client, day, bytes) VALUES (\(client), \(day), \(bytes))
                    ON CONFLICT (client, day) DO UPDATE SET bytes = quota.bytes + excluded.bytes
                    WHERE quota.bytes + excluded.bytes <= \(limit)
                    RETURNING bytes
                    """, deadline).isEmpty
            }
        }
    }

    public func counts() throws -> (states: Int, contents: Int) {
        try call {
            try pool.withConnection { db, deadline in
                let row = try pool.run(db, "SELECT (SELECT COUNT(*) FROM share), (SELECT COUNT(*) FROM content)", deadline).first!
                return try row.decode((Int, Int).self)
            }
        }
    }

    // MARK: Errors

    /// Runs `body`, turning what the database or the network says into `StorageUnavailable`
    /// with the server's own message and where it was (PSQLError's own description hides
    /// everything, to keep details from end users; these go to the operator's log and to
    /// `kiln serve`'s start-up refusal).
    private func call<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as StorageUnavailable {
            throw StorageUnavailable("PostgreSQL at \(location): \(error.message)")
        } catch let error as PSQLError {
            if let message = error.serverInfo?[.message] { throw StorageUnavailable("PostgreSQL at \(location): \(message)") }
            if let underlying = error.underlying { throw StorageUnavailable("PostgreSQL at \(location): \(underlying)") }
            throw StorageUnavailable("PostgreSQL at \(location): \(error.code)")
        } catch {
            throw StorageUnavailable("PostgreSQL at \(location): \(error)")
        }
    }
}

/// The store could not reach its database or the database refused the operation; nothing
/// was written (a write is one transaction). The server answers `unavailable` (503).
public struct StorageUnavailable: Error, CustomStringConvertible, Equatable {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
