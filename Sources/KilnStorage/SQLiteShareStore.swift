import Foundation
import GRDB

/// `ShareStore` in one SQLite file (`DIR/kiln.sqlite`, created on first use) through GRDB.
/// Every write is one transaction, so a SIGTERM never leaves half a share; the schema is
/// versioned by GRDB's `DatabaseMigrator` (migrations are append-only, named `v1`, `v2`, …).
/// A `DatabasePool`: the file is in WAL mode, so permalinks are read while others are
/// written (50 clients sharing at once do not queue their reads behind the writes).
public final class SQLiteShareStore: ShareStore, @unchecked Sendable {
    private let database: DatabasePool
    public let limits: StorageLimits
    /// The file, for messages and tests.
    public let path: String

    /// Opens (creating the folder and the file when missing) and migrates the database.
    public init(directory: String, limits: StorageLimits = StorageLimits()) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        path = (directory as NSString).appendingPathComponent("kiln.sqlite")
        var configuration = Configuration()
        configuration.busyMode = .timeout(5)
        database = try DatabasePool(path: path, configuration: configuration)
        self.limits = limits
        try Self.migrator.migrate(database)
    }

    /// The schema's history. Never edit a shipped migration: add the next one.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.create(table: "share") { t in
                t.primaryKey("id", .text)
                t.column("state", .blob).notNull()
                t.column("created", .double).notNull()
            }
            try db.create(table: "content") { t in
                t.primaryKey("sha256", .text)
                t.column("bytes", .blob).notNull()
                t.column("created", .double).notNull()
            }
        }
        migrator.registerMigration("v2") { db in
            // History: every version that compiled, per client, its files in `content`.
            try db.create(table: "version") { t in
                t.column("client", .text).notNull()
                t.column("sha256", .text).notNull()
                t.column("first", .double).notNull()
                t.column("last", .double).notNull()
                t.primaryKey(["client", "sha256"])
            }
            try db.create(index: "version_by_client", on: "version", columns: ["client", "last"])
        }
        migrator.registerMigration("v3") { db in
            // Share quotas: bytes each client address shared on each UTC day.
            try db.create(table: "quota") { t in
                t.column("client", .text).notNull()
                t.column("day", .integer).notNull()
                t.column("bytes", .integer).notNull()
                t.primaryKey(["client", "day"])
            }
        }
        return migrator
    }

    /// The migrations applied, in order (`["v1"]` today).
    public func appliedMigrations() throws -> [String] {
        try database.read { db in try Self.migrator.appliedMigrations(db) }
    }

    public func saveState(_ json: [UInt8]) throws -> String {
        guard json.count <= limits.maxStateBytes else {
            throw StorageError("the state is \(json.count) bytes, more than the limit of \(limits.maxStateBytes) (--max-share-bytes)")
        }
        let id = ContentID.shareID(json)
        try database.write { db in
            try db.execute(sql: "INSERT OR IGNORE INTO share (id, state, created) VALUES (?, ?, ?)",
                           arguments: [id, Data(json), Date().timeIntervalSince1970])
        }
        return id
    }

    public func loadState(id: String) throws -> [UInt8]? {
        guard ContentID.isShareID(id) else { return nil }
        return try database.read { db in
            try Data.fetchOne(db, sql: "SELECT state FROM share WHERE id = ?", arguments: [id]).map { [UInt8]($0) }
        }
    }

    public func saveContent(_ bytes: [UInt8]) throws -> String {
        guard bytes.count <= limits.maxContentBytes else {
            throw StorageError("the content is \(bytes.count) bytes, more than the limit of \(limits.maxContentBytes) (--max-share-content-bytes)")
        }
        let hash = ContentID.sha256Hex(bytes)
        try database.write { db in
            try db.execute(sql: "INSERT OR IGNORE INTO content (sha256, bytes, created) VALUES (?, ?, ?)",
                           arguments: [hash, Data(bytes), Date().timeIntervalSince1970])
        }
        return hash
    }

    public func loadContent(hash: String) throws -> [UInt8]? {
        guard ContentID.isSHA256Hex(hash) else { return nil }
        return try database.read { db in
            try Data.fetchOne(db, sql: "SELECT bytes FROM content WHERE sha256 = ?", arguments: [hash]).map { [UInt8]($0) }
        }
    }

    public func saveVersion(client: String, files: [UInt8], time: Double) throws -> String {
        guard ContentID.isClientID(client) else { throw StorageError("not a client id") }
        guard files.count <= limits.maxStateBytes else {
            throw StorageError("the version is \(files.count) bytes, more than the limit of \(limits.maxStateBytes) (--max-share-bytes)")
        }
        let hash = ContentID.sha256Hex(files)
        try database.write { db in
            try db.execute(sql: "INSERT OR IGNORE INTO content (sha256, bytes, created) VALUES (?, ?, ?)",
                           arguments: [hash, Data(files), time])
            try db.execute(sql: """
                INSERT INTO version (client, sha256, first, last) VALUES (?, ?, ?, ?)
                ON CONFLICT(client, sha256) DO UPDATE SET first = min(first, excluded.first), last = max(last, excluded.last)
                """, arguments: [client, hash, time, time])
            try pruneVersions(db, client: client)
        }
        return hash
    }

    /// Forgets the client's least recently compiled versions past the quota, and the files
    /// of those no other client's history holds (version files are JSON; uploads, the other
    /// content, are PNGs, so a hash is never both).
    private func pruneVersions(_ db: Database, client: String) throws {
        let stale = try String.fetchAll(db, sql: """
            SELECT sha256 FROM version WHERE client = ? ORDER BY last DESC, sha256 LIMIT -1 OFFSET ?
            """, arguments: [client, max(1, limits.maxVersionsPerClient)])
        for hash in stale {
            try db.execute(sql: "DELETE FROM version WHERE client = ? AND sha256 = ?", arguments: [client, hash])
            try db.execute(sql: "DELETE FROM content WHERE sha256 = ? AND NOT EXISTS (SELECT 1 FROM version WHERE sha256 = ?)",
                           arguments: [hash, hash])
        }
    }

    public func versions(client: String, limit: Int) throws -> [Version] {
        guard ContentID.isClientID(client) else { return [] }
        return try database.read { db in
            try Row.fetchAll(db, sql: """
                SELECT v.sha256, v.first, v.last, length(c.bytes) AS bytes FROM version v JOIN content c ON c.sha256 = v.sha256
                WHERE v.client = ? ORDER BY v.last DESC LIMIT ?
                """, arguments: [client, max(0, limit)]).map { row in
                Version(sha256: row["sha256"], firstCompiled: row["first"], lastCompiled: row["last"], bytes: row["bytes"])
            }
        }
    }

    public func charge(client: String, bytes: Int, day: Int, limit: Int) throws -> Bool {
        try database.write { db in
            try db.execute(sql: "DELETE FROM quota WHERE client = ? AND day < ?", arguments: [client, day])
            let used = try Int.fetchOne(db, sql: "SELECT bytes FROM quota WHERE client = ? AND day = ?", arguments: [client, day]) ?? 0
            guard bytes >= 0, used + bytes <= limit else { return false }
            try db.execute(sql: """
                INSERT INTO quota (client, day, bytes) VALUES (?, ?, ?)
                ON CONFLICT(client, day) DO UPDATE SET bytes = bytes + excluded.bytes
                """, arguments: [client, day, bytes])
            return true
        }
    }

    public func counts() throws -> (states: Int, contents: Int) {
        try database.read { db in
            (try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM share") ?? 0,
             try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM content") ?? 0)
        }
    }
}
