import CloudCapture
import CloudCore
import XCTest

/// The figures `Tools/compare/run --figures` recorded from Open3D 0.20 (PyPI open3d-cpu) for the
/// same frames, so that these tests hold cloudgen to Open3D without needing it: point count,
/// coordinate sums and sample points of `PointCloud.create_from_rgbd_image` after the factory a
/// user of each dataset calls (see Tools/compare/open3d_parity.py for the calls and parameters).
/// Open3D computes in double from float depth, cloudgen in float: points agree to 1e-5 m (the
/// comparison measured at most 4.5e-7 m), sums within 2 mm (measured: at most 0.5 mm over the
/// 1.3 million fused points), colors exactly.
struct Open3DFigures {
    struct Sample {
        var index: Int
        var xyz: SIMD3<Double>
        var rgb: SIMD3<UInt8>
    }

    var count: Int
    var sum: SIMD3<Double>
    var samples: [Sample]

    static let tum = Open3DFigures(
        count: 244280, sum: SIMD3(-513.5902334516261, 3886.850760872558, 585524.5596835613),
        samples: [
            .init(index: 0, xyz: SIMD3(-1.2808532921473186, -1.0631313943862915, 2.431999921798706), rgb: SIMD3(160, 167, 168)),
            .init(index: 81426, xyz: SIMD3(-0.3358476082483927, -0.2941561810175578, 2.431999921798706), rgb: SIMD3(159, 146, 125)),
            .init(index: 122140, xyz: SIMD3(-0.1653171341759818, 0.04694190229688372, 2.1429998874664307), rgb: SIMD3(188, 174, 146)),
            .init(index: 162853, xyz: SIMD3(0.6344257070904686, 0.4764999945958455, 2.8589999675750732), rgb: SIMD3(67, 65, 61)),
            .init(index: 244279, xyz: SIMD3(-1.1854495629810151, 0.9162990778968447, 2.078000068664551), rgb: SIMD3(113, 119, 99))
        ])
    static let tumFullRange = Open3DFigures(
        count: 248250, sum: SIMD3(-905.2894085213431, -6410.533889004827, 614943.2585618496),
        samples: [
            .init(index: 0, xyz: SIMD3(-4.815441013517834, -3.693707665942964, 8.413000106811523), rgb: SIMD3(162, 168, 168)),
            .init(index: 82750, xyz: SIMD3(0.16335237730117072, -0.3340190401531401, 2.559999942779541), rgb: SIMD3(91, 115, 103)),
            .init(index: 124125, xyz: SIMD3(-1.0944133694966633, 0.0336438106355213, 2.078000068664551), rgb: SIMD3(205, 201, 181)),
            .init(index: 165500, xyz: SIMD3(-0.4742476088660104, 0.2749028512409755, 1.687999963760376), rgb: SIMD3(35, 22, 46)),
            .init(index: 248249, xyz: SIMD3(-1.1854495629810151, 0.9162990778968447, 2.078000068664551), rgb: SIMD3(113, 119, 99))
        ])
    static let nyu = Open3DFigures(
        count: 285001, sum: SIMD3(56945.426344963176, -39801.39281934793, 1017788.1883063316),
        samples: [
            .init(index: 0, xyz: SIMD3(-1.0198713765825544, -1.0241475668407622, 2.244999885559082), rgb: SIMD3(46, 52, 55)),
            .init(index: 95000, xyz: SIMD3(-0.00289714290982201, -0.46064572266169956, 3.0420000553131104), rgb: SIMD3(110, 117, 118)),
            .init(index: 142500, xyz: SIMD3(0.7780980709620885, 0.003027618953159877, 3.178999900817871), rgb: SIMD3(32, 1, 5)),
            .init(index: 190000, xyz: SIMD3(2.1087943397249496, 0.5606571572167532, 3.7980000972747803), rgb: SIMD3(127, 138, 138)),
            .init(index: 285000, xyz: SIMD3(1.3148267141977945, 1.010918131782895, 2.2160000801086426), rgb: SIMD3(131, 112, 76))
        ])
    static let sun = Open3DFigures(
        count: 236957, sum: SIMD3(-35128.343828642996, -3643.258585360694, 679479.086156249),
        samples: [
            .init(index: 0, xyz: SIMD3(0.536416187286377, -0.5559666633605957, 1.2829999923706055), rgb: SIMD3(58, 60, 75)),
            .init(index: 78985, xyz: SIMD3(-0.9365000128746033, -0.2087057171549116, 1.8730000257492065), rgb: SIMD3(93, 76, 48)),
            .init(index: 118478, xyz: SIMD3(-0.7738943042073931, 0.061460001468658446, 1.3170000314712524), rgb: SIMD3(130, 139, 138)),
            .init(index: 157971, xyz: SIMD3(0.9216981065840948, 0.5126447682153611, 2.7890000343322754), rgb: SIMD3(59, 55, 52)),
            .init(index: 236956, xyz: SIMD3(-0.7613514467648097, 0.5832428710801261, 1.3170000314712524), rgb: SIMD3(100, 101, 93))
        ])
    static let redwood = Open3DFigures(
        count: 267129, sum: SIMD3(-12796.53583447255, -13897.19728126449, 479199.33029168844),
        samples: [
            .init(index: 0, xyz: SIMD3(-0.5494885611534118, -0.5993228459358215, 1.3769999742507935), rgb: SIMD3(146, 156, 165)),
            .init(index: 89043, xyz: SIMD3(-0.9986723802203223, -0.33949904737018405, 2.6019999980926514), rgb: SIMD3(255, 253, 208)),
            .init(index: 133564, xyz: SIMD3(-0.29501333713531497, 0.020156190735953195, 1.9240000247955322), rgb: SIMD3(255, 255, 255)),
            .init(index: 178086, xyz: SIMD3(0.16829237688155402, 0.32239142077309746, 2.128999948501587), rgb: SIMD3(255, 255, 255)),
            .init(index: 267128, xyz: SIMD3(0.5063952243328095, 0.4200047504901886, 0.9649999737739563), rgb: SIMD3(134, 93, 65))
        ])
    static let redwoodFused = Open3DFigures(
        count: 1_340_711, sum: SIMD3(-2725035.396561699, 785111.707386027, 3554599.890317869),
        samples: [
            .init(index: 0, xyz: SIMD3(-1.4970962371749055, 1.140940371925174, 3.0358156390175233), rgb: SIMD3(146, 156, 165)),
            .init(index: 446903, xyz: SIMD3(-2.350267794986566, 0.17988117232718132, 2.9331378571472637), rgb: SIMD3(162, 161, 157)),
            .init(index: 670355, xyz: SIMD3(-2.4229779250465375, 0.5023124817720408, 1.9445163969050845), rgb: SIMD3(175, 184, 189)),
            .init(index: 893807, xyz: SIMD3(-2.4321905414841205, 0.7979092395224363, 2.5989067138336344), rgb: SIMD3(254, 255, 255)),
            .init(index: 1_340_710, xyz: SIMD3(-1.441802749586872, 0.13561709599053173, 1.8278257901423243), rgb: SIMD3(107, 74, 43))
        ])
}

