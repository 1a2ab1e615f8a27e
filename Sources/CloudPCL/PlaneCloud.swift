import CShims
import CloudCore
import SafeIO

/// A plane a x + b y + c z + d = 0 with a unit normal (a, b, c).
public struct Plane: Equatable, Sendable {
    public var normal: SIMD3<Double>
    public var offset: Double

    public init(normal: SIMD3<Double>, offset: Double) {
        self.normal = normal
        self.offset = offset
    }

    /// Signed distance of `p` from the plane, positive on the side the normal points to.
    @inlinable
    public func distance(_ p: SIMD3<Double>) -> Double { (normal * p).sum() + offset }

    /// The same plane with its normal turned the other way.
    public var flipped: Plane { Plane(normal: -normal, offset: -offset) }

    var coefficients: [Double] { [normal.x, normal.y, normal.z, offset] }

    init(coefficients c: [Double]) {
        self.init(normal: SIMD3(c[0], c[1], c[2]), offset: c[3])
    }
}

/// What orientation a plane search accepts (PCL's plane, perpendicular-plane and parallel-plane models).
public enum PlaneOrientation: Sendable {
    case any
    /// The normal within `maxAngle` radians of `axis`: floors and ceilings when `axis` is up.
    case across(axis: SIMD3<Double>, maxAngle: Double)
    /// The plane contains `axis` within `maxAngle` radians: walls when `axis` is up.
    case along(axis: SIMD3<Double>, maxAngle: Double)
}

/// The points `cloudgen measure` fits planes to, copied once into PCL's container so that many
/// searches and refits (the peeling of a room's planes, their bootstrap) name points by index.
public final class PlaneCloud {
    private let handle: OpaquePointer
    private let shim: cg_shim_entry_points
    public let count: Int

    /// Copies the positions of `cloud`; non-finite points are kept but must not be named.
    public init(_ cloud: PointCloud) throws {
        let shim = try PCLShim.entryPoints()
        self.shim = shim
        var status = cg_status()
        var handle: OpaquePointer?
        let unorganized = PointCloud(positions: cloud.positions)
        withView(of: unorganized) { view in _ = shim.plane_cloud_create(view, &handle, &status) }
        if let error = status.error(about: nil, doing: "plane fitting: ") { throw error }
        guard let handle else { throw CloudError.io("plane fitting: the shim returned no cloud") }
        self.handle = handle
        count = cloud.count
    }

    deinit { shim.plane_cloud_free(handle) }

    /// PCL's SACSegmentation (RANSAC, then a least-squares refit) over `indices`: the best plane of
    /// `orientation` and the indices within `distance` of it, or nil when there is none.
    public func segment(
        _ indices: [UInt32], orientation: PlaneOrientation, distance: Double,
        maxIterations: Int = 1000, probability: Double = 0.99
    ) throws -> (plane: Plane, inliers: [UInt32])? {
        var search = cg_plane_search()
        search.distance = distance
        search.max_iterations = Int32(clamping: maxIterations)
        search.probability = probability
        func set(_ axis: SIMD3<Double>, _ angle: Double, _ kind: Int32) {
            search.orientation = kind
            search.axis = (Float(axis.x), Float(axis.y), Float(axis.z))
            search.max_angle = angle
        }
        switch orientation {
        case .any: search.orientation = Int32(CG_PLANE_ANY)
        case .across(let axis, let angle): set(axis, angle, Int32(CG_PLANE_ACROSS_AXIS))
        case .along(let axis, let angle): set(axis, angle, Int32(CG_PLANE_ALONG_AXIS))
        }
        var status = cg_status()
        var coefficients = [Double](repeating: 0, count: 4)
        var found: UInt64 = 0
        var inliers = [UInt32](repeating: 0, count: indices.count)
        indices.withUnsafeBufferPointer { list in
            _ = shim.segment_plane(handle, list.baseAddress, UInt64(list.count), &search, &coefficients, &inliers, &found, &status)
        }
        if let error = status.error(about: nil, doing: "plane fitting: ") { throw error }
        guard found > 0 else { return nil }
        inliers.removeSubrange(Int(found)...)
        return (Plane(coefficients: coefficients), inliers)
    }

    /// PCL's least-squares plane through `indices` (repeats allowed), its normal turned like `reference`'s.
    public func fit(_ indices: [UInt32], like reference: Plane) throws -> Plane {
        var status = cg_status()
        var coefficients = [Double](repeating: 0, count: 4)
        indices.withUnsafeBufferPointer { list in
            _ = shim.fit_plane(handle, list.baseAddress, UInt64(list.count), reference.coefficients, &coefficients, &status)
        }
        if let error = status.error(about: nil, doing: "plane fitting: ") { throw error }
        return Plane(coefficients: coefficients)
    }
}

/// PCL's ConcaveHull of points in a plane.
public enum ConcaveHull {
    /// The largest polygon of the alpha shape of `points` (alpha: the radius of the empty circles
    /// that carve the outline, metres), or [] when the points make none.
    public static func outline(of points: [SIMD2<Float>], alpha: Double) throws -> [SIMD2<Float>] {
        let shim = try PCLShim.entryPoints()
        var status = cg_status()
        var vertices: UInt64 = 0
        let capacity = points.count
        var outline = [Float](repeating: 0, count: 2 * capacity)
        points.withUnsafeBytes { raw in
            let flat = raw.bindMemory(to: Float.self)
            _ = shim.concave_hull_2d(flat.baseAddress, UInt64(points.count), alpha, &outline, UInt64(capacity), &vertices, &status)
        }
        if let error = status.error(about: nil, doing: "floor outline: ") { throw error }
        return (0..<Int(vertices)).map { SIMD2(outline[2 * $0], outline[2 * $0 + 1]) }
    }
}
