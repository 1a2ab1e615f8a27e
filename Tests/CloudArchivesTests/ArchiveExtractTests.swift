import CloudArchives
import CloudCore
import Foundation
import SharedTestData
import XCTest

/// Archives real tools make, of real capture files, extract to the same bytes: GNU tar in each of
/// its formats, Python's tarfile and zipfile, Info-ZIP's zip.
final class ArchiveExtractTests: ArchiveTestCase {
    func testGNUTarInEachFormat() throws {
        for format in ["gnu", "pax", "ustar"] {
            let tar = archive("scan-\(format).tar")
            try run("tar", ["--format=\(format)", "-cf", tar, "scan"])
            let summary = try extract(tar)
            XCTAssertEqual(summary.kind, .tar)
            XCTAssertEqual(summary.files, 4, format)
            // scan, scan/color and scan/depth are members of their own in GNU tar's archives.
            XCTAssertEqual(summary.members, 7, format)
            XCTAssertEqual(summary.bytes, scanBytes, format)
            XCTAssertEqual(summary.topFolder, "scan", format)
            XCTAssertEqual(summary.root, destination.appendingPathComponent("scan").path, format)
            try assertExtractedScan(under: destination)
            try FileManager.default.removeItem(at: destination.appendingPathComponent("scan"))
        }
    }

