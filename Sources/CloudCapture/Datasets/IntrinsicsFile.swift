import CloudCore
import Foundation
import SafeIO

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
            throw CloudError.badInput(.file(path), "not a text file")
        }
        let trimmed = text.drop { $0.isWhitespace }
        let file: IntrinsicsFile
        if trimmed.hasPrefix("{") {
            file = try parseJSON(data, path: path)
        } else if trimmed.hasPrefix("<") {
            file = try parseGrabberXML(text, path: path)
        } else {
            throw CloudError.badInput(.file(path), "neither JSON (Open3D or cloudgen intrinsics) nor PCL grabber XML")
        }
        return file
    }

    /// Calibration given as a JSON object rather than a file (a stream's `push.intrinsics`);
    /// `origin` names it in errors.
    public static func parse(json data: Data, origin: String) throws -> IntrinsicsFile {
        guard data.count <= maxBytes else { throw CloudError.badInput(.file(origin), "longer than \(maxBytes) bytes") }
        return try parseJSON(data, path: origin)
    }

    static func parseJSON(_ data: Data, path: String) throws -> IntrinsicsFile {
        guard (try? JSONSerialization.jsonObject(with: data)) is [String: Any] else {
            throw CloudError.badInput(.file(path), "malformed JSON")
        }
        try JSONDuplicateKeys.check([UInt8](data), origin: path)
        let fields: IntrinsicsJSON
        do {
            fields = try JSONDecoder().decode(IntrinsicsJSON.self, from: data)
        } catch let error as IntrinsicsJSON.Problem {
            throw CloudError.badInput(.file(path), "\(error.message)")
        } catch let DecodingError.typeMismatch(_, context), let DecodingError.valueNotFound(_, context) {
            let key = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined()
            throw CloudError.badInput(.file(path), "'\(key)' must be \(key == "intrinsic_matrix" ? "an array of 9 numbers" : "a number")")
        }
        func number(_ key: String, _ value: Double?) throws -> Double {
            guard let value else { throw CloudError.badInput(.file(path), "missing number '\(key)'") }
            return value
        }
        let (w, h) = (try number("width", fields.width), try number("height", fields.height))
        guard w == w.rounded(), h == h.rounded(), w >= 1, h >= 1, w <= Double(ImageLimits.maxSide), h <= Double(ImageLimits.maxSide) else {
            throw CloudError.badInput(
                .file(path), "image size \(w)x\(h) is not a plausible size (whole numbers, 1...\(ImageLimits.maxSide))")
        }
        let size = (Int(w), Int(h))
        if let m = fields.matrix {
            guard fields.fx == nil, fields.fy == nil, fields.cx == nil, fields.cy == nil, fields.depthUnitsPerMetre == nil else {
                throw CloudError.badInput(.file(path), "has both intrinsic_matrix (Open3D) and fx/fy/cx/cy (cloudgen); give one")
            }
            guard m.count == 9 else {
                throw CloudError.badInput(.file(path), "intrinsic_matrix must be 9 numbers (column-major 3x3), not \(m.count)")
            }
            // Column-major [fx, 0, 0, skew, fy, 0, cx, cy, 1]: a pinhole without skew.
            guard m[1] == 0, m[2] == 0, m[3] == 0, m[5] == 0, m[8] == 1 else {
                throw CloudError.badInput(.file(path), "intrinsic_matrix must be [fx, 0, 0, 0, fy, 0, cx, cy, 1] (column-major, no skew)")
            }
            return try IntrinsicsFile(
                fx: m[0], fy: m[4], cx: m[6], cy: m[7], referenceSize: size,
                depthUnitsPerMetre: nil, path: path
            ).checked()
        }
        if let units = fields.depthUnitsPerMetre, !DepthEncoding.isUsableScale(units) {
            throw CloudError.badInput(.file(path), "depthUnitsPerMetre must be a positive number, not \(units)")
        }
        return try IntrinsicsFile(
            fx: try number("fx", fields.fx), fy: try number("fy", fields.fy),
            cx: try number("cx", fields.cx), cy: try number("cy", fields.cy),
            referenceSize: size, depthUnitsPerMetre: fields.depthUnitsPerMetre, path: path
        ).checked()
    }

    /// Values no camera has, beyond what `CameraIntrinsics.validate` refuses: a focal length of
    /// more than 1000 image widths (a 0.06-degree field of view) and a principal point more than
    /// one image size outside the image. Without a reference size, the largest image is assumed.
    func checked() throws -> IntrinsicsFile {
        let (w, h) =
            referenceSize.map { (Double($0.width), Double($0.height)) } ?? (Double(ImageLimits.maxSide), Double(ImageLimits.maxSide))
        try intrinsics(forDepthWidth: Int(w), height: Int(h)).validate(origin: path)
        guard fx <= 1000 * w, fy <= 1000 * h else {
            throw CloudError.badInput(.file(path), "focal length fx=\(fx), fy=\(fy) is more than 1000 times the image size; not a camera")
        }
        guard (-w...(2 * w)).contains(cx), (-h...(2 * h)).contains(cy) else {
            throw CloudError.badInput(.file(path), "principal point cx=\(cx), cy=\(cy) lies far outside the \(Int(w))x\(Int(h)) image")
        }
        return self
    }

    static func parseGrabberXML(_ text: String, path: String) throws -> IntrinsicsFile {
        // The grabber writes a flat, fixed layout; the depth camera's block is the one depth is
        // back-projected with.
        let block = XMLBlock(text).element("depth") ?? XMLBlock(text).element("rgb")
        guard let block else { throw CloudError.badInput(.file(path), "no <depth> or <rgb> element (PCL grabber XML)") }
        func value(_ tag: String) throws -> Double {
            guard let s = block.element(tag)?.trimmed, let v = Double(s) else {
                throw CloudError.badInput(.file(path), "missing or malformed <\(tag)>")
            }
            guard block.count(tag) == 1 else { throw CloudError.badInput(.file(path), "<\(tag)> appears more than once") }
            return v
        }
        var units: Double?
        if block.element("z_multiplication_factor") != nil {
            let factor = try value("z_multiplication_factor")
            guard factor.isFinite, factor > 0, DepthEncoding.isUsableScale(1 / factor) else {
                throw CloudError.badInput(
                    .file(path),
                    "z_multiplication_factor must be a positive number of metres per raw unit (0.001 for millimetres), not \(factor)")
            }
            units = 1 / factor
        }
        return try IntrinsicsFile(
            fx: try value("focal_length_x"), fy: try value("focal_length_y"),
            cx: try value("principal_point_x"), cy: try value("principal_point_y"),
            referenceSize: nil, depthUnitsPerMetre: units, path: path
        ).checked()
    }
}

