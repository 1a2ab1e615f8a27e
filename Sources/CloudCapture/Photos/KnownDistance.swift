import CloudCore

/// `--known-distance X,Y=METRES`: a pixel of the photo (as shown, in color-image pixels) and its
/// true distance from the camera, which scales relative depth to metres.
public struct KnownDistance: Equatable, Sendable {
    public var x: Int
    public var y: Int
    public var metres: Double

    public init(x: Int, y: Int, metres: Double) {
        self.x = x
        self.y = y
        self.metres = metres
    }

    /// "X,Y=METRES", e.g. "1510,2100=1.25".
    public init(parsing text: String) throws {
        let parts = text.split(separator: "=", omittingEmptySubsequences: false)
        let pixel = parts.first.map { $0.split(separator: ",", omittingEmptySubsequences: false) } ?? []
        guard parts.count == 2, pixel.count == 2, let x = Int(pixel[0]), let y = Int(pixel[1]), let metres = Double(parts[1]) else {
            throw CloudError.badInput(
                .option("known-distance", "'\(text)'"),
                "expected X,Y=METRES (a pixel of the color image and its distance), e.g. 1510,2100=1.25")
        }
        guard x >= 0, y >= 0, metres.isFinite, metres > 0 else {
            throw CloudError.badInput(
                .option("known-distance", "'\(text)'"),
                "the pixel must not be negative and the distance must be a positive number of metres")
        }
        self.init(x: x, y: y, metres: metres)
    }
}
