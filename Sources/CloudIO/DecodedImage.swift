import CloudCore

/// An image as a file stored it, before any interpretation: 8- or 16-bit samples, 1 to 4 channels,
/// row-major, channels interleaved. 16-bit samples are in host order whatever the file's order.
public struct DecodedImage: Equatable, Sendable {
    public enum Samples: Equatable, Sendable {
        case uint8([UInt8])
        case uint16([UInt16])
    }

    public var width: Int
    public var height: Int
    public var channels: Int
    public var samples: Samples

    public init(width: Int, height: Int, channels: Int, samples: Samples) {
        self.width = width
        self.height = height
        self.channels = channels
        self.samples = samples
    }
}
