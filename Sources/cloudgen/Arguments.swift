import ArgumentParser
import CloudCore
import CloudFiles
import CloudPCL
import CloudPipeline

extension DepthRange {
    /// `--range`'s transform: a range that is not one is refused with the service's own reason.
    @Sendable static func argument(_ text: String) throws -> DepthRange {
        guard let range = DepthRange(text: text) else { throw ValidationError(DepthRange.rule) }
        return range
    }
}

/// `--frames N|all`.
enum FrameCount: ExpressibleByArgument {
    case count(Int)
    case all

    init?(argument: String) {
        if argument == "all" {
            self = .all
        } else if let n = Int(argument), n > 0 {
            self = .count(n)
        } else {
            return nil
        }
    }

    var limit: Int? {
        if case .count(let n) = self { return n }
        return nil
    }
}

extension OutputFrame: ExpressibleByArgument {}

extension CloudEncoding: ExpressibleByArgument {
    /// PCD's own name for the compressed encoding, `binary_compressed`, as the service spells it
    /// (OptionCatalogue); `compressed`, the older spelling, is still taken.
    public init?(argument: String) {
        self.init(rawValue: argument == "binary_compressed" ? "compressed" : argument)
    }

    public static var allValueStrings: [String] { ["binary", "ascii", "binary_compressed"] }

    public var defaultValueDescription: String { self == .compressed ? "binary_compressed" : rawValue }
}

/// The outputs every cloud-writing command shares.
struct CloudOutputOptions: ParsableArguments {
    @Option(name: .customLong("ply"), help: ArgumentHelp("Write a PLY file.", valueName: "file"))
    var plyPath: String?

    @Option(name: .customLong("pcd"), help: ArgumentHelp("Write a PCD file.", valueName: "file"))
    var pcdPath: String?

    @Option(
        help: ArgumentHelp(
            "binary, ascii or binary_compressed (PCD's name; compressed is its older spelling here; PLY has no compressed form and is written binary).",
            valueName: "encoding"))
    var encoding: CloudEncoding = .binary

    /// Refuses an encoding no requested container is written in, with the service's reason
    /// (`--ply x.ply --encoding binary_compressed`), and says what one flag for two files does to
    /// the PLY beside a compressed PCD: it is written binary.
    func checkEncoding() throws {
        guard encoding == .compressed, let plyPath else { return }
        guard pcdPath != nil else {
            throw CloudError.badInput("\(option: "encoding", "binary_compressed"): \(CloudContainer.ply.refusal("binary_compressed"))")
        }
        Console.warning(
            CloudWarning(
                .file(plyPath),
                "PLY has no compressed encoding; it is written binary_little_endian (\(option: "encoding", "binary_compressed") applies to \(option: "pcd"))"
            ))
    }

    var requested: [(path: String, format: CloudFileFormat)] {
        var out: [(String, CloudFileFormat)] = []
        // The flag, not the file's extension, decides the format: `--pcd scan.bin` writes PCD.
        // A PLY beside a compressed PCD is written binary (checkEncoding).
        if let plyPath { out.append((plyPath, CloudContainer.ply.format(encoding) ?? .ply(.binary))) }
        if let pcdPath { out.append((pcdPath, CloudContainer.pcd.format(encoding)!)) }
        return out
    }
}
