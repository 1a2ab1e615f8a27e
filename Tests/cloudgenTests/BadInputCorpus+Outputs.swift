import Foundation

/// Outputs that cannot be written, and flags that make no sense (Docs/reliability.md "Writing
/// outputs" and "Error messages"): a read-only folder, a full disk at the header, the middle and
/// the last file of a multi-file output, `ulimit -f`, a folder or a missing folder where a file
/// goes, and bad values for every command's flags. Each run must leave the outputs that were
/// there byte-identical and nothing new (no partial file, no temporary, no earlier file of the
/// same run).
extension BadInputCorpus {
    static let outputs: [BadInput] = fullDisk + fileSizeLimit + readOnlyFolder + notAFile + badFlags + warningThenError

    // MARK: - Fixtures

    /// A binary PLY of `points` colored points on a gently curved sheet 2 m ahead (20,000 points:
    /// 300 KB as PLY, 320 KB as binary PCD, 875 KB as ascii PCD).
    static func cloudPLY(points: Int = 20000) -> [UInt8] {
        var bytes = Array(
            """
            ply
            format binary_little_endian 1.0
            element vertex \(points)
            property float x
            property float y
            property float z
            property uchar red
            property uchar green
            property uchar blue
            end_header

            """.utf8)
        for i in 0..<points {
            let xyz: [Float] = [Float(i % 200) / 100 - 1, Float(i / 200) / 100 - 0.5, 2 + 0.2 * sin(Float(i) * 0.01)]
            for v in xyz { withUnsafeBytes(of: v.bitPattern.littleEndian) { bytes += $0 } }
            bytes += [UInt8(i % 256), UInt8(i * 7 % 256), UInt8(i * 13 % 256)]
        }
        return bytes
    }

    static let cloud = cloudPLY()
    /// A turntable whose frame sizes do not depend on automatic framing or point size.
    static let pinnedTurntable = ["--size", "160x120", "--distance", "2", "--point-size", "1"]
    static let precious = Array("precious bytes that must survive\n".utf8)
    /// A small simulated camera: a capture in well under a second even in a debug build.
    static let smallCamera = "synthetic:depth=64x48,color=64x48"

    /// Mounts a tmpfs of `kib` KiB at `{dir}/full` (tests run as root) and puts `existing` in it,
    /// since the mount hides what the harness wrote there; `fill` KiB of it are taken beforehand.
    static func mountFull(_ kib: Int, existing: [String: [UInt8]] = [:], fill: Int = 0) -> @Sendable (URL) throws -> Void {
        { dir in
            let mount = dir.appendingPathComponent("full")
            try FileManager.default.createDirectory(at: mount, withIntermediateDirectories: true)
            let status = try runShell("mount -t tmpfs -o size=\(kib)k tmpfs '\(mount.path)'")
            guard status == 0 else { throw CocoaError(.fileWriteUnknown) }
            for (relative, bytes) in existing {
                try Data(bytes).write(to: dir.appendingPathComponent(relative))
            }
            if fill > 0 {
                // Fills the disk to the last byte (a write past that fails with ENOSPC).
                _ = try runShell("head -c \(fill * 1024) /dev/zero > '\(mount.path)/filler' 2>/dev/null; true")
            }
        }
    }

    static let unmountFull: @Sendable (URL) -> Void = { dir in
        _ = try? runShell("umount '\(dir.appendingPathComponent("full").path)'")
    }

    static func runShell(_ script: String) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", script]
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// A disk-full case: the outputs go to `{dir}/full`, a tmpfs of `kib` KiB.
    static func full(
        _ name: String, kib: Int, fill: Int = 0, _ arguments: [String], names: String,
        existing: [String: [UInt8]] = [:], files: [String: [UInt8]] = ["in.ply": cloud]
    ) -> BadInput {
        BadInput(
            name: "disk full: \(name) (tmpfs \(kib) KiB)", files: files, arguments: arguments, expect: .io, names: names,
            existing: existing, prepare: mountFull(kib, existing: existing, fill: fill), cleanup: unmountFull)
    }

    // MARK: - A full disk

