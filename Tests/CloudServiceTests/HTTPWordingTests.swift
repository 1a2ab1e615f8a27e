import XCTest

@testable import CloudService

/// Messages and reports the pipeline words for the CLI read, over HTTP, as the fields a client sends.
final class HTTPWordingTests: XCTestCase {
    func testFlagsBecomeFieldsWithoutEatingTheirNeighbours() {
        let cases = [
            // The pipeline's own warning for a sequence shorter than asked.
            "synthetic: --frames 24: the source has only 1 frame": "synthetic: frames=24: the source has only 1 frame",
            "frames 3: a capture stores one cloud; add --fuse": "frames 3: a capture stores one cloud; add fuse=true",
            "2 frames lack poses; --fuse and --frame world leave them out": "2 frames lack poses; fuse=true and frame=world leave them out",
            "--range 0.3,4 dropped 10 of 20 valid depth pixels (50%)": "range=0.3,4 dropped 10 of 20 valid depth pixels (50%)",
            "the cloud's units are not metres; --known-distance X,Y=METRES scales it":
                "the cloud's units are not metres; known_distance=X,Y=METRES scales it",
            "pass --depth-scale S if the depth image uses other units": "pass depth_scale=S if the depth image uses other units",
            "--voxel 0.01": "voxel=0.01",
            "--normals": "normals"
        ]
        for (cli, http) in cases {
            XCTAssertEqual(CaptureOrder.httpWording(cli), http)
        }
    }
}
