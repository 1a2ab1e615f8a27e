import CloudCore
import CloudFiles
import CloudPCL
import Foundation
import SharedTestData
import XCTest

/// What the filters do beyond matching PCL's counts: refusing what PCL would mishandle, keeping
/// the organized grid, averaging colors, the foreground cut, and running steps in order.
final class FilterBehaviourTests: XCTestCase {
    func grabberFrame() throws -> PointCloud {
        try CloudReader.read(sharedDataDirectory().appendingPathComponent("pcl-grabber/frame_20121214T142255.814212.pcd").path).cloud
    }

    func run(_ flag: String, _ value: String?, on cloud: PointCloud, keepGrid: Bool = false) throws -> (cloud: PointCloud, kept: Int) {
        let step = try FilterArguments.step(flag: flag, value: value)
        return try step.filter.apply(to: cloud, keepGrid: keepGrid, option: step.option)
    }

    // MARK: - Refusals with a sensible value

    func testTooSmallLeafIsRefusedWithTheCloudSizeAndALeafThatWorks() throws {
        let frame = try grabberFrame()
        var message = ""
        assertCloudError(.badInput, naming: "--voxel 0.00001", containing: "1.53 x 1.05 x 1.04 m cloud") {
            do {
                return try run("--voxel", "0.00001", on: frame)
            } catch let error as CloudError {
                message = error.message
                throw error
            }
        }
        XCTAssertTrue(message.contains("overflow"), message)
        let suggested = try XCTUnwrap(message.components(separatedBy: "use at least ").last.flatMap { Float($0) }, message)
        // The suggestion works, and is the smallest two-digit value that does.
        XCTAssertGreaterThan(try run("--voxel", "\(suggested)", on: frame).kept, 0)
        let digits = Float(pow(10, floor(log10(Double(suggested))) - 1))
        assertCloudError(.badInput, naming: "--voxel", containing: "use at least \(suggested)") {
            try run("--voxel", "\(suggested - digits)", on: frame)
        }
    }

    func testLeafTooSmallForPointsFarFromTheOriginIsRefused() throws {
        // 200 km east: floor(x / 1 cm) = 2e7 is past 2^24, where floats stop counting in ones.
        let cloud = PointCloud(positions: [200_000, 0, 1, 200_000.5, 0.5, 1.5])
        assertCloudError(.badInput, naming: "--voxel 0.01", containing: "from the origin") {
            try run("--voxel", "0.01", on: cloud)
        }
        XCTAssertEqual(try run("--voxel", "0.1", on: cloud).kept, 2)
    }

    func testSorNeedsMorePointsThanK() throws {
        let cloud = PointCloud(positions: (0..<15).flatMap { [Float($0), 0, 1] })
        assertCloudError(.badInput, naming: "--sor 20,2", containing: "use K at most 14") {
            try run("--sor", "20,2", on: cloud)
        }
        XCTAssertEqual(try run("--sor", "14,2", on: cloud).kept, 15)
    }

    func testBadParametersSayWhatWouldWork() {
        let cases: [(String, String, String)] = [
            ("--voxel", "0", "e.g. 0.01"),
            ("--voxel", "-0.01", "e.g. 0.01"),
            ("--voxel", "inf", "e.g. 0.01"),
            ("--voxel", "1cm", "e.g. 0.01"),
            ("--sor", "0,2", "e.g. 20,2"),
            ("--sor", "-3,2", "e.g. 20,2"),
            ("--sor", "20,nan", "e.g. 2"),
            ("--sor", "20,inf", "e.g. 2"),
            ("--sor", "2.5,2", "e.g. 20,2"),
            ("--sor", "20", "e.g. 20,2"),
            ("--radius", "-0.05,5", "e.g. 0.05,5"),
            ("--radius", "0,5", "e.g. 0.05,5"),
            ("--radius", "0.05,-1", "e.g. 0.05,5"),
            ("--radius", "nan,5", "e.g. 0.05,5"),
            ("--crop", "1,1,1,0,0,0", "reads 0,0,0,1,1,1"),
            ("--crop", "0,0,0,1,nan,1", "e.g. -1,-1,0,1,1,3"),
            ("--crop", "0,0,0,1,1", "e.g. -1,-1,0,1,1,3"),
            ("--range", "3,0.5", "e.g. 0.5,3"),
            ("--range", "nan,1", "e.g. 0.5,3")
        ]
        for (flag, value, advice) in cases {
            assertCloudError(.badInput, naming: "\(flag) \(value): ", containing: advice) {
                try FilterArguments.step(flag: flag, value: value)
            }
        }
    }

