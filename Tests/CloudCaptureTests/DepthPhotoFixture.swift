import CloudCapture
import CloudCore
import CloudImages
import Foundation
import TestEncoders
import XCTest

/// A portrait JPEG written from a simulated frame of a known room, laid out as an iPhone writes
/// one: the color image with an EXIF orientation and a Multi-Picture Format index (APP2) listing
/// further JPEGs: the 8-bit disparity with Apple's depthData/apdi XMP, and auxiliary images, each
/// with its own XMP: by default the portrait matte as an iPhone writes it, which marks the nearer
/// half of the depth as the subject (the layouts are in PhotoMatteLayoutTests).
struct DepthPhotoFixture {
    /// A further 8-bit image: the properties and namespace declarations of its XMP's
    /// rdf:Description, and whether it marks the subject (a portrait matte) or everything but
    /// the subject (so that a semantic matte taken for the portrait matte keeps the background).
    struct Auxiliary {
        var namespaces = ""
        var properties: String
        var marksSubject = true
    }

    static let spec = "synthetic:room=4x3x2.5,format=depth32,color=320x240,noise=0"
    /// The simulated frame, whose depth is in metres.
    let frame: CapturedFrame
    let path: String
    let floatMin: Double
    let floatMax: Double
    /// The depth below which the matte marks the subject.
    let subjectDepth: Float

    /// `accuracy` is written as depthData:Accuracy; `orientation` as the EXIF orientation, the
    /// images being stored turned back from it (so that the photo shows the simulated frame).
    /// `auxiliaries` follow the depth image in the MPF index, or come before it with `depthLast`.
    init(
        in dir: String, accuracy: String = "absolute", orientation: Int = 1, auxiliaries: [Auxiliary] = [.portraitMatteAsAnIPhoneWritesIt],
        depthLast: Bool = false
    ) throws {
        path = dir + "/portrait.jpg"
        let camera = try syntheticCamera(Self.spec)
        frame = try XCTUnwrap(try camera.nextFrame())
        let decoded = try RGBDFrame(decoding: frame, origin: Self.spec)
        let depth = decoded.depth
        let color = try XCTUnwrap(decoded.color)
        let valid = depth.metres.filter { $0 > 0 && $0.isFinite }
        floatMin = 1 / Double(valid.max()!)
        floatMax = 1 / Double(valid.min()!)
        subjectDepth = valid.sorted()[valid.count / 2]
        let disparity = depth.metres.map { z -> UInt8 in
            guard z > 0, z.isFinite else { return 0 }
            return UInt8(((1 / Double(z) - floatMin) / (floatMax - floatMin) * 255).rounded())
        }
        let subject = depth.metres.map { $0 > 0 && $0 < subjectDepth ? UInt8(255) : 0 }
        let background = subject.map { 255 - $0 }

        let stored = StoredTurn(orientation)
        let k = stored.intrinsics(frame.intrinsics)
        let colorStored = stored.apply(color.rgb, width: color.width, height: color.height, channels: 3)
        let depthStored = stored.apply(disparity, width: depth.width, height: depth.height, channels: 1)

        let primary = try JPEGWriter.encode(
            colorStored.pixels, width: colorStored.width, height: colorStored.height, channels: 3,
            quality: 95, origin: path)
        let depthXMP = Self.depthXMP(k, floatMin: floatMin, floatMax: floatMax, accuracy: accuracy)
        func grayJPEG(_ pixels: (pixels: [UInt8], width: Int, height: Int), xmp: String) throws -> [UInt8] {
            Self.inserting(
                [Self.segment(0xE1, Array("http://ns.adobe.com/xap/1.0/\u{0}".utf8) + Array(xmp.utf8))],
                into: try JPEGWriter.encode(
                    pixels.pixels, width: pixels.width, height: pixels.height, channels: 1, quality: 100, origin: path))
        }
        let depthImage = try grayJPEG(depthStored, xmp: depthXMP)
        let auxiliaryImages = try auxiliaries.map { auxiliary in
            try grayJPEG(
                stored.apply(auxiliary.marksSubject ? subject : background, width: depth.width, height: depth.height, channels: 1),
                xmp: Self.packet(auxiliary.properties, namespaces: auxiliary.namespaces))
        }
        let images = depthLast ? auxiliaryImages + [depthImage] : [depthImage] + auxiliaryImages
        let exif = Self.segment(0xE1, Array("Exif\u{0}\u{0}".utf8) + Self.exifOrientation(orientation))
        // The MPF segment's length does not depend on the offsets in it: place it, then fill them in.
        let mpfLength = Self.segment(0xE2, Self.mpf(primarySize: 0, offsets: images.map { _ in 0 }, sizes: images.map(\.count))).count
        let tiffStart = 2 + exif.count + 4 + 4  // SOI, the EXIF segment, the MPF marker and length, "MPF\0"
        let primarySize = primary.count + exif.count + mpfLength
        var offsets: [Int] = []
        var next = primarySize
        for image in images {
            offsets.append(next - tiffStart)
            next += image.count
        }
        let mpf = Self.segment(0xE2, Self.mpf(primarySize: primarySize, offsets: offsets, sizes: images.map(\.count)))
        let file = Self.inserting([exif, mpf], into: primary) + images.joined()
        try Data(file).write(to: URL(fileURLWithPath: path))
    }

    static func packet(_ properties: String, namespaces: String = "") -> String {
        """
        <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
        <rdf:Description rdf:about="" xmlns:apdi="http://ns.apple.com/pixeldatainfo/1.0/" xmlns:depthData="http://ns.apple.com/depthData/1.0/" \(namespaces)>
        \(properties)
        </rdf:Description></rdf:RDF></x:xmpmeta>
        """
    }

