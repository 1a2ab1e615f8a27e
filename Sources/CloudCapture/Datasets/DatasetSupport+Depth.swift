import CloudCore
import CloudImages

/// Depth files as datasets store them, turned into the raw little-endian planes `CapturedFrame`
/// carries, so that every dataset goes through the same conversion to metres as every other source.
enum DatasetDepth {
    /// The depth plane of a decoded single-channel 16-bit image.
    /// - standard: the samples as they are, `unitsPerMetre` to the metre;
    /// - sun: each sample rotated back, then millimetres (`unitsPerMetre`, 1000 by default);
    /// - nyu: Float32 metres from Kinect disparity; `unitsPerMetre` is not used.
    static func plane(
        _ image: DecodedImage, encoding: DepthFileEncoding, unitsPerMetre: Double,
        origin: String
    ) throws -> CapturedFrame.Depth {
        guard image.channels == 1, case .uint16(let samples) = image.samples else {
            throw CloudError.badInput(
                .file(origin),
                "depth must be a 16-bit single-channel image, this is \(image.bitDepth)-bit with \(image.channels) channel\(image.channels == 1 ? "" : "s")"
            )
        }
        guard samples.count == image.width * image.height else {
            throw CloudError.badInput(.file(origin), "image of \(image.width)x\(image.height) holds \(samples.count) samples")
        }
        switch encoding {
        case .standard:
            return uint16Plane(samples, image, unitsPerMetre: unitsPerMetre)
        case .sun:
            return uint16Plane(samples.map(sunMillimetres), image, unitsPerMetre: unitsPerMetre)
        case .nyu:
            let metres = try nyuMetres(samples, width: image.width, origin: origin)
            let bytes = [UInt8](unsafeUninitializedCapacity: metres.count * 4) { out, initialized in
                for (i, z) in metres.enumerated() {
                    let bits = z.bitPattern
                    for k in 0..<4 { out[4 * i + k] = UInt8(truncatingIfNeeded: bits >> (8 * k)) }
                }
                initialized = metres.count * 4
            }
            return CapturedFrame.Depth(width: image.width, height: image.height, encoding: .depthFloat32, data: bytes)
        }
    }

    private static func uint16Plane(_ samples: [UInt16], _ image: DecodedImage, unitsPerMetre: Double) -> CapturedFrame.Depth {
        // Decoded samples are in host order; the plane is little-endian.
        let bytes = [UInt8](unsafeUninitializedCapacity: samples.count * 2) { out, initialized in
            for (i, s) in samples.enumerated() {
                out[2 * i] = UInt8(truncatingIfNeeded: s)
                out[2 * i + 1] = UInt8(truncatingIfNeeded: s >> 8)
            }
            initialized = samples.count * 2
        }
        return CapturedFrame.Depth(
            width: image.width, height: image.height,
            encoding: .uint16(unitsPerMetre: unitsPerMetre), data: bytes)
    }

    /// SUN RGB-D (after SUN3D) stores depth in millimetres rotated left by 3 bits within the 16-bit
    /// sample, which spreads typical indoor depths over the PNG's full range; rotating right by 3
    /// gives the millimetres back (Open3D's `create_from_sun_format` does the same).
    @inline(__always)
    static func sunMillimetres(_ stored: UInt16) -> UInt16 {
        (stored >> 3) | (stored << 13)
    }

    /// NYU Depth v2's raw dumps hold the Kinect's 11-bit disparity d (2047: no reading), written
    /// little-endian although PGM prescribes big-endian: the samples `PNMImage` decoded by the
    /// standard are byte-swapped. Depth is NYU's calibration z = 351.3 / (1092.5 - d) metres (no
    /// depth when that is not positive), rounded to whole millimetres as Open3D's
    /// `create_from_nyu_format` rounds it, so that both give the same points. A sample above 2047
    /// after the swap is not Kinect disparity: the file is not such a dump (or was already swapped).
    /// Disparities 1088...1092 give 78 to 703 m, which Open3D's 16-bit millimetres wrap around;
    /// here they stay what the formula says (`--range` drops them).
    static func nyuMetres(_ samples: [UInt16], width: Int, origin: String) throws -> [Float] {
        var metres = [Float](repeating: 0, count: samples.count)
        for (i, stored) in samples.enumerated() {
            let d = stored.byteSwapped
            guard d <= 2047 else {
                throw CloudError.badInput(
                    .file(origin),
                    "\(option: "depth-encoding", "nyu") expects NYU Depth v2's raw Kinect disparity (11 bits, stored little-endian), but the sample at (\(i % width), \(i / width)) reads \(d)"
                )
            }
            let z = 351.3 / (1092.5 - Double(d))
            guard z > 0 else { continue }
            // Same operations as Open3D: millimetres rounded half up, then a float division.
            metres[i] = Float((z * 1000 + 0.5).rounded(.down)) / 1000
        }
        return metres
    }
}

extension DepthFileEncoding {
    /// 16-bit samples as a file of this encoding holds them (a pushed stream's depth, as the
    /// upload's decoder would have read its file), as the depth plane a frame carries.
    public func plane(_ samples: [UInt16], width: Int, height: Int, unitsPerMetre: Double, origin: String) throws
        -> CapturedFrame.Depth
    {
        try DatasetDepth.plane(
            DecodedImage(width: width, height: height, channels: 1, samples: .uint16(samples)), encoding: self,
            unitsPerMetre: unitsPerMetre, origin: origin)
    }
}
