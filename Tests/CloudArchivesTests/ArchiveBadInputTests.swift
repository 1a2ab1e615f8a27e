import CloudArchives
import CloudCore
import Foundation
import SharedTestData
import XCTest

/// Archives that must be refused, made by Python's tarfile and zipfile (which write what they are
/// told) or patched from real ones: each is bad input naming the archive and the member, and
/// leaves the folder empty, even when good members came before the bad one.
final class ArchiveBadInputTests: ArchiveTestCase {
    /// A tar of scan's camera file, then one member made by `member` (Python: `info`, a TarInfo
    /// named NAME, is added with `data`).
    private func tarWith(_ name: String, _ setup: String, data: String = "b''", format: String = "GNU_FORMAT") throws -> String {
        let tar = archive("bad.tar")
        try python(
            """
            import io, sys, tarfile
            with tarfile.open(sys.argv[1], 'w', format=tarfile.\(format)) as t:
                t.add('scan/camera_primesense.json')
                info = tarfile.TarInfo(sys.argv[2])
                data = \(data)
                info.size = len(data)
            \(setup.split(separator: "\n").map { "    " + $0 }.joined(separator: "\n"))
                t.addfile(info, io.BytesIO(data))
            """, tar, name)
        return tar
    }

    /// A zip of scan's camera file, then one member NAME (a ZipInfo `info`) with `data`.
    private func zipWith(_ name: String, _ setup: String = "", data: String = "b'x'") throws -> String {
        let zip = archive("bad.zip")
        try python(
            """
            import sys, zipfile
            with zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED) as z:
                z.write('scan/camera_primesense.json')
                info = zipfile.ZipInfo(sys.argv[2])
            \(setup.split(separator: "\n").map { "    " + $0 }.joined(separator: "\n"))
                z.writestr(info, \(data))
            """, zip, name)
        return zip
    }

    func testLinksDevicesAndFIFOsInTar() throws {
        assertRefused(
            try tarWith("scan/evil", "info.type = tarfile.SYMTYPE; info.linkname = '/etc/passwd'"),
            member: "scan/evil", "symbolic link")
        assertRefused(
            try tarWith("scan/hard", "info.type = tarfile.LNKTYPE; info.linkname = 'scan/camera_primesense.json'"),
            member: "scan/hard", "hard link")
        assertRefused(
            try tarWith("scan/null", "info.type = tarfile.CHRTYPE; info.devmajor = 1; info.devminor = 3"),
            member: "scan/null", "character device")
        assertRefused(try tarWith("scan/disk", "info.type = tarfile.BLKTYPE; info.devmajor = 8"), member: "scan/disk", "block device")
        assertRefused(try tarWith("scan/pipe", "info.type = tarfile.FIFOTYPE"), member: "scan/pipe", "FIFO")
        // A symbolic link with a long target needs GNU's 'K' member first: still refused by name.
        assertRefused(
            try tarWith("scan/far", "info.type = tarfile.SYMTYPE; info.linkname = 'a/' * 80"), member: "scan/far", "symbolic link")
    }

    func testSymlinkInZip() throws {
        // As Info-ZIP stores a link: Unix mode S_IFLNK in the external attributes, the target as data.
        assertRefused(
            try zipWith("scan/evil", "info.create_system = 3\ninfo.external_attr = 0o120777 << 16", data: "b'/etc/passwd'"),
            member: "scan/evil", "symbolic link")
        assertRefused(
            try zipWith("scan/pipe", "info.create_system = 3\ninfo.external_attr = 0o010644 << 16"),
            member: "scan/pipe", "FIFO")
    }

    func testPathsThatLeaveTheFolder() throws {
        for name in ["../evil.txt", "scan/../../evil.txt", "scan/a/../b.txt"] {
            assertRefused(try tarWith(name, "", data: "b'x'"), member: name, "'..' component")
            assertRefused(try zipWith(name), member: name, "'..' component")
        }
        assertRefused(try tarWith("/tmp/evil.txt", "", data: "b'x'"), member: "/tmp/evil.txt", "absolute path")
        assertRefused(try tarWith("/tmp/evil.txt", "", data: "b'x'", format: "PAX_FORMAT"), member: "/tmp/evil.txt", "absolute path")
        assertRefused(try zipWith("/tmp/evil.txt"), member: "/tmp/evil.txt", "absolute path")
        assertRefused(try zipWith("scan\\..\\..\\evil.txt"), member: "scan\\..\\..\\evil.txt", "backslash")
        assertRefused(try tarWith("C:\\evil.txt", "", data: "b'x'"), member: "C:\\evil.txt", "backslash")
        // A line break in a name is refused, and echoed escaped: the message stays one line.
        assertRefused(try tarWith("scan/two\nlines", "", data: "b'x'"), member: "scan/two\\nlines", "control character")
    }

