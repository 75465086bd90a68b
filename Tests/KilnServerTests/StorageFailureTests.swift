import Foundation
import KilnStorage
import Testing
@testable import KilnServer
@testable import KilnWebSockets

/// A database that fails: clients get a plain refusal, never the database's own words
/// (its address, user, messages); the failures are counted.
@Suite struct StorageFailureTests {
    /// Every call fails the way an unreachable PostgreSQL does.
    final class FailingStore: ShareStore, @unchecked Sendable {
        let error = StorageUnavailable("PostgreSQL at postgres://kiln@db.internal.example:5432/kiln: connection refused")
        func saveState(_ json: [UInt8]) throws -> String { throw error }
        func loadState(id: String) throws -> [UInt8]? { throw error }
        func saveContent(_ bytes: [UInt8]) throws -> String { throw error }
        func loadContent(hash: String) throws -> [UInt8]? { throw error }
        func counts() throws -> (states: Int, contents: Int) { throw error }
        func saveVersion(client: String, files: [UInt8], time: Double) throws -> String { throw error }
        func versions(client: String, limit: Int) throws -> [Version] { throw error }
        func charge(client: String, bytes: Int, day: Int, limit: Int) throws -> Bool { throw error }
    }

    @Test func failuresAreUnavailableWithoutTheDatabasesWords() throws {
        var settings = ServerSettings()
        settings.transport.port = 0
        settings.publicDirectory = nil
        settings.shadersDirectory = nil
        let service = KilnService(settings: settings, renderer: GradientRenderer(), store: FailingStore())
        let share = service.storeShare(Data(#"{"source":"x"}"#.utf8), client: "192.0.2.1")
        guard case .failure(let error) = share else { Issue.record("a failing store stored a share"); return }
        #expect(error.code == .unavailable && error.message == StorageFailureLog.clientMessage)
        let responses = [service.sharedStateResponse(HTTPRequest(method: "GET", path: "/s/AAAAAAAAAAAAAAAAAAAAAA", query: ["format": "json"], headers: [:]),
                                                     id: "AAAAAAAAAAAAAAAAAAAAAA"),
                         service.contentResponse(String(repeating: "a", count: 64)),
                         service.historyResponse("/history/c_lient-0123456789ab")]
        for response in responses {
            #expect(response.status == 503)
            #expect(!String(decoding: response.body, as: UTF8.self).contains("db.internal"))
        }
        #expect(service.metrics.prometheusText().contains("kiln_storage_errors_total 4"))
    }
}
