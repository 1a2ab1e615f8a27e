import CloudCore
import XCTest

/// `Pose.isRigid`: the one test of "is this a camera pose" that trajectory logs and capture
/// bundles share.
final class PoseRigidTests: XCTestCase {
    func testRotationsAndTranslationsAreRigid() {
        XCTAssertTrue(Pose.identity.isRigid())
        let look = Pose.lookAt(eye: SIMD3(1, -2, 1.5), target: SIMD3(2, 1.5, 1))
        XCTAssertTrue(look.isRigid())
        // Float32 storage and 6-decimal printing stay within the default tolerance.
        let rounded = Pose(
            rows: (look.rotation.0.rounded6, look.rotation.1.rounded6, look.rotation.2.rounded6),
            translation: look.translation)
        XCTAssertTrue(rounded.isRigid())
        XCTAssertFalse(rounded.isRigid(tolerance: 1e-12))
    }

    func testScaleShearMirrorAndNonFiniteAreNot() {
        let r = Pose.identity.rotation
        XCTAssertFalse(Pose(rows: (r.0 * 1.01, r.1, r.2), translation: .zero).isRigid(), "scaled by 1%")
        XCTAssertFalse(Pose(rows: (SIMD3(1, 0.01, 0), r.1, r.2), translation: .zero).isRigid(), "sheared")
        XCTAssertFalse(Pose(rows: (-r.0, r.1, r.2), translation: .zero).isRigid(), "mirrored (determinant -1)")
        XCTAssertFalse(Pose(rows: (r.1, r.0, r.2), translation: .zero).isRigid(), "axes swapped (a reflection)")
        XCTAssertFalse(Pose(rows: r, translation: SIMD3(0, .nan, 0)).isRigid(), "NaN translation")
        XCTAssertFalse(Pose(rows: (SIMD3(.infinity, 0, 0), r.1, r.2), translation: .zero).isRigid(), "infinite rotation")
    }
}

extension SIMD3 where Scalar == Double {
    fileprivate var rounded6: SIMD3<Double> { (self * 1e6).rounded(.toNearestOrEven) / 1e6 }
}

/// `Pose.placementProblem`: the one bound every pose reader applies.
final class PoseBoundsTests: XCTestCase {
    func testTranslationsBeyondTheBoundOrNotANumberAreProblems() {
        let r = Pose.identity.rotation
        for bad in [1e308, 1e6, -Pose.maxTranslation.nextUp, .nan, .infinity] {
            for axis in 0..<3 {
                var t = SIMD3<Double>(1, 2, 3)
                t[axis] = bad
                let problem = Pose(rows: r, translation: t).placementProblem
                XCTAssertTrue(problem?.contains("is not within ±100000 m of the origin") ?? false, "\(t): \(problem ?? "none")")
            }
        }
        XCTAssertNil(Pose(rows: r, translation: SIMD3(Pose.maxTranslation, -Pose.maxTranslation, 99_999)).placementProblem)
        XCTAssertNil(Pose.lookAt(eye: SIMD3(1, -2, 1.5), target: SIMD3(2, 1.5, 1)).placementProblem)
    }

    func testARotationThatIsNoneIsAProblem() {
        let r = Pose.identity.rotation
        XCTAssertEqual(
            Pose(rows: (r.0 * 2, r.1, r.2), translation: .zero).placementProblem,
            "the rotation is not a rotation (a camera pose is rigid: no scale, shear or mirroring)")
        XCTAssertNotNil(Pose(rows: (SIMD3(.nan, 0, 0), r.1, r.2), translation: .zero).placementProblem)
    }
}
