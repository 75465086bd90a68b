import Foundation
import PostgresNIO

/// A PostgreSQL connection URL as libpq and every hosting service write them:
/// `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?sslmode=…&schema=…]` (`postgresql://`
/// too; user, password and database percent-decoded). Kiln reads two parameters:
/// `sslmode` — `disable`, `prefer` (the default, as libpq's), `require` (encrypted, the
/// certificate not checked, as libpq's `require`) or `verify-full` (checked against the
/// system's roots and the host name) — and `schema`, the PostgreSQL schema Kiln's tables
/// live in (created when missing; several deployments can share one database).
struct PostgresURL: CustomStringConvertible {
    var user: String
    var password: String?
    var host: String
    var port: Int
    var database: String
    var schema: String?
    var tls: PostgresConnection.Configuration.TLS
    private var sslmode: String

    init(_ text: String) throws {
        guard let url = URLComponents(string: text), let scheme = url.scheme, ["postgres", "postgresql"].contains(scheme) else {
            throw StorageError("not a PostgreSQL URL: expected postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE")
        }
        guard let host = url.host, !host.isEmpty else { throw StorageError("the PostgreSQL URL names no host") }
        guard let user = url.user, !user.isEmpty else { throw StorageError("the PostgreSQL URL names no user (postgres://USER@HOST/DATABASE)") }
        let database = String(url.path.drop(while: { $0 == "/" }))
        guard !database.isEmpty, !database.contains("/") else { throw StorageError("the PostgreSQL URL names no database (…/DATABASE)") }
        self.host = host
        self.user = user.removingPercentEncoding ?? user
        password = url.password.map { $0.removingPercentEncoding ?? $0 }
        self.database = database.removingPercentEncoding ?? database
        guard (1...65535).contains(url.port ?? 5432) else { throw StorageError("the PostgreSQL URL's port is out of range") }
        port = url.port ?? 5432
        var parameters: [String: String] = [:]
        for item in url.queryItems ?? [] { parameters[item.name] = item.value ?? "" }
        if let unknown = parameters.keys.sorted().first(where: { !["sslmode", "schema"].contains($0) }) {
            throw StorageError("the PostgreSQL URL has a parameter Kiln does not know: \(unknown) (sslmode, schema)")
        }
        if let schema = parameters["schema"] {
            // Spliced into SQL as an identifier, so only plain lowercase names.
            guard !schema.isEmpty, schema.count <= 63, schema.first!.isLetter,
                  schema.utf8.allSatisfy({ ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x5F }) else {
                throw StorageError("schema must be a lowercase name of letters, digits and _ (at most 63)")
            }
            self.schema = schema
        }
        sslmode = parameters["sslmode"] ?? "prefer"
        // libpq's meanings: prefer and require encrypt without checking the certificate;
        // verify-full checks it against the system's roots and the host name.
        var unchecked = TLSConfiguration.makeClientConfiguration()
        unchecked.certificateVerification = .none
        do {
            switch sslmode {
            case "disable": tls = .disable
            case "prefer": tls = .prefer(try NIOSSLContext(configuration: unchecked))
            case "require": tls = .require(try NIOSSLContext(configuration: unchecked))
            case "verify-full": tls = .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
            default: throw StorageError("sslmode must be disable, prefer, require or verify-full, not \(sslmode)")
            }
        } catch let error as StorageError {
            throw error
        } catch {
            throw StorageError("cannot set up TLS for sslmode=\(sslmode): \(error)")
        }
    }

    /// What PostgresNIO connects with; `timeout` bounds the connection's set-up.
    func configuration(timeout: Double) -> PostgresConnection.Configuration {
        var configuration = PostgresConnection.Configuration(host: host, port: port, username: user, password: password,
                                                             database: database, tls: tls)
        configuration.options.connectTimeout = .milliseconds(Int64(timeout * 1000))
        // Kiln's tables are found in (and created in) the schema named in the URL.
        // pg_stat_activity shows which deployment a connection is (`kiln` or `kiln/SCHEMA`).
        configuration.options.additionalStartupParameters = [("application_name", schema.map { "kiln/\($0)" } ?? "kiln")]
        if let schema { configuration.options.additionalStartupParameters.append(("search_path", schema)) }
        return configuration
    }

    /// The URL without its password, for logs and messages.
    var description: String {
        "postgres://\(user)@\(host):\(port)/\(database)" + (schema.map { " (schema \($0))" } ?? "") + " sslmode=\(sslmode)"
    }
}
