import CloudCore
import Foundation
import SharedTestData
import XCTest

@testable import CloudImages
@testable import SafeIO

/// Damage the libraries would paper over (libjpeg fills gray after a premature marker, libpng
/// drops an ancillary chunk with a bad CRC, libtiff discards bytes to avoid an overrun) is an
/// error; a header claiming more than its file can hold is refused before the pixels exist.
final class CorruptDataTests: XCTestCase {
    private func real(_ relative: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: SharedData.url(relative)))
    }

    func testJPEGCorruptionThatLibjpegOnlyWarnsAbout() throws {
        let jpeg = try real("open3d-rgbd/color/00000.jpg")
        // The intact file decodes: the strict handler does not refuse good data.
        XCTAssertEqual(try ImageFile.decode(jpeg, origin: "good.jpg").width, 640)
        // Cut in half with an end-of-image marker: libjpeg warns "premature end of data segment".
        assertBadInput(naming: "eoi.jpg", containing: "premature end") {
            try ImageFile.decode(Array(jpeg.prefix(jpeg.count / 2)) + [0xFF, 0xD9], origin: "eoi.jpg")
        }
        var flipped = jpeg
        for i in (jpeg.count / 3)..<(jpeg.count / 3 + 300) where jpeg[i] != 0xFF && jpeg[i - 1] != 0xFF { flipped[i] ^= 0x5A }
        assertBadInput(naming: "flip.jpg", containing: "Corrupt JPEG data") {
            try ImageFile.decode(flipped, origin: "flip.jpg")
        }
    }

    func testJPEGHeaderClaimingMoreThanTheFileHolds() throws {
        let jpeg = try real("open3d-rgbd/color/00000.jpg")
        let sof = jpeg.indices.first { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xC0 }!
        var huge = jpeg
        huge.replaceSubrange((sof + 5)..<(sof + 9), with: [0x3E, 0x80, 0x3E, 0x80])  // 16000x16000
        // 16000x16000 is 4 million blocks: at least a million bytes of baseline data.
        assertBadInput(naming: "huge.jpg", containing: "needs at least 1000000 bytes of data, the file holds \(jpeg.count)") {
            try ImageFile.header(huge, origin: "huge.jpg")
        }
    }

    func testPNGStrictness() throws {
        let png = try real("open3d-rgbd/depth/00000.png")
        // An ancillary chunk with a wrong CRC after IHDR: libpng's default only warns.
        let bad = Array(png.prefix(33)) + [0, 0, 0, 3] + Array("tEXta\0b".utf8) + [0, 0, 0, 0] + png.dropFirst(33)
        assertBadInput(naming: "anc.png", containing: "tEXt: CRC error") { try ImageFile.decode(bad, origin: "anc.png") }
        // The same chunk with its right CRC is skipped unread.
        let body = Array("tEXta\0b".utf8)
        let crc = cic_crc(body)
        let good =
            Array(png.prefix(33)) + [0, 0, 0, 3] + body + [
                UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)
            ] + png.dropFirst(33)
        XCTAssertEqual(try ImageFile.decode(good, origin: "ok.png"), try ImageFile.decode(png, origin: "orig.png"))
        // IHDR patched to 16384x16384 (its CRC redone): 512 MB of rows cannot come from 93 KB.
        var ihdr = Array(png[12..<29])
        ihdr.replaceSubrange(4..<12, with: [0, 0, 0x40, 0, 0, 0, 0x40, 0])
        let c = cic_crc(ihdr)
        let huge =
            Array(png.prefix(12)) + ihdr + [UInt8(c >> 24), UInt8(c >> 16 & 0xFF), UInt8(c >> 8 & 0xFF), UInt8(c & 0xFF)]
            + png.dropFirst(33)
        assertBadInput(naming: "huge.png", containing: "needs at least 520239 bytes of compressed data") {
            try ImageFile.header(huge, origin: "huge.png")
        }
    }

    func testTIFFWarningsWhileDecodingAreErrors() throws {
        var tiff = try real("pcl-grabber/frame_20121214T142255.814212_depth.tiff")
        // The first strip's offset is the first entry of the StripOffsets array (tag 273).
        let ifd = tiff[4..<8].reversed().reduce(0) { $0 << 8 | Int($1) }
        let entries = Int(tiff[ifd]) | Int(tiff[ifd + 1]) << 8
        let entry = (0..<entries).map { ifd + 2 + 12 * $0 }.first { Int(tiff[$0]) | Int(tiff[$0 + 1]) << 8 == 273 }!
        let array = tiff[(entry + 8)..<(entry + 12)].reversed().reduce(0) { $0 << 8 | Int($1) }
        let strip = tiff[array..<(array + 4)].reversed().reduce(0) { $0 << 8 | Int($1) }
        // PackBits literal runs that swallow the rest of the strip: libtiff zero-fills the rows left
        // and only warns.
        for i in (strip + 400)..<(strip + 600) { tiff[i] = 0x7F }
        assertBadInput(naming: "pack.tiff", containing: "Terminating PackBitsDecode due to lack of data") {
            try ImageFile.decode(tiff, origin: "pack.tiff")
        }
    }

    func testHeaderTellsTheDecodedSize() throws {
        let jpeg = try ImageFile.header(try real("open3d-rgbd/color/00000.jpg"), origin: "c.jpg")
        XCTAssertEqual(jpeg, ImageHeader(width: 640, height: 480, channels: 3, bitDepth: 8))
        let png = try ImageFile.header(try real("open3d-rgbd/depth/00000.png"), origin: "d.png")
        XCTAssertEqual(png.decodedBytes, 640 * 480 * 2)
        let rgb = try ImageFile.header(try real("pcl-grabber/frame_20121214T142255.814212_rgb.pclzf"), origin: "c.pclzf")
        XCTAssertEqual(rgb.decodedBytes, 640 * 480 * 3 * 2, "planar data is unpacked through a second buffer")
        let pgm = try ImageFile.header(try real("open3d-rgbd/other_formats/NYU_depth.pgm"), origin: "d.pgm")
        XCTAssertEqual(pgm, ImageHeader(width: 640, height: 480, channels: 1, bitDepth: 16))
    }

    private func cic_crc(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for b in bytes {
            crc ^= UInt32(b)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}

final class MemoryBudgetTests: XCTestCase {
    func testTheRoomIsTheSmallerOfLimitAndSystem() {
        let gib = 1 << 30
        XCTAssertEqual(MemoryBudget(addressSpaceLimit: 4 * gib, mapped: gib, systemAvailable: 8 * gib).available, 3 * gib)
        XCTAssertEqual(MemoryBudget(addressSpaceLimit: 4 * gib, mapped: gib, systemAvailable: 2 * gib).available, 2 * gib)
        XCTAssertEqual(MemoryBudget(addressSpaceLimit: nil, mapped: gib, systemAvailable: 2 * gib).available, 2 * gib)
        XCTAssertEqual(MemoryBudget(addressSpaceLimit: gib, mapped: 2 * gib, systemAvailable: nil).available, 0)
        XCTAssertNil(MemoryBudget(addressSpaceLimit: nil, mapped: nil, systemAvailable: nil).available)
    }

    /// The room under `ulimit -v` is what is left above the address space already mapped: a
    /// process with 2 GiB mapped under a limit of 2.5 GiB has about 0.5 GiB, not 2.5. (VmSize's
    /// value follows a tab, which the parser once took for the number, so that nothing counted
    /// as mapped.)
    func testTheLimitCountsWhatIsAlreadyMapped() throws {
        var saved = rlimit()
        XCTAssertEqual(getrlimit(Int32(RLIMIT_AS.rawValue), &saved), 0)
        defer { _ = setrlimit(Int32(RLIMIT_AS.rawValue), &saved) }
        // 2 GiB of address space reserved, never touched.
        let reserved = mmap(nil, 2 << 30, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0)
        XCTAssertNotEqual(reserved, MAP_FAILED)
        defer { munmap(reserved, 2 << 30) }
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let line = try XCTUnwrap(status.split(separator: "\n").first { $0.hasPrefix("VmSize:") })
        let mapped = try XCTUnwrap(line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first.flatMap { Int($0) }) * 1024
        var tight = saved
        tight.rlim_cur = rlim_t(mapped + (512 << 20))
        XCTAssertEqual(setrlimit(Int32(RLIMIT_AS.rawValue), &tight), 0)
        let available = try XCTUnwrap(MemoryBudget.current().available)
        XCTAssertLessThanOrEqual(available, 512 << 20)
        XCTAssertGreaterThan(available, 256 << 20)
    }

    func testRefusalSaysWhatItNeedsAndWhatThereIs() throws {
        let gib = 1 << 30
        let budget = MemoryBudget(addressSpaceLimit: 4 * gib, mapped: gib / 2, systemAvailable: 64 * gib)
        XCTAssertNoThrow(try budget.require(3 * gib, for: "a frame", about: .file("d.png")))
        XCTAssertThrowsError(try budget.require(Int(9.1 * Double(gib)), for: "a 16384x16384 depth frame", about: .file("d.png"))) { error in
            let refusal = error as? CloudError
            XCTAssertEqual(refusal?.kind, .budget, "\(error)")
            XCTAssertEqual(refusal?.subject, .file("d.png"))
            XCTAssertEqual(
                refusal?.message,
                "d.png: needs about 9.1 GiB of memory for a 16384x16384 depth frame; this process may use at most 3.5 GiB more (ulimit -v 4.0 GiB)"
            )
        }
        XCTAssertNoThrow(try MemoryBudget(available: nil, addressSpaceLimit: nil).require(Int.max, for: "anything", about: .file("x")))
        XCTAssertEqual(MemoryBudget.format(350 << 20), "350 MiB")
    }

    /// The process's own budget under the test runner: known (Linux has /proc/meminfo) and positive.
    func testCurrentBudgetIsRead() throws {
        let available = try XCTUnwrap(MemoryBudget.current().available)
        XCTAssertGreaterThan(available, 0)
    }
}
