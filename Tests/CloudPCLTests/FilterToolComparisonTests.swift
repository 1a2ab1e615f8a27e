import CloudCore
import CloudFiles
import CloudPCL
import Foundation
import SharedTestData
import XCTest

/// Each filter against PCL's own command-line tools (Debian's pcl-tools, installed by
/// Tools/bootstrap), run as subprocesses on the same file with the same parameter text:
///
///   --voxel   pcl_voxel_grid -leaf L,L,L
///   --sor     pcl_outlier_removal -method statistical -mean_k K -std_dev_mul S
///   --radius  pcl_outlier_removal -method radius -radius R -min_pts M
///   --range   pcl_passthrough_filter -field z -min A -max B -keep 0
///   --crop    pcl_passthrough_filter on x, then y, then z (PCL ships no CropBox tool; CropBox
///             keeps min <= p <= max on every axis, which is three inclusive pass-throughs)
///
/// The outlier tools write the input minus the removed points, NaN placeholders included, so
/// their finite points are what to compare. Where the points themselves can be compared
/// (selections keep input order; the voxel grid orders voxels as PCL does), they are.
final class FilterToolComparisonTests: XCTestCase {
    var scratch: URL!

    override func setUpWithError() throws { scratch = try makeScratchFolder() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: scratch) }

    struct Input {
        var name: String
        var path: String
        var cloud: PointCloud
    }

    /// The PCD files of ../shared/data. colored_cloud.pcd is stored 1 x 1000, organized as PCL
    /// defines it, and PCL's outlier filters then switch to OrganizedNeighbor, a search for
    /// clouds from a pinhole camera that on this one column of scattered points finds nonsense
    /// (the radius tool keeps 6 of its 1000 points). It is given to the tools as a plain list.
    func inputs() throws -> [Input] {
        let data = try sharedDataDirectory()
        var inputs: [Input] = []
        for relative in [
            "pcl-grabber/frame_20121214T142255.814212.pcd", "pcl-grabber/frame_20121214T142256.068683.pcd",
            "pcl-clouds/bunny.pcd", "pcl-clouds/milk_color.pcd", "pcl-clouds/colored_cloud.pcd"
        ] {
            var path = data.appendingPathComponent(relative).path
            var cloud = try CloudReader.read(path).cloud
            if relative.hasSuffix("colored_cloud.pcd") {
                cloud.organized = nil
                path = scratch.appendingPathComponent("colored_cloud_list.pcd").path
                try CloudWriter.write(cloud, to: path)
            }
            inputs.append(Input(name: relative, path: path, cloud: cloud))
        }
        return inputs
    }

    func testVoxelGridMatchesPclVoxelGridPointForPoint() throws {
        for input in try inputs() {
            let extent = try XCTUnwrap(input.cloud.bounds).max - XCTUnwrap(input.cloud.bounds).min
            // About 40 and 150 voxels across the cloud's largest side.
            for divisions: Float in [40, 150] {
                let leaf = text(extent.max() / divisions)
                let ours = try apply("--voxel", leaf, to: input.cloud)
                let tool = try runTool("pcl_voxel_grid", [input.path, "OUT", "-leaf", "\(leaf),\(leaf),\(leaf)"])
                XCTAssertEqual(ours.kept, tool.count, "\(input.name) --voxel \(leaf)")
                XCTAssertEqual(ours.cloud.count, tool.count, "\(input.name) --voxel \(leaf)")
                // Same voxels in the same order; centroids may differ in the last bits (the points
                // of a voxel are summed in whatever order PCL's unstable sort leaves them).
                if ours.cloud.count == tool.count {
                    let worst = zip(ours.cloud.positions, tool.positions).map { abs($0 - $1) }.max() ?? 0
                    XCTAssertLessThan(worst, 1e-5, "\(input.name) --voxel \(leaf): centroids differ by \(worst) m")
                }
            }
        }
    }

    func testStatisticalOutlierRemovalKeepsExactlyWhatPclKeeps() throws {
        for input in try inputs() {
            for parameters in ["20,2", "10,1", "50,0.5"] {
                let ours = try apply("--sor", parameters, to: input.cloud)
                let p = parameters.split(separator: ",").map(String.init)
                let tool = try runTool(
                    "pcl_outlier_removal",
                    [
                        input.path, "OUT", "-method", "statistical",
                        "-mean_k", p[0], "-std_dev_mul", p[1]
                    ])
                XCTAssertEqual(ours.kept, tool.count, "\(input.name) --sor \(parameters)")
                // The same points, in input order.
                XCTAssertEqual(ours.cloud.positions, tool.positions, "\(input.name) --sor \(parameters)")
            }
        }
    }

    func testRadiusOutlierRemovalKeepsExactlyWhatPclKeeps() throws {
        for input in try inputs() {
            // Radii of a few typical point spacings (a surface of the box's two largest sides),
            // so that each run keeps most points but not all.
            let b = try XCTUnwrap(input.cloud.bounds)
            let sides = [b.max.x - b.min.x, b.max.y - b.min.y, b.max.z - b.min.z].sorted()
            let spacing = (sides[1] * sides[2] / Float(input.cloud.finiteCount)).squareRoot()
            for (spacings, minimum) in [(Float(1.5), 2), (3, 10), (6, 40)] {
                let radius = text(spacing * spacings)
                let ours = try apply("--radius", "\(radius),\(minimum)", to: input.cloud)
                let tool = try runTool(
                    "pcl_outlier_removal",
                    [
                        input.path, "OUT", "-method", "radius",
                        "-radius", radius, "-min_pts", "\(minimum)"
                    ])
                XCTAssertEqual(ours.kept, tool.count, "\(input.name) --radius \(radius),\(minimum)")
                XCTAssertEqual(ours.cloud.positions, tool.positions, "\(input.name) --radius \(radius),\(minimum)")
            }
        }
    }

    func testRangeMatchesPclPassThroughOnZ() throws {
        for input in try inputs() {
            let b = try XCTUnwrap(input.cloud.bounds)
            let (lo, hi) = (text(b.min.z + 0.25 * (b.max.z - b.min.z)), text(b.min.z + 0.6 * (b.max.z - b.min.z)))
            let ours = try apply("--range", "\(lo),\(hi)", to: input.cloud)
            let tool = try runTool("pcl_passthrough_filter", [input.path, "OUT", "-field", "z", "-min", lo, "-max", hi, "-keep", "0"])
            XCTAssertEqual(ours.kept, tool.count, "\(input.name) --range \(lo),\(hi)")
            XCTAssertEqual(ours.cloud.positions, tool.positions, "\(input.name) --range \(lo),\(hi)")
        }
    }

    func testCropMatchesThreePclPassThroughs() throws {
        for input in try inputs() {
            let b = try XCTUnwrap(input.cloud.bounds)
            let lo = b.min + 0.2 * (b.max - b.min)
            let hi = b.min + 0.7 * (b.max - b.min)
            let corners = [lo.x, lo.y, lo.z, hi.x, hi.y, hi.z].map(text)
            let ours = try apply("--crop", corners.joined(separator: ","), to: input.cloud)
            var path = input.path
            for (axis, name) in ["x", "y", "z"].enumerated() {
                let next = scratch.appendingPathComponent("crop_\(name).pcd").path
                _ = try runTool(
                    "pcl_passthrough_filter",
                    [
                        path, next, "-field", name, "-min", corners[axis],
                        "-max", corners[axis + 3], "-keep", "0"
                    ], output: next)
                path = next
            }
            let tool = try CloudReader.read(path).cloud
            XCTAssertEqual(ours.kept, tool.count, "\(input.name) --crop \(corners)")
            XCTAssertEqual(ours.cloud.positions, tool.positions, "\(input.name) --crop \(corners)")
        }
    }

    // MARK: - Helpers

    /// Parses the flag text as the CLI does and runs the filter on an unorganized result.
    func apply(_ flag: String, _ value: String, to cloud: PointCloud) throws -> (cloud: PointCloud, kept: Int) {
        let step = try FilterArguments.step(flag: flag, value: value)
        return try step.filter.apply(to: cloud, option: step.option)
    }

    /// A float's shortest decimal text: the tool and our parser read the same value from it.
    func text(_ value: Float) -> String { "\(value)" }

    /// Runs a pcl-tools program; "OUT" in `arguments` stands for a fresh output file. Returns the
    /// finite points of what it wrote, in file order.
    @discardableResult
    func runTool(
        _ name: String, _ arguments: [String], output: String? = nil,
        file: StaticString = #filePath, line: UInt = #line
    ) throws -> PointCloud {
        let out = output ?? scratch.appendingPathComponent("\(name)-\(UUID().uuidString).pcd").path
        try runPCLTool(name, arguments.map { $0 == "OUT" ? out : $0 }, in: scratch, file: file, line: line)
        let written = try CloudReader.read(out).cloud.positions
        var finite: [Float] = []
        finite.reserveCapacity(written.count)
        for i in stride(from: 0, to: written.count, by: 3)
        where written[i].isFinite && written[i + 1].isFinite && written[i + 2].isFinite {
            finite += written[i..<i + 3]
        }
        return PointCloud(positions: finite)
    }
}