/// Just enough XML for calibration files: the text between `<tag>` and `</tag>`, no attributes,
/// no entities. The grabber's files need no more.
struct XMLBlock {
    let text: Substring

    init<S: StringProtocol>(_ text: S) { self.text = Substring(text) }

    func element(_ tag: String) -> XMLBlock? {
        guard let open = text.range(of: "<\(tag)>"),
            let close = text.range(of: "</\(tag)>", range: open.upperBound..<text.endIndex)
        else { return nil }
        return XMLBlock(text[open.upperBound..<close.lowerBound])
    }

    var trimmed: String { text.trimmingCharacters(in: .whitespacesAndNewlines) }

    /// How many times `<tag>` opens in the block.
    func count(_ tag: String) -> Int {
        text.components(separatedBy: "<\(tag)>").count - 1
    }
}

/// The keys of both JSON forms, each with the type it must have: a `true`, a string or a null
/// where a number belongs is refused by name, and so is a key neither form has (a misspelt
/// `depthUnitsPerMeter` would otherwise be ignored).
private struct IntrinsicsJSON: Decodable {
    struct Problem: Error {
        var message: String
    }

    var width, height, fx, fy, cx, cy, depthUnitsPerMetre: Double?
    var matrix: [Double]?

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    static let keys = ["width", "height", "intrinsic_matrix", "fx", "fy", "cx", "cy", "depthUnitsPerMetre"]

    init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        for key in container.allKeys where !Self.keys.contains(key.stringValue) {
            throw Problem(
                message: "unknown key '\(key.stringValue.prefix(40))' (intrinsics files have \(Self.keys.joined(separator: ", ")))")
        }
        func number(_ name: String) throws -> Double? {
            let key = Key(stringValue: name)
            guard container.contains(key) else { return nil }
            if try container.decodeNil(forKey: key) { throw Problem(message: "'\(name)' must be a number, not null") }
            return try container.decode(Double.self, forKey: key)
        }
        (width, height, fx, fy, cx, cy, depthUnitsPerMetre) = (
            try number("width"), try number("height"), try number("fx"), try number("fy"),
            try number("cx"), try number("cy"), try number("depthUnitsPerMetre")
        )
        let matrixKey = Key(stringValue: "intrinsic_matrix")
        if container.contains(matrixKey) {
            if try container.decodeNil(forKey: matrixKey) { throw Problem(message: "'intrinsic_matrix' must be 9 numbers, not null") }
            matrix = try container.decode([Double].self, forKey: matrixKey)
        }
    }
}