    static let fullDisk: [BadInput] = {
        var cases: [BadInput] = []
        let keep = ["full/out.ply": precious]
        // One file: full before the first byte (the header), in the middle, and near the end.
        for (kib, fill, where_) in [(64, 64, "before the header"), (16, 0, "in the body"), (256, 0, "near the end")] {
            cases.append(
                full(
                    "convert to binary PLY, \(where_)", kib: kib, fill: fill, ["convert", "{dir}/in.ply", "--ply", "{dir}/full/out.ply"],
                    names: "{dir}/full/out.ply", existing: keep))
        }
        for (encoding, kib) in [("ascii", 512), ("binary", 128), ("compressed", 32)] {
            cases.append(
                full(
                    "convert to \(encoding) PCD", kib: kib,
                    ["convert", "{dir}/in.ply", "--pcd", "{dir}/full/out.pcd", "--encoding", encoding],
                    names: "{dir}/full/out.pcd", existing: ["full/out.pcd": precious]))
        }
        cases.append(
            full(
                "convert to ascii PLY (PCL's writer)", kib: 256,
                ["convert", "{dir}/in.ply", "--ply", "{dir}/full/out.ply", "--encoding", "ascii"],
                names: "{dir}/full/out.ply", existing: keep))
        // Two files: the PLY fits, the PCD after it does not; neither may appear, the old PLY stays.
        cases.append(
            full(
                "convert --ply then --pcd, the second fails", kib: 400,
                ["convert", "{dir}/in.ply", "--ply", "{dir}/full/out.ply", "--pcd", "{dir}/full/out.pcd"],
                names: "{dir}/full/out.pcd", existing: keep))
        // A turntable of 8 frames at 160x120 from 2 m (4-8 KB each, 56 KiB of pages in all) and its
        // animation (52 KB): the disk fills at the second frame, in the middle, and at the animated
        // PNG. The camera is pinned, so that a change in how views are framed keeps the sizes. The
        // two existing files take 8 KiB.
        for (kib, at, names) in [
            (16, "second frame", "{dir}/full/t_001.png"), (48, "a middle frame", "{dir}/full/t_00"),
            (104, "the animated PNG", "{dir}/full/t.png")
        ] {
            cases.append(
                full(
                    "render --turntable 8, full at \(at)", kib: kib,
                    ["render", "{dir}/in.ply", "--out", "{dir}/full/t.png", "--turntable", "8"] + pinnedTurntable,
                    names: names, existing: ["full/t.png": precious, "full/t_001.png": precious]))
        }
        cases.append(
            full(
                "render one picture", kib: 4, fill: 4, ["render", "{dir}/in.ply", "--out", "{dir}/full/view.png"],
                names: "{dir}/full/view.png", existing: ["full/view.png": precious]))
        // capture --ply --pcd --preview at 128x96: the PLY (182 KB) and PCD (194 KB) fit, the
        // preview (67 KB) is the last file and does not.
        cases.append(
            full(
                "capture --ply --pcd --preview, the preview fails", kib: 400,
                [
                    "capture", "--source", "synthetic:depth=128x96,color=128x96", "--ply", "{dir}/full/c.ply", "--pcd", "{dir}/full/c.pcd",
                    "--preview", "{dir}/full/c.png"
                ],
                names: "{dir}/full/c.png", existing: ["full/c.ply": precious], files: [:]))
        // Three numbered files of about 100 KB: full at the second, and at the last.
        for (kib, at, names) in [(160, "second", "{dir}/full/s_001.ply"), (250, "last", "{dir}/full/s_002.ply")] {
            cases.append(
                full(
                    "capture --frames 3 numbered files, full at the \(at)", kib: kib,
                    ["capture", "--source", "synthetic:depth=96x72,color=96x72,frames=3", "--frames", "3", "--ply", "{dir}/full/s.ply"],
                    names: names, existing: ["full/s_000.ply": precious], files: [:]))
        }
        cases.append(
            full(
                "capture --bundle", kib: 32,
                ["capture", "--source", "synthetic:depth=128x96,color=128x96", "--bundle", "{dir}/full/b"],
                names: "{dir}/full/b", files: [:]))
        cases.append(
            full(
                "capture --rgbd", kib: 16,
                ["capture", "--source", "synthetic:depth=128x96,color=128x96", "--rgbd", "{dir}/full/r", "--ply", "{dir}/full/r.ply"],
                names: "{dir}/full/r", existing: ["full/r.ply": precious], files: [:]))
        cases.append(
            full(
                "capture --depth-image", kib: 4, fill: 4,
                ["capture", "--source", smallCamera, "--ply", "{dir}/full/d.ply", "--depth-image", "{dir}/full/d.png"],
                names: "{dir}/full/d", files: [:]))
        return cases
    }()