    /// Apple's depth XMP for intrinsics `k`, without lens distortion (the simulated lens is ideal).
    static func depthXMP(_ k: CameraIntrinsics, floatMin: Double, floatMax: Double, accuracy: String) -> String {
        let matrix = [k.fx, 0, 0, 0, k.fy, 0, k.cx, k.cy, 1].map { "<rdf:li>\($0)</rdf:li>" }.joined()
        return packet(
            """
            <apdi:NativeFormat>1751411059</apdi:NativeFormat><apdi:StoredFormat>1278226488</apdi:StoredFormat>
            <apdi:AuxiliaryImageType>disparity</apdi:AuxiliaryImageType>
            <apdi:IntMinValue>0</apdi:IntMinValue><apdi:IntMaxValue>255</apdi:IntMaxValue>
            <apdi:FloatMinValue>\(floatMin)</apdi:FloatMinValue><apdi:FloatMaxValue>\(floatMax)</apdi:FloatMaxValue>
            <depthData:Accuracy>\(accuracy)</depthData:Accuracy><depthData:Filtered>False</depthData:Filtered>
            <depthData:IntrinsicMatrix><rdf:Seq>\(matrix)</rdf:Seq></depthData:IntrinsicMatrix>
            <depthData:IntrinsicMatrixReferenceWidth>\(k.referenceWidth)</depthData:IntrinsicMatrixReferenceWidth>
            <depthData:IntrinsicMatrixReferenceHeight>\(k.referenceHeight)</depthData:IntrinsicMatrixReferenceHeight>
            """)
    }

    /// A marker segment: 0xFF, the marker, a big-endian length that counts itself, the payload.
    static func segment(_ marker: UInt8, _ payload: [UInt8]) -> [UInt8] {
        let length = payload.count + 2
        return [0xFF, marker, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
    }

    /// `segments` placed right after a JPEG's start-of-image marker.
    static func inserting(_ segments: [[UInt8]], into jpeg: [UInt8]) -> [UInt8] {
        Array(jpeg[0..<2]) + segments.joined() + Array(jpeg[2...])
    }

    static func bigEndian16(_ v: Int) -> [UInt8] { [UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
    static func bigEndian32(_ v: Int) -> [UInt8] { bigEndian16(v >> 16) + bigEndian16(v & 0xFFFF) }

    /// A big-endian TIFF structure with one directory entry: Orientation (SHORT).
    static func exifOrientation(_ orientation: Int) -> [UInt8] {
        Array("MM".utf8) + bigEndian16(42) + bigEndian32(8) + bigEndian16(1)
            + bigEndian16(0x0112) + bigEndian16(3) + bigEndian32(1) + bigEndian16(orientation) + [0, 0] + bigEndian32(0)
    }

    /// "MPF\0" and a big-endian TIFF structure: MPFVersion, NumberOfImages, MPEntry (16 bytes an
    /// image: attributes, size, offset from the TIFF header, two dependent-image entries).
    static func mpf(primarySize: Int, offsets: [Int], sizes: [Int]) -> [UInt8] {
        let count = offsets.count + 1
        var entries = bigEndian32(0x0003_0000) + bigEndian32(primarySize) + bigEndian32(0) + [0, 0, 0, 0]
        for (offset, size) in zip(offsets, sizes) { entries += bigEndian32(0) + bigEndian32(size) + bigEndian32(offset) + [0, 0, 0, 0] }
        let entriesAt = 8 + 2 + 3 * 12 + 4
        return Array("MPF\u{0}".utf8) + Array("MM".utf8) + bigEndian16(42) + bigEndian32(8) + bigEndian16(3)
            + bigEndian16(0xB000) + bigEndian16(7) + bigEndian32(4) + Array("0100".utf8)
            + bigEndian16(0xB001) + bigEndian16(4) + bigEndian32(1) + bigEndian32(count)
            + bigEndian16(0xB002) + bigEndian16(7) + bigEndian32(16 * count) + bigEndian32(entriesAt)
            + bigEndian32(0) + entries
    }
}

/// How the fixture stores an image that EXIF `orientation` then shows upright: the inverse turn.
/// Only 1 (as is) and 6 (shown turned 90° clockwise, so stored turned 90° anticlockwise) are needed.
struct StoredTurn {
    let orientation: Int

    init(_ orientation: Int) {
        precondition(orientation == 1 || orientation == 6)
        self.orientation = orientation
    }

    /// Shown pixel (x, y) of a W x H shown image is stored at (y, W - 1 - x) of the H x W stored one.
    func apply(_ pixels: [UInt8], width: Int, height: Int, channels: Int) -> (pixels: [UInt8], width: Int, height: Int) {
        guard orientation == 6 else { return (pixels, width, height) }
        var out = pixels
        for y in 0..<height {
            for x in 0..<width {
                let (sx, sy) = (y, width - 1 - x)
                for c in 0..<channels { out[(sy * height + sx) * channels + c] = pixels[(y * width + x) * channels + c] }
            }
        }
        return (out, height, width)
    }

    func intrinsics(_ k: CameraIntrinsics) -> CameraIntrinsics {
        guard orientation == 6 else { return k }
        return CameraIntrinsics(
            fx: k.fy, fy: k.fx, cx: k.cy, cy: Double(k.referenceWidth - 1) - k.cx,
            referenceWidth: k.referenceHeight, referenceHeight: k.referenceWidth)
    }
}