    /// Paths over the length limit in a pax record and a GNU long-name member: refused by name,
    /// the name cut to its first 256 bytes so that the message stays short.
    func testOverlongNamesAreCutInTheMessage() throws {
        for (format, repeats) in [("PAX_FORMAT", 2500), ("GNU_FORMAT", 1500)] {
            let long = "scan/" + String(repeating: "d/", count: repeats) + "x"
            let tar = try tarWith(long, "", data: "b'x'", format: format)
            assertRefused(tar, member: String(long.prefix(256)) + "…", "a name longer than the limit of 1024 bytes")
            XCTAssertThrowsError(try extract(tar)) { error in
                XCTAssertLessThan((error as? CloudError)?.message.utf8.count ?? .max, 400 + tar.utf8.count, format)
            }
        }
    }

    /// zipfile cuts names at NUL, so the NUL is patched into the bytes (the name is in both the
    /// local header and the directory; no checksum covers it).
    func testNULInZipName() throws {
        let zip = try zipWith("scan/a_b.txt")
        var bytes = try Data(contentsOf: URL(fileURLWithPath: zip))
        let from = Data("scan/a_b.txt".utf8)
        let to = Data("scan/a\u{0}b.txt".utf8)
        while let range = bytes.range(of: from) { bytes.replaceSubrange(range, with: to) }
        try bytes.write(to: URL(fileURLWithPath: zip))
        assertRefused(zip, member: "scan/a\\x00b.txt", "NUL byte")
    }

    func testDuplicatesAndFileFolderClashes() throws {
        assertRefused(
            try tarWith("scan/camera_primesense.json", "", data: "b'again'"),
            member: "scan/camera_primesense.json", "listed twice")
        assertRefused(try zipWith("scan/camera_primesense.json"), member: "scan/camera_primesense.json", "listed twice")
        assertRefused(
            try tarWith("scan/camera_primesense.json/inner", "", data: "b'x'"),
            member: "scan/camera_primesense.json/inner", "which the archive made a file")
        assertRefused(
            try tarWith("scan/camera_primesense.json", "info.type = tarfile.DIRTYPE"),
            member: "scan/camera_primesense.json/", "a folder where the archive already put a file")
        assertRefused(
            try zipWith("scan", data: "b'a file over the folder'"), member: "scan", "a file where the archive already put a folder")
    }

    /// A deflate stream of 16 MiB of zeros (16 KiB compressed) whose headers say 1000 bytes: inflating
    /// stops at byte 1001, and nothing is kept.
    func testZipBombWithALyingSize() throws {
        let zip = archive("bomb.zip")
        try python(
            """
            import struct, sys, zlib
            c = zlib.compressobj(9, zlib.DEFLATED, -15)
            data = c.compress(bytes(16 << 20)) + c.flush()
            name, size, crc = b'scan/zeros.bin', 1000, zlib.crc32(bytes(1000))
            local = struct.pack('<IHHHHHIIIHH', 0x04034b50, 20, 0, 8, 0, 0, crc, len(data), size, len(name), 0) + name
            central = struct.pack('<IHHHHHHIIIHHHHHII', 0x02014b50, 20, 20, 0, 8, 0, 0, crc, len(data), size, len(name), 0, 0, 0, 0, 0, 0) + name
            end = struct.pack('<IHHHHIIH', 0x06054b50, 0, 0, 1, 1, len(central), len(local) + len(data), 0)
            open(sys.argv[1], 'wb').write(local + data + central + end)
            """, zip)
        XCTAssertLessThan(try FileManager.default.attributesOfItem(atPath: zip)[.size] as! Int, 64 << 10)
        assertRefused(zip, member: "scan/zeros.bin", "inflates past its declared size of 1000 bytes")
    }

    /// Many directory entries pointing at one compressed member (an overlapping "zip bomb").
    func testOverlappingMembers() throws {
        let zip = archive("overlap.zip")
        try python(
            """
            import struct, sys, zipfile, io
            buffer = io.BytesIO()
            with zipfile.ZipFile(buffer, 'w', zipfile.ZIP_DEFLATED) as z:
                z.write('scan/depth/00000.png', 'a.png')
            raw = buffer.getvalue()
            start = struct.unpack('<I', raw[-6:-2])[0]
            entry = raw[start:-22]
            second = entry.replace(b'a.png', b'b.png')
            central = entry + second
            end = struct.pack('<IHHHHIIH', 0x06054b50, 0, 0, 2, 2, len(central), start, 0)
            open(sys.argv[1], 'wb').write(raw[:start] + central + end)
            """, zip)
        assertRefused(zip, member: "b.png", "overlaps another member")
    }

