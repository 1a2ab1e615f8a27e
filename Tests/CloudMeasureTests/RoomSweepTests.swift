import CloudCapture
import CloudMeasure
import Foundation
import XCTest

/// The issue's goal on a seeded sweep of 50 simulated rooms (RoomSweep.spec): the walls close
/// into the true outline, height and every wall's length within 1 cm of the truth, the floor area
/// within 1 %, and twice the reported sigma covering the true error for at least 90 % of each
/// kind of number. Prints the error distribution that Docs/measure.md records.
final class RoomSweepTests: XCTestCase {
    static let rooms = 50
    /// The sweep's seed; SWEEP_SEED=N runs another. The floors' and ceilings' uncertainty was
    /// calibrated on seed 2026 and the walls' on the rooms Tools/rooms makes (Docs/measure.md),
    /// so the test checks it on seed 7, which the calibration never saw.
    static let seed = ProcessInfo.processInfo.environment["SWEEP_SEED"].flatMap(UInt64.init) ?? 7

    func testSweepOfFiftyRoomsMeetsTheAccuracyGoal() throws {
        var measured: [RoomSweep.Room] = []
        for index in 0..<Self.rooms {
            let spec = RoomSweep.spec(index, seed: Self.seed, frames: 18)
            let room = try RoomSweep.measure(spec)
            XCTAssertTrue(room.problems.isEmpty, "\(spec): \(room.problems.joined(separator: "; "))")
            for e in room.errors {
                switch e.kind {
                case "height", "wall": XCTAssertLessThanOrEqual(abs(e.error), 0.01, "\(spec): \(e.kind) off by \(e.error) m")
                case "area": XCTAssertLessThanOrEqual(abs(e.error) / e.truth, 0.01, "\(spec): area off by \(e.error) m²")
                default: break
                }
            }
            measured.append(room)
            if let out = ProcessInfo.processInfo.environment["SWEEP_DUMP"] {
                let line = try JSONSerialization.data(
                    withJSONObject: [
                        "spec": spec, "errors": room.errors.map { [$0.kind, $0.error, $0.sigma, $0.truth] },
                        "floorRms": room.report.floor?.rms ?? -1, "ceilingRms": room.report.ceiling?.rms ?? -1,
                        "floorPoints": room.report.floor?.points ?? -1, "ceilingPoints": room.report.ceiling?.points ?? -1,
                        "walls": room.report.walls.map { [$0.surface.rms, Double($0.surface.points), $0.length?.value ?? -1] }
                    ] as [String: Any])
                let handle =
                    FileHandle(forWritingAtPath: out)
                    ?? {
                        _ = FileManager.default.createFile(atPath: out, contents: nil)
                        return FileHandle(forWritingAtPath: out)!
                    }()
                handle.seekToEndOfFile()
                handle.write(line + Data("\n".utf8))
                handle.closeFile()
            }
        }
        print("sweep of \(measured.count) rooms (RoomSweepTests):")
        for kind in ["height", "wall", "area", "perimeter"] {
            let errors = measured.flatMap { $0.errors.filter { $0.kind == kind } }
            guard !errors.isEmpty else { continue }
            let absolute = errors.map { abs($0.error) }.sorted()
            let covered = Double(errors.filter { abs($0.error) <= 2 * $0.sigma }.count) / Double(errors.count)
            let unit = kind == "area" ? "m²" : "m"
            print(
                String(
                    format: "  %@: n=%d  |error| median %.4f, 90%% %.4f, max %.4f %@; median sigma %.4f; within 2 sigma %.0f%%",
                    kind, errors.count, absolute[absolute.count / 2], absolute[absolute.count * 9 / 10], absolute.last!, unit,
                    errors.map(\.sigma).sorted()[errors.count / 2], 100 * covered))
            XCTAssertGreaterThanOrEqual(covered, 0.9, "\(kind): 2 sigma covers the error in \(Int(100 * covered)) % only")
            if kind == "perimeter" {
                XCTAssertLessThanOrEqual(absolute.last!, 0.04, "perimeter: off by up to \(absolute.last!) m (4 walls within 1 cm each)")
            }
        }
    }

    /// Walks toward a corner see two or three walls and rarely the ceiling: what they measure
    /// (the walls whose both ends were seen, the height) is within 1 cm; the rest is null.
    func testWalksMeasureWhatTheySeeWithinACentimetre() throws {
        var checked = 0
        for index in 0..<10 {
            let spec = RoomSweep.spec(100 + index, seed: Self.seed, frames: 12, path: "walk")
            let (report, truth) = try RoomSweep.measureCapture(spec, fused: true)
            let room = RoomSweep.compare(report, truth, spec: spec)
            // Every wall measured is a true wall; what was not measured is null with its reason.
            let unmatched = room.problems.filter { $0.hasPrefix("no measured wall near") }
            XCTAssertTrue(unmatched.isEmpty, "\(spec): \(unmatched.joined(separator: "; "))")
            for wall in report.walls where wall.length == nil || wall.height == nil {
                XCTAssertNotNil(wall.reason, "\(spec): wall \(wall.index): a null length or height without a reason")
            }
            if report.height == nil { XCTAssertNotNil(report.reasons["height"], "\(spec): height null without a reason") }
            if report.outline == "open" { XCTAssertTrue(report.corners.isEmpty, "\(spec): an open outline has no corners") }
            for e in room.errors where e.kind == "height" || e.kind == "wall" {
                XCTAssertLessThanOrEqual(abs(e.error), 0.01, "\(spec): \(e.kind) off by \(e.error) m")
                checked += 1
            }
        }
        // A walk sees the far corner's two walls, each with one end: few numbers are measurable.
        print("walks: \(checked) heights and wall lengths measured in 10 rooms, each within 1 cm")
        XCTAssertGreaterThanOrEqual(checked, 3, "the walks measured almost nothing")
    }

    /// A single frame in the camera's own frame: up from the source's pose, the camera's height
    /// above the floor within 1 cm, its 2 sigma covering the error in at least 90 % of the rooms.
    func testSingleFramesGiveTheCamerasHeight() throws {
        var covered = 0
        var rooms = 0
        for index in 0..<20 {
            let spec = RoomSweep.spec(200 + index, seed: Self.seed, frames: 1)
            let (report, _) = try RoomSweep.measureCapture(spec, fused: false)
            let eye = try SyntheticCamera(settings: SyntheticSettings(parsing: spec)).scene.eye.z
            let height = try XCTUnwrap(report.cameras.height, "\(spec): \(report.reasons)")
            XCTAssertEqual(height.value, eye, accuracy: 0.01, spec)
            rooms += 1
            if abs(height.value - eye) <= 2 * height.sigma { covered += 1 }
        }
        print("single frames: 2 sigma covers the camera height's error in \(covered) of \(rooms)")
        XCTAssertGreaterThanOrEqual(Double(covered), 0.9 * Double(rooms))
    }
}
