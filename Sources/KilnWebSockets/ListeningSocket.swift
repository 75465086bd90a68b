import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A bound, listening, non-blocking TCP socket: what the front door accepts from.
struct ListeningSocket {
    let descriptor: Int32
    /// The port bound (the kernel's choice when 0 was asked for).
    let port: Int

    /// Binds `host` (an IP literal or a name; "" / `0.0.0.0` / `::` mean every interface)
    /// and `port`. `::` accepts IPv4 too (dual stack); an IPv4 literal binds IPv4 only.
    static func open(host: String, port: Int, backlog: Int32 = 1024) throws -> ListeningSocket {
        var hints = addrinfo()
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        let node: String? = host.isEmpty || host == "0.0.0.0" ? nil : host
        var list: UnsafeMutablePointer<addrinfo>?
        let status = node.map { getaddrinfo($0, String(port), &hints, &list) } ?? {
            hints.ai_family = AF_INET
            return getaddrinfo(nil, String(port), &hints, &list)
        }()
        guard status == 0, let first = list else {
            throw ServerError(description: "cannot resolve \(host): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(list) }
        var lastError = "no address"
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let address = entry {
            entry = address.pointee.ai_next
            let fd = socket(address.pointee.ai_family, address.pointee.ai_socktype | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue),
                            address.pointee.ai_protocol)
            guard fd >= 0 else { lastError = String(cString: strerror(errno)); continue }
            var on: Int32 = 1
            setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
            if address.pointee.ai_family == AF_INET6 {
                var off: Int32 = 0   // `::` serves IPv4 clients too
                setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &off, socklen_t(MemoryLayout<Int32>.size))
            }
            guard bind(fd, address.pointee.ai_addr, address.pointee.ai_addrlen) == 0, listen(fd, backlog) == 0 else {
                lastError = String(cString: strerror(errno))
                close(fd)
                continue
            }
            return ListeningSocket(descriptor: fd, port: boundPort(fd) ?? port)
        }
        throw ServerError(description: "cannot listen on \(host):\(port): \(lastError)")
    }

    private static func boundPort(_ fd: Int32) -> Int? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let ok = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) == 0 }
        }
        guard ok else { return nil }
        switch Int32(storage.ss_family) {
        case AF_INET:
            return withUnsafePointer(to: &storage) { $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) } }
        case AF_INET6:
            return withUnsafePointer(to: &storage) { $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin6_port)) } }
        default:
            return nil
        }
    }
}
