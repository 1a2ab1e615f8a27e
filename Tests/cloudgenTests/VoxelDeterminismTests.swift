import Foundation
import XCTest

/// The same cloud gives the same voxels to the last bit on one core as on all of them: the room
/// measurement's plane fits turn on those bits, and its figures must not depend on the machine.
/// (The shim sizes its work by the process's CPU affinity, which `taskset` sets.)
final class VoxelDeterminismTests: XCTestCase {
    func testOneCoreAndAllCoresWriteTheSameVoxels() throws {
        let dir = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let frame = sharedData("pcl-grabber/frame_20121214T142255.814212.pcd")
        let all = dir.appendingPathComponent("all.ply").path
        let one = dir.appendingPathComponent("one.ply").path
        XCTAssertEqual(try CLI.run(["convert", frame, "--voxel", "0.01", "--ply", all]).status, 0)
        let pinned = Process()
        pinned.executableURL = URL(fileURLWithPath: "/usr/bin/taskset")
        pinned.arguments = ["-c", "0", CLI.executable.path, "convert", frame, "--voxel", "0.01", "--ply", one]
        pinned.standardError = FileHandle.nullDevice
        pinned.standardOutput = FileHandle.nullDevice
        try pinned.run()
        pinned.waitUntilExit()
        XCTAssertEqual(pinned.terminationStatus, 0)
        let (a, b) = (try Data(contentsOf: URL(fileURLWithPath: all)), try Data(contentsOf: URL(fileURLWithPath: one)))
        XCTAssertGreaterThan(a.count, 10_000)
        XCTAssertTrue(a == b, "the voxel grid's output on one core differs from that on all cores")
    }
}
