import ArgumentParser
import CloudCore
import CloudFiles
import CloudPCL

/// `--range MIN,MAX`: depth limits in metres along the optical axis; MAX may be `inf`.
struct DepthRange: ExpressibleByArgument {
    var limits: ClosedRange<Float>

    init?(argument: String) {
        let parts = argument.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 2, let lo = Float(parts[0]), let hi = Float(parts[1]),
              lo.isFinite, lo >= 0, !hi.isNaN, hi >= lo else { return nil }
        limits = lo...hi
    }

    static var defaultValueDescription: String { "none" }
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

/// The frame points are written in.
enum OutputFrame: String, ExpressibleByArgument, CaseIterable, Encodable {
    /// x right, y down, z forward from the camera that took the frame.
    case camera
    /// The source's world frame (rooms: origin at a floor corner, z up).
    case world
}

extension CloudEncoding: ExpressibleByArgument {}

/// The outputs every cloud-writing command shares.
struct CloudOutputOptions: ParsableArguments {
    @Option(name: .customLong("ply"), help: ArgumentHelp("Write a PLY file.", valueName: "file"))
    var plyPath: String?

    @Option(name: .customLong("pcd"), help: ArgumentHelp("Write a PCD file.", valueName: "file"))
    var pcdPath: String?

    @Option(help: ArgumentHelp("binary, ascii or compressed (PCD binary_compressed; PLY has no compressed form and is written binary).",
                               valueName: "encoding"))
    var encoding: CloudEncoding = .binary

    /// Says what `--encoding compressed` does to a PLY, which has no compressed form.
    func warnAboutEncoding() {
        if encoding == .compressed, let plyPath {
            Console.warning("\(plyPath): PLY has no compressed encoding; it is written binary_little_endian (--encoding compressed applies to --pcd)")
        }
    }

    var requested: [(path: String, format: CloudFileFormat)] {
        var out: [(String, CloudFileFormat)] = []
        // The flag, not the file's extension, decides the format: `--pcd scan.bin` writes PCD.
        if let plyPath { out.append((plyPath, .ply(encoding == .ascii ? .ascii : .binary))) }
        if let pcdPath {
            out.append((pcdPath, .pcd(encoding == .ascii ? .ascii : encoding == .binary ? .binary : .compressed)))
        }
        return out
    }
}
