// swift-tools-version:6.0
import Foundation
import PackageDescription

// CShims is C++ over PCL, built by g++ through CMake (Tools/bootstrap): the Swift toolchain's
// clang cannot compile PCL's headers against Debian's Boost. SwiftPM only sees the C header
// (module `CShims`) and links the static library from CShims/build.
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().path
let shimLibraryDir = "\(root)/CShims/build"
let pclLibraries = ["pcl_filters", "pcl_features", "pcl_search",
                    "pcl_kdtree", "pcl_octree", "pcl_sample_consensus", "pcl_common"]

let package = Package(
    name: "cloudgen",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "cloudgen", targets: ["cloudgen"]),
        .executable(name: "cloudgen-bench", targets: ["cloudgen-bench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        // CloudCore imports no Foundation, so nothing autolinks libm for its rounding and square roots.
        .target(name: "CloudCore", linkerSettings: [.linkedLibrary("m")]),
        // C over Debian's libpng, libjpeg-turbo and libtiff: their error handlers longjmp, which
        // Swift cannot, so the setjmp side lives in C.
        .target(name: "CImageCodecs",
                linkerSettings: [.linkedLibrary("png16"), .linkedLibrary("z"), .linkedLibrary("jpeg"), .linkedLibrary("tiff")]),
        .target(name: "CloudIO", dependencies: ["CloudCore", "CImageCodecs"]),
        // PLY and PCD, read and written by our own parsers and encoders (Docs/architecture.md says why).
        .target(name: "CloudFiles", dependencies: ["CloudCore", "CloudIO"]),
        .systemLibrary(name: "CShims", path: "CShims/include"),
        .target(
            name: "CloudPCL",
            dependencies: ["CloudCore", "CloudIO", "CShims"],
            linkerSettings: [.unsafeFlags(["-L\(shimLibraryDir)"]), .linkedLibrary("cloudgen_shim")]
                + pclLibraries.map { .linkedLibrary($0) }
                + [.linkedLibrary("stdc++")]
        ),
        // C over libusb (linked) and libfreenect / OpenNI2 (dlopen'ed at run time, so that cloudgen runs
        // without them and fakenect's reduced library can stand in for the real one).
        .target(name: "CDevices", linkerSettings: [.linkedLibrary("usb-1.0"), .linkedLibrary("dl")]),
        .target(name: "CloudCapture", dependencies: ["CloudCore", "CloudIO", "CDevices"]),
        .target(name: "CloudRender", dependencies: ["CloudCore", "CloudIO"]),
        .executableTarget(
            name: "cloudgen",
            dependencies: ["CloudCore", "CloudIO", "CloudFiles", "CloudPCL", "CloudCapture", "CloudRender",
                           .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        .executableTarget(
            name: "cloudgen-bench",
            dependencies: ["CloudCore", "CloudIO", "CloudFiles", "CloudPCL", "CloudCapture", "CloudRender"],
            path: "Tools/bench/Sources"
        ),
        // Where ../shared/data is, for the test targets that read real captures.
        .target(name: "SharedTestData", dependencies: ["CloudCore"], path: "Tests/SharedTestData"),
        .testTarget(name: "CloudCoreTests", dependencies: ["CloudCore"]),
        .testTarget(name: "CloudIOTests", dependencies: ["CloudIO", "CloudCore", "SharedTestData"]),
        // CloudCapture only for the simulated room, whose scene knows every pixel's true surface.
        .testTarget(name: "CloudFilesTests", dependencies: ["CloudFiles", "CloudCore", "CloudIO", "SharedTestData"]),
        .testTarget(name: "CloudPCLTests", dependencies: ["CloudPCL", "CloudFiles", "CloudCore", "CloudCapture", "SharedTestData"]),
        .testTarget(name: "CloudCaptureTests", dependencies: ["CloudCapture", "CloudCore", "SharedTestData"]),
        .testTarget(name: "CloudRenderTests", dependencies: ["CloudRender", "CloudIO", "CloudCore"]),
        .testTarget(name: "cloudgenTests", dependencies: ["CloudCore", "CloudIO", "CloudFiles", "CloudPCL", "SharedTestData"]),
    ],
    swiftLanguageModes: [.v5]
)
