#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The `kiln` executable's entry point: plain `kiln compile` command lines run here, every
/// other command line is handed whole to `kiln-cli`, the executable with all the commands.
///
/// Why two executables: the server's libraries (libwebsockets, OpenSSL, SQLite, libpng) and
/// Foundation, PostgresNIO and GRDB are linked into `kiln-cli`, and the dynamic loader maps
/// and relocates them, and Foundation's initialisers run, in every process that links them
/// before any Swift code runs — about 4 ms, far more than compiling a small shader. `kiln`
/// links only the front end and the compiler, so an editor's `kiln compile` on every save
/// pays none of it: half the time (docs/benchmarks.md, "`kiln compile` in its own
/// executable"). Every other command pays one extra `exec` (~1.5 ms) on top of its own
/// start-up; `kiln serve` and `kiln render` hardly notice.
public enum CommandLauncher {
    /// Runs a plain compile command line, or replaces this process with the executable
    /// named `executable` in the same folder as this one, passing the same arguments.
    public static func start(otherCommandsIn executable: String) -> Never {
        if let job = QuickCompileArguments.parse(Array(CommandLine.arguments.dropFirst())) {
            do {
                try job.run()
                exit(0)
            } catch {
                exit(report(error))
            }
        }
        let path = siblingPath(executable)
        var arguments = CommandLine.arguments.map { strdup($0) }
        arguments.append(nil)
        execv(path, &arguments)
        // Only reached when the exec failed (a partial install: `kiln` without `kiln-cli`).
        let reason = String(cString: strerror(errno))
        Console.standard.error("Error: cannot run '\(path)' (\(reason)): every command but a plain `kiln compile` is in that executable, installed next to `kiln`\n")
        exit(127)
    }

    /// Prints `error` as ArgumentParser's `exit(withError:)` would in `kiln-cli` (nothing
    /// for `CompileFailed`, `Error: <message>` otherwise) and returns the exit status, 1.
    static func report(_ error: Error) -> Int32 {
        let message = "\(error)"
        if !message.isEmpty {
            Console.standard.error("Error: \(message)\n")
        }
        return 1
    }

    /// `name` in the folder of the running executable (symbolic links to `kiln` resolved,
    /// so a link in `/usr/local/bin` still finds its sibling).
    static func siblingPath(_ name: String) -> String {
        let executable = runningExecutable() ?? CommandLine.arguments[0]
        return FileSystem.join(FileSystem.directory(of: executable), name)
    }

    /// The running executable's path, from the kernel rather than `argv[0]` (which is
    /// whatever the caller passed, often a bare name found on `PATH`).
    private static func runningExecutable() -> String? {
        #if os(Linux)
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        #else
        return nil
        #endif
    }
}
