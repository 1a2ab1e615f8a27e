import CloudCore

/// One color image and one depth image (`--source rgbd:COLOR,DEPTH`; `rgbd:,DEPTH` for depth alone), with the calibration from
/// `--intrinsics` and the depth scale from `--depth-scale`, else the calibration file, else 1000
/// (millimetres, with a note saying so). `--depth-encoding nyu|sun` reads NYU Depth v2's raw
/// Kinect dumps and SUN RGB-D's bit-rotated millimetres.
///
/// The images may differ in size: depth is back-projected through the intrinsics scaled to the
/// depth image, and each point takes the color pixel over the same spot of the field of view.
/// Both files are read and decoded when the source opens, so that bad input fails before any output.
public final class RGBDImageSource: DatasetSource {
    public let colorPath: String?
    public let depthPath: String
    public let warnings: [CloudWarning]
    public let frameCount = 1
    public let knowsPose = false
    public var name: String { "rgbd:\(colorPath ?? ""),\(depthPath)" }

    private var frame: CapturedFrame?

    public init(colorPath: String?, depthPath: String, options: SourceOptions = SourceOptions()) throws {
        self.colorPath = colorPath
        self.depthPath = depthPath
        let name = "rgbd:\(colorPath ?? ""),\(depthPath)"
        guard let file = try DatasetFiles.intrinsicsFile(options) else {
            throw CloudError.badInput(
                .source(name), "needs \(option: "intrinsics", "FILE") (Open3D camera JSON, PCL grabber XML or cloudgen intrinsics JSON)")
        }
        if let colorPath { try DatasetFiles.requireFile(colorPath, "the rgbd: source's color image") }
        try DatasetFiles.requireFile(depthPath, "the rgbd: source's depth image")
        var warnings: [CloudWarning] = []
        let units: Double
        if let given = options.depthUnitsPerMetre ?? file.depthUnitsPerMetre {
            units = given
        } else {
            units = 1000
            if options.depthEncoding == .standard {
                warnings.append(
                    CloudWarning(
                        .source(name),
                        "depth scale assumed to be 1000 units per metre (millimetres); pass \(option: "depth-scale", "S") if the depth image uses other units"
                    ))
            }
        }
        let frame = try DatasetFrame(
            depthPath: depthPath, colorPath: colorPath, intrinsics: .file(file),
            depthEncoding: options.depthEncoding, unitsPerMetre: units, pose: nil, timestamp: 0
        ).read()
        if let color = frame.color {
            let depthAspect = Double(frame.depth.width) / Double(frame.depth.height)
            let colorAspect = Double(color.width) / Double(color.height)
            if abs(depthAspect / colorAspect - 1) > 0.01 {
                warnings.append(
                    CloudWarning(
                        .source(name),
                        "the color image (\(color.width)x\(color.height)) and the depth image (\(frame.depth.width)x\(frame.depth.height)) differ in aspect ratio; colors are sampled as if both covered the same field of view"
                    ))
            }
        }
        self.frame = frame
        self.warnings = warnings
    }

    public func nextFrame() throws -> CapturedFrame? {
        defer { frame = nil }
        return frame
    }
}
