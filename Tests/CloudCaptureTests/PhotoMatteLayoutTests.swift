import CloudCapture
import CloudCore
import CloudImages
import Foundation
import SafeIO
import SharedTestData
import XCTest

/// The portrait effects matte in each layout the documents describe (Docs/formats.md, "The
/// portrait effects matte", cites them), each written from the document, not from cloudgen's
/// reader: `--matte` keeps exactly the subject it marks. The semantic segmentation mattes (skin,
/// hair, teeth, glasses) and the depth image are never taken for it.
final class PhotoMatteLayoutTests: XCTestCase {
    private var dir: URL!

    override func setUpWithError() throws { dir = try makeScratchFolder() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    /// The depth `--matte` keeps is the fixture's subject (to the matte's JPEG edges) and nothing behind it.
    private func assertMatteKeepsTheSubject(_ fixture: DepthPhotoFixture, file: StaticString = #filePath, line: UInt = #line) throws {
        let source = try SourceSpec(parsing: "photo:\(fixture.path)").open(options: SourceOptions(matte: true))
        let depth = try RGBDFrame(decoding: try XCTUnwrap(try source.nextFrame(), file: file, line: line), origin: "photo").depth
        let truth = try RGBDFrame(decoding: fixture.frame, origin: "truth").depth
        let kept = depth.metres.filter { $0 > 0 && $0.isFinite }.count
        let subject = truth.metres.filter { $0 > 0 && $0 < fixture.subjectDepth }.count
        XCTAssertGreaterThan(subject, 1000, file: file, line: line)
        XCTAssertEqual(Double(kept), Double(subject), accuracy: Double(subject) * 0.01, "the matte's subject", file: file, line: line)
        XCTAssertTrue(
            depth.metres.allSatisfy { !($0 > 0) || $0 < fixture.subjectDepth * 1.02 }, "nothing behind the subject", file: file, line: line)
    }

    private func assertNoPortraitMatte(_ fixture: DepthPhotoFixture, file: StaticString = #filePath, line: UInt = #line) {
        assertCloudError(
            .badInput, naming: fixture.path, containing: "--matte: the photo has no portrait effects matte", file: file, line: line
        ) {
            try SourceSpec(parsing: "photo:\(fixture.path)").open(options: SourceOptions(matte: true))
        }
    }

    /// As a real iPhone X portrait carries it: the portraitEffectsMatte namespace
    /// (PortraitEffectsMatteVersion 65536), apdi:AuxiliaryImageType "depth" with
    /// apdi:AuxiliaryImageSubType "portraiteffectsmatte", stored as 'L008' (AVPortraitEffectsMatte:
    /// kCVPixelFormatType_OneComponent8). This is the layout the reader used to miss.
    func testTheMatteAsAnIPhoneWritesIt() throws {
        try assertMatteKeepsTheSubject(DepthPhotoFixture(in: dir.path, auxiliaries: [.portraitMatteAsAnIPhoneWritesIt]))
    }

    /// HEIF's auxC URN for the matte (exiftool's QuickTime AuxiliaryImageType of an iPhone HEIC) given
    /// as apdi:AuxiliaryImageType, with no other property.
    func testTheMatteNamedByItsAuxiliaryURN() throws {
        try assertMatteKeepsTheSubject(
            DepthPhotoFixture(
                in: dir.path,
                auxiliaries: [
                    .init(
                        properties: "<apdi:AuxiliaryImageType>urn:com:apple:photo:2018:aux:portraiteffectsmatte</apdi:AuxiliaryImageType>")
                ]))
    }

    /// Image I/O's auxiliary data type (kCGImageAuxiliaryDataTypePortraitEffectsMatte, the type
    /// CGImageSourceCopyAuxiliaryDataInfoAtIndex is asked with) given as apdi:AuxiliaryImageType.
    func testTheMatteNamedByImageIOsAuxiliaryDataType() throws {
        try assertMatteKeepsTheSubject(
            DepthPhotoFixture(
                in: dir.path,
                auxiliaries: [
                    .init(properties: "<apdi:AuxiliaryImageType>kCGImageAuxiliaryDataTypePortraitEffectsMatte</apdi:AuxiliaryImageType>")
                ]))
    }

    /// The namespace alone, as Google's image_io (AOSP platform/external/image_io, jpeg_xmp_info.h,
    /// kXmpAppleMatteId) recognises Apple's matte: no apdi property at all.
    func testTheMatteKnownByItsNamespaceAlone() throws {
        try assertMatteKeepsTheSubject(
            DepthPhotoFixture(
                in: dir.path,
                auxiliaries: [
                    .init(
                        namespaces: #"xmlns:portraitEffectsMatte="http://ns.apple.com/portraitEffectsMatte/1.0/""#,
                        properties:
                            "<portraitEffectsMatte:PortraitEffectsMatteVersion>65537</portraitEffectsMatte:PortraitEffectsMatteVersion>")
                ]))
    }

    /// The namespace as it is also quoted, all in lower case (`portraiteffectsmatte/1.0/`), with the
    /// subtype in capitals: both are compared without case.
    func testTheMatteNamespaceAndSubtypeInAnotherCase() throws {
        try assertMatteKeepsTheSubject(
            DepthPhotoFixture(
                in: dir.path,
                auxiliaries: [
                    .init(
                        namespaces: #"xmlns:pem="http://ns.apple.com/portraiteffectsmatte/1.0/""#,
                        properties: "<pem:PortraitEffectsMatteVersion>65536</pem:PortraitEffectsMatteVersion>")
                ]))
        try assertMatteKeepsTheSubject(
            DepthPhotoFixture(
                in: dir.path,
                auxiliaries: [
                    .init(
                        properties:
                            "<apdi:AuxiliaryImageType>depth</apdi:AuxiliaryImageType><apdi:AuxiliaryImageSubType>PortraitEffectsMatte</apdi:AuxiliaryImageSubType>"
                    )
                ]))
    }

    /// Skin, hair, teeth and glasses mattes (AVSemanticSegmentationMatte; their HEIF auxC URNs and
    /// the semanticSegmentationMatte namespace) mark parts of the person, not the subject: a photo with
    /// them alone has no portrait matte, and its depth is read as ever without --matte.
    func testSemanticSegmentationMattesAreNotThePortraitMatte() throws {
        let fixture = try DepthPhotoFixture(in: dir.path, auxiliaries: Self.semanticMattes)
        assertNoPortraitMatte(fixture)
        let frame = try XCTUnwrap(try SourceSpec(parsing: "photo:\(fixture.path)").open().nextFrame())
        let depth = try RGBDFrame(decoding: frame, origin: "photo").depth
        XCTAssertGreaterThan(depth.metres.filter { $0 > fixture.subjectDepth * 1.1 }.count, 1000, "the background is kept")
    }

    /// Listed before the portrait matte, the semantic mattes (which mark the background here) are
    /// passed over and the portrait matte is the one applied.
    func testThePortraitMatteIsFoundAmongSemanticMattes() throws {
        try assertMatteKeepsTheSubject(
            DepthPhotoFixture(in: dir.path, auxiliaries: Self.semanticMattes + [.portraitMatteAsAnIPhoneWritesIt]))
    }

    /// The matte says AuxiliaryImageType "depth": listed before the depth image, it is still the
    /// matte, and the depth image (with its calibration) is still the depth.
    func testAMatteListedBeforeTheDepthIsNotTakenForTheDepth() throws {
        let fixture = try DepthPhotoFixture(in: dir.path, auxiliaries: [.portraitMatteAsAnIPhoneWritesIt], depthLast: true)
        try assertMatteKeepsTheSubject(fixture)
        let frame = try XCTUnwrap(try SourceSpec(parsing: "photo:\(fixture.path)").open().nextFrame())
        XCTAssertEqual(frame.intrinsics.fx, fixture.frame.intrinsics.fx, accuracy: 1e-9, "the depth XMP's calibration")
    }

    /// pug.heic (iPhone 13 Pro) holds an HDR gain map (auxC urn:com:apple:photo:2020:aux:hdrgainmap)
    /// beside its depth, and no portrait matte: neither is taken for one.
    func testTheHEICsGainMapIsNotAPortraitMatte() throws {
        let path = try sharedDataDirectory().appendingPathComponent("phone/pug.heic").path
        XCTAssertFalse(try HEIFPhoto(InputFile.readAll(path), withMatte: true, origin: path).hasMatte)
        assertCloudError(.badInput, naming: path, containing: "--matte: the photo has no portrait effects matte") {
            try SourceSpec(parsing: "photo:\(path)").open(options: SourceOptions(matte: true))
        }
    }

    /// Skin, hair and teeth (2019) and glasses (2020), each as a HEIF auxC URN in apdi:AuxiliaryImageType
    /// with the semanticSegmentationMatte namespace's version, as Image I/O writes them.
    static let semanticMattes: [DepthPhotoFixture.Auxiliary] = [
        ("2019", "skin"), ("2019", "hair"), ("2019", "teeth"), ("2020", "glasses")
    ].map { year, part in
        DepthPhotoFixture.Auxiliary(
            namespaces: #"xmlns:semanticSegmentationMatte="http://ns.apple.com/semanticSegmentationMatte/1.0/""#,
            properties: """
                <semanticSegmentationMatte:SemanticSegmentationMatteVersion>65536</semanticSegmentationMatte:SemanticSegmentationMatteVersion>
                <apdi:AuxiliaryImageType>urn:com:apple:photo:\(year):aux:semantic\(part)matte</apdi:AuxiliaryImageType>
                <apdi:NativeFormat>1278226488</apdi:NativeFormat>
                """,
            marksSubject: false)
    }
}

extension DepthPhotoFixture.Auxiliary {
    /// As a real iPhone X portrait carries its matte (its properties, as Docs/formats.md describes them), in the
    /// namespace Apple's files and Google's image_io spell `portraitEffectsMatte`.
    static let portraitMatteAsAnIPhoneWritesIt = Self(
        namespaces: #"xmlns:portraitEffectsMatte="http://ns.apple.com/portraitEffectsMatte/1.0/""#,
        properties: """
            <portraitEffectsMatte:PortraitEffectsMatteVersion>65536</portraitEffectsMatte:PortraitEffectsMatteVersion>
            <apdi:AuxiliaryImageType>depth</apdi:AuxiliaryImageType>
            <apdi:AuxiliaryImageSubType>portraiteffectsmatte</apdi:AuxiliaryImageSubType>
            <apdi:NativeFormat>1278226488</apdi:NativeFormat><apdi:StoredFormat>1278226488</apdi:StoredFormat>
            """)
}
