import CloudCore
import Foundation
import SafeIO
import XCTest

@testable import CloudCapture

/// Frames too large for the process are refused before their buffers exist, with the figure.
final class FrameMemoryTests: XCTestCase {
    /// The estimate counts 24 bytes per 16-bit depth pixel (the raw plane, metres, sampled color,
    /// the point), the color planes and a margin: 6.1 GiB for a 16384x16384 frame.
    func testEstimateOfTheCapturePath() {
        let bytes = FrameMemory.estimate(
            depth: ImageSize(width: 16384, height: 16384), rawBytesPerSample: 2,
            colorBytes: 1920 * 1440 * 3 / 2)
        XCTAssertEqual(bytes, 16384 * 16384 * 24 + 1920 * 1440 * 3 / 2 + (64 << 20))
        XCTAssertEqual(MemoryBudget.format(bytes), "6.1 GiB")
    }

    /// Under an address-space limit 512 MiB above what is mapped, an 8192x8192 simulated frame
    /// (1.6 GiB) is refused at once, naming the spec and both figures; a 256x192 one opens.
    func testSimulatorRefusesAFrameBeyondTheAddressSpaceLimit() throws {
        var saved = rlimit()
        XCTAssertEqual(getrlimit(Int32(RLIMIT_AS.rawValue), &saved), 0)
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let vmKiB = try XCTUnwrap(
            status.split(separator: "\n").first { $0.hasPrefix("VmSize:") }?.split(separator: " ").dropFirst().first.flatMap { Int($0) })
        var tight = saved
        tight.rlim_cur = rlim_t(vmKiB * 1024 + (512 << 20))
        XCTAssertEqual(setrlimit(Int32(RLIMIT_AS.rawValue), &tight), 0)
        defer { _ = setrlimit(Int32(RLIMIT_AS.rawValue), &saved) }

        XCTAssertThrowsError(try syntheticCamera("synthetic:depth=8192x8192")) { error in
            let message = (error as? CloudError)?.message ?? "\(error)"
            XCTAssertEqual((error as? CloudError)?.kind, .budget, message)
            XCTAssertEqual((error as? CloudError)?.exitStatus, 2, message)
            XCTAssertTrue(message.hasPrefix("synthetic:room="), message)
            XCTAssertTrue(message.contains("needs about 1.6 GiB of memory for a 8192x8192 depth frame with 1920x1440 color"), message)
            XCTAssertTrue(message.contains("ulimit -v"), message)
        }
        XCTAssertNoThrow(try syntheticCamera("synthetic"))
    }
}
