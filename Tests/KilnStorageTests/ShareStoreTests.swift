import Foundation
import KilnStorage
import KilnTestSupport
import Testing

/// The one suite every `ShareStore` passes: SQLite always, PostgreSQL when
/// `KILN_TEST_POSTGRES` names a server (`make test` starts one with tools/postgres.sh and
/// sets it; CI runs both).
@Suite struct ShareStoreTests {
    static let postgresURL = ProcessInfo.processInfo.environment["KILN_TEST_POSTGRES"].flatMap { $0.isEmpty ? nil : $0 }
    static let stores: [String] = ["sqlite"] + (postgresURL == nil ? [] : ["postgres"])

    /// A fresh store of each kind in its own place (a folder; a PostgreSQL schema); the
    /// same `place` again reopens what was stored there.
    static func make(_ kind: String, place: String? = nil, limits: StorageLimits = StorageLimits()) throws -> ShareStore {
        let place = place ?? UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        switch kind {
        case "postgres":
            let url = postgresURL!
            return try PostgresShareStore(url: url + (url.contains("?") ? "&" : "?") + "schema=t_\(place)", limits: limits)
        default:
            let folder = ScratchFolder.path("kiln-store-\(place)").path
            return try SQLiteShareStore(directory: folder, limits: limits)
        }
    }

    static func state(_ n: Int) -> [UInt8] {
        Array(#"{"source":"[[ stitchable ]] half4 f(float2 p) { return half4(\#(n)); }","function":"f"}"#.utf8)
    }

    @Test(arguments: stores) func statesRoundTripAndShareAnIDPerContent(_ kind: String) throws {
        let store = try Self.make(kind)
        let id = try store.saveState(Self.state(1))
        #expect(ContentID.isShareID(id))
        #expect(try store.loadState(id: id) == Self.state(1))
        #expect(try store.saveState(Self.state(1)) == id)                 // the same state: the same link
        #expect(try store.saveState(Self.state(2)) != id)
        #expect(try store.counts().states == 2)
        #expect(try store.loadState(id: "AAAAAAAAAAAAAAAAAAAAAA") == nil)
        #expect(try store.loadState(id: "' OR 1=1 --") == nil)
        #expect(try store.loadState(id: String(id.dropLast())) == nil)
    }

    @Test(arguments: stores) func contentIsStoredOnceByHash(_ kind: String) throws {
        let store = try Self.make(kind)
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47] + Array(repeating: 7, count: 1000)
        let hash = try store.saveContent(png)
        #expect(hash == ContentID.sha256Hex(png) && ContentID.isSHA256Hex(hash))
        #expect(try store.saveContent(png) == hash)
        #expect(try store.counts().contents == 1)
        #expect(try store.loadContent(hash: hash) == png)
        #expect(try store.loadContent(hash: String(repeating: "0", count: 64)) == nil)
        #expect(try store.loadContent(hash: "../../etc/passwd") == nil)
    }

    @Test(arguments: stores) func limitsRefuseBeforeWriting(_ kind: String) throws {
        var limits = StorageLimits()
        limits.maxStateBytes = 100
        limits.maxContentBytes = 10
        let store = try Self.make(kind, limits: limits)
        #expect(throws: StorageError.self) { _ = try store.saveState([UInt8](repeating: 32, count: 101)) }
        #expect(throws: StorageError.self) { _ = try store.saveContent([UInt8](repeating: 1, count: 11)) }
        #expect(try store.counts() == (0, 0))
    }

