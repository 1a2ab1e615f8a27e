import Foundation

extension BadInputCorpus {
    /// Images of every format the readers take, cut at several points, corrupted, with lying or
    /// absurd headers and wrong sample layouts, reached through `capture --source rgbd:` and the
    /// dataset folders. Each file is a real capture from ../shared/data, cut or patched.
    static let images: [BadInput] = jpeg + png + tiff + pnm + pclzf + folders

    /// `capture --source rgbd:COLOR,DEPTH` with the good image of the other kind and the real
    /// intrinsics; every other case has a previous out.ply that must stay as it was.
    private static func rgbd(
        _ name: String, color: (String, [UInt8])? = nil, depth: (String, [UInt8])? = nil,
        names: String? = nil, keep: Bool = false
    ) -> BadInput {
        let c = color ?? ("color.jpg", Fixture.colorJPEG)
        let d = depth ?? ("depth.png", Fixture.depthPNG)
        let bad = color != nil ? c.0 : d.0
        return BadInput(
            name: name, files: [c.0: c.1, d.0: d.1, "k.json": Fixture.intrinsicsJSON],
            arguments: [
                "capture", "--source", "rgbd:{dir}/\(c.0),{dir}/\(d.0)", "--intrinsics", "{dir}/k.json",
                "--depth-scale", "1000", "--ply", "{dir}/out.ply"
            ],
            expect: .badInput, names: names ?? "{dir}/\(bad)",
            existing: keep ? ["out.ply": Fixture.text("an earlier capture")] : [:])
    }

    private static var sof: Int { Fixture.colorJPEG.indices.first { Fixture.colorJPEG[$0] == 0xFF && Fixture.colorJPEG[$0 + 1] == 0xC0 }! }

    static let jpeg: [BadInput] =
        [0.002, 0.1, 0.25, 0.5, 0.9, 0.999].enumerated().map { i, f in
            rgbd("JPEG cut at \(f * 100)%", color: ("cut.jpg", Fixture.cut(Fixture.colorJPEG, f)), keep: i % 2 == 0)
        } + [
            rgbd(
                "JPEG cut in half, end-of-image marker appended (libjpeg fills gray)",
                color: ("eoi.jpg", Fixture.cut(Fixture.colorJPEG, 0.5) + [0xFF, 0xD9]), keep: true),
            rgbd("JPEG with corrupted entropy-coded bytes", color: ("corrupt.jpg", corruptedJPEG())),
            rgbd(
                "JPEG whose SOF claims 16000x16000",
                color: ("huge.jpg", Fixture.patch(Fixture.colorJPEG, at: sof + 5, Fixture.be16(16000) + Fixture.be16(16000))), keep: true),
            rgbd("JPEG whose SOF claims width 0", color: ("zero.jpg", Fixture.patch(Fixture.colorJPEG, at: sof + 7, Fixture.be16(0)))),
            rgbd(
                "JPEG whose SOF claims 12-bit samples", color: ("twelve.jpg", Fixture.patch(Fixture.colorJPEG, at: sof + 4, [12])),
                keep: true),
            rgbd("JPEG whose SOF claims 5 components", color: ("five.jpg", Fixture.patch(Fixture.colorJPEG, at: sof + 9, [5]))),
            rgbd("JPEG as the depth image (8-bit color)", depth: ("depth.jpg", Fixture.colorJPEG), keep: true)
        ]

    /// Bytes in the middle third of the scan flipped (markers left alone).
    private static func corruptedJPEG() -> [UInt8] {
        var b = Fixture.colorJPEG
        for i in (b.count / 3)..<(b.count / 3 + 300) where b[i] != 0xFF && b[i - 1] != 0xFF { b[i] ^= 0x5A }
        return b
    }

