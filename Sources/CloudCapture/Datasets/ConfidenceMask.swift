import CloudCore
import CloudImages

/// ARKit's per-pixel depth confidence as phone apps export it: an 8-bit image at the depth map's
/// size whose values stand for low, medium and high (`ARConfidenceLevel` 0, 1, 2), each app with
/// its own numbers for them (Polycam 0, 127, 255; Stray Scanner 0, 1, 2). Pixels below `minimum` lose their depth, so
/// they are no point, as a pixel without depth is not.
struct ConfidenceMask {
    var path: String
    /// The lowest level kept, 1 or 2 (0 keeps every pixel and needs no mask).
    var minimum: Int
    /// The stored value at which medium and high begin.
    var mediumFrom: UInt8
    var highFrom: UInt8

    func level(_ stored: UInt8) -> Int {
        stored >= highFrom ? 2 : stored >= mediumFrom ? 1 : 0
    }

    /// Zeroes the depth of every pixel below `minimum` in a 16-bit depth plane.
    func apply(to depth: inout CapturedFrame.Depth) throws {
        let image = try ImageFile.read(path)
        guard image.width == depth.width, image.height == depth.height else {
            throw CloudError.badInput(
                .file(path),
                "the confidence map is \(image.width)x\(image.height), the depth map \(depth.width)x\(depth.height); they must be the same size"
            )
        }
        guard image.channels == 1, image.bitDepth == 8, case .uint8(let stored) = image.samples else {
            throw CloudError.badInput(
                .file(path), "a confidence map is an 8-bit gray image, not \(image.channels) channel(s) of \(image.bitDepth) bits")
        }
        guard case .uint16 = depth.encoding else {
            throw CloudError.badInput(.file(path), "confidence applies to 16-bit depth maps")
        }
        for (i, value) in stored.enumerated() where level(value) < minimum {
            depth.data[2 * i] = 0
            depth.data[2 * i + 1] = 0
        }
    }
}