    /// Survives a restart: a new store over the same folder reads what the old one wrote,
    /// and the schema is migrated once.
    @Test(arguments: stores) func sharesSurviveReopening(_ kind: String) throws {
        let place = UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let id = try Self.make(kind, place: place).saveState(Self.state(3))
        let reopened = try Self.make(kind, place: place)
        #expect(try reopened.loadState(id: id) == Self.state(3))
        if let sqlite = reopened as? SQLiteShareStore { #expect(try sqlite.appliedMigrations() == ["v1", "v2", "v3"]) }
        if let postgres = reopened as? PostgresShareStore { #expect(try postgres.appliedMigrations() == ["v1", "v2", "v3"]) }
    }

    /// A client's history: every version that compiled once, the latest first, its files
    /// readable by hash; other clients' histories apart.
    @Test(arguments: stores) func historyKeepsEachVersionOnce(_ kind: String) throws {
        let store = try Self.make(kind)
        let client = "c_lient-0123456789ab", other = "another-client-id-123"
        let first = try store.saveVersion(client: client, files: Self.state(1), time: 10)
        _ = try store.saveVersion(client: client, files: Self.state(2), time: 20)
        #expect(try store.saveVersion(client: client, files: Self.state(1), time: 30) == first)    // compiled again
        _ = try store.saveVersion(client: other, files: Self.state(3), time: 40)
        let versions = try store.versions(client: client, limit: 10)
        #expect(versions.map(\.sha256) == [first, ContentID.sha256Hex(Self.state(2))])
        #expect(versions[0].firstCompiled == 10 && versions[0].lastCompiled == 30 && versions[0].bytes == Self.state(1).count)
        #expect(try store.loadContent(hash: first) == Self.state(1))
        #expect(try store.versions(client: other, limit: 10).count == 1)
        #expect(try store.versions(client: client, limit: 1).count == 1)
        #expect(try store.versions(client: "x", limit: 10).isEmpty)
        #expect(throws: StorageError.self) { _ = try store.saveVersion(client: "' OR 1=1", files: Self.state(4), time: 50) }
    }

    /// Writes that arrive out of order (another instance, a slow worker) never make a version
    /// look older than it is, nor first compiled later than it was.
    @Test(arguments: stores) func lateWritesDoNotMoveAVersionsTimesInward(_ kind: String) throws {
        let store = try Self.make(kind)
        let client = "c_lient-0123456789ab"
        let one = try store.saveVersion(client: client, files: Self.state(1), time: 20)
        _ = try store.saveVersion(client: client, files: Self.state(2), time: 25)
        _ = try store.saveVersion(client: client, files: Self.state(1), time: 30)
        _ = try store.saveVersion(client: client, files: Self.state(1), time: 15)     // late: compiled at 15
        _ = try store.saveVersion(client: client, files: Self.state(1), time: 22)     // late and in between
        let versions = try store.versions(client: client, limit: 10)
        #expect(versions.map(\.sha256) == [one, ContentID.sha256Hex(Self.state(2))])
        #expect(versions[0].firstCompiled == 15 && versions[0].lastCompiled == 30)
    }

    /// A history keeps the newest `maxVersionsPerClient`; the files of forgotten versions go
    /// too, unless another client's history still holds them.
    @Test(arguments: stores) func historyIsBoundedPerClient(_ kind: String) throws {
        var limits = StorageLimits()
        limits.maxVersionsPerClient = 3
        let store = try Self.make(kind, limits: limits)
        let client = "c_lient-0123456789ab", other = "another-client-id-123"
        _ = try store.saveVersion(client: other, files: Self.state(1), time: 1)
        for n in 1...6 { _ = try store.saveVersion(client: client, files: Self.state(n), time: Double(10 + n)) }
        let kept = try store.versions(client: client, limit: 10)
        #expect(kept.map(\.sha256) == [6, 5, 4].map { ContentID.sha256Hex(Self.state($0)) })
        #expect(try store.loadContent(hash: ContentID.sha256Hex(Self.state(2))) == nil)          // forgotten with its version
        #expect(try store.loadContent(hash: ContentID.sha256Hex(Self.state(1))) == Self.state(1)) // the other client's
        #expect(try store.versions(client: other, limit: 10).count == 1)
        // Compiling an old version again makes it the newest: it is kept, the oldest goes.
        _ = try store.saveVersion(client: client, files: Self.state(4), time: 30)
        _ = try store.saveVersion(client: client, files: Self.state(7), time: 31)
        #expect(try store.versions(client: client, limit: 10).map(\.sha256) == [7, 4, 6].map { ContentID.sha256Hex(Self.state($0)) })
    }

    /// A client address's daily quota: what fits is counted, what does not is refused and
    /// not counted; other addresses and the next day start afresh; 50 threads charging at
    /// once get exactly as many as fit.
    @Test(arguments: stores) func sharingQuotasHoldPerClientAndDay(_ kind: String) throws {
        let store = try Self.make(kind)
        #expect(try store.charge(client: "10.0.0.1", bytes: 600, day: 100, limit: 1000))
        #expect(try !store.charge(client: "10.0.0.1", bytes: 401, day: 100, limit: 1000))
        #expect(try store.charge(client: "10.0.0.1", bytes: 400, day: 100, limit: 1000))   // the refused 401 was not counted
        #expect(try !store.charge(client: "10.0.0.1", bytes: 1, day: 100, limit: 1000))
        #expect(try store.charge(client: "::1", bytes: 1000, day: 100, limit: 1000))
        #expect(try !store.charge(client: "::1", bytes: 1001, day: 101, limit: 1000))
        #expect(try store.charge(client: "10.0.0.1", bytes: 1000, day: 101, limit: 1000))  // a new day
        let granted = LockedArray()
        DispatchQueue.concurrentPerform(iterations: 50) { n in
            if (try? store.charge(client: "192.0.2.7", bytes: 10, day: 100, limit: 200)) == true { granted.append("\(n)") }
        }
        #expect(granted.values.count == 20)
    }

    /// 1,000 shares from 50 threads at once: every one readable, none lost.
    @Test(arguments: stores) func concurrentSharesAreAllKept(_ kind: String) throws {
        let store = try Self.make(kind)
        let ids = LockedArray()
        DispatchQueue.concurrentPerform(iterations: 50) { client in
            for n in 0..<20 {
                if let id = try? store.saveState(Self.state(client * 1000 + n)) { ids.append(id) }
            }
        }
        #expect(ids.values.count == 1000 && Set(ids.values).count == 1000)
        #expect(try store.counts().states == 1000)
        for id in ids.values.prefix(100) { #expect(try store.loadState(id: id) != nil) }
    }
}

final class LockedArray: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [String] = []
    func append(_ item: String) { lock.withLock { items.append(item) } }
    var values: [String] { lock.withLock { items } }
}
