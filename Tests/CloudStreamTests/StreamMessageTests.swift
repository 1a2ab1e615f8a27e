import CloudCore
import CloudStream
import Foundation
import SharedTestData
import XCTest

/// The framing as its contract states it, byte for byte: a 4-byte little-endian length N, N bytes
/// of UTF-8 JSON, then the payloads; and every way a peer can lie about it refused in one line.
final class StreamMessageTests: XCTestCase {
    struct Header: Codable, Equatable {
        var frame: Int
        var pointSize: Int
        var sizes: [Int]
    }

    func testTheBytesAreTheLengthTheHeaderAndThePayloadsInOrder() throws {
        let message = try StreamMessage(header: Header(frame: 7, pointSize: 2, sizes: [3, 2]), payloads: [Data([1, 2, 3]), Data([4, 5])])
        let bytes = [UInt8](message.encoded)
        let json = #"{"frame":7,"point_size":2,"sizes":[3,2]}"#
        XCTAssertEqual(Array(bytes[0..<4]), [UInt8(json.utf8.count), 0, 0, 0])
        XCTAssertEqual(String(decoding: bytes[4..<4 + json.utf8.count], as: UTF8.self), json)
        XCTAssertEqual(Array(bytes[(4 + json.utf8.count)...]), [1, 2, 3, 4, 5])

        let (header, payloads) = try StreamMessage.decode(message.encoded, origin: "socket", as: Header.self) { $0.sizes }
        XCTAssertEqual(header, Header(frame: 7, pointSize: 2, sizes: [3, 2]))
        XCTAssertEqual(payloads, [Data([1, 2, 3]), Data([4, 5])])
    }

    func testLyingOrBrokenMessagesAreRefusedNamingTheirOrigin() throws {
        let good = try StreamMessage(header: Header(frame: 1, pointSize: 1, sizes: [4]), payloads: [Data([9, 9, 9, 9])]).encoded
        func decode(_ bytes: Data) throws { _ = try StreamMessage.decode(bytes, origin: "push frame 3", as: Header.self) { $0.sizes } }
        assertCloudError(.badInput, naming: "push frame 3", containing: "shorter than its 4-byte header length") {
            try decode(Data([1, 0]))
        }
        // A length past what a header may have is refused before anything of that size is read.
        assertCloudError(.badInput, naming: "push frame 3", containing: "longer than the 65536") {
            try decode(Data([0, 0, 0, 0x7f]) + Data(repeating: 0x20, count: 16))
        }
        assertCloudError(.badInput, naming: "push frame 3", containing: "but only 3 follow") {
            try decode(Data([50, 0, 0, 0, 0x7b, 0x7d, 0x20]))
        }
        var notJSON = good
        notJSON[4] = UInt8(ascii: "x")
        assertCloudError(.badInput, naming: "push frame 3", containing: "not the JSON") { try decode(notJSON) }
        assertCloudError(.badInput, naming: "push frame 3", containing: "announces 4 bytes of payload, but 3 follow") {
            try decode(good.dropLast())
        }
        assertCloudError(.badInput, naming: "push frame 3", containing: "announces 4 bytes of payload, but 5 follow") {
            try decode(good + Data([0]))
        }
        let missingKey = StreamMessage(header: Data(#"{"frame":1}"#.utf8), payloads: []).encoded
        assertCloudError(.badInput, naming: "push frame 3", containing: "no point_size") { try decode(missingKey) }
        let negative = try StreamMessage(header: Header(frame: 1, pointSize: 1, sizes: [-4, 4]), payloads: []).encoded
        assertCloudError(.badInput, naming: "push frame 3", containing: "negative payload size") { try decode(negative) }
    }
}
