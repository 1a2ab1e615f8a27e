import CloudCore
import XCTest

@testable import CloudPCL

/// `median`: an organized view of a tilted plane whose every 37th pixel is a spike 30 % too deep.
/// The median of each 3 x 3 window puts every spike back onto the plane (to a neighbour's depth
/// along its own ray), leaves a point whose window holds no spike where the plane has it (the
/// median of a window over a ramp is its centre) and one beside a spike on the plane nearby; no
/// point is dropped, added, recolored or moved off its ray.
final class MedianFilterTests: XCTestCase {
    private let (width, height, focal) = (64, 48, Float(60))
    private let normal = unit(SIMD3<Float>(0.2, -0.1, 1))
    private let offset: Float = 2

    private func distanceToPlane(_ p: SIMD3<Float>) -> Float { abs((p * normal).sum() - offset) }

    private func ray(_ u: Int, _ v: Int) -> SIMD3<Float> {
        SIMD3((Float(u) - Float(width - 1) / 2) / focal, (Float(v) - Float(height - 1) / 2) / focal, 1)
    }

    private func isSpike(_ i: Int) -> Bool { i % 37 == 5 }

    private func nearSpike(_ u: Int, _ v: Int) -> Bool {
        (-1...1).contains { dv in (-1...1).contains { du in isSpike((v + dv) * width + u + du) } }
    }

    private func scene() -> PointCloud {
        var positions: [Float] = []
        var colors: [UInt8] = []
        for v in 0..<height {
            for u in 0..<width {
                let d = ray(u, v)
                let onPlane = d * (offset / (d * normal).sum())
                let p = isSpike(v * width + u) ? onPlane * 1.3 : onPlane
                positions += [p.x, p.y, p.z]
                colors += [UInt8(u * 4), UInt8(v * 5), 200]
            }
        }
        var cloud = PointCloud(positions: positions, colors: colors)
        cloud.organized = PointCloud.Grid(width: width, height: height)
        return cloud
    }

    func testTheMedianPutsSpikesBackOnThePlaneAndLeavesThePlaneWhereItIs() throws {
        let input = scene()
        let step = try FilterArguments.step(option: "median", value: nil)
        XCTAssertEqual(step.filter.parameters["size"], FilterParameter.number(Double(3)))
        // It has no flag of its own: the CLI words it as its --filter entry.
        XCTAssertEqual(step.option.flag, "--filter median=3")
        let (output, kept) = try step.filter.apply(to: input, keepGrid: true, option: step.option)
        XCTAssertEqual(kept, width * height)
        XCTAssertEqual(output.count, input.count)
        XCTAssertEqual(output.colors, input.colors)
        var spikes = 0
        for v in 1..<(height - 1) {
            for u in 1..<(width - 1) {
                let i = v * width + u
                let before = SIMD3(input.positions[3 * i], input.positions[3 * i + 1], input.positions[3 * i + 2])
                let after = SIMD3(output.positions[3 * i], output.positions[3 * i + 1], output.positions[3 * i + 2])
                // Still on its pixel's ray.
                XCTAssertLessThan(length(cross(unit(before), unit(after))), 1e-5, "pixel \(u),\(v)")
                if isSpike(i) {
                    spikes += 1
                    XCTAssertGreaterThan(distanceToPlane(before), 0.3, "pixel \(u),\(v)")
                    XCTAssertLessThan(distanceToPlane(after), 0.01, "spike at \(u),\(v)")
                } else if nearSpike(u, v) {
                    // One value of its window a spike: the median is a neighbour's depth, on the plane nearby.
                    XCTAssertLessThan(distanceToPlane(after), 0.01, "beside a spike at \(u),\(v)")
                } else {
                    XCTAssertLessThan(distanceToPlane(after), 1e-4, "plane at \(u),\(v)")
                }
            }
        }
        XCTAssertGreaterThan(spikes, 70)
    }

    func testTheWindowMustBeOddAndTheCloudOrganized() throws {
        for value in ["4", "1", "17", "3.5", "x"] {
            XCTAssertThrowsError(try FilterArguments.step(option: "median", value: value), value)
        }
        var plain = scene()
        plain.organized = nil
        let step = try FilterArguments.step(option: "median", value: "5")
        XCTAssertThrowsError(try step.filter.apply(to: plain, option: step.option)) { error in
            XCTAssertTrue("\(error)".contains("needs an organized cloud"), "\(error)")
        }
    }
}

private func length(_ v: SIMD3<Float>) -> Float { (v * v).sum().squareRoot() }
private func unit(_ v: SIMD3<Float>) -> SIMD3<Float> { v / length(v) }
private func cross(_ a: SIMD3<Float>, _ b: SIMD3<Float>) -> SIMD3<Float> {
    SIMD3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x)
}
