import CloudCore

/// EXIF orientation (1...8): how a stored image is turned to be shown upright. A photo's depth,
/// matte and calibration are stored as the sensor saw them, like its pixels, so the same turn is
/// applied to all of them and the cloud comes out as the photo is shown. The mirrored orientations
/// (2, 4, 5, 7) mirror the cloud too, as they mirror the picture.
struct PhotoOrientation: Equatable {
    let value: Int

    init(_ value: Int) {
        precondition((1...8).contains(value))
        self.value = value
    }

    /// Whether width and height trade places.
    var transposes: Bool { value >= 5 }

    /// Where stored position (x, y) of a `width` x `height` image is shown, in pixel-centre
    /// coordinates (the last pixel's centre is at width - 1).
    func shown(_ p: SIMD2<Double>, width: Int, height: Int) -> SIMD2<Double> {
        let (w, h) = (Double(width - 1), Double(height - 1))
        switch value {
        case 2: return SIMD2(w - p.x, p.y)
        case 3: return SIMD2(w - p.x, h - p.y)
        case 4: return SIMD2(p.x, h - p.y)
        case 5: return SIMD2(p.y, p.x)
        case 6: return SIMD2(h - p.y, p.x)
        case 7: return SIMD2(h - p.y, w - p.x)
        case 8: return SIMD2(p.y, w - p.x)
        default: return p
        }
    }

    /// The pixels of a `width` x `height` image of `channels` interleaved samples, turned.
    func apply<T>(_ pixels: [T], width: Int, height: Int, channels: Int = 1) -> (pixels: [T], width: Int, height: Int) {
        guard value != 1 else { return (pixels, width, height) }
        let (outWidth, outHeight) = transposes ? (height, width) : (width, height)
        var out = pixels
        for y in 0..<height {
            for x in 0..<width {
                let p = shown(SIMD2(Double(x), Double(y)), width: width, height: height)
                let to = (Int(p.y) * outWidth + Int(p.x)) * channels
                let from = (y * width + x) * channels
                for c in 0..<channels { out[to + c] = pixels[from + c] }
            }
        }
        return (out, outWidth, outHeight)
    }

    /// Intrinsics at their reference size, turned: the principal point moves as a pixel does, and
    /// the focal lengths trade places when the axes do.
    func apply(_ k: CameraIntrinsics) -> CameraIntrinsics {
        let c = shown(SIMD2(k.cx, k.cy), width: k.referenceWidth, height: k.referenceHeight)
        return transposes
            ? CameraIntrinsics(fx: k.fy, fy: k.fx, cx: c.x, cy: c.y, referenceWidth: k.referenceHeight, referenceHeight: k.referenceWidth)
            : CameraIntrinsics(fx: k.fx, fy: k.fy, cx: c.x, cy: c.y, referenceWidth: k.referenceWidth, referenceHeight: k.referenceHeight)
    }

    /// A radial lens turned: only its centre and the reference size change.
    func apply(_ lens: LensDistortion) -> LensDistortion {
        var turned = lens
        turned.center = shown(lens.center, width: lens.referenceWidth, height: lens.referenceHeight)
        if transposes { (turned.referenceWidth, turned.referenceHeight) = (lens.referenceHeight, lens.referenceWidth) }
        return turned
    }
}
