import CloudCore
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How much more memory this process can take, asked before a frame's buffers are reserved: a
/// frame too large for it is refused with a message saying how much it would need, instead of
/// aborting halfway ("failed to allocate") with outputs half made.
///
/// The room is the smaller of two: what the address-space limit (`ulimit -v`, RLIMIT_AS) leaves
/// above the address space already mapped (VmSize), and the memory the kernel says is available
/// (MemAvailable plus free swap). Either may be unknown (no limit, no /proc); with neither, every
/// request passes.
public struct MemoryBudget: Equatable, Sendable {
    /// Bytes that may still be allocated, nil when unbounded.
    public var available: Int?
    /// The address-space limit, when there is one, for the message.
    public var addressSpaceLimit: Int?

    public init(available: Int?, addressSpaceLimit: Int?) {
        self.available = available
        self.addressSpaceLimit = addressSpaceLimit
    }

    /// The budget from the limit, what is mapped and what the system has (bytes, nil = unknown).
    public init(addressSpaceLimit: Int?, mapped: Int?, systemAvailable: Int?) {
        let underLimit = addressSpaceLimit.map { limit in max(0, limit - (mapped ?? 0)) }
        switch (underLimit, systemAvailable) {
        case let (a?, b?): available = min(a, b)
        case let (a?, nil): available = a
        case let (nil, b?): available = b
        case (nil, nil): available = nil
        }
        self.addressSpaceLimit = addressSpaceLimit
    }

    /// This process's budget now.
    public static func current() -> MemoryBudget {
        MemoryBudget(
            addressSpaceLimit: addressSpaceLimit(), mapped: kibibytes("VmSize", in: "/proc/self/status"),
            systemAvailable: systemAvailable())
    }

    /// Throws a `CloudError` of kind `.budget` about `subject`, "needs about 9.1 GiB for WHAT; ...", when `bytes` do
    /// not fit, or do not fit `share` (a server's limit for one request) beside the `held` bytes
    /// the work already has. `what` says what the memory is for ("a 16384x16384 depth frame").
    /// Work running under a `MemoryClaim` is held to the claim's share when none is given, and
    /// reserves `bytes + held` in the process's ledger (`MemoryBusy` when other work holds it).
    /// `margin`: what the process itself needs beside the work (its runtime, its libraries), held
    /// to what the process has left but to no share.
    public func require(
        _ bytes: Int, for what: String, about subject: CloudError.Subject?, within share: MemoryShare? = nil,
        held: Int = 0, margin: Int = 0
    ) throws {
        let claim = MemoryClaim.current
        if let share = share ?? claim?.share, bytes + held > share.bytes {
            throw CloudError(
                .budget, subject: subject,
                "needs about \(Self.format(bytes + held)) of memory for \(what); \(share.holder) may use at most \(Self.format(share.bytes)) (\(share.setting))"
            )
        }
        if let available, bytes + margin > available {
            let limit = addressSpaceLimit.map { " (ulimit -v \(Self.format($0)))" } ?? ""
            throw CloudError(
                .budget, subject: subject,
                "needs about \(Self.format(bytes + margin)) of memory for \(what); this process may use at most \(Self.format(available)) more\(limit)"
            )
        }
        try claim?.raise(to: bytes + held, for: what, about: subject)
    }

    /// The current budget's `require`.
    public static func require(
        _ bytes: Int, for what: String, about subject: CloudError.Subject?, within share: MemoryShare? = nil,
        held: Int = 0, margin: Int = 0
    ) throws {
        try current().require(bytes, for: what, about: subject, within: share, held: held, margin: margin)
    }

    /// "9.1 GiB", "350 MiB".
    public static func format(_ bytes: Int) -> String {
        let gib = Double(bytes) / Double(1 << 30)
        if gib >= 1 { return String(format: "%.1f GiB", gib) }
        return "\(max(1, Int((Double(bytes) / Double(1 << 20)).rounded(.up)))) MiB"
    }

    private static func addressSpaceLimit() -> Int? {
        var limit = rlimit()
        // RLIM_INFINITY is all ones.
        guard getrlimit(Int32(RLIMIT_AS.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max else { return nil }
        return Int(clamping: limit.rlim_cur)
    }

    /// MemAvailable + SwapFree: what can be allocated without the kernel killing something.
    private static func systemAvailable() -> Int? {
        guard let available = kibibytes("MemAvailable", in: "/proc/meminfo") else { return nil }
        return available + (kibibytes("SwapFree", in: "/proc/meminfo") ?? 0)
    }

    /// A "Name:   1234 kB" line of a /proc file, in bytes.
    private static func kibibytes(_ name: String, in path: String) -> Int? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(name + ":") {
            // The value follows a tab and alignment spaces: "VmSize:\t  215652 kB".
            let fields = line.dropFirst(name.count + 1).split(whereSeparator: { $0 == " " || $0 == "\t" })
            return fields.first.flatMap { Int($0) }.map { $0 * 1024 }
        }
        return nil
    }
}

/// A part of the process's memory set aside for one piece of work: a server gives each request
/// one, so that one request cannot take what the others (and the server itself) need.
public struct MemoryShare: Equatable, Sendable {
    public var bytes: Int
    /// Who is limited, for the message: "a request on this server".
    public var holder: String
    /// The setting that sets it, for the message: "--max-request-memory-mb".
    public var setting: String

    public init(bytes: Int, holder: String, setting: String) {
        self.bytes = bytes
        self.holder = holder
        self.setting = setting
    }
}