    static let png: [BadInput] = {
        let d = Fixture.depthPNG
        let chunks = PNGChunks.split(d)
        func withIDAT(_ change: ([UInt8]) -> [UInt8]) -> [UInt8] {
            PNGChunks.join(chunks.map { $0.type == "IDAT" ? ($0.type, change($0.data)) : $0 })
        }
        let lastIDATData = d.count - 12 - 4 - 10  // a byte of the last IDAT's data, near its CRC
        var badAncillary = Array(d.prefix(33)) + Fixture.be32(3) + Fixture.text("tEXta\0b") + [0, 0, 0, 0]
        badAncillary += d.dropFirst(33)
        return [0.1, 0.3, 0.5, 0.8, 0.99].enumerated().map { i, f in
            rgbd("16-bit PNG depth cut at \(f * 100)%", depth: ("cut.png", Fixture.cut(d, f)), keep: i % 2 == 1)
        } + [
            rgbd("PNG without its IEND chunk", depth: ("noend.png", Array(d.dropLast(12))), keep: true),
            rgbd(
                "PNG with a byte of IDAT changed (CRC error)",
                depth: ("crc.png", Fixture.patch(d, at: lastIDATData, [d[lastIDATData] ^ 0x01]))),
            rgbd(
                "PNG with corrupt deflate data and right CRCs", depth: ("zlib.png", withIDAT { Fixture.patch($0, at: 50, [~$0[50]]) }),
                keep: true),
            rgbd("PNG with half of each IDAT and right CRCs", depth: ("short.png", withIDAT { Array($0.prefix($0.count / 2)) })),
            rgbd(
                "PNG whose IHDR claims 16384x16384",
                depth: ("huge.png", PNGChunks.ihdr(d, at: 0, Fixture.be32(16384) + Fixture.be32(16384))), keep: true),
            rgbd("PNG whose IHDR claims width 0", depth: ("zero.png", PNGChunks.ihdr(d, at: 0, Fixture.be32(0)))),
            rgbd("PNG whose IHDR claims width 100000", depth: ("wide.png", PNGChunks.ihdr(d, at: 0, Fixture.be32(100_000))), keep: true),
            rgbd("PNG whose IHDR claims 8-bit samples", depth: ("eight.png", PNGChunks.ihdr(d, at: 8, [8]))),
            rgbd("PNG whose IHDR claims RGB", depth: ("rgb.png", PNGChunks.ihdr(d, at: 9, [2])), keep: true),
            rgbd("PNG whose IHDR claims bit depth 7", depth: ("seven.png", PNGChunks.ihdr(d, at: 8, [7]))),
            rgbd("PNG with an ancillary chunk whose CRC is wrong", depth: ("anc.png", badAncillary), keep: true),
            rgbd("8-bit RGB PNG as the depth image", depth: ("color.png", Fixture.colorPNG)),
            rgbd("PNG color image cut in half", color: ("cut.png", Fixture.cut(Fixture.colorPNG, 0.5)), keep: true)
        ]
    }()

