import CloudCore

/// Where the camera goes, as asked for: the orbit's angles and the picture size, with the target
/// left to the cloud (its bounding box centre) and the distance too unless given (the one that fits
/// it all).
public struct RenderView: Equatable, Sendable {
    public var width: Int
    public var height: Int
    /// Degrees; any finite value (it wraps around).
    public var azimuth: Float
    /// Degrees, −90...90.
    public var elevation: Float
    /// Metres from the target; nil fits the whole cloud in view.
    public var distance: Float?
    /// Vertical field of view in degrees.
    public var fieldOfView: Float
    public var up: UpAxis

    public static let defaultWidth = 1280
    public static let defaultHeight = 720
    public static let defaultFieldOfView: Float = 60

    public init(
        width: Int = defaultWidth, height: Int = defaultHeight, azimuth: Float = 0, elevation: Float = 0,
        distance: Float? = nil, fieldOfView: Float = defaultFieldOfView, up: UpAxis = .cameraFrame
    ) {
        self.width = width
        self.height = height
        self.azimuth = azimuth
        self.elevation = elevation
        self.distance = distance
        self.fieldOfView = fieldOfView
        self.up = up
    }

    /// Refuses what cannot make a picture, naming the `cloudgen render` flag and a sensible value.
    public func validate() throws {
        func bad(_ message: String) -> CloudError { CloudError.badInput(message) }
        guard (1...ImageLimits.maxSide).contains(width), (1...ImageLimits.maxSide).contains(height) else {
            throw bad("--size \(width)x\(height): width and height must be 1...\(ImageLimits.maxSide) pixels, e.g. 1280x720")
        }
        guard azimuth.isFinite else { throw bad("--azimuth \(azimuth): needs a finite angle in degrees, e.g. 30") }
        guard elevation.isFinite, (-90...90).contains(elevation) else {
            throw bad("--elevation \(elevation): needs an angle in degrees within -90...90, e.g. 20")
        }
        guard fieldOfView.isFinite, fieldOfView >= 1, fieldOfView <= 170 else {
            throw bad("--fov \(fieldOfView): needs a vertical field of view in degrees within 1...170, e.g. 60")
        }
        if let distance {
            guard distance.isFinite, distance > 0 else {
                throw bad("--distance \(distance): needs a positive distance in metres from the target, e.g. 3")
            }
        }
    }
}
