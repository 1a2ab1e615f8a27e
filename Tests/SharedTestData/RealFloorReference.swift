import Foundation

/// The floor plane of the real frames in ../shared/data as Open3D finds it, the reference
/// `cloudgen measure`'s floor is held to (within 1 cm and 1 degree of PCL's
/// SACSegmentation or Open3D's segment_plane on the same points).
///
/// Recorded on 2026-11-25 by `Tools/compare/planes_run --swift` (Tools/compare/open3d_planes.py,
/// Open3D 0.20.0 from PyPI's open3d-cpu, Debian's pcl-tools 1.13.0): each cloud as `cloudgen
/// capture ARGUMENTS` writes it, voxel_down_sample(0.02), segment_plane(distance_threshold=
/// `threshold`, ransac_n=3, num_iterations=2000) peeled until 8 planes or fewer than 10 % of the
/// points are left, each plane refitted by least squares on its inliers; the floor is the
/// best-supported plane within `upTolerance` degrees of the first camera's up with at most 2 % of
/// the points more than 5 cm beneath it. Open3D's RANSAC is not reproducible even with a fixed
/// seed, so it ran 7 times: the floor pinned is the run nearest the others, `spread` the farthest
/// any other run's floor was. PCL's tool on the same voxels agreed within 0.2 degrees and 1 mm.
///
/// What the frames show (their previews, `cloudgen capture ... --preview`), and the first
/// camera's height above the floor (`height(of:)` its position):
/// - redwood-fused: the five Open3D frames fused: a living-room corner, a wooden floor across the
///   lower third of the view under an armchair, two walls, a glass door. Floor about 25 % of the
///   voxels; the trajectory's world frame has y up, the floor at y = 0.13 m; camera 0.44 m up.
/// - tum: the TUM freiburg1 desk: the grey floor under the desk and two chairs, about a third of
///   the voxels, 2 to 4 m from the Kinect, whose noise there (0.6 to 2.3 cm, with depth steps of
///   1 to 4.5 cm) is thicker than a 2 cm threshold: with 2 cm, seven Open3D runs gave floors 1.4
///   degrees apart and PCL one 2.2 degrees from them. With 5 cm both settle (Open3D's runs within
///   0.6 degrees, 5 of the 7 finding the floor; PCL 0.2 degrees from the pinned floor), so this
///   frame's reference uses 5 cm. Camera 1.80 m up, pitched 30 degrees down.
/// - pcl-grabber (both frames): a laptop and a box on a carpeted floor, camera 0.71 m up and
///   pitched 46 degrees down (hence the 50-degree tolerance); floor about 78 % of the voxels.
///
/// Planes are n.p + d = 0 with the unit normal n pointing up (toward `up`), in the frame the cloud
/// is written in: the camera's (x right, y down, z forward) for a single frame, the trajectory's
/// world frame for the fused sequence.
public struct RealFloorReference: Sendable {
    public var name: String
    /// `cloudgen capture` arguments that make the cloud; `$DATA` stands for ../shared/data.
    public var arguments: [String]
    /// The first camera's up (-y of that camera) in the cloud's frame.
    public var up: SIMD3<Double>
    /// How far from `up` the floor's normal was allowed to be, degrees.
    public var upTolerance: Double
    /// The RANSAC inlier distance (Open3D's and PCL's), metres.
    public var threshold: Double
    public var normal: SIMD3<Double>
    public var offset: Double
    /// The centroid of the floor's inliers: where planes are compared.
    public var centroid: SIMD3<Double>
    /// Inliers among the 0.02 m voxels.
    public var support: Int
    /// The largest angle (degrees) and distance at `centroid` (metres) between this floor and the
    /// floor of any of the 7 Open3D runs.
    public var spreadDegrees: Double
    public var spreadMetres: Double

