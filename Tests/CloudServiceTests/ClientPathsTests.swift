import CloudCore
import HTTPTypes
import XCTest

@testable import CloudService

/// The service names its own files as the client knows them, by an error's subject: an upload's
/// files by their parts, an unpacked archive's files under the archive's name.
final class ClientPathsTests: XCTestCase {
    func testAnUploadedFileIsNamedByItsPart() {
        let paths = ClientPaths(
            UploadedParts(
                folder: "/srv/uploads/r1",
                files: [
                    "depth": .init(name: "depth", path: "/srv/uploads/r1/depth", filename: "d.png", bytes: 10),
                    "photo": .init(name: "photo", path: "/srv/uploads/r1/photo", filename: "p.jpg", bytes: 10)
                ]))
        let corrupt = paths.error(.badInput(.file("/srv/uploads/r1/depth"), "not a PNG"))
        XCTAssertEqual(corrupt.subject, .part("depth"))
        let problem = Problem.from(corrupt)
        XCTAssertEqual(problem.detail, "depth: not a PNG")
        XCTAssertEqual(problem.part, "depth")
        XCTAssertEqual(problem.field, "depth")
        // A place inside an uploaded file keeps its place.
        let xmp = paths.error(.badInput(.file("/srv/uploads/r1/photo: depth XMP"), "no IntrinsicMatrix"))
        XCTAssertEqual(Problem.from(xmp).detail, "photo: depth XMP: no IntrinsicMatrix")
        XCTAssertEqual(Problem.from(xmp).part, "photo")
        // A file that is none of the parts stays as it is.
        XCTAssertEqual(paths.error(.badInput(.file("/elsewhere/depth"), "x")).subject, .file("/elsewhere/depth"))
        XCTAssertEqual(paths.source("rgbd:/srv/uploads/r1/photo,/srv/uploads/r1/depth"), "rgbd:photo,depth")
    }

    func testAnArchivesFilesAreNamedUnderItsName() {
        var paths = ClientPaths()
        paths.archiveRoot = "/srv/uploads/r2/unpacked/scan"
        let error = paths.error(.badInput(.file("/srv/uploads/r2/unpacked/scan/depth/0001.png"), "truncated"))
        XCTAssertEqual(error.message, "bundle/depth/0001.png: truncated")
        XCTAssertEqual(paths.source("redwood:/srv/uploads/r2/unpacked/scan"), "redwood:bundle")
        XCTAssertNil(Problem.from(error).part)
    }

    /// A warning names files in its reason too (a calibration used instead of another): each is
    /// named as the client knows it, and the server's paths never show.
    func testAWarningNamesTheClientsFilesWhereverItNamesThem() {
        var paths = ClientPaths(
            UploadedParts(
                folder: "/srv/uploads/r3",
                files: ["intrinsics": .init(name: "intrinsics", path: "/srv/uploads/r3/intrinsics", filename: "k.json", bytes: 10)]))
        paths.archiveRoot = "/srv/uploads/r3/unpacked/scan"
        let warnings = [
            CloudWarning(
                .source("redwood:/srv/uploads/r3/unpacked/scan"),
                "using \(option: "intrinsics", file: "/srv/uploads/r3/intrinsics") instead of \(file: "/srv/uploads/r3/unpacked/scan/camera.json")"
            ),
            CloudWarning(
                .source("pclgrabber:/srv/uploads/r3/unpacked/scan"),
                "\(file: "/srv/uploads/r3/intrinsics") gives no z_multiplication_factor (pass \(option: "depth-scale", "S") otherwise)")
        ]
        XCTAssertEqual(
            warnings[0].message,
            "redwood:/srv/uploads/r3/unpacked/scan: using --intrinsics /srv/uploads/r3/intrinsics instead of /srv/uploads/r3/unpacked/scan/camera.json"
        )
        XCTAssertEqual(
            warnings.map { FieldWording.line(paths.named($0)) },
            [
                "redwood:bundle: using intrinsics=intrinsics instead of bundle/camera.json",
                "pclgrabber:bundle: intrinsics gives no z_multiplication_factor (pass depth_scale=S otherwise)"
            ])
        // An error's reason is renamed the same way.
        let error = paths.error(.badInput(.source("tum:/srv/uploads/r3/unpacked/scan"), "\(file: "/srv/uploads/r3/intrinsics") is empty"))
        XCTAssertEqual(Problem.from(error).detail, "tum:bundle: intrinsics is empty")
    }

    func testOptionsAreWordedAsFields() {
        let problem = Problem.from(CloudError.badInput(.option("depth-scale", "0"), "add \(switch: "fuse") or \(option: "frame", "world")"))
        XCTAssertEqual(problem.detail, "depth_scale=0: add fuse=true or frame=world")
        XCTAssertEqual(problem.field, "depth_scale")
        XCTAssertEqual(problem.status, .unprocessableContent)
        XCTAssertEqual(Problem.from(CloudError(.budget, subject: nil, "needs about 9 GiB")).status, .unprocessableContent)
        XCTAssertEqual(Problem.from(CloudError.io("disk full")).status, .internalServerError)
    }
}