    // MARK: - ulimit -f (512-byte blocks in /bin/sh): write() fails with EFBIG

    static let fileSizeLimit: [BadInput] = {
        var cases: [BadInput] = []
        for blocks in [1, 64, 500] {
            cases.append(
                BadInput(
                    name: "ulimit -f \(blocks): convert to binary PLY", files: ["in.ply": cloud],
                    arguments: ["convert", "{dir}/in.ply", "--ply", "{dir}/out.ply"], expect: .io, names: "{dir}/out.ply",
                    existing: ["out.ply": precious], shell: "ulimit -f \(blocks)"))
        }
        for blocks in [8, 1000] {
            cases.append(
                BadInput(
                    name: "ulimit -f \(blocks): convert to ascii PCD", files: ["in.ply": cloud],
                    arguments: ["convert", "{dir}/in.ply", "--pcd", "{dir}/out.pcd", "--encoding", "ascii"], expect: .io,
                    names: "{dir}/out.pcd", existing: ["out.pcd": precious], shell: "ulimit -f \(blocks)"))
        }
        cases.append(
            BadInput(
                name: "ulimit -f 100: convert to ascii PLY", files: ["in.ply": cloud],
                arguments: ["convert", "{dir}/in.ply", "--ply", "{dir}/out.ply", "--encoding", "ascii"], expect: .io,
                names: "{dir}/out.ply", existing: ["out.ply": precious], shell: "ulimit -f 100"))
        // Each frame fits under 40,960 bytes, the animated PNG (52 KB) does not: the last file fails.
        cases.append(
            BadInput(
                name: "ulimit -f 80: a turntable's animated PNG", files: ["in.ply": cloud],
                arguments: ["render", "{dir}/in.ply", "--out", "{dir}/t.png", "--turntable", "8"] + pinnedTurntable,
                expect: .io, names: "{dir}/t.png", existing: ["t_000.png": precious], shell: "ulimit -f 80"))
        cases.append(
            BadInput(
                name: "ulimit -f 2: capture --ply --preview",
                arguments: [
                    "capture", "--source", smallCamera, "--ply", "{dir}/c.ply",
                    "--preview", "{dir}/c.png"
                ],
                expect: .io, names: "{dir}/c.p", existing: ["c.png": precious], shell: "ulimit -f 2"))
        cases.append(
            BadInput(
                name: "ulimit -f 4: capture --bundle",
                arguments: [
                    "capture", "--source", smallCamera, "--bundle", "{dir}/b",
                    "--ply", "{dir}/b.ply"
                ],
                expect: .io, names: "{dir}/b", existing: ["b.ply": precious], shell: "ulimit -f 4"))
        return cases
    }()

    // MARK: - A read-only folder (as nobody: root writes anywhere)

