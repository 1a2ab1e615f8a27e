import CloudCore
import CloudImages
import Foundation
import Hummingbird
import HummingbirdTesting
import SharedTestData
import XCTest

/// Hundreds of mangled multipart bodies (cut short, bytes flipped, boundaries doubled or lost,
/// headers broken): each gets a 2xx or a 4xx problem, never a 500 or a dropped connection, and
/// the server still captures a good upload afterwards. Seeded, so a failure reproduces.
final class MangledUploadTests: XCTestCase {
    /// A small frame (64x48, 1 m to 2 m of depth), so that the bodies that still parse capture fast.
    private func smallFrame(in folder: URL) throws -> MultipartBody {
        let (w, h) = (64, 48)
        let depthPath = folder.appendingPathComponent("depth.png").path
        try PNGWriter.write(gray16: (0..<w * h).map { UInt16(1000 + $0 % 1000) }, width: w, height: h, to: depthPath)
        let colorPath = folder.appendingPathComponent("color.png").path
        try PNGWriter.write(rgb: ColorImage(width: w, height: h, rgb: (0..<w * h * 3).map { UInt8($0 % 251) }), to: colorPath)
        var body = MultipartBody()
        try body.file("depth", path: depthPath)
        try body.file("color", path: colorPath)
        try body.file("intrinsics", path: try sharedData("open3d-rgbd/camera_primesense.json"))
        body.field("voxel", "0.01")
        return body
    }

    func testMangledBodiesGetProblemsNeverServerErrors() async throws {
        let harness = try ServiceHarness()
        defer { harness.remove() }
        let scratch = try makeScratchFolder()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let frame = try smallFrame(in: scratch)
        let good = Array(frame.bytes + Data("--\(frame.boundary)--\r\n".utf8))
        let boundary = Array("--\(frame.boundary)".utf8)
        try await harness.test { client in
            // Made inside the closure, which runs concurrently with this function: the seed, not the state, is shared.
            var random = SplitMix(seed: 11)
            var statuses: [UInt: Int] = [:]
            for round in 0..<300 {
                var body = good
                for _ in 0...random.next(3) {
                    switch random.next(6) {
                    case 0: body = Array(body.prefix(random.next(body.count)))
                    case 1: if !body.isEmpty { body[random.next(body.count)] ^= UInt8(1 + random.next(255)) }
                    case 2: body.insert(contentsOf: boundary + Array("\r\n".utf8), at: random.next(body.count + 1))
                    case 3:
                        let at = random.next(body.count + 1)
                        body.removeSubrange(at..<min(body.count, at + random.next(64)))
                    case 4:
                        body.insert(
                            contentsOf: Array("\r\nContent-Disposition: form-data; name=\"x\u{0}\"\r\n\r\n".utf8),
                            at: random.next(body.count + 1))
                    default: body = body.map { $0 == UInt8(ascii: "\n") && random.next(8) == 0 ? UInt8(ascii: "\r") : $0 }
                    }
                }
                let response = try await client.execute(
                    uri: "/v1/captures", method: .post, headers: frame.headers, body: ByteBuffer(bytes: body))
                statuses[UInt(response.status.code), default: 0] += 1
                XCTAssertTrue(
                    [201, 400, 415, 422].contains(response.status.code),
                    "round \(round): \(response.status) \(String(buffer: response.body))")
                if response.status.code >= 400 {
                    XCTAssertEqual(response.headers[.contentType], "application/problem+json", "round \(round)")
                }
            }
            XCTAssertGreaterThan(statuses[400, default: 0], 0, "\(statuses)")
            let after = try await client.execute(uri: "/v1/captures", method: .post, headers: frame.headers, body: frame.body)
            XCTAssertEqual(after.status, .created)
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: harness.data.appendingPathComponent("uploads").path), [])
    }
}

/// A small seeded generator (SplitMix64), the same sequence on every run.
struct SplitMix {
    var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    /// A number in 0..<bound (0 when bound is 0).
    mutating func next(_ bound: Int) -> Int {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        return bound > 0 ? Int(z % UInt64(bound)) : 0
    }
}