    // MARK: - Organized clouds

    func testSelectionsCanKeepTheGridWithTheSamePointsKept() throws {
        let frame = try grabberFrame()
        for (flag, value) in [("--sor", "20,2"), ("--radius", "0.01,4"), ("--crop", "-0.3,-0.2,0.8,0.4,0.25,1.6"), ("--range", "0.8,1.6")] {
            let list = try run(flag, value, on: frame)
            let grid = try run(flag, value, on: frame, keepGrid: true)
            XCTAssertEqual(grid.cloud.organized, PointCloud.Grid(width: 640, height: 480), flag)
            XCTAssertNil(list.cloud.organized, flag)
            XCTAssertEqual(grid.kept, list.kept, flag)
            XCTAssertEqual(grid.cloud.finiteCount, list.kept, flag)
            // The grid's finite points, in pixel order, are the list.
            let finite = stride(from: 0, to: grid.cloud.positions.count, by: 3).filter { grid.cloud.positions[$0].isFinite }
            XCTAssertEqual(finite.flatMap { grid.cloud.positions[$0..<$0 + 3] }, list.cloud.positions, flag)
            XCTAssertEqual(finite.flatMap { grid.cloud.colors![$0..<$0 + 3] }, list.cloud.colors, flag)
        }
    }

    func testVoxelGridAveragesColorsAndNormalsAndDropsTheGrid() throws {
        // Two points share the voxel [0, 0.1)^3, one is alone; a NaN pixel makes it a 2 x 2 grid.
        let s = Float(0.5).squareRoot()
        let cloud = PointCloud(
            positions: [0.01, 0.02, 0.03, 0.05, 0.06, 0.07, .nan, .nan, .nan, 0.5, 0.5, 0.5],
            colors: [10, 20, 30, 21, 40, 61, 0, 0, 0, 200, 100, 50],
            normals: [1, 0, 0, 0, 1, 0, .nan, .nan, .nan, 0, 0, 1],
            organized: .init(width: 2, height: 2))
        let (voxels, kept) = try run("--voxel", "0.1", on: cloud, keepGrid: true)
        XCTAssertEqual(kept, 2)
        XCTAssertNil(voxels.organized)
        XCTAssertEqual(voxels.positions[0], 0.03, accuracy: 1e-7)
        XCTAssertEqual(voxels.positions[1], 0.04, accuracy: 1e-7)
        XCTAssertEqual(voxels.positions[2], 0.05, accuracy: 1e-7)
        // (10 + 21) / 2 = 15.5 -> 15: PCL truncates.
        XCTAssertEqual(voxels.colors, [15, 30, 45, 200, 100, 50])
        let n = try XCTUnwrap(voxels.normals)
        XCTAssertEqual(n[0], s, accuracy: 1e-6)
        XCTAssertEqual(n[1], s, accuracy: 1e-6)
        XCTAssertEqual(Array(n[3...]), [0, 0, 1])
    }

    // MARK: - Foreground

    /// A 40 x 30 depth grid seen from the origin along +z: a box face at 1.0 m in front of a wall
    /// at 2.5 m, and below them a floor that recedes smoothly from 2.32 m into the wall. Wall and
    /// floor are one surface; the box stands in front of it behind a depth gap.
    func scene(speck: Bool) -> (cloud: PointCloud, box: Set<Int>) {
        let (w, h) = (40, 30)
        var positions: [Float] = []
        var box = Set<Int>()
        for v in 0..<h {
            for u in 0..<w {
                var z: Float = 2.5
                if (12..<28).contains(u) && (8..<20).contains(v) {
                    z = 1.0
                    box.insert(v * w + u)
                } else if v >= 20 {
                    z = 2.5 - Float(v - 20) * 0.02
                }
                if speck && u == 2 && v == 2 { z = 0.4 }
                positions += [(Float(u) - 20) / 40 * z, (Float(v) - 15) / 40 * z, z]
            }
        }
        return (PointCloud(positions: positions, organized: .init(width: w, height: h)), box)
    }

