import CloudCore

/// One cleaning step for a cloud: PCL's filters (through the shim) and cloudgen's foreground cut.
///
/// Every step drops points with a non-finite coordinate, as PCL's filters do. Steps that select
/// points can keep an organized cloud's grid (dropped pixels become NaN, as PCL's
/// `setKeepOrganized` does); the voxel grid makes new points and cannot.
public enum CloudFilter: Equatable, Sendable {
    /// PCL `PassThrough` on z: keeps `min <= z <= max` (either may be infinite).
    case passThroughZ(min: Float, max: Float)
    /// PCL `CropBox` (axis-aligned, no transform): keeps `min <= p <= max` on every axis.
    case cropBox(min: SIMD3<Float>, max: SIMD3<Float>)
    /// PCL `VoxelGrid` with a cubic leaf in metres: one point per occupied voxel at the centroid of
    /// its points, colors averaged (truncated, as PCL does), normals averaged and renormalized.
    case voxelGrid(leaf: Float)
    /// PCL `StatisticalOutlierRemoval`: drops points whose mean distance to their `k` nearest
    /// neighbours exceeds the mean of those distances by more than `stddevMultiplier` standard deviations.
    case statisticalOutliers(k: Int, stddevMultiplier: Double)
    /// PCL `RadiusOutlierRemoval`: keeps points with at least `minNeighbours` others within `radius` metres.
    case radiusOutliers(radius: Double, minNeighbours: Int)
    /// The connected surface nearest to the camera; see `ForegroundRule`. Needs an organized cloud.
    case foreground
    /// Normals and curvature for every point, fitted within `radius` metres and facing the
    /// camera (`Normals`); drops no point. Faster and better on the organized grid, so a pipeline
    /// keeps the grid up to this step when it can.
    case normals(radius: Float)

    /// `--normals` without a value: 5 cm, which suits room-scale depth frames.
    public static let defaultNormalRadius: Float = 0.05

    /// Whether an organized cloud can stay organized through this step.
    public var keepsGrid: Bool {
        if case .voxelGrid = self { return false }
        return true
    }

    /// Whether the step works on the organized grid (and refuses clouds without one).
    public var needsGrid: Bool { self == .foreground }

    /// Whether the step works better on the organized grid, but takes any cloud.
    public var prefersGrid: Bool {
        if case .normals = self { return true }
        return false
    }

    /// What is wrong with the parameters themselves, with a value that would work; nil when they
    /// are fine. (Problems that depend on the cloud, such as a voxel leaf too small for its size,
    /// are found when the step runs.)
    public var problem: String? {
        switch self {
        case let .passThroughZ(min, max):
            if min.isNaN || max.isNaN { return "MIN and MAX must be numbers (MAX may be inf), e.g. 0.5,3" }
            if min > max { return "MIN \(min) is more than MAX \(max); the limits read MIN,MAX, e.g. \(Self.text(max)),\(Self.text(min))" }
        case let .cropBox(min, max):
            let corners = [min.x, min.y, min.z, max.x, max.y, max.z]
            if !corners.allSatisfy(\.isFinite) {
                return "all six coordinates must be finite numbers of metres, e.g. -1,-1,0,1,1,3"
            }
            if let axis = (0..<3).first(where: { min[$0] > max[$0] }) {
                let lo = pointwiseMin(min, max)
                let hi = pointwiseMax(min, max)
                let sorted = [lo.x, lo.y, lo.z, hi.x, hi.y, hi.z].map(Self.text).joined(separator: ",")
                return "the first corner must be the smaller one on every axis, and on \(["x", "y", "z"][axis]) "
                    + "\(Self.text(min[axis])) > \(Self.text(max[axis])); the same box reads \(sorted)"
            }
        case let .voxelGrid(leaf):
            if !(leaf.isFinite && leaf > 0) { return "the leaf must be a positive number of metres, e.g. 0.01 (1 cm)" }
        case let .statisticalOutliers(k, stddev):
            if k < 1 { return "K (neighbours to average over) must be at least 1; 20 to 50 suits depth frames, e.g. 20,2" }
            if !stddev.isFinite { return "STDDEV must be a finite multiplier of the standard deviation, e.g. 2 (1 to 3 are usual)" }
        case let .radiusOutliers(radius, minNeighbours):
            if !(radius.isFinite && radius > 0) {
                return "R must be a positive number of metres, e.g. 0.05,5 (5 neighbours within 5 cm)"
            }
            if minNeighbours < 0 { return "MIN (neighbours a point needs within R) must be 0 or more, e.g. \(Self.text(Float(radius))),5" }
        case let .normals(radius):
            if !(radius.isFinite && radius > 0) {
                return "the radius must be a positive number of metres, e.g. 0.05 (5 cm suits room scans; "
                    + "3 to 5 times the point spacing suits any cloud)"
            }
        case .foreground:
            break
        }
        return nil
    }

    /// A short name for reports: "range", "crop", "voxel", "sor", "radius", "foreground", "normals".
    public var name: String {
        switch self {
        case .passThroughZ: return "range"
        case .cropBox: return "crop"
        case .voxelGrid: return "voxel"
        case .statisticalOutliers: return "sor"
        case .radiusOutliers: return "radius"
        case .foreground: return "foreground"
        case .normals: return "normals"
        }
    }

    /// The parameters by name, for reports.
    public var parameters: [String: FilterParameter] {
        switch self {
        case let .passThroughZ(min, max): return ["min": .number(min), "max": .number(max)]
        case let .cropBox(min, max): return ["min": .point(min), "max": .point(max)]
        case let .voxelGrid(leaf): return ["leaf": .number(leaf)]
        case let .statisticalOutliers(k, stddev): return ["k": .number(Double(k)), "stddev": .number(stddev)]
        case let .radiusOutliers(radius, minNeighbours): return ["radius": .number(radius), "min": .number(Double(minNeighbours))]
        case .foreground:
            return ["minimumGap": .number(ForegroundRule.minimumGap), "relativeGap": .number(ForegroundRule.relativeGap)]
        case let .normals(radius):
            return ["radius": .number(radius), "maxNeighbours": .number(Double(Normals.defaultMaxNeighbours))]
        }
    }

    /// The shortest text that reads back as `value` (e.g. 0.1, not 0.100000001).
    static func text(_ value: Float) -> String {
        value == value.rounded() && abs(value) < 1e7 ? String(Int(value)) : "\(value)"
    }
}

/// A filter parameter in a report: a number, or a point (x, y, z).
public enum FilterParameter: Equatable, Sendable, Encodable {
    case number(Double)
    case point(SIMD3<Float>)

    /// A float parameter as the decimal it was written as (0.02, not 0.019999999552965164).
    static func number(_ value: Float) -> FilterParameter { .number(decimal(value)) }

    static func decimal(_ value: Float) -> Double { value.isFinite ? Double("\(value)") ?? Double(value) : Double(value) }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case let .number(value): try container.encode(value)
        case let .point(p): try container.encode([p.x, p.y, p.z].map(Self.decimal))
        }
    }
}
