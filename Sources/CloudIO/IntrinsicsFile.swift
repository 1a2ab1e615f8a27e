import CloudCore
import Foundation

/// Camera calibration read from a file (`--intrinsics FILE`). Three forms are understood, told
/// apart by their content:
/// - Open3D's PinholeCameraIntrinsic JSON: `width`, `height` and a column-major 3x3
///   `intrinsic_matrix` (fx at [0], fy at [4], cx at [6], cy at [7]).
/// - PCL's image-grabber XML: `<depth>` (else `<rgb>`) with focal_length_x/y, principal_point_x/y
///   and `z_multiplication_factor` (metres per raw unit). It names no image size: the intrinsics
///   are then taken to be at the size of the depth image they are used with.
/// - cloudgen's own JSON (Docs/formats.md): `fx`, `fy`, `cx`, `cy`, `width`, `height`, optional
///   `depthUnitsPerMetre`.
public struct IntrinsicsFile: Equatable, Sendable {
    public var fx: Double
    public var fy: Double
    public var cx: Double
    public var cy: Double
    /// The image size the values are expressed in, when the file says.
    public var referenceSize: (width: Int, height: Int)?
    /// Raw depth units per metre, when the file says (PCL's XML does).
    public var depthUnitsPerMetre: Double?
    public var path: String

    public static func == (a: IntrinsicsFile, b: IntrinsicsFile) -> Bool {
        a.fx == b.fx && a.fy == b.fy && a.cx == b.cx && a.cy == b.cy && a.path == b.path
            && a.referenceSize?.width == b.referenceSize?.width && a.referenceSize?.height == b.referenceSize?.height
            && a.depthUnitsPerMetre == b.depthUnitsPerMetre
    }

    /// The intrinsics for a depth image of `width` x `height`: at the file's reference size when it
    /// names one, else at that image's own size. Validated (finite, positive focal lengths).
    public func intrinsics(forDepthWidth width: Int, height: Int) throws -> CameraIntrinsics {
        let size = referenceSize ?? (width, height)
        let k = CameraIntrinsics(fx: fx, fy: fy, cx: cx, cy: cy, referenceWidth: size.width, referenceHeight: size.height)
        try k.validate(origin: path)
        return k
    }

    /// Files larger than this are not calibration files; refusing them bounds what is read.
    static let maxBytes = 1 << 20

    public static func read(_ path: String) throws -> IntrinsicsFile {
        let data = Data(try InputFile.readAll(path, role: "the intrinsics file", limit: maxBytes))
        guard let text = String(data: data, encoding: .utf8) else {
            throw CloudError.badInput("\(path): not a text file")
        }
        let trimmed = text.drop { $0.isWhitespace }
        let file: IntrinsicsFile
        if trimmed.hasPrefix("{") {
            file = try parseJSON(data, path: path)
        } else if trimmed.hasPrefix("<") {
            file = try parseGrabberXML(text, path: path)
        } else {
            throw CloudError.badInput("\(path): neither JSON (Open3D or cloudgen intrinsics) nor PCL grabber XML")
        }
        // Validate now, so that a NaN or zero focal length is reported against the file.
        _ = try file.intrinsics(forDepthWidth: file.referenceSize?.width ?? 1, height: file.referenceSize?.height ?? 1)
        return file
    }

    static func parseJSON(_ data: Data, path: String) throws -> IntrinsicsFile {
        guard let object = try? JSONSerialization.jsonObject(with: data), let json = object as? [String: Any] else {
            throw CloudError.badInput("\(path): malformed JSON")
        }
        func number(_ key: String) throws -> Double {
            guard let v = json[key] as? NSNumber else { throw CloudError.badInput("\(path): missing number '\(key)'") }
            return v.doubleValue
        }
        func size() throws -> (Int, Int) {
            let (w, h) = (try number("width"), try number("height"))
            guard w == w.rounded(), h == h.rounded(), w >= 1, h >= 1, w <= Double(ImageLimits.maxSide), h <= Double(ImageLimits.maxSide) else {
                throw CloudError.badInput("\(path): image size \(w)x\(h) is not a plausible size")
            }
            return (Int(w), Int(h))
        }
        if let matrix = json["intrinsic_matrix"] {
            guard let m = (matrix as? [Any])?.compactMap({ ($0 as? NSNumber)?.doubleValue }), m.count == 9 else {
                throw CloudError.badInput("\(path): intrinsic_matrix must be 9 numbers (column-major 3x3)")
            }
            return IntrinsicsFile(fx: m[0], fy: m[4], cx: m[6], cy: m[7], referenceSize: try size(),
                                  depthUnitsPerMetre: nil, path: path)
        }
        let units = try json["depthUnitsPerMetre"].map { _ in try number("depthUnitsPerMetre") }
        if let units, !DepthEncoding.isUsableScale(units) {
            throw CloudError.badInput("\(path): depthUnitsPerMetre must be a positive number")
        }
        return IntrinsicsFile(fx: try number("fx"), fy: try number("fy"), cx: try number("cx"), cy: try number("cy"),
                              referenceSize: try size(), depthUnitsPerMetre: units, path: path)
    }

    static func parseGrabberXML(_ text: String, path: String) throws -> IntrinsicsFile {
        // The grabber writes a flat, fixed layout; the depth camera's block is the one depth is
        // back-projected with.
        let block = XMLBlock(text).element("depth") ?? XMLBlock(text).element("rgb")
        guard let block else { throw CloudError.badInput("\(path): no <depth> or <rgb> element (PCL grabber XML)") }
        func value(_ tag: String) throws -> Double {
            guard let s = block.element(tag)?.trimmed, let v = Double(s) else {
                throw CloudError.badInput("\(path): missing or malformed <\(tag)>")
            }
            return v
        }
        var units: Double?
        if block.element("z_multiplication_factor") != nil {
            let factor = try value("z_multiplication_factor")
            guard factor.isFinite, factor > 0, DepthEncoding.isUsableScale(1 / factor) else {
                throw CloudError.badInput("\(path): z_multiplication_factor must be a positive number of metres per raw unit (0.001 for millimetres), not \(factor)")
            }
            units = 1 / factor
        }
        return IntrinsicsFile(fx: try value("focal_length_x"), fy: try value("focal_length_y"),
                              cx: try value("principal_point_x"), cy: try value("principal_point_y"),
                              referenceSize: nil, depthUnitsPerMetre: units, path: path)
    }
}

/// Just enough XML for calibration files: the text between `<tag>` and `</tag>`, no attributes,
/// no entities. The grabber's files need no more.
struct XMLBlock {
    let text: Substring

    init<S: StringProtocol>(_ text: S) { self.text = Substring(text) }

    func element(_ tag: String) -> XMLBlock? {
        guard let open = text.range(of: "<\(tag)>"),
              let close = text.range(of: "</\(tag)>", range: open.upperBound..<text.endIndex) else { return nil }
        return XMLBlock(text[open.upperBound..<close.lowerBound])
    }

    var trimmed: String { text.trimmingCharacters(in: .whitespacesAndNewlines) }
}