    func testForegroundKeepsTheNearestSurfaceBehindWhichTheRestLies() throws {
        let (cloud, box) = scene(speck: false)
        let (kept, count) = try run("--foreground", nil, on: cloud, keepGrid: true)
        XCTAssertEqual(count, box.count)
        let finite = Set((0..<kept.count).filter { kept.positions[3 * $0].isFinite })
        XCTAssertEqual(finite, box)
    }

    func testForegroundIgnoresAStrayPixelInFront() throws {
        let (cloud, box) = scene(speck: true)
        let (kept, count) = try run("--foreground", nil, on: cloud)
        XCTAssertEqual(count, box.count)
        XCTAssertNil(kept.organized)
        XCTAssertEqual(kept.count, box.count)
        XCTAssertTrue(stride(from: 2, to: kept.positions.count, by: 3).allSatisfy { kept.positions[$0] == 1.0 })
    }

    func testForegroundFollowsASurfaceThatRecedesSmoothly() throws {
        // A floor seen at a grazing angle: 1 cm deeper per row at 1 m, 5 cm per row at 4 m.
        let (w, h) = (8, 60)
        var positions: [Float] = []
        var z: Float = 1.0
        for _ in 0..<h {
            for u in 0..<w { positions += [Float(u) * 0.01, 0.5, z] }
            z += max(0.009, 0.0125 * z)
        }
        let (_, count) = try run("--foreground", nil, on: PointCloud(positions: positions, organized: .init(width: w, height: h)))
        XCTAssertEqual(count, w * h)
    }

    func testForegroundNeedsAGrid() {
        assertCloudError(.badInput, naming: "--foreground", containing: "organized") {
            try run("--foreground", nil, on: PointCloud(positions: [0, 0, 1, 0, 0, 2]))
        }
    }

    // MARK: - Pipelines

    func testPipelineKeepsTheGridOnlyAsLongAsItIsWanted() throws {
        let frame = try grabberFrame()
        var warnings: [CloudWarning] = []
        let foregroundThenSor = FilterPipeline(
            steps: [
                try FilterArguments.step(flag: "--foreground", value: nil),
                try FilterArguments.step(flag: "--sor", value: "10,2")
            ], organized: false)
        XCTAssertTrue(foregroundThenSor.wantsGrid)
        let (flat, reports) = try foregroundThenSor.run(frame, warnings: &warnings)
        XCTAssertNil(flat.organized)
        XCTAssertEqual(flat.count, reports[1].pointsOut)
        XCTAssertEqual(reports.map(\.name), ["foreground", "sor"])
        XCTAssertEqual(reports[0].pointsIn, frame.finiteCount)
        XCTAssertEqual(reports[1].pointsIn, reports[0].pointsOut)
        XCTAssertGreaterThan(reports[0].pointsOut, 10_000)
        XCTAssertLessThan(reports[0].pointsOut, frame.finiteCount)

        let organized = FilterPipeline(steps: foregroundThenSor.steps, organized: true)
        let (grid, _) = try organized.run(frame, warnings: &warnings)
        XCTAssertEqual(grid.organized, frame.organized)
        XCTAssertEqual(grid.finiteCount, flat.count)
        XCTAssertTrue(warnings.isEmpty, "\(warnings)")
    }

    func testVoxelBeforeForegroundIsRefusedAndVoxelWarnsWhenTheGridWasAskedFor() throws {
        let frame = try grabberFrame()
        var warnings: [CloudWarning] = []
        let voxelFirst = FilterPipeline(
            steps: [
                try FilterArguments.step(flag: "--voxel", value: "0.01"),
                try FilterArguments.step(flag: "--foreground", value: nil)
            ], organized: true)
        assertCloudError(.badInput, naming: "--foreground", containing: "put --foreground first") {
            try voxelFirst.run(frame, warnings: &warnings)
        }
        XCTAssertEqual(warnings.count, 1)
        XCTAssertTrue(warnings[0].message.contains("--voxel 0.01 drops the organized grid"), "\(warnings)")
    }
}
