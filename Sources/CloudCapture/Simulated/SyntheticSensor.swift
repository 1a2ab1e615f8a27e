import CloudCore
import Foundation

/// Real depth sensors whose noise the simulated camera can imitate (`sensor=`), in place of its
/// generic model (`SyntheticCamera.noiseSigma`). Each also brings its own depth image, used when
/// the spec gives no `depth=` or `format=`.
public enum SyntheticSensor: String, CaseIterable, Sendable {
    /// Kinect v1-class structured light (`KinectNoise`): 640x480 16-bit millimetres.
    case kinect
    /// A phone's LiDAR as ARKit delivers it (`LiDARNoise`): 256x192 Float16 metres, smoothed.
    case lidar

    public var depthSize: ImageSize {
        switch self {
        case .kinect: return ImageSize(width: 640, height: 480)
        case .lidar: return ImageSize(width: 256, height: 192)
        }
    }

    public var format: SyntheticDepthFormat {
        switch self {
        case .kinect: return .mm16
        case .lidar: return .depth16
        }
    }
}

/// Kinect v1 depth: a disparity measured against the projected pattern, with Gaussian noise, then
/// quantised to the sensor's 1/8-pixel disparity steps and turned into depth z = f b / d.
///
/// Figures: focal length about 580 px (at 640x480) and baseline about 7.5 cm between the IR
/// projector and camera, disparity in 1/8 pixel (Konolige and Mihelich, "Technical description
/// of Kinect calibration", ROS wiki, 2011); so depth comes in steps of z^2 / (8 f b), 1.1 cm at
/// 2 m and 7 cm at 5 m, as Khoshelham and Oude Elberink measured ("Accuracy and resolution of
/// Kinect depth data for indoor mapping applications", Sensors 12, 2012). Their random error
/// grows as z^2, about 1.4 mm z^2 (4 cm at 5 m). That figure is what a user sees, steps included,
/// so the Gaussian part is chosen to give it together with the steps: with depths spread across
/// steps, the step error is uniform and independent of the noise, and the variances add:
/// sigma_g^2 + step^2 / 12 = (1.4 mm z^2)^2. In disparity both terms are constant, so sigma_g is
/// one disparity figure for every depth.
///
/// The sensor's constants are the Kinect's own, whatever image size the simulated camera delivers:
/// they describe how it measures, not how its picture is sampled.
public enum KinectNoise {
    public static let focalLength = 580.0
    public static let baseline = 0.075
    /// Disparity is resolved to 1/8 pixel.
    public static let disparitySteps = 8.0
    /// Random error per depth squared, metres per square metre.
    public static let errorPerSquareMetre = 0.0014

    /// Standard deviation of the reported depth about the true depth z (steps included).
    public static func sigma(depth z: Double) -> Double { errorPerSquareMetre * z * z }

    /// The spacing of the depths the sensor can report near z: one disparity step.
    public static func depthStep(depth z: Double) -> Double { z * z / (focalLength * baseline * disparitySteps) }

    /// The Gaussian disparity noise in pixels: (1.4 mm z^2)^2 less the steps' share, in disparity.
    static let disparitySigma: Double = {
        let stepPerSquareMetre = 1 / (focalLength * baseline * disparitySteps)
        return focalLength * baseline
            * (errorPerSquareMetre * errorPerSquareMetre - stepPerSquareMetre * stepPerSquareMetre / 12).squareRoot()
    }()

    /// The depth reported for true depth `z` given a standard normal draw `g`; 0 (no depth) when
    /// the noisy disparity rounds to nothing, which only depths of hundreds of metres reach.
    @inline(__always)
    static func measure(depth z: Double, gaussian g: Double) -> Double {
        let fb = focalLength * baseline
        let steps = ((fb / z + disparitySigma * g) * disparitySteps).rounded()
        return steps > 0 ? fb * disparitySteps / steps : 0
    }
}

/// Phone LiDAR depth as ARKit's `sceneDepth` delivers it: a dense 256x192 map (no holes, no
/// dropouts) that is spatially smoothed. The smoothing is modelled as a 3x3 binomial filter
/// ([1 2 1] across and down, /16) over the raw depths, applied across edges too, so that pixels
/// on a depth discontinuity take depths between the two surfaces: the "flying pixels" seen in
/// ARKit clouds at object outlines.
///
/// Noise: Apple publishes no figure. Evaluations of iPhone and iPad LiDAR (Luetzenburg et al.,
/// Scientific Reports 11, 2021; Vogt et al., Electronics 10, 2021) find errors of about a
/// centimetre at room distances. The assumption here: a delivered standard deviation growing
/// linearly with range, 0.2 % of the depth (4 mm at 2 m, 1 cm at 5 m), as a time-of-flight
/// return weakens with distance. The raw per-pixel noise is larger by 1 / `smoothingGain`, so
/// that after smoothing a flat surface shows the stated sigma (spatially correlated over about
/// a pixel, as ARKit's is).
public enum LiDARNoise {
    public static let errorPerMetre = 0.002

    /// Standard deviation of the delivered depth about the true depth z on a flat surface.
    public static func sigma(depth z: Double) -> Double { errorPerMetre * z }

    /// How much the filter shrinks independent noise's standard deviation: the root of the sum
    /// of the squared 2D weights, (1 + 4 + 1) / 16 = 0.375.
    public static let smoothingGain = 0.375

    /// The smoothed depth at (u, v) of `raw` (row-major, `width` wide): the weighted mean of the
    /// 3x3 neighbourhood, over the neighbours that exist at the image's border.
    @inline(__always)
    static func smoothed(_ raw: UnsafeBufferPointer<Double>, width: Int, height: Int, u: Int, v: Int) -> Double {
        if u > 0 && v > 0 && u < width - 1 && v < height - 1 {
            // Inside the image, spelt out: this runs for nearly every pixel.
            let (above, at, below) = ((v - 1) * width + u, v * width + u, (v + 1) * width + u)
            let top = raw[above - 1] + 2 * raw[above] + raw[above + 1]
            let middle = raw[at - 1] + 2 * raw[at] + raw[at + 1]
            let bottom = raw[below - 1] + 2 * raw[below] + raw[below + 1]
            return (top + 2 * middle + bottom) / 16
        }
        var (sum, weight) = (0.0, 0.0)
        for dv in -1...1 where v + dv >= 0 && v + dv < height {
            for du in -1...1 where u + du >= 0 && u + du < width {
                let w = Double((2 - abs(du)) * (2 - abs(dv)))  // [1 2 1] across times [1 2 1] down
                sum += w * raw[(v + dv) * width + u + du]
                weight += w
            }
        }
        return sum / weight
    }
}
