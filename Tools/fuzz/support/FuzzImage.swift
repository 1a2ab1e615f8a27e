import CloudCore
import CloudImages

/// The image targets' one check: decode as `ImageFile` does for every reader that takes an image,
/// then convert the result as the dataset readers do (color for any image, depth for 16-bit gray),
/// so that an image that decodes but is inconsistent is caught where it would be used.
func fuzzImage(_ bytes: UnsafeRawBufferPointer, origin: String) {
    FuzzContract.check(origin: origin) {
        let image = try ImageFile.decode(bytes, origin: origin)
        _ = try image.colorImage(origin: origin)
        if image.channels == 1, image.bitDepth == 16 {
            _ = try image.depthMap(unitsPerMetre: 1000, origin: origin)
        }
    }
}