final class DatasetOpen3DFiguresTests: XCTestCase {
    typealias O3D = Open3DFigures

    /// Open3D's `create_from_tum_format` truncates at 4 m (drops z >= 4); 3.9999 m keeps the same
    /// raw values (5000 to the metre) in cloudgen's inclusive range.
    func testTUMEqualsCreateFromTUMFormat() throws {
        let folder = try DatasetFixture.tumFixture(in: DatasetFixture.scratch(self))
        try assertFigures(DatasetFixture.open("tum:\(folder)"), range: 0...3.9999, O3D.tum)
    }

    /// `create_from_color_and_depth` with depth_scale 5000 and depth_trunc inf: nothing truncated,
    /// as cloudgen by default.
    func testTUMFullRangeEqualsCreateFromColorAndDepth() throws {
        let folder = try DatasetFixture.tumFixture(in: DatasetFixture.scratch(self))
        try assertFigures(DatasetFixture.open("tum:\(folder)"), range: nil, O3D.tumFullRange)
    }

    /// `create_from_nyu_format` (7 m truncation: 6.9995 m keeps the same whole millimetres).
    func testNYUEqualsCreateFromNYUFormat() throws {
        let f = DatasetFixture.otherFormats
        let source = try DatasetFixture.open(
            "rgbd:\(f)/NYU_color.ppm,\(f)/NYU_depth.pgm",
            SourceOptions(intrinsicsPath: DatasetFixture.primesense, depthEncoding: .nyu))
        try assertFigures(source, range: 0...6.9995, O3D.nyu)
    }

    /// `create_from_sun_format` (1000 to the metre, 7 m truncation). The color is a JPEG: equal
    /// colors mean our libjpeg-turbo decode equals Open3D's bundled one.
    func testSUNEqualsCreateFromSUNFormat() throws {
        let f = DatasetFixture.otherFormats
        let source = try DatasetFixture.open(
            "rgbd:\(f)/SUN_color.jpg,\(f)/SUN_depth.png",
            SourceOptions(intrinsicsPath: DatasetFixture.primesense, depthEncoding: .sun))
        try assertFigures(source, range: 0...6.9995, O3D.sun)
    }

    /// Frame 0 through `create_from_color_and_depth` (1000 to the metre, depth_trunc inf).
    func testRedwoodFrameEqualsCreateFromColorAndDepth() throws {
        let folder = try DatasetFixture.redwoodFolder(in: DatasetFixture.scratch(self), frames: 0..<1, trajectory: nil)
        try assertFigures(DatasetFixture.open("redwood:\(folder)"), range: nil, O3D.redwood)
    }

    /// All five frames, each Open3D cloud transformed by its trajectory.log pose, concatenated.
    func testRedwoodSequenceFusedWithTrajectoryEqualsOpen3D() throws {
        try assertFigures(DatasetFixture.open("redwood:\(DatasetFixture.rgbd)"), range: nil, world: true, O3D.redwoodFused)
    }

    func assertFigures(
        _ source: DatasetSource, range: ClosedRange<Float>?, world: Bool = false, _ expected: O3D,
        file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let cloud = try DatasetFixture.cloud(source, range: range, world: world)
        XCTAssertEqual(cloud.count, expected.count, "point count", file: file, line: line)
        guard cloud.count == expected.count else { return }
        var sum = SIMD3<Double>.zero
        for i in 0..<cloud.count {
            let p = cloud.point(i)
            sum += SIMD3(Double(p.x), Double(p.y), Double(p.z))
        }
        let sumError = Self.largest(sum - expected.sum)
        XCTAssertLessThan(sumError, 0.002, "coordinate sums \(sum), Open3D's \(expected.sum)", file: file, line: line)
        for sample in expected.samples {
            let p = cloud.point(sample.index)
            let error = Self.largest(SIMD3(Double(p.x), Double(p.y), Double(p.z)) - sample.xyz)
            XCTAssertLessThan(error, 1e-5, "point \(sample.index): \(p), Open3D's \(sample.xyz)", file: file, line: line)
            XCTAssertEqual(cloud.color(sample.index), sample.rgb, "color of point \(sample.index)", file: file, line: line)
        }
    }

    static func largest(_ d: SIMD3<Double>) -> Double {
        max(abs(d.x), abs(d.y), abs(d.z))
    }
}
