import CloudCore

/// What `synthetic[:key=value,...]` asks of the simulated camera. The defaults make a phone-like
/// capture (256x192 Float16 depth, 1920x1440 color) of a 4 x 3 x 2.5 m room.
public struct SyntheticSettings: Equatable, Sendable {
    /// Room width x depth x height in metres.
    public var room: SIMD3<Double>
    /// Seeds the depth noise; the scene itself does not depend on it.
    public var seed: UInt64
    /// Depth noise and dropouts on (a sensor) or off (exact ray-cast depth).
    public var noise: Bool
    public var depthSize: ImageSize
    public var colorSize: ImageSize
    public var format: SyntheticDepthFormat
    /// Render through a barrel-distorting lens and deliver its lookup tables (`SyntheticLens`).
    public var distortion: Bool
    /// The dimensions the intrinsics (and distortion) are given at; nil means the color size. A
    /// phone's calibration is at its photo resolution (4032x3024), above both images.
    public var referenceSize: ImageSize?
    /// How the camera moves over a sequence; nil: it stands still.
    public var path: SyntheticPath?
    /// Frames in the sequence (each with its own noise); 1 unless a path or `frames=` says more.
    public var frames: Int

    public init(room: SIMD3<Double> = SIMD3(4.0, 3.0, 2.5), seed: UInt64 = 0, noise: Bool = true,
                depthSize: ImageSize = ImageSize(width: 256, height: 192),
                colorSize: ImageSize = ImageSize(width: 1920, height: 1440),
                format: SyntheticDepthFormat = .depth16, distortion: Bool = false, referenceSize: ImageSize? = nil,
                path: SyntheticPath? = nil, frames: Int = 1) {
        self.room = room
        self.seed = seed
        self.noise = noise
        self.depthSize = depthSize
        self.colorSize = colorSize
        self.format = format
        self.distortion = distortion
        self.referenceSize = referenceSize
        self.path = path
        self.frames = frames
    }

    /// Frames a path takes when `frames=` is not given: enough to see the room from all sides.
    public static let defaultPathFrames = 24

    /// Most frames a spec may ask for: a generous hour of a 30 fps camera, far below what would
    /// exhaust memory if someone fused them all.
    public static let maxFrames = 100_000

    public static let keys = ["room", "seed", "noise", "depth", "color", "format", "distortion", "reference", "path", "frames"]

    /// Largest room side accepted: beyond it the furniture is lost in the view and depth leaves
    /// the sensor-like range of every format.
    public static let maxRoomSide = 100.0

    /// The full spec, parseable back to the same settings: every key spelt out, except that
    /// `distortion`, `reference`, `path` and `frames` appear only when set, so that the names of specs written
    /// before they existed stay as they were.
    public var spec: String {
        let room = [self.room.x, self.room.y, self.room.z].map(Self.formatMetres).joined(separator: "x")
        return "synthetic:room=\(room),seed=\(seed),noise=\(noise ? 1 : 0),depth=\(depthSize),color=\(colorSize),format=\(format.rawValue)"
            + (distortion ? ",distortion=1" : "") + (referenceSize.map { ",reference=\($0)" } ?? "")
            // With a path, frames is always spelt out: the path alone means the default count.
            + (path.map { ",path=\($0.rawValue)" } ?? "") + (path != nil || frames != 1 ? ",frames=\(frames)" : "")
    }

    /// The intrinsics' (and lens tables') reference dimensions.
    public var reference: ImageSize { referenceSize ?? colorSize }

    /// "4" rather than "4.0", so names read like the specs people type.
    private static func formatMetres(_ v: Double) -> String {
        v == v.rounded() && abs(v) < 1e15 ? String(Int(v)) : String(v)
    }

    /// Refuses settings built in code that no spec could give (specs are checked as they are
    /// parsed, with messages naming the key): a degenerate room or image would divide by zero or
    /// reserve no or negative memory.
    public func validate() throws {
        guard [room.x, room.y, room.z].allSatisfy(Self.isValidRoomSide) else {
            throw CloudError.badInput("\(spec): every room side must be more than 0 and at most \(Int(Self.maxRoomSide)) m")
        }
        guard (1...Self.maxFrames).contains(frames) else {
            throw CloudError.badInput("\(spec): frames must be 1...\(Self.maxFrames)")
        }
        let sides = [depthSize, colorSize, reference].flatMap { [$0.width, $0.height] }
        guard sides.allSatisfy(Self.isValidImageSide) else {
            throw CloudError.badInput("\(spec): each image side must be 1...\(ImageLimits.maxSide) pixels")
        }
    }

