import Foundation

/// A scene whose geometry and colors are known exactly, seen by a Kinect v1 as libfreenect models
/// it (its default zero-plane constants): a slanted board in front of a wall. Written here from
/// libfreenect's documented constants, independently of cloudgen's Kinect code, so that the
/// playback test checks that code rather than repeating it.
///
/// IR camera frame, metres: x right, y down, z forward. The RGB camera sits `baseline` to the
/// right of the IR camera, both looking along z with the same pinhole intrinsics.
struct KinectTestScene {
    // libfreenect's defaults (src/registration.c, libfreenect_registration.h).
    static let emitterDistance = 7.5  // cm
    static let referenceDistance = 120.0  // mm
    static let pixelSize = 0.1042  // mm
    static let constShift = 200.0
    static let focal = referenceDistance / (2 * pixelSize)  // px at 640x480
    static let baseline = 0.023  // m, the 2.3 cm IR-to-RGB distance
    static let (cx, cy) = (320.0, 240.0)
    static let (width, height) = (640, 480)

    /// The board: z = boardZ + boardSlope * x over x in boardX, y in boardY.
    static let boardZ = 1.4, boardSlope = 0.3
    static let boardX = -0.5...0.15, boardY = -0.35...0.25
    /// The wall behind it.
    static let wallZ = 2.6

    enum Surface { case board, wall }

    /// Where a ray from `origin` (on the x axis) along ((u - cx)/f, (v - cy)/f, 1) meets the scene.
    static func hit(u: Int, v: Int, originX: Double) -> (point: SIMD3<Double>, surface: Surface) {
        let a = (Double(u) - cx) / focal
        let b = (Double(v) - cy) / focal
        let t = (boardZ + boardSlope * originX) / (1 - boardSlope * a)
        let board = SIMD3(originX + a * t, b * t, t)
        if t > 0, boardX.contains(board.x), boardY.contains(board.y) { return (board, .board) }
        return (SIMD3(originX + a * wallZ, b * wallZ, wallZ), .wall)
    }

    /// The albedo at a scene point (IR frame): the wall in 10 cm vertical stripes, the board in
    /// 5 cm horizontal ones, so that a color sampled from the wrong place shows.
    static func color(at p: SIMD3<Double>, on surface: Surface) -> SIMD3<UInt8> {
        switch surface {
        case .wall: return Int((p.x / 0.1).rounded(.down)) & 1 == 0 ? SIMD3(40, 90, 200) : SIMD3(230, 230, 230)
        case .board: return Int((p.y / 0.05).rounded(.down)) & 1 == 0 ? SIMD3(220, 40, 40) : SIMD3(240, 200, 30)
        }
    }

    /// How far `p` is from the nearest stripe edge of its surface, metres.
    static func stripeMargin(_ p: SIMD3<Double>, on surface: Surface) -> Double {
        let (value, width) = surface == .wall ? (p.x, 0.1) : (p.y, 0.05)
        let f = value / width - (value / width).rounded(.down)
        return min(f, 1 - f) * width
    }

    /// The raw 11-bit value libfreenect's raw-to-millimetre formula turns into `z` metres: that
    /// formula solved for the raw value, rounded to the nearest integer as the camera quantises.
    static func raw(metres z: Double) -> UInt16 {
        let mm = z * 1000
        let displacement = emitterDistance * (1 - 10 * referenceDistance / mm)
        return UInt16((4 * (displacement / pixelSize + 0.375) + 4 * constShift).rounded())
    }

    /// Depth step between neighbouring raw values at `z` metres (the derivative of that formula), metres.
    static func quantisation(atMetres z: Double) -> Double {
        let mm = z * 1000
        return pixelSize * mm * mm / (40 * emitterDistance * referenceDistance) / 1000
    }

    /// The IR camera's 11-bit depth image, row-major.
    static func rawDepth() -> [UInt16] {
        var raw = [UInt16](repeating: 0, count: width * height)
        for v in 0..<height {
            for u in 0..<width { raw[v * width + u] = Self.raw(metres: hit(u: u, v: v, originX: 0).point.z) }
        }
        return raw
    }

    /// The RGB camera's image, RGB8.
    static func rgb() -> [UInt8] {
        var rgb = [UInt8](repeating: 0, count: width * height * 3)
        for v in 0..<height {
            for u in 0..<width {
                let (p, surface) = hit(u: u, v: v, originX: baseline)
                let c = color(at: p, on: surface)
                rgb.replaceSubrange((v * width + u) * 3..<(v * width + u) * 3 + 3, with: [c.x, c.y, c.z])
            }
        }
        return rgb
    }
}

/// A recording in fakenect's on-disk format: INDEX.txt naming one file per line,
/// `d-SECONDS-TIMESTAMP.pgm` (a one-line `P5 640 480 65535` header, then 640x480 little-endian
/// uint16 raw depth, 2047 for none) and `r-SECONDS-TIMESTAMP.ppm` (`P6 640 480 255`, RGB8).
/// fakenect sleeps the difference of consecutive SECONDS between lines.
struct FakenectRecording {
    let directory: URL
    private var lines: [String] = []

    init(directory: URL) throws {
        self.directory = directory
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    mutating func addDepth(_ raw: [UInt16], seconds: Double, timestamp: UInt32) throws {
        var data = Data("P5 640 480 65535\n".utf8)
        raw.forEach { data.append(contentsOf: [UInt8($0 & 0xff), UInt8($0 >> 8)]) }
        try add(data, kind: "d", extension: "pgm", seconds: seconds, timestamp: timestamp)
    }

    mutating func addRGB(_ rgb: [UInt8], seconds: Double, timestamp: UInt32) throws {
        try add(Data("P6 640 480 255\n".utf8) + Data(rgb), kind: "r", extension: "ppm", seconds: seconds, timestamp: timestamp)
    }

    private mutating func add(_ data: Data, kind: String, extension ext: String, seconds: Double, timestamp: UInt32) throws {
        let name = String(format: "%@-%.6f-%u.%@", kind, seconds, timestamp, ext)
        try data.write(to: directory.appendingPathComponent(name))
        lines.append(name)
        try (lines.joined(separator: "\n") + "\n").write(
            to: directory.appendingPathComponent("INDEX.txt"), atomically: true, encoding: .utf8)
    }

    /// The folder holding fakenect's libfreenect, from the package's file list.
    static func libraryFolder() throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/dpkg")
        process.arguments = ["-L", "libfreenect0.5"]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard let library = text.split(separator: "\n").first(where: { $0.hasSuffix("/fakenect/libfreenect.so.0.5") }) else {
            throw CocoaError(
                .fileNoSuchFile,
                userInfo: [NSLocalizedDescriptionKey: "fakenect's library is not installed (Tools/bootstrap installs libfreenect-bin)"])
        }
        return URL(fileURLWithPath: String(library)).deletingLastPathComponent().path
    }
}
