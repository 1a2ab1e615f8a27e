import CloudCore

#if canImport(Glibc)
import Glibc
#endif

/// What every fuzz target asserts about a reader, beyond "no crash" (which ASan and Swift's
/// runtime checks enforce): bad bytes are answered with `CloudError.badInput` naming the input,
/// as the CLI's exit-2 contract needs. Any other outcome is reported and aborts, so libFuzzer
/// saves the input as a crash. Line breaks and control characters a message echoes from the
/// file are not checked here: the CLI escapes them when it prints the one error line.
enum FuzzContract {
    static func check(origin: String, _ read: () throws -> Void) {
        do {
            try read()
            if verbose { say("fuzz: read without error") }
        } catch let error as CloudError {
            if verbose { say("fuzz: \(error.message)") }
            if error.kind != .badInput { fail("an I/O error for bad bytes: \(error.message)") }
            if !error.message.contains(origin) { fail("the message does not name \(origin): \(error.message)") }
        } catch {
            fail("threw \(type(of: error)), not CloudError: \(error)")
        }
    }

    /// `repro` sets FUZZ_VERBOSE=1: each input's outcome is printed (a seed that does not read
    /// gives the fuzzer little to work from).
    static let verbose = getenv("FUZZ_VERBOSE") != nil

    static func fail(_ what: String) -> Never {
        say("fuzz contract broken: \(what)")
        abort()
    }

    /// A line on stderr, unbuffered (the process may abort right after).
    private static func say(_ line: String) {
        var line = line + "\n"
        line.withUTF8 { _ = write(STDERR_FILENO, $0.baseAddress, $0.count) }
    }
}

/// The input as a buffer (libFuzzer may pass a null pointer for the empty input).
func fuzzBytes(_ data: UnsafePointer<UInt8>?, _ size: Int) -> UnsafeRawBufferPointer {
    UnsafeRawBufferPointer(start: size > 0 ? UnsafeRawPointer(data) : nil, count: size)
}

/// A folder of this process's own for readers that take a path: the input is written to a file in
/// it, and read back by the reader as a user's file would be. Removed when the process exits
/// normally; libFuzzer's worker processes each have their own.
enum FuzzFolder {
    static let path: String = {
        let base = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
        let path = "\(base)/cloudgen-fuzz-\(getpid())"
        mkdir(path, 0o700)
        atexit { _ = system("rm -rf '\(FuzzFolder.pathForCleanup)'") }
        pathForCleanup = path
        return path
    }()
    nonisolated(unsafe) private static var pathForCleanup = ""

    /// Writes `bytes` to `name` in the folder (replacing it) and returns the file's path.
    @discardableResult
    static func write(_ bytes: UnsafeRawBufferPointer, to name: String) -> String {
        let file = "\(path)/\(name)"
        let fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        if fd < 0 { FuzzContract.fail("cannot create \(file)") }
        defer { close(fd) }
        var done = 0
        while done < bytes.count {
            let n = Glibc.write(fd, bytes.baseAddress! + done, bytes.count - done)
            if n <= 0 { FuzzContract.fail("cannot write \(file)") }
            done += n
        }
        return file
    }

    @discardableResult
    static func write(_ bytes: [UInt8], to name: String) -> String {
        bytes.withUnsafeBytes { write($0, to: name) }
    }
}
