import Foundation
import XCTest

/// What a cloudgen process loads (Docs/architecture.md, "Start-up"): PCL (through the shim), the
/// camera libraries, libtiff and FFmpeg are opened on first use, so the commands that do not use them
/// neither pay for them nor depend on how they load.
final class StartupTests: XCTestCase {
    /// The shared libraries a run loaded, as the dynamic loader itself reports them
    /// (`LD_DEBUG=files` prints a `file=NAME` line on stderr for each, linked or dlopen'ed).
    private func loadedLibraries(
        _ arguments: [String], in dir: URL, file: StaticString = #filePath,
        line: UInt = #line
    ) throws -> (status: Int32, libraries: [String]) {
        let (result, timedOut) = try CLI.run(arguments, in: dir, environment: ["LD_DEBUG": "files"], timeout: CLI.defaultTimeout)
        XCTAssertFalse(timedOut, file: file, line: line)
        let libraries = result.stderrLines.compactMap { line -> String? in
            guard let range = line.range(of: "file=") else { return nil }
            let name = line[range.upperBound...].prefix { !$0.isWhitespace }
            return URL(fileURLWithPath: String(name)).lastPathComponent
        }
        return (result.status, Set(libraries).sorted())
    }

    private static let lazyPrefixes = [
        "libcloudgen_shim", "libpcl", "libvtk", "libusb", "libfreenect", "libOpenNI", "libtiff", "libheif", "libexpat", "libavformat",
        "libavcodec", "libavutil", "libOpenEXR", "libzstd"
    ]

    func testCommandsThatDoNotFilterLoadNeitherPCLNorCameraLibrariesNorOptionalCodecs() throws {
        let dir = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let cube = sharedData("pcl-clouds/cube.ply")
        for arguments in [
            ["--version"], ["capture", "--source", "synthetic:seed=3", "--rgbd", "frame"], ["info", cube],
            ["render", cube, "--out", "cube.png", "--size", "64x48"],
            ["capture", "--source", "synthetic:seed=3", "--ply", "scan.ply", "--pcd", "scan.pcd", "--encoding", "ascii"]
        ] {
            let (status, libraries) = try loadedLibraries(arguments, in: dir)
            XCTAssertEqual(status, 0, "\(arguments)")
            XCTAssertTrue(libraries.contains { $0.hasPrefix("libswiftCore") }, "\(arguments): the loader reported \(libraries)")
            let lazy = libraries.filter { name in Self.lazyPrefixes.contains { name.hasPrefix($0) } }
            XCTAssertEqual(lazy, [], "\(arguments) loaded libraries it does not use")
        }
    }

    /// A HEIC photo loads libheif and expat (its XMP) when it is read, and nothing of PCL or the cameras.
    func testAPhotoLoadsLibheifAndExpatOnFirstUse() throws {
        let dir = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (status, libraries) = try loadedLibraries(
            ["capture", "--source", "photo:" + sharedData("phone/pug.heic"), "--ply", "pug.ply"], in: dir)
        XCTAssertEqual(status, 0)
        XCTAssertTrue(libraries.contains { $0.hasPrefix("libheif") }, "\(libraries)")
        XCTAssertTrue(libraries.contains { $0.hasPrefix("libexpat") }, "\(libraries)")
        XCTAssertEqual(
            libraries.filter { ["libpcl", "libcloudgen_shim", "libusb", "libfreenect", "libtiff"].contains(where: $0.hasPrefix) }, [])
    }

    /// The shim compiles PCL's filter, search and normal templates itself (PCL_NO_PRECOMPILE), so
    /// that of PCL only pcl_common loads with it.
    func testAFilterLoadsTheShimAndPCLsCommonLibraryOnFirstUse() throws {
        let dir = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (status, libraries) = try loadedLibraries(
            [
                "capture", "--source", "synthetic:seed=3", "--voxel", "0.02",
                "--pcd", "filtered.pcd"
            ], in: dir)
        XCTAssertEqual(status, 0)
        XCTAssertTrue(libraries.contains("libcloudgen_shim.so"), "\(libraries)")
        XCTAssertTrue(libraries.contains { $0.hasPrefix("libpcl_common") }, "\(libraries)")
        let heavy = libraries.filter { name in
            ["libpcl_filters", "libpcl_features", "libpcl_search", "libpcl_kdtree"].contains { name.hasPrefix($0) }
        }
        XCTAssertEqual(heavy, [])
    }

    /// Hardened deployments and fuzzers set LD_BIND_NOW=1; with VTK linked (through libpcl_io)
    /// every command crashed in the dynamic loader before main.
    func testCommandsRunWithEveryBindingResolvedAtStart() throws {
        let dir = try makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let cube = sharedData("pcl-clouds/cube.ply")
        let bindNow = ["LD_BIND_NOW": "1"]

        let (version, versionTimedOut) = try CLI.run(["--version"], in: dir, environment: bindNow, timeout: CLI.defaultTimeout)
        XCTAssertFalse(versionTimedOut)
        XCTAssertEqual(version.status, 0, version.stderr)
        XCTAssertFalse(version.stdout.isEmpty)

        let (info, infoTimedOut) = try CLI.run(["info", cube], in: dir, environment: bindNow, timeout: CLI.defaultTimeout)
        XCTAssertFalse(infoTimedOut)
        XCTAssertEqual(info.status, 0, info.stderr)
        XCTAssertTrue(info.stdout.contains("24 points"), info.stdout)

        let (render, renderTimedOut) = try CLI.run(
            ["render", cube, "--out", "cube.png"], in: dir, environment: bindNow,
            timeout: CLI.defaultTimeout)
        XCTAssertFalse(renderTimedOut)
        XCTAssertEqual(render.status, 0, render.stderr)
        let png = try Data(contentsOf: dir.appendingPathComponent("cube.png"))
        XCTAssertEqual(Array(png.prefix(8)), [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
    }
}
