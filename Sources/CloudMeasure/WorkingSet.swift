import CloudCore
import CloudPCL
import Foundation

/// The points planes are fitted to: the finite points of the scan, voxel-downsampled, with their
/// normals (to tell floor candidates from wall candidates) and PCL's copy for the fits.
final class WorkingSet {
    let points: [SIMD3<Double>]
    /// Unit normals; NaN where the neighbourhood was too thin to fit one.
    let normals: [SIMD3<Double>]
    let pcl: PlaneCloud
    /// The scan's points by frame, filed under these points; nil when the scan does not say
    /// which frame each came from.
    let framePoints: FramePoints?
    /// What corrected poses leave of each plane's uncertainty (PoseRefinement); empty when the
    /// poses were not corrected.
    var poseTerms: [PoseRefinement.PlaneTerm] = []
    let inputCount: Int
    let finiteCount: Int

    /// Fewer finite points than this is not a room scan (a single frame of the smallest phone
    /// depth map has 49 152).
    static let minPoints = 500
    /// A room is at most this wide (metres); a cloud whose bulk spans more is in other units.
    static let maxRoomSpan = 60.0

    init(_ scan: RoomScan, settings: MeasureSettings) throws {
        let name = scan.name
        inputCount = scan.cloud.count
        finiteCount = scan.cloud.finiteCount
        // The positions as they are when all are finite (a fused cloud), else the finite ones.
        var finite = scan.cloud.positions
        if finiteCount < inputCount {
            finite = []
            finite.reserveCapacity(3 * finiteCount)
            scan.cloud.positions.withUnsafeBufferPointer { p in
                for i in 0..<(p.count / 3) where p[3 * i].isFinite && p[3 * i + 1].isFinite && p[3 * i + 2].isFinite {
                    finite.append(p[3 * i])
                    finite.append(p[3 * i + 1])
                    finite.append(p[3 * i + 2])
                }
            }
        }
        guard finiteCount >= Self.minPoints else {
            throw CloudError.badInput(
                "\(name): \(finiteCount == 0 ? "no finite point" : "only \(finiteCount) finite points"); measuring a room needs at least \(Self.minPoints)"
            )
        }
        try Self.checkUnits(finite, name: name)
        var cloud = PointCloud(positions: finite)
        do {
            cloud = try CloudFilter.voxelGrid(leaf: Float(settings.leaf)).apply(
                to: cloud, option: CloudError.Option("leaf", "\(settings.leaf)")
            ).cloud
        } catch let error as CloudError {
            // The scan, then the option (`--leaf`, the route's `leaf`), each door wording it.
            let option = error.subject.map { CloudError.Reason(pieces: [.subject($0), .text(": ")]) } ?? ""
            throw CloudError(error.kind, subject: nil, "\(name): " + option + error.reason)
        }
        let eye = scan.cameraPositions[0]
        // Eight neighbours tell a level surface from an upright one, which is all they are for.
        try Normals.estimate(
            &cloud, radius: Float(2 * settings.leaf), maxNeighbours: 8, viewpoint: SIMD3<Float>(Float(eye.x), Float(eye.y), Float(eye.z)))
        let n = cloud.count
        var points = [SIMD3<Double>](repeating: .zero, count: n)
        var normals = [SIMD3<Double>](repeating: .zero, count: n)
        let normalValues = cloud.normals ?? []
        for i in 0..<n {
            points[i] = SIMD3(Double(cloud.positions[3 * i]), Double(cloud.positions[3 * i + 1]), Double(cloud.positions[3 * i + 2]))
            normals[i] =
                normalValues.isEmpty
                ? SIMD3(repeating: .nan)
                : SIMD3(Double(normalValues[3 * i]), Double(normalValues[3 * i + 1]), Double(normalValues[3 * i + 2]))
        }
        self.points = points
        self.normals = normals
        pcl = try PlaneCloud(cloud)
        framePoints = FramePoints(scan, working: points, leaf: settings.leaf)
    }

    var count: Int { points.count }