    private static func isValidRoomSide(_ side: Double) -> Bool {
        side.isFinite && side > 0 && side <= maxRoomSide
    }

    private static func isValidImageSide(_ side: Int) -> Bool {
        (1...ImageLimits.maxSide).contains(side)
    }

    /// Parses the `key=value,...` part of a synthetic spec. `spec` is the whole spec, for messages.
    init(parameters: Substring, spec: String) throws {
        self.init()
        func bad(_ problem: String) -> CloudError { .badInput("source '\(spec)': \(problem)") }
        var seen = Set<Substring>()
        for item in parameters.split(separator: ",", omittingEmptySubsequences: false) {
            guard !item.isEmpty else { throw bad("empty parameter (a stray comma?)") }
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, !parts[0].isEmpty else {
                throw bad("'\(item)' is not key=value (keys: \(Self.keys.joined(separator: ", ")))")
            }
            let (key, value) = (parts[0], parts[1])
            guard Self.keys.contains(String(key)) else {
                throw bad("unknown key '\(key)' (keys: \(Self.keys.joined(separator: ", ")))")
            }
            guard seen.insert(key).inserted else { throw bad("key '\(key)' is given more than once") }
            switch key {
            case "room":
                room = try Self.parseRoom(value, bad)
            case "seed":
                guard let n = UInt64(value) else { throw bad("seed=\(value) is not a non-negative integer") }
                seed = n
            case "noise", "distortion":
                guard value == "0" || value == "1" else { throw bad("\(key)=\(value) must be 0 or 1") }
                if key == "noise" { noise = value == "1" } else { distortion = value == "1" }
            case "depth", "color", "reference":
                let size = try Self.parseSize(value, key: key, bad)
                switch key {
                case "depth": depthSize = size
                case "color": colorSize = size
                default: referenceSize = size
                }
            case "path":
                guard let p = SyntheticPath(rawValue: String(value)) else {
                    throw bad("path=\(value) is not one of \(SyntheticPath.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                path = p
            case "frames":
                guard let n = Int(value), (1...Self.maxFrames).contains(n) else {
                    throw bad("frames=\(value) must be a whole number from 1 to \(Self.maxFrames)")
                }
                frames = n
            default:  // "format"
                guard let f = SyntheticDepthFormat(rawValue: String(value)) else {
                    let names = SyntheticDepthFormat.allCases.map(\.rawValue).joined(separator: ", ")
                    throw bad("format=\(value) is not one of \(names)")
                }
                format = f
            }
        }
        if path != nil && !seen.contains("frames") { frames = Self.defaultPathFrames }
    }

    private static func parseRoom(_ value: Substring, _ bad: (String) -> CloudError) throws -> SIMD3<Double> {
        let sides = value.split(separator: "x", omittingEmptySubsequences: false).map { Double($0) }
        guard sides.count == 3, let w = sides[0], let d = sides[1], let h = sides[2] else {
            throw bad("room=\(value) is not WxDxH in metres (e.g. room=4.0x3.0x2.5)")
        }
        guard [w, d, h].allSatisfy(isValidRoomSide) else {
            throw bad("room=\(value): every side must be more than 0 and at most \(Int(maxRoomSide)) m")
        }
        return SIMD3(w, d, h)
    }

    private static func parseSize(_ value: Substring, key: Substring, _ bad: (String) -> CloudError) throws -> ImageSize {
        let sides = value.split(separator: "x", omittingEmptySubsequences: false).map { Int($0) }
        guard sides.count == 2, let w = sides[0], let h = sides[1] else {
            throw bad("\(key)=\(value) is not WxH in pixels (e.g. \(key)=640x480)")
        }
        guard isValidImageSide(w), isValidImageSide(h) else {
            throw bad("\(key)=\(value): each side must be 1...\(ImageLimits.maxSide) pixels")
        }
        return ImageSize(width: w, height: h)
    }
}