    /// Paths past the 100-byte name field: GNU's 'L' member, pax's path record, ustar's prefix.
    func testLongPathsInEachTarFormat() throws {
        let long = "scan/" + String(repeating: "calibration-", count: 6) + "of-the-camera/" + String(repeating: "x", count: 90) + ".json"
        let target = source.appendingPathComponent(long)
        try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: source.appendingPathComponent("scan/camera_primesense.json"), to: target)
        XCTAssertGreaterThan(long.utf8.count, 155)
        for format in ["gnu", "pax", "ustar"] {
            let tar = archive("long-\(format).tar")
            try run("tar", ["--format=\(format)", "-cf", tar, long])
            _ = try extract(tar)
            XCTAssertEqual(
                try Data(contentsOf: destination.appendingPathComponent(long)),
                try Data(contentsOf: source.appendingPathComponent("scan/camera_primesense.json")), format)
            try FileManager.default.removeItem(at: destination.appendingPathComponent("scan"))
        }
    }

    /// `tar -C scan -cf x.tar .` stores "./", "./color/00000.jpg"...: extracted into the folder
    /// itself, whose top level then has several entries.
    func testDotPrefixedNamesExtractIntoTheFolder() throws {
        let tar = archive("dot.tar")
        try run("tar", ["-C", "scan", "-cf", tar, "."])
        let summary = try extract(tar)
        XCTAssertNil(summary.topFolder)
        XCTAssertEqual(summary.root, destination.path)
        XCTAssertEqual(summary.files, 4)
        let moved = scratch.appendingPathComponent("moved")
        try FileManager.default.createDirectory(at: moved, withIntermediateDirectories: true)
        try FileManager.default.moveItem(at: destination, to: moved.appendingPathComponent("scan"))
        try assertExtractedScan(under: moved)
    }

    /// Python's tarfile in GNU and pax formats, with a UTF-8 name (pax stores it in a path record).
    func testPythonTarfileFormats() throws {
        let accented = "scan/caméra.json"
        try FileManager.default.copyItem(
            at: source.appendingPathComponent("scan/camera_primesense.json"),
            to: source.appendingPathComponent(accented))
        // The last: a pax global header ('g') first, which is read and set aside.
        for format in ["GNU_FORMAT", "PAX_FORMAT", "PAX_FORMAT, pax_headers={'comment': 'capture rig 2'}"] {
            let tar = archive("py-\(format.prefix(10)).tar")
            try python("import sys, tarfile\nwith tarfile.open(sys.argv[1], 'w', format=tarfile.\(format)) as t: t.add('scan')", tar)
            let summary = try extract(tar)
            XCTAssertEqual(summary.files, 5, format)
            XCTAssertEqual(summary.topFolder, "scan", format)
            XCTAssertEqual(
                try Data(contentsOf: destination.appendingPathComponent(accented)),
                try Data(contentsOf: source.appendingPathComponent(accented)), format)
            try FileManager.default.removeItem(at: destination.appendingPathComponent(accented))
            try assertExtractedScan(under: destination)
            try FileManager.default.removeItem(at: destination.appendingPathComponent("scan"))
        }
    }

    /// Python's zipfile, stored and deflated, with and without folder entries, and written to a
    /// stream it cannot seek (so each member's sizes and CRC follow its data in a data descriptor).
    func testPythonZipfileMethods() throws {
        let script = """
            import os, sys, zipfile
            method = {'stored': zipfile.ZIP_STORED, 'deflated': zipfile.ZIP_DEFLATED}[sys.argv[2]]
            class Unseekable:
                def __init__(self, f): self.f = f
                def write(self, b): return self.f.write(b)
                def flush(self): self.f.flush()
            with open(sys.argv[1], 'wb') as raw:
                out = Unseekable(raw) if sys.argv[3] == 'stream' else raw
                with zipfile.ZipFile(out, 'w', method) as z:
                    for folder, _, files in sorted(os.walk('scan')):
                        if sys.argv[3] != 'nofolders': z.write(folder)
                        for name in sorted(files): z.write(os.path.join(folder, name))
            """
        for method in ["stored", "deflated"] {
            for variant in ["folders", "nofolders", "stream"] {
                let zip = archive("\(method)-\(variant).zip")
                try python(script, zip, method, variant)
                let summary = try extract(zip)
                XCTAssertEqual(summary.kind, .zip)
                XCTAssertEqual(summary.files, 4, "\(method) \(variant)")
                XCTAssertEqual(summary.members, variant == "nofolders" ? 4 : 7, "\(method) \(variant)")
                XCTAssertEqual(summary.bytes, scanBytes)
                XCTAssertEqual(summary.topFolder, "scan", "\(method) \(variant)")
                try assertExtractedScan(under: destination)
                try FileManager.default.removeItem(at: destination.appendingPathComponent("scan"))
            }
        }
    }

    /// Info-ZIP's zip: deflated (its default), stored (-0), and streamed to a pipe (data descriptors).
    func testInfoZip() throws {
        for (name, flags) in [("default", ["-r", "-X"]), ("stored", ["-r", "-X", "-0"])] {
            let zip = archive("infozip-\(name).zip")
            try run("zip", ["-q"] + flags + [zip, "scan"])
            let summary = try extract(zip)
            XCTAssertEqual(summary.topFolder, "scan", name)
            XCTAssertEqual(summary.files, 4, name)
            try assertExtractedScan(under: destination)
            try FileManager.default.removeItem(at: destination.appendingPathComponent("scan"))
        }
        let piped = archive("infozip-piped.zip")
        try run("sh", ["-c", "zip -q -r -X - scan | cat > \"$0\"", piped])
        _ = try extract(piped)
        try assertExtractedScan(under: destination)
    }

    /// Members whose local headers keep their sizes in a zip64 extra field (Python's force_zip64),
    /// in an archive that is otherwise plain: the directory's sizes are used, and the data checked.
    func testZip64LocalHeadersOfSmallMembers() throws {
        let zip = archive("force64.zip")
        try python(
            """
            import os, sys, zipfile
            with zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED) as z:
                for folder, _, files in sorted(os.walk('scan')):
                    for name in sorted(files):
                        path = os.path.join(folder, name)
                        with z.open(path, 'w', force_zip64=True) as member, open(path, 'rb') as f:
                            member.write(f.read())
            """, zip)
        XCTAssertEqual(try extract(zip).files, 4)
        try assertExtractedScan(under: destination)
    }

    /// An empty zip (only its end record) and a tar of one empty folder extract to nothing.
    func testEmptyArchives() throws {
        let zip = archive("empty.zip")
        try python("import sys, zipfile\nzipfile.ZipFile(sys.argv[1], 'w').close()", zip)
        let summary = try extract(zip)
        XCTAssertEqual(summary.members, 0)
        XCTAssertEqual(summary.bytes, 0)
        XCTAssertNil(summary.topFolder)
        XCTAssertEqual(summary.root, destination.path)
    }

    /// macOS's Finder adds __MACOSX/._NAME resource forks beside a zipped folder: not extracted,
    /// so the folder is still the one top-level entry.
    func testMacResourceForksAreLeftOut() throws {
        let zip = archive("finder.zip")
        try python(
            """
            import os, sys, zipfile
            with zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED) as z:
                for folder, _, files in sorted(os.walk('scan')):
                    for name in sorted(files):
                        z.write(os.path.join(folder, name))
                        z.writestr('__MACOSX/' + folder + '/._' + name, b'\\x00\\x05\\x16\\x07 resource fork')
            """, zip)
        let summary = try extract(zip)
        XCTAssertEqual(summary.topFolder, "scan")
        XCTAssertEqual(summary.files, 4)
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination.appendingPathComponent("__MACOSX").path))
        try assertExtractedScan(under: destination)
    }

    func testDestinationMustBeAnEmptyFolder() throws {
        let tar = archive("scan.tar")
        try run("tar", ["-cf", tar, "scan"])
        try Data("mine".utf8).write(to: destination.appendingPathComponent("kept.txt"))
        assertCloudError(.deviceOrIO, naming: destination.path, containing: "not an empty folder") { try extract(tar) }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: destination.path), ["kept.txt"])
        let missing = scratch.appendingPathComponent("absent").path
        assertCloudError(.deviceOrIO, naming: missing, containing: "no such folder") {
            try ArchiveExtractor.extract(archive: tar, into: missing)
        }
    }
}
