import CloudCore
import CloudStream
import Foundation
import SharedTestData
import XCTest

/// A viewer's reading of the live socket: what the server packs comes back point for point, the
/// pictures in their order, and a header that lies about its points is refused before any
/// allocation follows it.
final class LiveMessageTests: XCTestCase {
    func header(points: Int, depth: Int?, color: Int?) -> LiveHeader {
        LiveHeader(
            frame: 3, captured: 1, received: 2, sent: 3, points: points, total: 10, origin: [0.5, -1, 2], scale: 1e-4,
            depth: depth.map { .init(encoding: "png", width: 4, height: 3, bytes: $0) },
            color: color.map { .init(encoding: "jpeg", width: 4, height: 3, bytes: $0) })
    }

    func testPointsAndPicturesComeBackAsPacked() throws {
        let cloud = PointCloud(positions: [0, 0, 1, 1, 2, 3, -1, 0.5, 2.5], colors: [10, 20, 30, 40, 50, 60, 70, 80, 90])
        let packed = QuantisedCloud(cloud, budget: 3)
        var header = header(points: 3, depth: 2, color: 3)
        header.origin = [packed.origin.x, packed.origin.y, packed.origin.z]
        header.scale = packed.scale
        let (depth, color) = (Data([1, 2]), Data([7, 8, 9]))
        let message = try LiveMessage.decode(
            try StreamMessage(header: header, payloads: packed.payloads + [depth, color]).encoded, origin: "live")
        XCTAssertEqual(message.positions, packed.positions)
        XCTAssertEqual(message.colors, packed.colors)
        XCTAssertEqual(message.depthPNG, depth)
        XCTAssertEqual(message.colorImage, color)
        for j in 0..<3 { XCTAssertEqual(message.position(j), packed.position(j)) }

        // Color alone: the picture after the points is the color, not the depth.
        let colorOnly = try LiveMessage.decode(
            try StreamMessage(header: self.header(points: 3, depth: nil, color: 3), payloads: packed.payloads + [color]).encoded,
            origin: "live")
        XCTAssertNil(colorOnly.depthPNG)
        XCTAssertEqual(colorOnly.colorImage, color)
    }

    func testAProblemEventHasNoPayloads() throws {
        var problem = header(points: 0, depth: nil, color: nil)
        problem.event = "problem"
        problem.detail = "the camera went away"
        let message = try LiveMessage.decode(try StreamMessage(header: problem, payloads: []).encoded, origin: "live")
        XCTAssertEqual(message.header.detail, "the camera went away")
        XCTAssertEqual(message.positions, [])
    }

    func testLyingHeadersAreRefused() throws {
        // 2^61 points would overflow the payload sizes, and 2^25 would be a gigabyte of positions.
        for points in [1 << 61, 1 << 25, -1] {
            assertCloudError(.badInput, naming: "live", containing: "claims \(points) points") {
                try LiveMessage.decode(
                    try StreamMessage(header: self.header(points: points, depth: nil, color: nil), payloads: []).encoded, origin: "live")
            }
        }
        assertCloudError(.badInput, naming: "live", containing: "announces 9 bytes of payload, but 8 follow") {
            try LiveMessage.decode(
                try StreamMessage(header: self.header(points: 1, depth: nil, color: nil), payloads: [Data(count: 8)]).encoded,
                origin: "live")
        }
    }
}