    static let tiff: [BadInput] = {
        let t = Fixture.depthTIFF
        let ifd = t[4..<8].reversed().reduce(0) { $0 << 8 | Int($1) }
        func entry(_ tag: Int) -> Int { tiffEntry(t, tag) }
        func array(_ tag: Int) -> Int { t[entry(tag)..<(entry(tag) + 4)].reversed().reduce(0) { $0 << 8 | Int($1) } }
        let offsets = array(273)
        let counts = array(279)
        let firstStrip = t[offsets..<(offsets + 4)].reversed().reduce(0) { $0 << 8 | Int($1) }
        var packbits = t
        for i in (firstStrip + 400)..<(firstStrip + 600) { packbits[i] = 0x7F }
        func tiff(_ name: String, _ bytes: [UInt8], keep: Bool = false) -> BadInput {
            rgbd(name, depth: ("depth.tiff", bytes), keep: keep)
        }
        return [
            tiff("TIFF cut inside its header", Array(t.prefix(6)), keep: true),
            tiff("TIFF cut inside its directory", Array(t.prefix(ifd + 30))),
            tiff("TIFF cut before its directory", Fixture.cut(t, 0.5), keep: true),
            tiff("TIFF whose directory claims 16384x16384", hugeTIFF),
            tiff("TIFF whose directory claims width 0", Fixture.patch(t, at: entry(256), Fixture.le16(0)), keep: true),
            tiff("TIFF whose directory claims 12-bit samples", Fixture.patch(t, at: entry(258), Fixture.le16(12))),
            tiff("TIFF whose directory claims 3 samples per pixel", Fixture.patch(t, at: entry(277), Fixture.le16(3)), keep: true),
            tiff("TIFF strip offset past the end of the file", Fixture.patch(t, at: offsets + 40, Fixture.le32(1_000_000_000))),
            tiff("TIFF strip byte count of 2 GiB", Fixture.patch(t, at: counts + 40, Fixture.le32(0x7FFF_FFFF)), keep: true),
            tiff("TIFF strip byte count of 3", Fixture.patch(t, at: counts + 40, Fixture.le32(3))),
            tiff("TIFF with corrupt PackBits data", packbits, keep: true),
            tiff("TIFF whose compression tag says LZW", Fixture.patch(t, at: entry(259), Fixture.le16(5))),
            tiff("TIFF whose photometric tag says min-is-white", Fixture.patch(t, at: entry(262), Fixture.le16(0)), keep: true),
            tiff("TIFF whose photometric tag says CMYK", Fixture.patch(t, at: entry(262), Fixture.le16(5)))
        ]
    }()

    static let pnm: [BadInput] = {
        let g = Fixture.depthPGM  // "P5 640 480 65535\n" + raster
        let raster = Array(g.dropFirst(17))
        func pgm(_ name: String, _ bytes: [UInt8], keep: Bool = false) -> BadInput {
            rgbd(name, depth: ("depth.pgm", bytes), keep: keep)
        }
        return [
            pgm("PGM raster cut in half", Fixture.cut(g, 0.5), keep: true),
            pgm("PGM header without maxval", Fixture.text("P5 640 480")),
            pgm("PGM with maxval 0", Fixture.text("P5 640 480 0\n") + raster, keep: true),
            pgm("PGM with maxval 70000", Fixture.text("P5 640 480 70000\n") + raster),
            pgm("PGM with a width of a billion", Fixture.text("P5 999999999 480 65535\n") + raster, keep: true),
            pgm("PGM with samples above its maxval 4095", Fixture.text("P5 640 480 4095\n") + raster),
            pgm("plain (ASCII) PGM", Fixture.text("P2 2 2 65535\n1 2 3 4\n"), keep: true),
            pgm("PAM (P7)", Fixture.text("P7\nWIDTH 2\n") + raster.prefix(8)),
            pgm("PPM (3 channels) as the depth image", Fixture.colorPPM, keep: true),
            rgbd("PPM color raster cut", color: ("color.ppm", Fixture.cut(Fixture.colorPPM, 0.7)))
        ]
    }()

    static let pclzf: [BadInput] = {
        let z = Fixture.depthPCLZF
        func file(_ name: String, _ bytes: [UInt8], keep: Bool = false) -> BadInput {
            rgbd(name, depth: ("depth.pclzf", bytes), keep: keep)
        }
        var corrupt = z
        for i in stride(from: 1000, to: 1300, by: 3) { corrupt[i] = 0xFF }
        return [
            file("PCLZF cut inside its header", Array(z.prefix(20)), keep: true),
            file("PCLZF compressed data cut in half", Fixture.cut(z, 0.5)),
            file("PCLZF claiming 1000 more compressed bytes", PCLZF.field(z, at: 29, z.count - 37 + 1000), keep: true),
            file("PCLZF claiming a raw size that does not fit its image", PCLZF.field(z, at: 33, 640 * 480 * 2 + 2)),
            file(
                "PCLZF claiming 16384x16384",
                PCLZF.field(PCLZF.field(PCLZF.field(z, at: 5, 16384), at: 9, 16384), at: 33, 16384 * 16384 * 2), keep: true),
            file("PCLZF of an unknown image type", Fixture.patch(z, at: 13, Fixture.text("float32  "))),
            file("PCLZF with corrupt LZF data", corrupt, keep: true),
            file("PCLZF bayer8 type over depth16 data", Fixture.patch(z, at: 13, Fixture.text("bayer8 "))),
            rgbd("PCLZF rgb24 color cut", color: ("color.pclzf", Fixture.cut(Fixture.colorPCLZF, 0.9)), keep: true)
        ]
    }()