    static let readOnlyFolder: [BadInput] = {
        func readOnly(_ name: String, _ arguments: [String], names: String, existing: [String: [UInt8]] = ["ro/keep.ply": precious])
            -> BadInput
        {
            BadInput(
                name: "read-only folder: \(name)", files: ["in.ply": cloud], arguments: arguments, expect: .io, names: names,
                existing: existing, unprivileged: true,
                prepare: { dir in
                    let ro = dir.appendingPathComponent("ro")
                    try FileManager.default.createDirectory(at: ro, withIntermediateDirectories: true)
                    chmod(ro.path, 0o555)
                })
        }
        return [
            readOnly("convert --ply", ["convert", "{dir}/in.ply", "--ply", "{dir}/ro/keep.ply"], names: "{dir}/ro/keep.ply"),
            readOnly("convert --pcd", ["convert", "{dir}/in.ply", "--pcd", "{dir}/ro/out.pcd"], names: "{dir}/ro/out.pcd"),
            readOnly(
                "convert --ply beside, --pcd into it", ["convert", "{dir}/in.ply", "--ply", "{dir}/fine.ply", "--pcd", "{dir}/ro/out.pcd"],
                names: "{dir}/ro/out.pcd"),
            readOnly("render --out", ["render", "{dir}/in.ply", "--out", "{dir}/ro/v.png"], names: "{dir}/ro/v.png"),
            readOnly(
                "render --turntable", ["render", "{dir}/in.ply", "--out", "{dir}/ro/t.png", "--turntable", "4", "--size", "64x48"],
                names: "{dir}/ro/t.png"),
            readOnly("capture --ply", ["capture", "--source", smallCamera, "--ply", "{dir}/ro/c.ply"], names: "{dir}/ro/c.ply"),
            readOnly(
                "capture --preview", ["capture", "--source", smallCamera, "--ply", "{dir}/c.ply", "--preview", "{dir}/ro/c.png"],
                names: "{dir}/ro/c.png"),
            readOnly(
                "capture --depth-image", ["capture", "--source", smallCamera, "--depth-image", "{dir}/ro/d.png"], names: "{dir}/ro/d.png"),
            readOnly("capture --bundle", ["capture", "--source", smallCamera, "--bundle", "{dir}/ro/b"], names: "{dir}/ro/b"),
            readOnly(
                "capture --rgbd", ["capture", "--source", smallCamera, "--ply", "{dir}/c.ply", "--rgbd", "{dir}/ro/r"], names: "{dir}/ro/r")
        ]
    }()

    // MARK: - A folder, or no folder, where a file goes

    static let notAFile: [BadInput] = {
        func folderThere(_ name: String, _ arguments: [String], names: String) -> BadInput {
            BadInput(
                name: "output is a folder: \(name)", files: ["in.ply": cloud, "there/inside.txt": precious], arguments: arguments,
                expect: .badInput, names: names, existing: ["there/inside.txt": precious])
        }
        func noFolder(_ name: String, _ arguments: [String], names: String) -> BadInput {
            BadInput(
                name: "output folder missing: \(name)", files: ["in.ply": cloud], arguments: arguments, expect: .io, names: names,
                existing: ["keep.ply": precious])
        }
        return [
            folderThere("convert --ply", ["convert", "{dir}/in.ply", "--ply", "{dir}/there"], names: "{dir}/there"),
            folderThere(
                "convert --pcd after a good --ply", ["convert", "{dir}/in.ply", "--ply", "{dir}/ok.ply", "--pcd", "{dir}/there"],
                names: "{dir}/there"),
            folderThere("render --out", ["render", "{dir}/in.ply", "--out", "{dir}/there"], names: "{dir}/there"),
            folderThere("capture --ply", ["capture", "--source", smallCamera, "--ply", "{dir}/there"], names: "{dir}/there"),
            folderThere(
                "capture --preview", ["capture", "--source", smallCamera, "--ply", "{dir}/ok.ply", "--preview", "{dir}/there"],
                names: "{dir}/there"),
            folderThere(
                "capture --bundle into a folder with files", ["capture", "--source", smallCamera, "--bundle", "{dir}/there"],
                names: "{dir}/there"),
            folderThere(
                "capture --rgbd into a folder with files", ["capture", "--source", smallCamera, "--rgbd", "{dir}/there"],
                names: "{dir}/there"),
            folderThere("convert --ply ending in /", ["convert", "{dir}/in.ply", "--ply", "{dir}/new/"], names: "{dir}/new/"),
            noFolder("convert --ply", ["convert", "{dir}/in.ply", "--ply", "{dir}/no/out.ply"], names: "{dir}/no/out.ply"),
            noFolder(
                "convert --ply fine, --pcd missing folder",
                ["convert", "{dir}/in.ply", "--ply", "{dir}/keep.ply", "--pcd", "{dir}/no/out.pcd"],
                names: "{dir}/no/out.pcd"),
            noFolder(
                "render --turntable", ["render", "{dir}/in.ply", "--out", "{dir}/no/t.png", "--turntable", "4"], names: "{dir}/no/t.png"),
            noFolder("capture --ply", ["capture", "--source", smallCamera, "--ply", "{dir}/no/c.ply"], names: "{dir}/no/c.ply"),
            noFolder("capture --bundle", ["capture", "--source", smallCamera, "--bundle", "{dir}/no/deeper/b"], names: "{dir}/no/deeper/b"),
            noFolder(
                "capture --rgbd", ["capture", "--source", smallCamera, "--ply", "{dir}/keep.ply", "--rgbd", "{dir}/no/deeper/r"],
                names: "{dir}/no/deeper/r"),
            noFolder(
                "a path through a file", ["convert", "{dir}/in.ply", "--ply", "{dir}/keep.ply/out.ply"], names: "{dir}/keep.ply/out.ply")
        ]
    }()

