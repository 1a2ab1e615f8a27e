import CloudCapture
import CloudCore
import CloudImages

#if canImport(Glibc)
import Glibc
#endif

/// Capture bundles: the input is manifest.json, in a folder that also holds the frame files the
/// seeds name (16x12 planes of each size, a 16x12 JPEG), so that a manifest can pass every check
/// of BundleSource's opening and have its frames read and converted.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let folder = BundleFolder.path
    FuzzFolder.write(fuzzBytes(data, size), to: "bundle/manifest.json")
    FuzzContract.check(origin: folder) {
        let source = try BundleSource(directory: folder)
        while let frame = try source.nextFrame() {
            _ = frame.depth
        }
    }
    return 0
}

enum BundleFolder {
    static let path: String = {
        let path = "\(FuzzFolder.path)/bundle"
        mkdir(path, 0o700)
        let (w, h) = (16, 12)
        // Depth as a slanted plane (1...2 m), so that float16 and float32 hold real values.
        let depth = (0..<(w * h)).map { 1 + Float($0 % w) / Float(w) }
        FuzzFolder.write(depth.withUnsafeBytes { Array($0) }, to: "bundle/d.f32")
        FuzzFolder.write(depth.map { Float16($0) }.withUnsafeBytes { Array($0) }, to: "bundle/d.f16")
        FuzzFolder.write((0..<(w * h)).map { UInt8($0 & 0xFF) }, to: "bundle/c.y")
        FuzzFolder.write([UInt8](repeating: 128, count: ((w + 1) / 2) * ((h + 1) / 2) * 2), to: "bundle/c.cbcr")
        FuzzFolder.write((0..<(w * h * 4)).map { UInt8(($0 * 7) & 0xFF) }, to: "bundle/c.bgra")
        let jpeg = flatGrayJPEG(width: w, height: h)
        // The frames' JPEG must decode, or no input would get past it.
        do {
            _ = try ImageFile.decode(jpeg, origin: "c.jpg")
        } catch {
            FuzzContract.fail("the fixture JPEG does not decode: \(error)")
        }
        FuzzFolder.write(jpeg, to: "bundle/c.jpg")
        return path
    }()

    /// The smallest baseline JPEG: one gray component, every 8x8 block at DC 0 (mid-gray) with no
    /// AC terms, coded with one-symbol Huffman tables (a 1-bit "0" code), so each block is 2 bits.
    static func flatGrayJPEG(width: Int, height: Int) -> [UInt8] {
        func segment(_ marker: UInt8, _ body: [UInt8]) -> [UInt8] {
            [0xFF, marker, UInt8((body.count + 2) >> 8), UInt8((body.count + 2) & 0xFF)] + body
        }
        let oneCode: [UInt8] = [1] + [UInt8](repeating: 0, count: 15) + [0x00]
        let blocks = ((width + 7) / 8) * ((height + 7) / 8)
        return [0xFF, 0xD8]
            + segment(0xDB, [0x00] + [UInt8](repeating: 1, count: 64))
            + segment(0xC0, [8, UInt8(height >> 8), UInt8(height & 0xFF), UInt8(width >> 8), UInt8(width & 0xFF), 1, 1, 0x11, 0])
            + segment(0xC4, [0x00] + oneCode)
            + segment(0xC4, [0x10] + oneCode)
            + segment(0xDA, [1, 1, 0x00, 0, 63, 0])
            + [UInt8](repeating: 0, count: (2 * blocks + 7) / 8)
            + [0xFF, 0xD9]
    }
}
