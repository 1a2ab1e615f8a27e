import CloudCore
import Foundation

/// Each frame's pose from the frames alone: every frame is registered to a keyframe (not only to
/// the frame before, so that small errors do not add up frame by frame while the camera stays in
/// view of it), starting from the motion of the frame before. A frame that moved too far from its
/// keyframe becomes the next one. The world frame is the first frame's camera frame.
///
/// A frame that cannot be registered is never given a pose: its step says why, and the next frame
/// tries again from the last pose found. After `segmentAfter` such frames in a row the camera is
/// taken to have lost its view of the keyframe: the next frame starts a new segment as its own
/// keyframe, placed where the last registered frame was (how the segments join is not known).
public struct SequenceTracker: Sendable {
    public var odometry = RGBDOdometry()
    /// A registered frame farther than this from its keyframe (metres, or degrees of turn), or
    /// with less than `keyframeFitness` of its pixels on the keyframe's surface, becomes the next keyframe.
    public var keyframeDistance = 0.2
    public var keyframeAngle = 12.0
    public var keyframeFitness = 0.6
    /// A motion this large between consecutive frames (metres, degrees) is a jump, not a result.
    public var jumpDistance = 0.3
    public var jumpAngle = 30.0
    public var segmentAfter = 3

    /// What tracking did with one frame.
    public struct Step: Sendable, Equatable {
        /// Camera to world; nil when the frame was not registered.
        public var pose: Pose?
        public var fitness: Double
        public var rmse: Double
        public var keyframe: Bool
        /// The frame starts a new segment (the first frame does not count as one).
        public var newSegment: Bool
        /// Why the frame has no pose.
        public var problem: String?
    }

    private var keyframe: (frame: OdometryFrame, pose: Pose)?
    /// The last registered frame's pose, and its motion from the one before.
    private var last: (pose: Pose, motion: Pose)?
    private var failuresInARow = 0

    public init() {}

    public mutating func track(_ frame: OdometryFrame) -> Step {
        guard let key = keyframe, let last else {
            keyframe = (frame, .identity)
            self.last = (.identity, .identity)
            return Step(pose: .identity, fitness: 1, rmse: 0, keyframe: true, newSegment: false, problem: nil)
        }
        if failuresInARow >= segmentAfter {
            keyframe = (frame, last.pose)
            self.last = (last.pose, .identity)
            failuresInARow = 0
            return Step(pose: last.pose, fitness: 0, rmse: 0, keyframe: true, newSegment: true, problem: nil)
        }
        // Constant velocity: the frame is expected where the last one's motion would take it.
        let predicted = last.pose.composed(after: last.motion)
        let initial = key.pose.inverted().composed(after: predicted)
        let result = odometry.register(frame, to: key.frame, initial: initial)
        var problem = result.problem
        let pose = key.pose.composed(after: result.pose)
        let step = last.pose.inverted().composed(after: pose)
        if problem == nil && (step.translationLength > jumpDistance || step.angleDegrees > jumpAngle) {
            problem = String(
                format: "it would have moved %.2f m and turned %.0f° since the frame before", step.translationLength, step.angleDegrees)
        }
        if let problem {
            failuresInARow += 1
            return Step(pose: nil, fitness: result.fitness, rmse: result.rmse, keyframe: false, newSegment: false, problem: problem)
        }
        failuresInARow = 0
        self.last = (pose, step)
        let fromKey = result.pose
        let becomesKey =
            fromKey.translationLength > keyframeDistance || fromKey.angleDegrees > keyframeAngle || result.fitness < keyframeFitness
        if becomesKey { keyframe = (frame, pose) }
        return Step(pose: pose, fitness: result.fitness, rmse: result.rmse, keyframe: becomesKey, newSegment: false, problem: nil)
    }
}
