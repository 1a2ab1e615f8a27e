import CloudCore
import CloudImages
import Foundation
import SafeIO

extension PushFrame {
    /// The frame a pushed message carries, its header, and its color's JPEG as sent (for viewers
    /// that show it). `intrinsics` gives the stream's calibration for the depth's width and height;
    /// the depth counts `depthUnitsPerMetre` to the metre. Everything the message says is checked
    /// before it is believed: the framing's lengths, the header's encodings, the image sizes
    /// (against `maxSide` and `maxPixels`, from the header alone, before anything is allocated), the
    /// decoded images' sizes against the header's, and the pose (16 finite numbers, last row
    /// 0 0 0 1, a rigid placement within `Pose.maxTranslation`).
    ///
    /// Errors are `CloudError.badInput` naming the frame ("frame 12: ..."), or, before its header
    /// is read, `origin` (the socket); `closeReason(for:)` fits one into a WebSocket close frame.
    public static func decode(
        _ message: Data, intrinsics: (_ width: Int, _ height: Int) throws -> CameraIntrinsics, depthUnitsPerMetre: Double,
        origin: String
    ) throws -> (frame: CapturedFrame, header: PushHeader, jpeg: Data?) {
        let (header, payloads) = try StreamMessage.decode(message, origin: origin, as: PushHeader.self) { header in
            try check(header)
            return header.payloadSizes
        }
        let name = "frame \(header.frame)"
        // `check` has refused every other encoding.
        let codec = DepthFrameCodec(rawValue: header.depth.encoding)!
        let (width, height) = (header.depth.width, header.depth.height)
        // Claimed before a sample is decoded (a few KB of zstd can say 4096x4096): the whole
        // frame's making, as a source's frame is (`FrameMemory`), with the color added below.
        let depthBytes = width * height * (2 + Self.bytesPerDepthPixel)
        try MemoryBudget.require(depthBytes, for: "a \(width)x\(height) frame", about: nil, margin: Self.margin)
        let samples = try codec.decode([UInt8](payloads[0]), width: width, height: height, origin: "\(name): \(codec.rawValue) depth")
        var color: CapturedFrame.Color?
        var jpeg: Data?
        if header.color != nil {
            let bytes = Data(payloads[1])
            let image = try decodeJPEG([UInt8](bytes), origin: "\(name): color", held: depthBytes)
            color = CapturedFrame.Color(width: image.width, height: image.height, layout: .rgb8, planes: [image.rgb])
            jpeg = bytes
        }
        #if _endian(big)
        let samples = samples.map { $0.littleEndian }
        #endif
        let depth = CapturedFrame.Depth(
            width: width, height: height, encoding: .uint16(unitsPerMetre: depthUnitsPerMetre),
            data: samples.withUnsafeBytes { [UInt8]($0) })
        let frame = CapturedFrame(
            depth: depth, color: color, intrinsics: try intrinsics(width, height),
            pose: try header.pose.map { try pose($0, origin: name) }, timestamp: Double(header.captured) / 1e9)
        return (frame, header, jpeg)
    }

    /// The longest reason a WebSocket close frame carries (RFC 6455: 125 bytes of payload, two of
    /// them the close code).
    public static let maxCloseReasonBytes = 123

    /// `error`'s one-line message, shortened to fit a close frame's reason.
    public static func closeReason(for error: Error) -> String {
        let message = (error as? CloudError)?.message ?? "\(error)"
        var limit = maxCloseReasonBytes
        var reason = MessageText.fitted(message, limit: limit)
        while reason.utf8.count > maxCloseReasonBytes {
            limit -= reason.utf8.count - maxCloseReasonBytes
            reason = MessageText.fitted(message, limit: limit)
        }
        return reason
    }

    /// The header's promises that can be judged before a payload is touched.
    static func check(_ header: PushHeader) throws {
        let name = "frame \(header.frame)"
        guard header.frame >= 0 else { throw CloudError.badInput("\(name): a frame number is 0 or more") }
        let depth = header.depth
        guard DepthFrameCodec(rawValue: depth.encoding) != nil else {
            throw CloudError.badInput(
                "\(name): unknown depth encoding \(quoted(depth.encoding)) (\(DepthFrameCodec.allCases.map(\.rawValue).joined(separator: ", ")))"
            )
        }
        try checkSize(width: depth.width, height: depth.height, what: "depth", origin: name)
        if let color = header.color, color.encoding != "jpeg" {
            throw CloudError.badInput("\(name): unknown color encoding \(quoted(color.encoding)) (jpeg)")
        }
        if let pose = header.pose { _ = try self.pose(pose, origin: name) }
    }

    /// A client's word in a message: escaped, quoted and short, so that the reason still fits.
    static func quoted(_ text: String) -> String {
        "'" + MessageText.shortened(MessageText.escaped(text), to: 16) + "'"
    }

    /// What making a frame holds per depth pixel beside its raw sample: its metres, its sampled
    /// color and its point (`FrameMemory.perDepthPixel` in CloudCapture), and the copy the raw
    /// plane is made from.
    static let bytesPerDepthPixel = 24
    /// The frame's smaller buffers and the packings viewers are sent, held to what the process
    /// has left.
    static let margin = 16 << 20

    /// A JPEG's pixels as RGB, its size checked from its header before it is decoded, and its
    /// decoding (the samples and the RGB copy) claimed beside the `held` bytes of the frame.
    static func decodeJPEG(_ bytes: [UInt8], origin: String, held: Int = 0) throws -> ColorImage {
        guard bytes.withUnsafeBytes({ ImageFormat.sniff($0) }) == .jpeg else {
            throw CloudError.badInput("\(origin): not a JPEG")
        }
        let header = try ImageFile.header(bytes, origin: origin)
        try checkSize(width: header.width, height: header.height, what: "color", origin: origin)
        try MemoryBudget.require(
            header.width * header.height * 6, for: "a \(header.width)x\(header.height) color image", about: nil, held: held)
        return try ImageFile.decode(bytes, origin: origin).colorImage(origin: origin)
    }

    /// A camera-to-world pose from 16 row-major numbers.
    static func pose(_ numbers: [Double], origin: String) throws -> Pose {
        guard numbers.count == 16 else { throw CloudError.badInput("\(origin): a pose is 16 numbers, not \(numbers.count)") }
        guard numbers.allSatisfy(\.isFinite) else { throw CloudError.badInput("\(origin): the pose has a number that is not finite") }
        guard numbers[12...] == [0, 0, 0, 1] else { throw CloudError.badInput("\(origin): the pose's last row is not 0 0 0 1") }
        let n = numbers
        let pose = Pose(
            rows: (SIMD3(n[0], n[1], n[2]), SIMD3(n[4], n[5], n[6]), SIMD3(n[8], n[9], n[10])), translation: SIMD3(n[3], n[7], n[11]))
        if let problem = pose.placementProblem { throw CloudError.badInput("\(origin): \(problem)") }
        return pose
    }
}
