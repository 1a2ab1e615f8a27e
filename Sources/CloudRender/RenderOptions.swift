/// How a cloud's points get their color.
public enum ColorMode: String, CaseIterable, Sendable {
    /// The cloud's own colors.
    case rgb
    /// Distance from the eye, jet colormap: red near, blue far, over the visible depth range.
    case depth
    /// Position along the up axis, over the cloud's extent.
    case height
    /// The normal, facing the eye, as (n + 1) / 2 in x y z -> r g b.
    case normal
}

/// An sRGB color given as a name or #rrggbb.
public struct RGB8: Equatable, Sendable {
    public var r: UInt8
    public var g: UInt8
    public var b: UInt8

    public init(r: UInt8, g: UInt8, b: UInt8) {
        self.r = r
        self.g = g
        self.b = b
    }

    public static let names: [(String, RGB8)] = [
        ("black", RGB8(r: 0, g: 0, b: 0)), ("white", RGB8(r: 255, g: 255, b: 255)),
        ("gray", RGB8(r: 128, g: 128, b: 128)), ("dark", RGB8(r: 24, g: 26, b: 30))
    ]

    /// "black", "white", "gray", "dark", "#1e2024" or "1e2024".
    public init?(_ text: String) {
        if let named = Self.names.first(where: { $0.0 == text.lowercased() }) {
            self = named.1
            return
        }
        let hex = text.hasPrefix("#") ? String(text.dropFirst()) : text
        guard hex.count == 6, hex.allSatisfy(\.isHexDigit), let v = UInt32(hex, radix: 16) else { return nil }
        self.init(r: UInt8(v >> 16), g: UInt8(v >> 8 & 0xFF), b: UInt8(v & 0xFF))
    }
}

/// Everything about a picture except the camera's placement.
public struct RenderStyle: Sendable {
    public var color: ColorMode
    /// Side of the square each point covers, in pixels.
    public var pointSize: Int
    public var background: RGB8
    /// Eye-dome lighting: darkens pixels whose neighbours are nearer, so that shape reads even
    /// without color.
    public var eyeDomeLighting: Bool

    public init(color: ColorMode, pointSize: Int, background: RGB8 = RGB8(r: 24, g: 26, b: 30), eyeDomeLighting: Bool = false) {
        self.color = color
        self.pointSize = pointSize
        self.background = background
        self.eyeDomeLighting = eyeDomeLighting
    }

    /// A point size that leaves few gaps: about one point per pixel side of the picture's area
    /// share, so sparse clouds get larger squares; 1...6 pixels. The fitted view leaves a cloud
    /// about two thirds of the picture.
    public static func automaticPointSize(points: Int, width: Int, height: Int) -> Int {
        guard points > 0 else { return 1 }
        let side = (Double(width * height) / Double(points) / 1.5).squareRoot()
        return Swift.min(Swift.max(Int(side.rounded()), 1), 6)
    }
}