    // MARK: - Bad flags and values, every command

    /// Just under Linux's limit for one argument (128 KiB): a name or value no one should see whole.
    static let huge = String(repeating: "x", count: 120_000)

    static let badFlags: [BadInput] = {
        var cases: [BadInput] = []
        func flag(_ name: String, _ arguments: [String], names: String) {
            cases.append(
                BadInput(
                    name: "bad flag: \(name)", files: ["in.ply": cloud], arguments: arguments, expect: .badInput, names: names,
                    existing: ["keep.ply": precious, "keep.png": precious]))
        }
        let render = ["render", "{dir}/in.ply", "--out", "{dir}/keep.png"]
        for (option, values) in [
            ("--azimuth", ["nan", "inf", "-inf", "1e39", "ten", ""]), ("--elevation", ["91", "-90.5", "nan"]),
            ("--distance", ["0", "-1", "nan", "inf"]), ("--fov", ["0", "171", "nan", "1e400"]),
            ("--size", ["0x0", "640", "640x", "x480", "99999x99999", "-640x480", "1e9x1", "", huge]),
            ("--point-size", ["0", "65", "-1", "99999999999999999999"]), ("--color", ["purple", ""]),
            ("--background", ["#12345", "#gggggg", "transparent"]), ("--up", ["w", "+", "zz", ""]),
            ("--turntable", ["1", "361", "-5", "many"])
        ] {
            for value in values {
                flag("render \(option) '\(value.prefix(20))'", render + [option, value], names: option)
            }
        }
        let convert = ["convert", "{dir}/in.ply", "--ply", "{dir}/keep.ply"]
        for (option, values) in [
            ("--voxel", ["0", "-0.01", "nan", "inf", "1e39", "a"]), ("--sor", ["0,1", "20", "20,nan", "-1,2"]),
            ("--radius", ["0,2", "0.1", "nan,2"]), ("--crop", ["1,2,3", "0,0,0,nan,1,1", "1,1,1,0,0,0"]),
            ("--range", ["1", "2,1", "nan,1", ""]), ("--encoding", ["gzip", ""])
        ] {
            for value in values {
                flag("convert \(option) '\(value)'", convert + [option, value], names: option)
            }
        }
        let capture = ["capture", "--source", smallCamera, "--ply", "{dir}/keep.ply"]
        for (option, values) in [
            ("--frames", ["0", "-1", "abc", "99999999999999999999999"]), ("--duration", ["nan", "inf", "-1", "0"]),
            ("--range", ["1,0", "nan,1", "-1,2", "a,b"]), ("--depth-blend", ["2", "nan"]), ("--frame", ["body"]),
            ("--depth-encoding", ["kinect2"])
        ] {
            for value in values {
                flag(
                    "capture \(option) '\(value)'",
                    capture + [option, value] + (option == "--depth-blend" ? ["--depth-image", "{dir}/keep.png"] : []),
                    names: option)
            }
        }
        // Sources: the spec is named, however long or strange.
        for (what, spec, names) in [
            ("an empty source", "", "source"), ("an unknown kind", "lidar:x", "lidar"),
            ("a zero depth size", "synthetic:depth=0x0", "depth"), ("an absurd depth size", "synthetic:depth=99999x99999", "depth"),
            ("an unknown key", "synthetic:colour=1x1", "colour"), ("a newline in a folder", "tum:{dir}/a\nb", "tum:{dir}/a\\nb"),
            ("a 120 KB folder", "redwood:{dir}/" + huge, "redwood:{dir}/xxx")
        ] {
            flag("capture --source with \(what)", ["capture", "--source", spec, "--ply", "{dir}/keep.ply"], names: names)
        }
        // File names that must not break the line or flood it.
        flag("info of a name with a newline and an escape", ["info", "{dir}/a\nb\u{1B}[2J.ply"], names: "{dir}/a\\nb\\x1b[2J.ply")
        flag("info of an empty name", ["info", ""], names: "cloudgen: ")
        flag("info of a 120 KB name", ["info", "{dir}/" + huge + ".ply"], names: "{dir}/xxxx")
        flag("convert to a 120 KB name", ["convert", "{dir}/in.ply", "--ply", "{dir}/" + huge + ".ply"], names: "{dir}/xxxx")
        flag("render of a 120 KB name", ["render", "{dir}/" + huge, "--out", "{dir}/keep.png"], names: "{dir}/xxxx")
        flag("convert --ply with an empty name", ["convert", "{dir}/in.ply", "--ply", ""], names: "cloudgen: ")
        cases.append(
            BadInput(
                name: "render --out into a missing folder with a newline in its name", files: ["in.ply": cloud],
                arguments: ["render", "{dir}/in.ply", "--out", "{dir}/no\nsuch/v.png"], expect: .io, names: "{dir}/no\\nsuch/v.png"))
        // ArgumentParser's own errors: one line, exit 2.
        flag("an unknown command", ["scan", "{dir}/in.ply"], names: "scan")
        flag("an unknown option", ["info", "{dir}/in.ply", "--verbose"], names: "--verbose")
        flag("a missing value", ["render", "{dir}/in.ply", "--out"], names: "--out")
        flag("a missing argument", ["info"], names: "<file>")
        flag("convert without an output", ["convert", "{dir}/in.ply"], names: "--ply")
        flag("devices with an argument", ["devices", "extra"], names: "extra")
        flag("devices with an unknown option", ["devices", "--all"], names: "--all")
        flag("an unknown option 120 KB long", ["info", "{dir}/in.ply", "--" + huge], names: "--xxx")
        // Conflicts.
        flag("--json with --ply /dev/stdout", ["capture", "--source", smallCamera, "--ply", "/dev/stdout", "--json"], names: "/dev/stdout")
        flag(
            "a sequence to a device", ["capture", "--source", smallCamera + ",frames=2", "--frames", "2", "--ply", "/dev/stdout"],
            names: "/dev/stdout")
        flag("a turntable to a device", ["render", "{dir}/in.ply", "--out", "/dev/stdout", "--turntable", "4"], names: "/dev/stdout")
        return cases
    }()

    // MARK: - A warning, then an error: the error line alone

    static let warningThenError: [BadInput] = [
        // "using --intrinsics instead of each frame's XML", then no poses to fuse.
        BadInput(
            name: "pclgrabber with --intrinsics, then --fuse without poses",
            arguments: [
                "capture", "--source", "pclgrabber:" + sharedData("pcl-grabber"), "--intrinsics",
                sharedData("open3d-rgbd/camera_primesense.json"),
                "--fuse", "--ply", "{dir}/keep.ply"
            ],
            expect: .badInput, names: "pclgrabber:", existing: ["keep.ply": precious]),
        // "--organized has no grid to keep", then a folder that is not there.
        BadInput(
            name: "convert --organized of an unorganized cloud, into a missing folder", files: ["in.ply": cloud],
            arguments: ["convert", "{dir}/in.ply", "--organized", "--ply", "{dir}/no/out.ply"], expect: .io, names: "{dir}/no/out.ply")
    ]
}
