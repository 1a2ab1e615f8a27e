// swift-tools-version:6.1
import Foundation
import PackageDescription

// CShims is C++ over PCL, built by g++ through CMake (Tools/bootstrap) into a shared library: the
// Swift toolchain's clang cannot compile PCL's headers against Debian's Boost. SwiftPM only sees the
// C header (module `CShims`); CloudPCL opens libcloudgen_shim.so with dlopen on first use (so PCL
// loads only where it is used), found through a runpath on every program that links CloudPCL:
// `$ORIGIN/../lib/cloudgen` (an installed binary's, Tools/install), then this checkout's CShims/build,
// which Tools/install removes from the binary it installs. (No shell sees `$ORIGIN`.)
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().path
let shimLibraryDir = "\(root)/CShims/build"

// The simulated camera, the room measurement and the geometry they run on (CloudCore's poses,
// vectors and colour conversion, CloudPCL's planes) are optimised in debug builds too: the tests
// simulate and measure dozens of rooms, which unoptimised code takes ten minutes of CI for.
let optimizedInDebug: [SwiftSetting] = [.unsafeFlags(["-O"], .when(configuration: .debug))]

let package = Package(
    name: "cloudgen",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "cloudgen", targets: ["cloudgen"]),
        .executable(name: "cloudgen-bench", targets: ["cloudgen-bench"])
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // The service (Sources/CloudService). Hummingbird's default traits would build
        // swift-configuration too, which nothing here uses.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        // The stream sockets: the server's upgrade (HummingbirdWebSocket) and `cloudgen stream`'s client.
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        // Below Hummingbird, which the service's channel handlers (slow clients, early answers,
        // refused upgrades) and the stream client work on directly.
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.3"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        // WebSocket close codes and frames, which the stream tests read beside HummingbirdWSClient.
        .package(url: "https://github.com/hummingbird-project/swift-websocket.git", from: "1.6.2"),
        // `serve --index postgresql://...`: the capture index several replicas share.
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2")
    ],
    targets: [
        // CloudCore imports no Foundation, so nothing autolinks libm for its rounding and square roots.
        .target(name: "CloudCore", swiftSettings: optimizedInDebug, linkerSettings: [.linkedLibrary("m")]),
        // The one status (a code and a one-line message) every C target reports through, and the one
        // way each opens a library on first use (dlopen); the PCL shim's CMake build includes it too.
        .target(name: "CStatus", linkerSettings: [.linkedLibrary("dl")]),
        // C over Debian's libpng, libjpeg-turbo and libtiff: their error handlers longjmp, which
        // Swift cannot, so the setjmp side lives in C. libtiff is dlopen'ed on the first TIFF
        // (tiff_library.h), not linked: it would load six more libraries into every process.
        .target(
            name: "CImageCodecs", dependencies: ["CStatus"],
            linkerSettings: [.linkedLibrary("png16"), .linkedLibrary("z"), .linkedLibrary("jpeg"), .linkedLibrary("dl")]),
        // The signal handler that removes half-written outputs: C, because it must be async-signal-safe.
        .target(name: "CWriteGuard"),
        // zlib's raw inflate and CRC-32 for the zip reader (inflateInit2 is a macro Swift cannot call).
        .target(name: "CZlib", linkerSettings: [.linkedLibrary("z")]),
        // Reading inputs and writing outputs safely: bounded input files, atomic and staged
        // outputs, temporaries removed on a signal, the memory budget. Everything may use it.
        .target(name: "SafeIO", dependencies: ["CloudCore", "CWriteGuard", "CStatus"]),
        // Image files, phone photos' containers, video frames, EXR depth, RGBD exports.
        .target(name: "CloudImages", dependencies: ["CloudCore", "SafeIO", "CImageCodecs"]),
        // Files packed in one stream: tar and zip archives (uploads, Record3D's .r3d, the capture
        // download) and multipart/form-data bodies.
        .target(name: "CloudArchives", dependencies: ["CloudCore", "SafeIO", "CZlib"]),
        // PLY and PCD, read and written by our own parsers and encoders (Docs/architecture.md says why).
        .target(name: "CloudFiles", dependencies: ["CloudCore", "SafeIO"]),
        .systemLibrary(name: "CShims", path: "CShims/include"),
        .target(
            name: "CloudPCL",
            dependencies: ["CloudCore", "SafeIO", "CShims"],
            swiftSettings: optimizedInDebug,
            linkerSettings: [
                .unsafeFlags([
                    "-Xlinker", "-rpath", "-Xlinker", "$ORIGIN/../lib/cloudgen",
                    "-Xlinker", "-rpath", "-Xlinker", shimLibraryDir
                ])
            ]
        ),
        // C over libusb, libfreenect and OpenNI2, all dlopen'ed on first use: no command but the
        // camera ones loads them, cloudgen runs without them, and fakenect's reduced library can stand
        // in for the real one.
        .target(name: "CDevices", dependencies: ["CStatus"], linkerSettings: [.linkedLibrary("dl")]),
        .target(
            name: "CloudCapture", dependencies: ["CloudCore", "SafeIO", "CloudImages", "CloudArchives", "CDevices"],
            swiftSettings: optimizedInDebug),
        .target(name: "CloudRender", dependencies: ["CloudCore"]),
        // Poses from the frames themselves: RGB-D odometry against keyframes (`--register`).
        .target(name: "CloudRegistration", dependencies: ["CloudCore"], swiftSettings: optimizedInDebug),
        // The capture stages (source -> frames -> cloud -> filters -> files and pictures) that the
        // CLI's `capture` and the service's uploads both drive.
        .target(name: "CloudMeasure", dependencies: ["CloudCore", "CloudPCL"], swiftSettings: optimizedInDebug),
        .target(
            name: "CloudPipeline",
            dependencies: [
                "CloudCore", "SafeIO", "CloudImages", "CloudFiles", "CloudPCL", "CloudCapture", "CloudRender", "CloudMeasure",
                "CloudRegistration"
            ]),
        // What a viewer is sent: clouds cut to a point budget and packed as int16 and RGB8, in the
        // length-prefixed JSON-header framing the stream sockets share.
        .target(name: "CloudStream", dependencies: ["CloudCore", "SafeIO", "CloudImages"]),
        // The pushing side of a stream (`cloudgen stream --to URL`) and a viewer's reading side, over
        // a WebSocket client; the bench and the tests drive the service through it too.
        .target(
            name: "CloudStreamClient",
            dependencies: [
                "CloudStream", "CloudCore", "CloudImages",
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types")
            ]),
        // `cloudgen serve`: the HTTP API over CloudPipeline, with its SQLite capture index.
        .target(
            name: "CloudService",
            dependencies: [
                "CloudCore", "SafeIO", "CloudImages", "CloudArchives", "CloudFiles", "CloudPCL", "CloudCapture", "CloudRender",
                "CloudPipeline", "CloudMeasure", "CloudStream",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "NIOFoundationEssentialsCompat", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types")
            ],
            // The OpenAPI document is compiled into the binary as bytes: a bundled resource would
            // be looked up by a path into the build tree, which an installed binary does not have.
            resources: [
                .embedInCode("Resources/openapi.json"), .embedInCode("Resources/viewer.html"), .embedInCode("Resources/live.html"),
                .embedInCode("Resources/pointview.js")
            ]
        ),
        .executableTarget(
            name: "cloudgen",
            dependencies: [
                "CloudCore", "SafeIO", "CloudImages", "CloudFiles", "CloudPCL", "CloudCapture", "CloudRender",
                "CloudPipeline", "CloudMeasure", "CloudService", "CloudStream", "CloudStreamClient",
                .product(name: "ArgumentParser", package: "swift-argument-parser")
            ]
        ),
        .executableTarget(
            name: "cloudgen-bench",
            dependencies: [
                "CloudCore", "CloudImages", "CloudFiles", "CloudPCL", "CloudCapture", "CloudRender", "CloudPipeline",
                "CloudStream", "CloudStreamClient",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                // `stream --relay` pushes to the Python peer's plain WebSocket, which has no stream to create.
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log")
            ],
            path: "Tools/bench/Sources"
        ),
        // Where ../shared/data is, for the test targets that read real captures.
        .target(name: "SharedTestData", dependencies: ["CloudCore"], path: "Tests/SharedTestData"),
        // Writers of the formats the product only reads (EXR depth), for the tests' fixtures. The C
        // side uses CImageCodecs' error handling and library loaders.
        .target(
            name: "CTestEncoders", dependencies: ["CImageCodecs"], path: "Tests/CTestEncoders",
            cSettings: [.headerSearchPath("../../Sources/CImageCodecs")]),
        .target(
            name: "TestEncoders", dependencies: ["CTestEncoders", "CImageCodecs", "CloudImages", "SafeIO", "CloudCore"],
            path: "Tests/TestEncoders"),
        .testTarget(name: "CloudCoreTests", dependencies: ["CloudCore", "SharedTestData"]),
        .testTarget(name: "SafeIOTests", dependencies: ["SafeIO", "CloudCore"]),
        .testTarget(name: "CloudImagesTests", dependencies: ["CloudImages", "SafeIO", "CloudCore", "SharedTestData", "TestEncoders"]),
        .testTarget(name: "CloudArchivesTests", dependencies: ["CloudArchives", "CloudCore", "SharedTestData"]),
        // CloudCapture only for the simulated room, whose scene knows every pixel's true surface.
        .testTarget(name: "CloudFilesTests", dependencies: ["CloudFiles", "CloudCore", "SharedTestData"]),
        .testTarget(name: "CloudPCLTests", dependencies: ["CloudPCL", "CloudFiles", "CloudCore", "CloudCapture", "SharedTestData"]),
        .testTarget(
            name: "CloudCaptureTests",
            dependencies: ["CloudCapture", "CloudCore", "SafeIO", "CloudImages", "SharedTestData", "TestEncoders"]),
        .testTarget(
            name: "CloudStreamTests",
            dependencies: ["CloudStream", "CloudCore", "CloudImages", "CloudCapture", "CloudFiles", "SharedTestData"]),
        .testTarget(name: "CloudStreamClientTests", dependencies: ["CloudStreamClient", "CloudCore", "SharedTestData"]),
        .testTarget(name: "CloudRenderTests", dependencies: ["CloudRender", "CloudImages", "SafeIO", "CloudCore"]),
        .testTarget(name: "CloudRegistrationTests", dependencies: ["CloudRegistration", "CloudCapture", "CloudCore", "SharedTestData"]),
        .testTarget(
            name: "CloudMeasureTests",
            dependencies: ["CloudMeasure", "CloudPipeline", "CloudCapture", "CloudPCL", "CloudCore"]),
        .testTarget(
            name: "CloudServiceTests",
            dependencies: [
                "CloudService", "CloudMeasure", "CloudPipeline", "CloudCapture", "CloudPCL", "CloudFiles", "CloudCore", "CloudImages",
                "CloudStream", "SafeIO", "SharedTestData",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOFoundationEssentialsCompat", package: "swift-nio"),
                .product(name: "WSCore", package: "swift-websocket"),
                .product(name: "HTTPTypes", package: "swift-http-types")
            ]),
        // Most of these run the built binary; the CLI's own parsing (FilterFlags) is tested in process.
        .testTarget(
            name: "cloudgenTests",
            dependencies: [
                "cloudgen", "CloudCore", "CloudImages", "CloudCapture", "CloudFiles", "CloudPCL", "CloudStream", "CloudStreamClient",
                "SharedTestData", .product(name: "ArgumentParser", package: "swift-argument-parser")
            ])
    ],
    // Complete data-race checking; Docs/architecture.md says where the code vouches for itself.
    swiftLanguageModes: [.v6]
)

// A file uses only the members of modules it imports itself (not those another file of its target
// happens to import), so that each file's imports say what it depends on.
for target in package.targets where target.type != .system && !isCTarget(target.name) {
    target.swiftSettings = (target.swiftSettings ?? []) + [.enableUpcomingFeature("MemberImportVisibility")]
}

/// The C targets: a capital C before the name (CStatus, CZlib), where Swift targets are Cloud….
func isCTarget(_ name: String) -> Bool {
    name.count > 1 && name.hasPrefix("C") && name.dropFirst().first!.isUppercase
}