    func testLimits() throws {
        let tar = archive("scan.tar")
        try run("tar", ["-cf", tar, "scan"])
        let zip = archive("scan.zip")
        try run("zip", ["-q", "-r", zip, "scan"])
        // Members: scan/, then files and folders in the order tar walks them; the 3rd one over.
        assertRefused(tar, "more than 2 members in the archive", limits: ArchiveLimits(maxMembers: 2))
        assertRefused(zip, "7 members, more than the limit of 2", limits: ArchiveLimits(maxMembers: 2))
        // Only the PNG (93 238 bytes) is over 64 KiB; only the camera file's path over 20 bytes.
        for file in [tar, zip] {
            assertRefused(
                file, member: "scan/depth/00000.png", "more than 65536 bytes (the limit for one file)",
                limits: ArchiveLimits(maxMemberBytes: 65536))
            assertRefused(file, "unpacks to more than 100000 bytes (the limit)", limits: ArchiveLimits(maxTotalBytes: 100_000))
            assertRefused(file, "levels deep, more than the limit of 2", limits: ArchiveLimits(maxPathDepth: 2))
            assertRefused(
                file, member: "scan/camera_primesense.json", "a name longer than the limit of 20 bytes",
                limits: ArchiveLimits(maxPathBytes: 20))
        }
        // Exactly at the limits, the same archives extract.
        let summary = try extract(
            tar,
            limits: ArchiveLimits(
                maxTotalBytes: scanBytes, maxMembers: 7, maxMemberBytes: 93238,
                maxPathDepth: 3, maxPathBytes: 27))
        XCTAssertEqual(summary.bytes, scanBytes)
    }

    func testTruncatedArchives() throws {
        let tar = archive("scan.tar")
        try run("tar", ["-cf", tar, "scan"])
        let zip = archive("scan.zip")
        try run("zip", ["-q", "-r", zip, "scan"])
        let tarBytes = try Data(contentsOf: URL(fileURLWithPath: tar))
        let zipBytes = try Data(contentsOf: URL(fileURLWithPath: zip))
        // tar: cut inside a member's data, inside a header, and just before the end blocks.
        let cut = archive("cut.tar")
        try tarBytes.prefix(40_000).write(to: URL(fileURLWithPath: cut))
        assertRefused(cut, "truncated")
        try tarBytes.prefix(40_960 + 100).write(to: URL(fileURLWithPath: cut))
        assertRefused(cut, "truncated")
        let dataEnd = tarBytes.lastIndex { $0 != 0 }! + 1
        try tarBytes.prefix((dataEnd + 511) / 512 * 512).write(to: URL(fileURLWithPath: cut))
        assertRefused(cut, "without tar's end-of-archive block (truncated)")
        // zip: its end lost, or its middle.
        let cutZip = archive("cut.zip")
        try zipBytes.prefix(zipBytes.count - 30).write(to: URL(fileURLWithPath: cutZip))
        assertRefused(cutZip, "no zip end-of-directory record")
        try (zipBytes.prefix(20_000) + zipBytes.suffix(zipBytes.count - 30_000)).write(to: URL(fileURLWithPath: cutZip))
        assertRefused(cutZip, "central directory is not where the end record says")
    }

    func testCorruptData() throws {
        let zip = archive("stored.zip")
        try run("zip", ["-q", "-r", "-0", zip, "scan"])
        var bytes = try Data(contentsOf: URL(fileURLWithPath: zip))
        // A byte of the JPEG's data (the member after scan/ and scan/color/), changed.
        let jpeg = bytes.range(of: Data([0xFF, 0xD8, 0xFF]))!.lowerBound
        bytes[jpeg + 1000] ^= 0x55
        try bytes.write(to: URL(fileURLWithPath: zip))
        assertRefused(zip, member: "scan/color/00000.jpg", "CRC-32")
        // A tar header's checksum.
        let tar = archive("scan.tar")
        try run("tar", ["-cf", tar, "scan"])
        var tarBytes = try Data(contentsOf: URL(fileURLWithPath: tar))
        tarBytes[512 + 10] ^= 0x01
        try tarBytes.write(to: URL(fileURLWithPath: tar))
        assertRefused(tar, "the tar header at byte 512 is corrupt")
    }

    func testFormatsNotAccepted() throws {
        let zip = archive("secret.zip")
        try run("zip", ["-q", "-P", "secret", zip, "scan/rgbd.match"])
        assertRefused(zip, member: "scan/rgbd.match", "encrypted")
        let bzip = archive("bzip2.zip")
        try python("import sys, zipfile\nwith zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_BZIP2) as z: z.write('scan/rgbd.match')", bzip)
        assertRefused(bzip, member: "scan/rgbd.match", "zip method 12")
        // Python writes zip64 end records past 65 535 members; its limit lowered, for two.
        let zip64 = archive("zip64.zip")
        try python(
            """
            import sys, zipfile
            zipfile.ZIP_FILECOUNT_LIMIT = 1
            with zipfile.ZipFile(sys.argv[1], 'w') as z:
                z.write('scan/rgbd.match'); z.write('scan/camera_primesense.json')
            """, zip64)
        assertRefused(zip64, "zip64")
        let gzip = archive("scan.tar.gz")
        try run("tar", ["-czf", gzip, "scan"])
        assertRefused(gzip, "a gzip file")
        let garbage = archive("garbage.zip")
        try Data((0..<4096).map { UInt8(truncatingIfNeeded: ($0 * 7919) ^ ($0 >> 3)) }).write(to: URL(fileURLWithPath: garbage))
        assertRefused(garbage, "not a zip or tar archive")
        let empty = archive("empty.tar")
        try Data().write(to: URL(fileURLWithPath: empty))
        assertRefused(empty, "an empty file")
    }
}
