import CloudCapture
import CloudCore
import XCTest

/// The room and sensor keys of `synthetic:` specs: read, spelt back, and refused when wrong.
final class SyntheticRoomSpecTests: XCTestCase {
    func testDefaultsAndEveryNewKey() throws {
        let plain = try SyntheticSettings(parsing: "synthetic")
        XCTAssertNil(plain.sensor)
        XCTAssertEqual(plain.yaw, 0)
        XCTAssertEqual(plain.roll, 0)
        XCTAssertEqual(plain.shape, .box)
        XCTAssertFalse(plain.door)
        XCTAssertEqual(plain.furniture, 1)
        let s = try SyntheticSettings(parsing: "synthetic:sensor=lidar,yaw=30,roll=-12.5,shape=L,door=1,furniture=2")
        XCTAssertEqual(s.sensor, .lidar)
        XCTAssertEqual(s.yaw, 30)
        XCTAssertEqual(s.roll, -12.5)
        XCTAssertEqual(s.shape, .L)
        XCTAssertTrue(s.door)
        XCTAssertEqual(s.furniture, 2)
        XCTAssertEqual(
            s.spec,
            "synthetic:room=4x3x2.5,seed=0,noise=1,depth=256x192,color=1920x1440,format=depth16"
                + ",sensor=lidar,yaw=30,roll=-12.5,shape=L,door=1,furniture=2")
        for text in [s.spec, "synthetic:sensor=kinect,furniture=0", "synthetic:yaw=-360,roll=360,path=walk"] {
            let t = try SyntheticSettings(parsing: text)
            XCTAssertEqual(try SyntheticSettings(parsing: t.spec), t, t.spec)
        }
        XCTAssertTrue(Set(SyntheticSettings.keys).isSuperset(of: ["sensor", "yaw", "roll", "shape", "door", "furniture"]))
    }

    func testBadValuesAreRefusedNamingTheKey() {
        let cases = [
            ("synthetic:sensor=tof", "sensor=tof is not one of kinect, lidar"),
            ("synthetic:sensor=", "sensor= is not one of kinect, lidar"),
            ("synthetic:sensor=kinect,noise=0", "sensor=kinect models a sensor's noise and needs noise=1"),
            ("synthetic:yaw=north", "yaw=north must be a number of degrees from -360 to 360"),
            ("synthetic:yaw=nan", "yaw=nan must be a number of degrees"),
            ("synthetic:yaw=inf", "yaw=inf must be a number of degrees"),
            ("synthetic:yaw=360.5", "yaw=360.5 must be a number of degrees"),
            ("synthetic:roll=-400", "roll=-400 must be a number of degrees"),
            ("synthetic:roll=", "roll= must be a number of degrees"),
            ("synthetic:shape=U", "shape=U is not one of box, L"),
            ("synthetic:shape=l", "shape=l is not one of box, L"),
            ("synthetic:door=2", "door=2 must be 0 or 1"),
            ("synthetic:door=yes", "door=yes must be 0 or 1"),
            ("synthetic:furniture=3", "furniture=3 must be 0, 1 or 2"),
            ("synthetic:furniture=-1", "furniture=-1 must be 0, 1 or 2"),
            ("synthetic:furniture=1.5", "furniture=1.5 must be 0, 1 or 2"),
            ("synthetic:shape=L,shape=box", "key 'shape' is given more than once")
        ]
        for (spec, fragment) in cases {
            XCTAssertThrowsError(try SourceSpec(parsing: spec), spec) {
                XCTAssertEqual(($0 as? CloudError)?.kind, .badInput, spec)
                XCTAssertTrue("\($0)".contains("source '\(spec)': \(fragment)"), "\(spec): \($0)")
            }
        }
    }

    func testSettingsBuiltInCodeAreCheckedToo() {
        let bad = [
            SyntheticSettings(yaw: .nan), SyntheticSettings(roll: 361), SyntheticSettings(furniture: 3),
            SyntheticSettings(noise: false, sensor: .kinect)
        ]
        for settings in bad {
            XCTAssertThrowsError(try SyntheticCamera(settings: settings), settings.spec) {
                XCTAssertEqual(($0 as? CloudError)?.kind, .badInput)
            }
        }
        XCTAssertNoThrow(
            try SyntheticCamera(
                settings: SyntheticSettings(
                    depthSize: ImageSize(width: 8, height: 6), colorSize: ImageSize(width: 8, height: 6),
                    sensor: .lidar, yaw: -360, roll: 360, shape: .L, door: true, furniture: 0)))
    }
}