    /// The same damage reached through the dataset folders that read these formats.
    static let folders: [BadInput] = {
        let stem = "frame_0001"
        let tumLists = ["rgb.txt": Fixture.text("1.0 rgb/1.png\n"), "depth.txt": Fixture.text("1.0 depth/1.png\n")]
        return [
            BadInput(
                name: "pclgrabber: frame whose rgb PCLZF is cut",
                files: [
                    "\(stem).xml": Fixture.grabberXML, "\(stem)_depth.pclzf": Fixture.depthPCLZF,
                    "\(stem)_rgb.pclzf": Fixture.cut(Fixture.colorPCLZF, 0.6)
                ],
                arguments: ["capture", "--source", "pclgrabber:{dir}", "--ply", "{dir}/out.ply"], expect: .badInput,
                names: "{dir}/\(stem)_rgb.pclzf", existing: ["out.ply": Fixture.text("an earlier capture")]),
            BadInput(
                name: "pclgrabber: frame whose depth TIFF claims 16384x16384",
                files: [
                    "\(stem).xml": Fixture.grabberXML, "\(stem)_depth.tiff": hugeTIFF,
                    "\(stem)_rgb.tiff": Fixture.bytes(Fixture.grabberStem + "_rgb.tiff")
                ],
                arguments: ["capture", "--source", "pclgrabber:{dir}", "--ply", "{dir}/out.ply"], expect: .badInput,
                names: "{dir}/\(stem)_depth.tiff"),
            BadInput(
                name: "tum: depth PNG cut in half",
                files: tumLists.merging([
                    "rgb/1.png": Fixture.colorPNG, "depth/1.png": Fixture.cut(Fixture.depthPNG, 0.5),
                    "k.json": Fixture.intrinsicsJSON
                ]) { a, _ in a },
                arguments: ["capture", "--source", "tum:{dir}", "--intrinsics", "{dir}/k.json", "--ply", "{dir}/out.ply"],
                expect: .badInput,
                names: "{dir}/depth/1.png", existing: ["out.ply": Fixture.text("an earlier capture")]),
            BadInput(
                name: "redwood: color JPEG with corrupt data",
                files: [
                    "color/00000.jpg": corruptedJPEG(), "depth/00000.png": Fixture.depthPNG,
                    "camera_intrinsic.json": Fixture.intrinsicsJSON
                ],
                arguments: ["capture", "--source", "redwood:{dir}", "--ply", "{dir}/out.ply"], expect: .badInput,
                names: "{dir}/color/00000.jpg")
        ]
    }()

    /// Offset of the value field of `tag`'s entry in the first directory of little-endian `t`.
    private static func tiffEntry(_ t: [UInt8], _ tag: Int) -> Int {
        let ifd = t[4..<8].reversed().reduce(0) { $0 << 8 | Int($1) }
        let count = Int(t[ifd]) | Int(t[ifd + 1]) << 8
        let i = (0..<count).first { Int(t[ifd + 2 + 12 * $0]) | Int(t[ifd + 3 + 12 * $0]) << 8 == tag }!
        return ifd + 2 + 12 * i + 8
    }

    /// The grabber's depth TIFF with its directory claiming 16384x16384.
    private static var hugeTIFF: [UInt8] {
        let t = Fixture.depthTIFF
        return Fixture.patch(Fixture.patch(t, at: tiffEntry(t, 256), Fixture.le16(16384)), at: tiffEntry(t, 257), Fixture.le16(16384))
    }
}
