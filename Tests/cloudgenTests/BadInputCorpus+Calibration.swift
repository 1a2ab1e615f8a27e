import Foundation

extension BadInputCorpus {
    /// Calibration and index files (intrinsics JSON and XML, bundle manifests, trajectory logs,
    /// TUM lists) with wrong types, non-finite or absurd values, wrong shapes and lying sizes;
    /// and frames too large for the corpus's 4 GiB address space, which must be refused before
    /// anything is allocated, with the memory they would need.
    static let calibration: [BadInput] = intrinsics + bundles + trajectories + tumLists + hugeFrames

    private static let earlier = ["out.ply": Fixture.text("an earlier capture")]

    /// The real image pair with `file` as --intrinsics.
    private static func withIntrinsics(_ name: String, _ file: String, _ text: String, names: String? = nil, keep: Bool = false) -> BadInput
    {
        BadInput(
            name: name, files: ["c.jpg": Fixture.colorJPEG, "d.png": Fixture.depthPNG, file: Fixture.text(text)],
            arguments: ["capture", "--source", "rgbd:{dir}/c.jpg,{dir}/d.png", "--intrinsics", "{dir}/\(file)", "--ply", "{dir}/out.ply"],
            expect: .badInput, names: names ?? "{dir}/\(file)", existing: keep ? earlier : [:])
    }

    private static func cloudgenJSON(_ fields: String) -> String {
        "{" + fields + "}"
    }

