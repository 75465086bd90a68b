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

    public func counts() throws -> (states: Int, contents: Int) {
        try database.read { db in
            (try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM share") ?? 0,
             try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM content") ?? 0)
        }
    }
}
