import CloudCore
import CloudPCL
import Foundation

/// Which way is up in the cloud's frame, and how that was decided.
struct UpDirection {
    enum Method: String, Codable {
        /// `--up` said so.
        case flag
        /// The source knows gravity in its world frame (the simulated rooms).
        case source
        /// The largest family of parallel planes near level for the first camera (Manhattan world).
        case planes
    }

    var vector: SIMD3<Double>
    var method: Method

    /// How far from the first camera's up a floor may lean and still be taken as level: a
    /// handheld camera is tilted, rarely by more than this (a camera looking down at an object on
    /// the floor, as the PCL grabber frames do, is pitched 46 degrees).
    static let maxLean = 50 * Double.pi / 180
    /// Planes this close to parallel belong to one family (floor, ceiling, table tops).
    static let familyAngle = 5 * Double.pi / 180
    /// Points the search for up looks at.
    static let maxPoints = 8_000
    /// Planes it peels: in a long room the four largest can all be walls.
    static let maxPlanes = 8

    static func decide(_ scan: RoomScan, settings: MeasureSettings, set: WorkingSet, peeler: PlanePeeler) throws -> UpDirection {
        if let up = settings.up { return UpDirection(vector: normalize(up), method: .flag) }
        if let up = scan.sourceUp { return UpDirection(vector: normalize(up), method: .source) }
        let prior = normalize(scan.cameraUp)
        // The direction needs no more than a thinned set; the floor's fit sets it exactly later.
        let step = max(1, set.count / maxPoints)
        let thinned = Swift.stride(from: 0, to: set.count, by: step).map { UInt32($0) }
        let planes = try peeler.peel(
            thinned, orientation: .any, minPoints: settings.points(forArea: 0.5) / step, limit: maxPlanes,
            thinning: step
        ).planes
        let level = planes.filter { abs(dot($0.plane.normal, prior)) > cos(maxLean) }
        // Each level plane heads a family of those parallel to it; the family with the most points wins.
        var best: (support: Int, sum: SIMD3<Double>)?
        for head in level {
            var support = 0
            var sum = SIMD3<Double>.zero
            for member in level where abs(dot(member.plane.normal, head.plane.normal)) > cos(familyAngle) {
                let n = dot(member.plane.normal, prior) < 0 ? -member.plane.normal : member.plane.normal
                support += member.inliers.count
                sum += n * Double(member.inliers.count)
            }
            if support > (best?.support ?? 0) { best = (support, sum) }
        }
        guard let best else {
            throw CloudError.badInput(
                "\(scan.name): cannot tell which way is up: no large plane lies within \(Int(maxLean * 180 / .pi))° of level for the first camera; give --up"
            )
        }
        return UpDirection(vector: normalize(best.sum), method: .planes)
    }
}