    static let intrinsics: [BadInput] = {
        let good = #""fy": 525, "cx": 319.5, "cy": 239.5, "width": 640, "height": 480"#
        let json: [(String, String)] = [
            ("fx is true", #""fx": true, "# + good),
            ("fx is a string", #""fx": "525", "# + good),
            ("fx is null", #""fx": null, "# + good),
            ("fx is an array", #""fx": [525], "# + good),
            ("fx is missing", good),
            ("fx is zero", #""fx": 0, "# + good),
            ("fx is negative", #""fx": -525, "# + good),
            ("fx is 1e300", #""fx": 1e300, "# + good),
            ("fx overflows to infinity", #""fx": 1e999, "# + good),
            ("fx appears twice", #""fx": 525, "fx": 1, "# + good),
            ("cx is 1e30", #""fx": 525, "fy": 525, "cx": 1e30, "cy": 239.5, "width": 640, "height": 480"#),
            ("width is true", #""fx": 525, "fy": 525, "cx": 319.5, "cy": 239.5, "width": true, "height": 480"#),
            ("width is 0", #""fx": 525, "fy": 525, "cx": 319.5, "cy": 239.5, "width": 0, "height": 480"#),
            ("width is a million", #""fx": 525, "fy": 525, "cx": 319.5, "cy": 239.5, "width": 1000000, "height": 480"#),
            ("width is fractional", #""fx": 525, "fy": 525, "cx": 319.5, "cy": 239.5, "width": 640.5, "height": 480"#),
            ("an unknown (misspelt) key", #""fx": 525, "depthUnitsPerMeter": 1000, "# + good),
            ("depthUnitsPerMetre is 0", #""fx": 525, "depthUnitsPerMetre": 0, "# + good),
            ("depthUnitsPerMetre is a string", #""fx": 525, "depthUnitsPerMetre": "mm", "# + good),
            (
                "Open3D matrix of 10 numbers",
                #""width": 640, "height": 480, "intrinsic_matrix": [525, 0, 0, 0, 525, 0, 319.5, 239.5, 1, 0]"#
            ),
            (
                "Open3D matrix with a boolean",
                #""width": 640, "height": 480, "intrinsic_matrix": [525, 0, 0, 0, 525, 0, 319.5, 239.5, true]"#
            ),
            (
                "Open3D matrix with skew and a last entry of 7",
                #""width": 640, "height": 480, "intrinsic_matrix": [525, 3, 0, 0, 525, 0, 319.5, 239.5, 7]"#
            ),
            (
                "Open3D matrix nested 3x3",
                #""width": 640, "height": 480, "intrinsic_matrix": [[525, 0, 0], [0, 525, 0], [319.5, 239.5, 1]]"#
            ),
            (
                "Open3D matrix and fx together",
                #""fx": 525, "width": 640, "height": 480, "intrinsic_matrix": [525, 0, 0, 0, 525, 0, 319.5, 239.5, 1]"#
            )
        ]
        let xml = { (depth: String) in "<?xml version=\"1.0\"?>\n<depth>\(depth)</depth>\n" }
        let goodXML =
            "<focal_length_y>525</focal_length_y><principal_point_x>320</principal_point_x><principal_point_y>240</principal_point_y>"
        let xmls: [(String, String)] = [
            ("XML focal length nan", xml("<focal_length_x>nan</focal_length_x>" + goodXML)),
            ("XML focal length inf", xml("<focal_length_x>inf</focal_length_x>" + goodXML)),
            ("XML focal length not a number", xml("<focal_length_x>525px</focal_length_x>" + goodXML)),
            ("XML focal length twice", xml("<focal_length_x>525</focal_length_x><focal_length_x>1</focal_length_x>" + goodXML)),
            ("XML without principal point", xml("<focal_length_x>525</focal_length_x><focal_length_y>525</focal_length_y>")),
            (
                "XML z_multiplication_factor 0",
                xml("<focal_length_x>525</focal_length_x>" + goodXML + "<z_multiplication_factor>0</z_multiplication_factor>")
            ),
            ("XML without depth or rgb element", "<?xml version=\"1.0\"?>\n<camera></camera>\n")
        ]
        return json.enumerated().map { i, c in withIntrinsics("intrinsics JSON: \(c.0)", "k.json", cloudgenJSON(c.1), keep: i % 2 == 0) }
            + xmls.enumerated().map { i, c in withIntrinsics("intrinsics \(c.0)", "k.xml", c.1, keep: i % 2 == 1) }
            + [
                withIntrinsics("intrinsics file that is neither JSON nor XML", "k.txt", "fx=525 fy=525\n", keep: true),
                withIntrinsics("intrinsics JSON that is an array", "k.json", "[525, 525, 319.5, 239.5]")
            ]
    }()

    /// A real bundle (written by `capture --bundle` from the simulator) with its manifest edited.
    /// `text` edits the manifest as text after `edit`, for what JSONSerialization cannot write.
    private static func bundle(
        _ name: String, names: String = "{dir}/b/manifest.json", keep: Bool = false,
        edit: @escaping @Sendable (inout [String: Any], URL) throws -> Void,
        text: @escaping @Sendable (String) -> String = { $0 }
    ) -> BadInput {
        BadInput(
            name: "bundle: " + name, arguments: ["capture", "--source", "bundle:{dir}/b", "--ply", "{dir}/out.ply"],
            expect: .badInput, names: names, existing: keep ? earlier : [:],
            prepare: { dir in
                let made = try CLI.run([
                    "capture", "--source", "synthetic:depth=32x24,color=64x48", "--bundle", dir.appendingPathComponent("b").path
                ])
                guard made.status == 0 else { throw CocoaError(.fileWriteUnknown) }
                let url = dir.appendingPathComponent("b/manifest.json")
                var manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as! [String: Any]
                try edit(&manifest, dir)
                let json = String(decoding: try JSONSerialization.data(withJSONObject: manifest), as: UTF8.self)
                try text(json).write(to: url, atomically: false, encoding: .utf8)
            })
    }

    /// Edits frames[0] of a manifest.
    private static func frame0(_ manifest: inout [String: Any], _ change: (inout [String: Any]) -> Void) {
        var frames = manifest["frames"] as! [[String: Any]]
        change(&frames[0])
        manifest["frames"] = frames
    }

    private static func set(_ path: [String], _ value: any Sendable) -> @Sendable (inout [String: Any], URL) throws -> Void {
        { manifest, _ in
            frame0(&manifest) { frame in
                if path.count == 1 {
                    frame[path[0]] = value
                    return
                }
                var inner = frame[path[0]] as? [String: Any] ?? [:]
                inner[path[1]] = value
                frame[path[0]] = inner
            }
        }
    }

    static let bundles: [BadInput] = [
        bundle(
            "pose scaled by 2 (not rigid)", keep: true,
            edit: set(["cameraToWorld"], [[2, 0, 0, 0], [0, 2, 0, 0], [0, 0, 2, 0], [0, 0, 0, 1]])),
        bundle("pose of 3 columns", edit: set(["cameraToWorld"], [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0]])),
        bundle(
            "pose with a string", keep: true,
            edit: set(["cameraToWorld"], [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], ["x", 0, 0, 1]] as [[any Sendable]])),
        bundle(
            "pose translation of 1e999 (overflows to infinity)", keep: false,
            edit: set(["cameraToWorld"], [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [123456.25, 0, 0, 1]]),
            text: { $0.replacingOccurrences(of: "123456.25", with: "1e999") }),
        bundle("timestamp is a string", keep: true, edit: set(["timestamp"], "now")),
        bundle("depth width is a string", edit: set(["depth", "width"], "32")),
        bundle("depth width is negative", keep: true, edit: set(["depth", "width"], -32)),
        bundle("depth width 16384 with the 32x24 plane", names: "{dir}/b/", edit: set(["depth", "width"], 16384)),
        bundle("depth format unknown", keep: true, edit: set(["depth", "format"], "depthFloat64")),
        bundle("depth file escapes with ..", edit: set(["depth", "file"], "../d.bin")),
        bundle("depth file is absolute", keep: true, edit: set(["depth", "file"], "/etc/passwd")),
        bundle(
            "depth file is a symbolic link out of the bundle", names: "{dir}/b/manifest.json",
            edit: { manifest, dir in
                let frames = manifest["frames"] as! [[String: Any]]
                let name = (frames[0]["depth"] as! [String: Any])["file"] as! String
                let plane = dir.appendingPathComponent("b/" + name)
                let outside = dir.appendingPathComponent("outside.bin")
                try FileManager.default.moveItem(at: plane, to: outside)
                try FileManager.default.createSymbolicLink(at: plane, withDestinationURL: outside)
            }),
        bundle(
            "depth plane cut short", names: "{dir}/b/", keep: true,
            edit: { manifest, dir in
                let frames = manifest["frames"] as! [[String: Any]]
                let name = (frames[0]["depth"] as! [String: Any])["file"] as! String
                let plane = dir.appendingPathComponent("b/" + name)
                try Data(try Data(contentsOf: plane).prefix(100)).write(to: plane)
            }),
        bundle("focal length 0", edit: set(["calibration", "intrinsicMatrix"], [[0, 0, 0], [0, 525, 0], [320, 240, 1]])),
        bundle(
            "intrinsic matrix with skew", keep: true,
            edit: set(["calibration", "intrinsicMatrix"], [[525, 1, 0], [0, 525, 0], [320, 240, 1]])),
        bundle("reference dimensions 0x0", edit: set(["calibration", "referenceDimensions"], ["width": 0, "height": 0])),
        bundle("extrinsic matrix of 2 columns", keep: true, edit: set(["calibration", "extrinsicMatrix"], [[1, 0, 0], [0, 1, 0]])),
        bundle("version 2", edit: { manifest, _ in manifest["version"] = 2 }),
        bundle("no frames", keep: true, edit: { manifest, _ in manifest["frames"] = [Any]() }),
        BadInput(
            name: "bundle: manifest with a duplicated key", arguments: ["capture", "--source", "bundle:{dir}/b", "--ply", "{dir}/out.ply"],
            expect: .badInput, names: "{dir}/b/manifest.json",
            prepare: { dir in
                let made = try CLI.run([
                    "capture", "--source", "synthetic:depth=32x24,color=64x48", "--bundle", dir.appendingPathComponent("b").path
                ])
                guard made.status == 0 else { throw CocoaError(.fileWriteUnknown) }
                let url = dir.appendingPathComponent("b/manifest.json")
                let text = try String(contentsOf: url, encoding: .utf8)
                try ("{\"version\": 7, " + text.dropFirst()).write(to: url, atomically: false, encoding: .utf8)
            })
    ]

    /// A Redwood folder of one real frame with `log` as its trajectory.
    private static func redwood(_ name: String, _ log: String, keep: Bool = false) -> BadInput {
        BadInput(
            name: "trajectory.log: " + name,
            files: [
                "color/00000.jpg": Fixture.colorJPEG, "depth/00000.png": Fixture.depthPNG,
                "camera_intrinsic.json": Fixture.intrinsicsJSON, "trajectory.log": Fixture.text(log)
            ],
            arguments: ["capture", "--source", "redwood:{dir}", "--ply", "{dir}/out.ply"], expect: .badInput,
            names: "{dir}/trajectory.log", existing: keep ? earlier : [:])
    }

    static let trajectories: [BadInput] = {
        let first = String(decoding: Fixture.trajectory, as: UTF8.self).split(separator: "\n").prefix(5).map(String.init)
        let good = first.joined(separator: "\n") + "\n"
        func replacingRow(_ row: Int, _ text: String) -> String {
            var lines = first
            lines[row] = text
            return lines.joined(separator: "\n") + "\n"
        }
        return [
            redwood("a nan in the matrix", replacingRow(1, "nan 0 0 0"), keep: true),
            redwood("an inf translation", replacingRow(1, "1 0 0 inf")),
            redwood("a row of 3 numbers", replacingRow(2, "0 1 0"), keep: true),
            redwood("a row with a word", replacingRow(3, "0 0 one 0")),
            redwood("a header of 2 numbers", replacingRow(0, "0 0"), keep: true),
            redwood("a header that is not numbers", replacingRow(0, "a b c")),
            redwood("a last row of 0 0 0 2", replacingRow(4, "0 0 0 2"), keep: true),
            redwood("a scaled rotation", replacingRow(1, "2 0 0 0")),
            redwood("4 lines (a frame cut short)", first.prefix(4).joined(separator: "\n") + "\n", keep: true),
            redwood("two poses for one frame", good + good),
            redwood("empty", "", keep: true),
            redwood("1000 poses for one frame (refused from its size)", String(repeating: good, count: 1000))
        ]
    }()

    /// A TUM folder of one real frame with the given lists.
    private static func tum(
        _ name: String, rgb: String = "1.0 rgb/1.png\n", depth: String = "1.0 depth/1.png\n",
        names: String, keep: Bool = false, prepare: (@Sendable (URL) throws -> Void)? = nil
    ) -> BadInput {
        BadInput(
            name: "tum: " + name,
            files: [
                "rgb.txt": Fixture.text(rgb), "depth.txt": Fixture.text(depth), "k.json": Fixture.intrinsicsJSON,
                "rgb/1.png": Fixture.colorPNG, "depth/1.png": Fixture.depthPNG
            ],
            arguments: ["capture", "--source", "tum:{dir}", "--intrinsics", "{dir}/k.json", "--ply", "{dir}/out.ply"], expect: .badInput,
            names: names, existing: keep ? earlier : [:], prepare: prepare)
    }

    static let tumLists: [BadInput] = [
        tum("timestamp nan", depth: "nan depth/1.png\n", names: "{dir}/depth.txt", keep: true),
        tum("timestamp inf", rgb: "inf rgb/1.png\n", names: "{dir}/rgb.txt"),
        tum("timestamp not a number", depth: "one depth/1.png\n", names: "{dir}/depth.txt", keep: true),
        tum("line without a file name", depth: "1.0\n", names: "{dir}/depth.txt"),
        tum("list of comments only", rgb: "# timestamp filename\n", names: "{dir}/rgb.txt", keep: true),
        tum("listed depth image missing", depth: "1.0 depth/2.png\n", names: "{dir}/depth/2.png"),
        tum(
            "list of 65 MB", names: "{dir}/depth.txt", keep: true,
            prepare: { dir in
                _ = truncate(dir.appendingPathComponent("depth.txt").path, 65 << 20)
            }),
        tum(
            "list that is not UTF-8", depth: "1.0 depth/\u{FF}.png\n", names: "{dir}/depth.txt",
            prepare: { dir in
                try Data([0x31, 0x2E, 0x30, 0x20, 0xFF, 0xFE, 0x0A]).write(to: dir.appendingPathComponent("depth.txt"))
            })
    ]

    /// Frames whose capture would take more than the 4 GiB the corpus allows: refused at once,
    /// with the memory they need, whatever their source.
    static let hugeFrames: [BadInput] = [
        BadInput(
            name: "synthetic 16384x16384 depth",
            arguments: ["capture", "--source", "synthetic:depth=16384x16384", "--ply", "{dir}/out.ply"],
            expect: .badInput, names: "format=depth16: needs about", existing: earlier, timeout: 20),
        BadInput(
            name: "synthetic 16384x16384 depth32 with 16384x16384 color",
            arguments: ["capture", "--source", "synthetic:depth=16384x16384,color=16384x16384,format=depth32", "--pcd", "{dir}/out.pcd"],
            expect: .badInput, names: "format=depth32: needs about", timeout: 20),
        BadInput(
            name: "synthetic 16384x12000 depth, ulimit -v 2 GiB",
            arguments: ["capture", "--source", "synthetic:depth=16384x12000", "--ply", "{dir}/out.ply"],
            expect: .badInput, names: "depth=16384x12000,color=1920x1440,format=depth16: needs about", existing: earlier,
            shell: "ulimit -v 2097152", timeout: 20),
        // Each frame fits; their fused cloud does not: the growth is asked for before it is made.
        BadInput(
            name: "2000 fused frames, ulimit -v 650 MiB",
            arguments: [
                "capture", "--source", "synthetic:path=orbit,frames=2000,depth=640x480,color=64x48", "--frames", "all", "--fuse",
                "--ply", "{dir}/out.ply"
            ],
            expect: .badInput, names: "of memory for fusing frame", existing: earlier, shell: "ulimit -v 665600", timeout: 180),
        BadInput(
            name: "genuine 16384x16384 16-bit PNG depth",
            files: [
                "c.jpg": Fixture.colorJPEG, "d.png": PNGChunks.zeroDepth(width: 16384, height: 16384),
                "k.json": Fixture.intrinsicsJSON
            ],
            arguments: ["capture", "--source", "rgbd:{dir}/c.jpg,{dir}/d.png", "--intrinsics", "{dir}/k.json", "--ply", "{dir}/out.ply"],
            expect: .badInput, names: "{dir}/d.png: needs about", existing: earlier, timeout: 30),
        BadInput(
            name: "genuine 16384x16384 PCLZF depth in a grabber folder",
            files: [
                "f.xml": Fixture.grabberXML, "f_depth.pclzf": PCLZF.zeroDepth(width: 16384, height: 16384),
                "f_rgb.pclzf": Fixture.colorPCLZF
            ],
            arguments: ["capture", "--source", "pclgrabber:{dir}", "--ply", "{dir}/out.ply"],
            expect: .badInput, names: "{dir}/f_depth.pclzf: needs about", timeout: 30),
        BadInput(
            name: "bundle whose manifest and plane say 16384x16384",
            arguments: ["capture", "--source", "bundle:{dir}/b", "--ply", "{dir}/out.ply"],
            expect: .badInput, names: "{dir}/b/manifest.json: frames[0]: needs about", existing: earlier, timeout: 30,
            prepare: { dir in
                let made = try CLI.run([
                    "capture", "--source", "synthetic:depth=32x24,color=64x48", "--bundle", dir.appendingPathComponent("b").path
                ])
                guard made.status == 0 else { throw CocoaError(.fileWriteUnknown) }
                let url = dir.appendingPathComponent("b/manifest.json")
                var manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as! [String: Any]
                var frames = manifest["frames"] as! [[String: Any]]
                var depth = frames[0]["depth"] as! [String: Any]
                depth["width"] = 16384
                depth["height"] = 16384
                frames[0]["depth"] = depth
                frames[0].removeValue(forKey: "color")
                manifest["frames"] = frames
                try JSONSerialization.data(withJSONObject: manifest).write(to: url)
                // A sparse plane of the full size: its length is right, its blocks cost nothing.
                _ = truncate(dir.appendingPathComponent("b/" + (depth["file"] as! String)).path, 16384 * 16384 * 2)
            })
    ]
}
