import XCTest

@testable import CloudCore

/// LZF compression: what the decoder unpacks is the input, for data with and without repeats,
/// every item kind (literal runs past 32, short and long references, overlapping runs), inputs
/// split into pieces at awkward places, and the size bound.
final class LZFCompressTests: XCTestCase {
    private func roundTrip(_ input: [UInt8], piece: Int, _ label: String) throws {
        let pieces = input.withUnsafeBytes { LZF.compress($0, piece: piece) }
        let stream = Array(pieces.joined())
        XCTAssertLessThanOrEqual(stream.count, LZF.compressedBound(input.count) + pieces.count, label)
        var output = [UInt8](repeating: 0xEE, count: input.count)
        try stream.withUnsafeBytes { s in try output.withUnsafeMutableBytes { try LZF.decompress(s, into: $0, origin: label) } }
        XCTAssertEqual(output, input, label)
    }

    func testRoundTrips() throws {
        var random = SplitMixBytes(seed: 3)
        let noise = (0..<100_000).map { _ in random.next() }
        let run = [UInt8](repeating: 7, count: 70_000)
        let pattern = (0..<90_000).map { UInt8($0 % 251) }
        // Float planes like a PCD's: smooth values whose upper bytes repeat.
        let floats = (0..<40_000).flatMap { i in withUnsafeBytes(of: Float(1.5 + 0.0001 * Float(i % 977))) { Array($0) } }
        let mixed = noise[..<5000] + run[..<3000] + pattern[..<20_000] + noise[5000..<6000] + floats[..<50_000]
        for (name, data) in [
            ("noise", noise), ("run", run), ("pattern", pattern), ("floats", floats), ("mixed", Array(mixed)),
            ("empty", []), ("one", [42]), ("two", [1, 2]), ("three", [9, 9, 9])
        ] {
            for piece in [1 << 20, 4096, 1000, 7] {
                try roundTrip(data, piece: piece, "\(name) in pieces of \(piece)")
            }
        }
    }

    func testRepeatsCompress() throws {
        let run = [UInt8](repeating: 7, count: 70_000)
        let compressed = run.withUnsafeBytes { LZF.compress($0) }.joined().count
        // Each back reference carries at most 264 bytes in 3.
        XCTAssertLessThan(compressed, 70_000 / 264 * 3 + 64)
    }
}

private struct SplitMixBytes {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt8 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return UInt8(truncatingIfNeeded: z ^ (z >> 31))
    }
}