    /// A cloud whose middle 98 % spans more than a room can is in millimetres (or other units):
    /// measuring it would report rooms thousands of "metres" wide.
    static func checkUnits(_ positions: [Float], name: String) throws {
        let n = positions.count / 3
        let step = max(1, n / 20_000)
        var spans: [Double] = []
        for axis in 0..<3 {
            var values = stride(from: 0, to: n, by: step).map { Double(positions[3 * $0 + axis]) }
            values.sort()
            spans.append(values[values.count * 99 / 100] - values[values.count / 100])
        }
        let widest = spans.max() ?? 0
        if widest > maxRoomSpan {
            let shown = spans.map { String(format: "%.0f", $0) }.joined(separator: " x ")
            throw CloudError.badInput(
                "\(name): the cloud spans \(shown) units; a room is at most \(Int(maxRoomSpan)) m across, so this cloud is not in metres (millimetres?): scale it to metres first"
            )
        }
    }

    /// Whether point i's normal lies within 60 degrees of `normal` (either way round), or is
    /// unknown.
    func faces(_ i: Int, _ normal: SIMD3<Double>) -> Bool {
        let n = normals[i]
        return !n.x.isFinite || abs(dot(n, normal)) > Self.minNormalCosine
    }

    /// A point belongs to a plane only if its own normal is within 60 degrees of the plane's: noisy
    /// normals (a far wall seen at a grazing angle) lean far, a perpendicular surface's do not.
    static let minNormalCosine = cos(60 * Double.pi / 180)
}

extension WorkingSet {
    /// PCL's least-squares plane through `indices`, then moved along its normal onto the centre of
    /// their core. The voxel grid leaves one centroid per occupied leaf, so the far tails of a
    /// noisy surface weigh as much as its core; when a wall lies along the grid, the leaves its
    /// noise reaches on either side differ by one, and the mean is pulled toward that side (5 mm
    /// on a wall with 1.5 mm z² noise, where the raw points' mean is within 0.1 mm of the truth).
    /// The core's centre does not follow the tails. The normal is the least-squares one: the grid
    /// shifts an aligned wall as a whole, it does not turn it. Only walls are centred so: floors
    /// and ceilings, seen at grazing angles through a Kinect's disparity steps, keep the
    /// least-squares offset, whose heights the simulated sweep holds within 1 cm (centred on the
    /// core, three of its 50 rooms were 12-14 mm off).
    func fit(_ indices: [UInt32], like reference: Plane, coreCentred: Bool) throws -> Plane {
        var plane = try pcl.fit(indices, like: reference)
        if coreCentred { plane.offset -= Self.coreCentre(indices.map { plane.distance(points[Int($0)]) }) }
        return plane
    }

    /// The mean of the residuals within `coreWidth` robust sigmas of their centre, found by moving
    /// the window onto its own mean from the median. A median alone would stick to one of the
    /// depth steps a Kinect's disparity leaves (7 cm at 5 m); the window's mean spans several.
    static func coreCentre(_ residuals: [Double]) -> Double {
        var sorted = residuals
        var centre = median(&sorted)
        var deviations = residuals.map { abs($0 - centre) }
        let width = max(1e-4, coreWidth * 1.4826 * median(&deviations))
        for _ in 0..<4 {
            var sum = 0.0
            var count = 0
            for r in residuals where abs(r - centre) < width {
                sum += r
                count += 1
            }
            guard count > 0 else { break }
            centre = sum / Double(count)
        }
        return centre
    }

    static let coreWidth = 2.0

    /// The median of `values` (reordered in place), by quickselect: the bootstrap takes one for
    /// every plane of every round.
    static func median(_ values: inout [Double]) -> Double {
        guard !values.isEmpty else { return 0 }
        let k = values.count / 2
        var (low, high) = (0, values.count - 1)
        while low < high {
            let pivot = values[(low + high) / 2]
            var (i, j) = (low, high)
            while i <= j {
                while values[i] < pivot { i += 1 }
                while values[j] > pivot { j -= 1 }
                if i <= j {
                    values.swapAt(i, j)
                    i += 1
                    j -= 1
                }
            }
            if k <= j { high = j } else if k >= i { low = i } else { break }
        }
        return values[k]
    }
}