    public static let redwoodFused = RealFloorReference(
        name: "redwood-fused", arguments: ["--source", "redwood:$DATA/open3d-rgbd", "--fuse"],
        up: SIMD3(-0.02181934590046668, 0.9997426093226983, 0.006215404179813817), upTolerance: 30.0, threshold: 0.02,
        normal: SIMD3(0.0012603202739850108, 0.9999983364102475, -0.0013186241102407237), offset: -0.12563343624440804,
        centroid: SIMD3(-1.909382458562128, 0.13160749708427383, 2.705402129355754), support: 6990,
        spreadDegrees: 0.148, spreadMetres: 0.0004)
    public static let tum = RealFloorReference(
        name: "tum",
        arguments: [
            "--source", "rgbd:$DATA/open3d-rgbd/other_formats/TUM_color.png,$DATA/open3d-rgbd/other_formats/TUM_depth.png",
            "--intrinsics", "$DATA/open3d-rgbd/camera_primesense.json", "--depth-scale", "5000"
        ],
        up: SIMD3(0.0, -1.0, 0.0), upTolerance: 30.0, threshold: 0.05,
        normal: SIMD3(0.013259522042511239, -0.8700492538519022, -0.49278644557957585), offset: 1.7950053818288165,
        centroid: SIMD3(0.08298693139007998, 0.5564516298112556, 2.662340726538932), support: 10736,
        spreadDegrees: 0.614, spreadMetres: 0.0043)
    public static let pclGrabber814212 = RealFloorReference(
        name: "pcl-grabber-814212",
        arguments: [
            "--source",
            "rgbd:$DATA/pcl-grabber/frame_20121214T142255.814212_rgb.tiff,$DATA/pcl-grabber/frame_20121214T142255.814212_depth.tiff",
            "--intrinsics", "$DATA/pcl-grabber/frame_20121214T142255.814212.xml"
        ],
        up: SIMD3(0.0, -1.0, 0.0), upTolerance: 50.0, threshold: 0.02,
        normal: SIMD3(0.07078789939337655, -0.6920174308500651, -0.7184016625114038), offset: 0.7145833430796024,
        centroid: SIMD3(-0.10862068130558832, -0.23550970629242285, 1.2108423191381883), support: 4693,
        spreadDegrees: 0.046, spreadMetres: 0.0003)
    public static let pclGrabber068683 = RealFloorReference(
        name: "pcl-grabber-068683",
        arguments: [
            "--source",
            "rgbd:$DATA/pcl-grabber/frame_20121214T142256.068683_rgb.tiff,$DATA/pcl-grabber/frame_20121214T142256.068683_depth.tiff",
            "--intrinsics", "$DATA/pcl-grabber/frame_20121214T142256.068683.xml"
        ],
        up: SIMD3(0.0, -1.0, 0.0), upTolerance: 50.0, threshold: 0.02,
        normal: SIMD3(0.07040874426302679, -0.6954157162090803, -0.715150047459074), offset: 0.7117118365451499,
        centroid: SIMD3(-0.11155359619287908, -0.2322405726050759, 1.210041494263723), support: 4699,
        spreadDegrees: 0.116, spreadMetres: 0.0005)

    public static let all = [redwoodFused, tum, pclGrabber814212, pclGrabber068683]

    /// The capture arguments with `$DATA` replaced by the data folder's path.
    public func arguments(data: URL) -> [String] {
        arguments.map { $0.replacingOccurrences(of: "$DATA", with: data.path) }
    }

    /// The value of `flag` in the arguments, `$DATA` replaced.
    public func value(of flag: String, data: URL) -> String? {
        let resolved = arguments(data: data)
        guard let i = resolved.firstIndex(of: flag), i + 1 < resolved.count else { return nil }
        return resolved[i + 1]
    }

    /// How far `point` is above this floor (negative below it), metres: the camera's height for the
    /// camera's position (the origin of a single frame's cloud).
    public func height(of point: SIMD3<Double>) -> Double {
        (normal * point).sum() + offset
    }

    /// How far the plane n.p + d = 0 is from this floor: the angle between the planes (either
    /// orientation of `normal`) and the distance from this floor's centroid to that plane.
    public func disagreement(normal other: SIMD3<Double>, offset otherOffset: Double) -> (degrees: Double, metres: Double) {
        let length = (other * other).sum().squareRoot()
        let sign: Double = (other * up).sum() < 0 ? -1 : 1
        let n = sign * other / length
        let d = sign * otherOffset / length
        return (angleDegrees(n, normal), abs((n * centroid).sum() + d))
    }
}

/// The angle between two directions, in degrees (0...180).
public func angleDegrees(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> Double {
    let cosine = (a * b).sum() / ((a * a).sum() * (b * b).sum()).squareRoot()
    return acos(min(1, max(-1, cosine))) * 180 / .pi
}
