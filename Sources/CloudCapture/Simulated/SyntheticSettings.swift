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
    /// A real sensor's noise model instead of the generic one (`SyntheticSensor`); needs `noise`.
    public var sensor: SyntheticSensor?
    /// Degrees the room stands turned about the vertical in the world frame (`SyntheticScene`).
    public var yaw: Double
    /// Degrees the camera is rolled about its optical axis, clockwise as its holder sees it.
    public var roll: Double
    public var shape: SyntheticShape
    /// An open doorway in the east wall onto a corridor.
    public var door: Bool
    /// 0: an empty room; 1: a table and three boxes; 2: those and a bookshelf and a sofa against walls.
    public var furniture: Int

    public init(
        room: SIMD3<Double> = SIMD3(4.0, 3.0, 2.5), seed: UInt64 = 0, noise: Bool = true,
        depthSize: ImageSize = ImageSize(width: 256, height: 192),
        colorSize: ImageSize = ImageSize(width: 1920, height: 1440),
        format: SyntheticDepthFormat = .depth16, distortion: Bool = false, referenceSize: ImageSize? = nil,
        path: SyntheticPath? = nil, frames: Int = 1, sensor: SyntheticSensor? = nil, yaw: Double = 0,
        roll: Double = 0, shape: SyntheticShape = .box, door: Bool = false, furniture: Int = 1
    ) {
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
        self.sensor = sensor
        self.yaw = yaw
        self.roll = roll
        self.shape = shape
        self.door = door
        self.furniture = furniture
    }

    /// The settings of a whole `synthetic[:key=value,...]` spec, as `--source` reads it.
    public init(parsing spec: String) throws {
        guard case .settings(let settings) = try SourceSpec(parsing: spec).arguments else {
            throw CloudError.badInput("source '\(spec)': not a synthetic source")
        }
        self = settings
    }

    /// Frames a path takes when `frames=` is not given: enough to see the room from all sides.
    public static let defaultPathFrames = 24

    /// Most frames a spec may ask for: a generous hour of a 30 fps camera, far below what would
    /// exhaust memory if someone fused them all.
    public static let maxFrames = 100_000

    public static let keys = [
        "room", "seed", "noise", "depth", "color", "format", "distortion", "reference", "path", "frames",
        "sensor", "yaw", "roll", "shape", "door", "furniture"
    ]

    /// Largest turn `yaw=` and `roll=` accept, either way: one full turn.
    public static let maxAngle = 360.0

    /// Furniture levels `furniture=` accepts.
    public static let furnitureLevels = 0...2

    /// Largest room side accepted: beyond it the furniture is lost in the view and depth leaves
    /// the sensor-like range of every format.
    public static let maxRoomSide = 100.0

    /// The full spec, parseable back to the same settings: every key spelt out, except that
    /// `distortion`, `reference`, `path`, `frames` and the room and sensor keys added after them appear
    /// only when set, so that the names of specs written before they existed stay as they were.
    public var spec: String {
        let room = [self.room.x, self.room.y, self.room.z].map(Self.formatMetres).joined(separator: "x")
        return "synthetic:room=\(room),seed=\(seed),noise=\(noise ? 1 : 0),depth=\(depthSize),color=\(colorSize),format=\(format.rawValue)"
            + (distortion ? ",distortion=1" : "") + (referenceSize.map { ",reference=\($0)" } ?? "")
            // With a path, frames is always spelt out: the path alone means the default count.
            + (path.map { ",path=\($0.rawValue)" } ?? "") + (path != nil || frames != 1 ? ",frames=\(frames)" : "")
            + (sensor.map { ",sensor=\($0.rawValue)" } ?? "")
            + (yaw != 0 ? ",yaw=\(Self.formatMetres(yaw))" : "") + (roll != 0 ? ",roll=\(Self.formatMetres(roll))" : "")
            + (shape != .box ? ",shape=\(shape.rawValue)" : "") + (door ? ",door=1" : "")
            + (furniture != 1 ? ",furniture=\(furniture)" : "")
    }

    /// The intrinsics' (and lens tables') reference dimensions.
    public var reference: ImageSize { referenceSize ?? colorSize }

    /// "4" rather than "4.0", so names read like the specs people type (metres and degrees alike).
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
        guard [yaw, roll].allSatisfy(Self.isValidAngle) else {
            throw CloudError.badInput("\(spec): yaw and roll must be finite and within +-\(Int(Self.maxAngle)) degrees")
        }
        guard Self.furnitureLevels.contains(furniture) else {
            throw CloudError.badInput("\(spec): furniture must be 0, 1 or 2")
        }
        if let sensor, !noise {
            throw CloudError.badInput("\(spec): sensor=\(sensor.rawValue) models a sensor's noise and needs noise=1")
        }
    }

    private static func isValidAngle(_ degrees: Double) -> Bool {
        degrees.isFinite && abs(degrees) <= maxAngle
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
            case "sensor":
                guard let v = SyntheticSensor(rawValue: String(value)) else {
                    throw bad("sensor=\(value) is not one of \(SyntheticSensor.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                sensor = v
            case "yaw", "roll":
                guard let degrees = Double(value), Self.isValidAngle(degrees) else {
                    throw bad("\(key)=\(value) must be a number of degrees from -\(Int(Self.maxAngle)) to \(Int(Self.maxAngle))")
                }
                if key == "yaw" { yaw = degrees } else { roll = degrees }
            case "shape":
                guard let v = SyntheticShape(rawValue: String(value)) else {
                    throw bad("shape=\(value) is not one of \(SyntheticShape.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                shape = v
            case "door":
                guard value == "0" || value == "1" else { throw bad("door=\(value) must be 0 or 1") }
                door = value == "1"
            case "furniture":
                guard let n = Int(value), Self.furnitureLevels.contains(n) else {
                    throw bad("furniture=\(value) must be 0, 1 or 2")
                }
                furniture = n
            default:  // "format"
                guard let f = SyntheticDepthFormat(rawValue: String(value)) else {
                    let names = SyntheticDepthFormat.allCases.map(\.rawValue).joined(separator: ", ")
                    throw bad("format=\(value) is not one of \(names)")
                }
                format = f
            }
        }
        if path != nil && !seen.contains("frames") { frames = Self.defaultPathFrames }
        if let sensor {
            guard noise else {
                throw bad("sensor=\(sensor.rawValue) models a sensor's noise and needs noise=1 (noise=0 is exact depth)")
            }
            // The sensor's own image unless the spec overrides it.
            if !seen.contains("depth") { depthSize = sensor.depthSize }
            if !seen.contains("format") { format = sensor.format }
        }
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
