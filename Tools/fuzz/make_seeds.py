#!/usr/bin/env python3
"""Writes Tools/fuzz/seeds/TARGET/ from the real captures in ../shared/data (Python's standard
library only). Small files are copied; large frames are cut down to small windows and written
again in the layouts each reader handles, so that every seed decodes quickly and the fuzzer
mutates real pixel statistics rather than zeros. Run it again after adding a layout; the output
is deterministic.

Usage: Tools/fuzz/make_seeds.py
"""
import io
import os
import shutil
import struct
import tarfile
import zipfile
import zlib

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
DATA = os.path.join(ROOT, "..", "shared", "data")
SEEDS = os.path.join(ROOT, "Tools", "fuzz", "seeds")


# Targets whose seeds this script writes, emptied on their first file. Other targets' seeds (polycam,
# xmp, mpf, photo) are written by the tests' own fixtures and committed as they are.
WRITTEN = set()


def out(target, name, data):
    folder = os.path.join(SEEDS, target)
    if target not in WRITTEN:
        WRITTEN.add(target)
        shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder, exist_ok=True)
    assert len(data) <= 64 * 1024, (target, name, len(data))
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data)


def copy(target, relative, name=None):
    with open(os.path.join(DATA, relative), "rb") as f:
        out(target, name or os.path.basename(relative), f.read())


def read_pnm(relative):
    """(width, height, channels, samples as ints) of a binary PGM/PPM."""
    with open(os.path.join(DATA, relative), "rb") as f:
        data = f.read()
    fields, pos = [], 2
    while len(fields) < 3:
        while data[pos:pos + 1].isspace():
            pos += 1
        start = pos
        while not data[pos:pos + 1].isspace():
            pos += 1
        fields.append(int(data[start:pos]))
    width, height, maxval = fields
    channels = 1 if data[:2] == b"P5" else 3
    raster = data[pos + 1:]
    if maxval > 255:
        samples = list(struct.unpack(">%dH" % (width * height * channels), raster[:width * height * channels * 2]))
    else:
        samples = list(raster[:width * height * channels])
    return width, height, channels, samples


def crop(image, x, y, w, h):
    width, _, channels, samples = image
    rows = []
    for r in range(y, y + h):
        start = (r * width + x) * channels
        rows.extend(samples[start:start + w * channels])
    return rows


# --- PNG ------------------------------------------------------------------------------------

def png_chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)


def png(w, h, color_type, bit_depth, rows, extra=b"", filter_type=0):
    """rows: one bytes object per row, already packed."""
    raw = b"".join(bytes([filter_type]) + row for row in rows)
    if filter_type == 1:  # SUB, so the decoder's unfiltering is exercised too
        bpp = max(1, {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[color_type] * bit_depth // 8)
        raw = b""
        for row in rows:
            raw += bytes([1]) + bytes((row[i] - (row[i - bpp] if i >= bpp else 0)) & 0xFF for i in range(len(row)))
    ihdr = struct.pack(">IIBBBBB", w, h, bit_depth, color_type, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", ihdr) + extra
            + png_chunk(b"IDAT", zlib.compress(raw, 9)) + png_chunk(b"IEND", b""))


def pack16(samples):
    return struct.pack(">%dH" % len(samples), *samples)


def rows_of(samples, w, channels, pack=bytes):
    n = w * channels
    return [pack(samples[i:i + n]) for i in range(0, len(samples), n)]


# --- TIFF -----------------------------------------------------------------------------------

def tiff(w, h, bits, channels, data, compression=1, planar=1, big_endian=False, tile=None):
    """An uncompressed (1) or deflate (8) TIFF: one strip, or tiles of `tile` pixels square."""
    e = ">" if big_endian else "<"
    sample_bytes = bits // 8
    if compression == 8:
        blocks = [zlib.compress(b) for b in data]
    else:
        blocks = data
    entries = [(256, 3, 1, w), (257, 3, 1, h), (258, 3, channels, bits if channels == 1 else None),
               (259, 3, 1, compression), (262, 3, 1, 1 if channels < 3 else 2), (277, 3, 1, channels),
               (284, 3, 1, planar)]
    if channels == 4 or channels == 2:
        entries.append((338, 3, 1, 2))  # unassociated alpha
    offsets_tag, counts_tag = (324, 325) if tile else (273, 279)
    if tile:
        entries += [(322, 3, 1, tile), (323, 3, 1, tile)]
    else:
        entries.append((278, 3, 1, h))
    entries += [(offsets_tag, 4, len(blocks), None), (counts_tag, 4, len(blocks), None)]
    entries.sort()
    header = (b"MM\x00\x2a" if big_endian else b"II\x2a\x00") + struct.pack(e + "I", 8)
    ifd_size = 2 + 12 * len(entries) + 4
    extra_start = 8 + ifd_size
    extra = b""
    bits_offset = extra_start
    if channels > 1:
        extra += struct.pack(e + "%dH" % channels, *([bits] * channels))
    offsets_offset = extra_start + len(extra)
    extra += b"\x00" * (4 * len(blocks))
    counts_offset = extra_start + len(extra)
    extra += struct.pack(e + "%dI" % len(blocks), *[len(b) for b in blocks])
    data_start = extra_start + len(extra)
    offsets, pos = [], data_start
    for b in blocks:
        offsets.append(pos)
        pos += len(b)
    extra = extra[:offsets_offset - extra_start] + struct.pack(e + "%dI" % len(blocks), *offsets) + extra[counts_offset - extra_start:]
    ifd = struct.pack(e + "H", len(entries))
    for tag, kind, count, value in entries:
        if tag == 258 and channels > 1:
            ifd += struct.pack(e + "HHII", tag, kind, count, bits_offset)
        elif tag == offsets_tag:
            ifd += struct.pack(e + "HHII", tag, kind, count, offsets[0] if count == 1 else offsets_offset)
        elif tag == counts_tag:
            ifd += struct.pack(e + "HHII", tag, kind, count, len(blocks[0]) if count == 1 else counts_offset)
        elif kind == 3:
            ifd += struct.pack(e + "HHIHH", tag, kind, count, value, 0)
        else:
            ifd += struct.pack(e + "HHII", tag, kind, count, value)
    ifd += struct.pack(e + "I", 0)
    return header + ifd + extra + b"".join(blocks)


def samples_bytes(samples, bits, big_endian=False):
    if bits == 16:
        return struct.pack((">" if big_endian else "<") + "%dH" % len(samples), *samples)
    return bytes(samples)


# --- LZF (liblzf's format; a plain greedy compressor) ----------------------------------------

def lzf(data):
    out_bytes, literal, table, i = bytearray(), bytearray(), {}, 0

    def flush():
        while literal:
            chunk = literal[:32]
            out_bytes.append(len(chunk) - 1)
            out_bytes.extend(chunk)
            del literal[:32]

    while i < len(data):
        key = bytes(data[i:i + 3])
        ref = table.get(key) if len(key) == 3 else None
        table[key] = i
        if ref is not None and i - ref - 1 < 8192:
            length = 3
            while i + length < len(data) and length < 264 and data[ref + length] == data[i + length]:
                length += 1
            flush()
            distance = i - ref - 1
            n = length - 2
            if n < 7:
                out_bytes.append((n << 5) | (distance >> 8))
            else:
                out_bytes.append((7 << 5) | (distance >> 8))
                out_bytes.append(n - 7)
            out_bytes.append(distance & 0xFF)
            i += length
        else:
            literal.append(data[i])
            i += 1
    flush()
    return bytes(out_bytes)


def pclzf(w, h, kind, raw):
    packed = lzf(raw)
    return (b"PCLZF" + struct.pack("<II", w, h) + kind.ljust(16, b" ")
            + struct.pack("<II", len(packed), len(raw)) + packed)


def exr(w, h, channels, compression=0, origin=(0, 0)):
    """A scanline OpenEXR file: `channels` is [(name, pixel type 1 half or 2 float, samples)], in
    name order as the format requires; compression 0 NONE, 2 ZIPS (one line per chunk) or 3 ZIP
    (16 lines), whose blocks are byte-split, delta-predicted and deflated as the format describes."""
    def attribute(name, kind, value):
        return name + b"\0" + kind + b"\0" + struct.pack("<i", len(value)) + value
    chlist = b"".join(name + b"\0" + struct.pack("<iB3xii", kind, 0, 1, 1) for name, kind, _ in channels) + b"\0"
    x0, y0 = origin
    window = struct.pack("<iiii", x0, y0, x0 + w - 1, y0 + h - 1)
    header = (b"\x76\x2f\x31\x01" + struct.pack("<I", 2) + attribute(b"channels", b"chlist", chlist)
              + attribute(b"compression", b"compression", bytes([compression]))
              + attribute(b"dataWindow", b"box2i", window) + attribute(b"displayWindow", b"box2i", window)
              + attribute(b"lineOrder", b"lineOrder", b"\0") + attribute(b"pixelAspectRatio", b"float", struct.pack("<f", 1))
              + attribute(b"screenWindowCenter", b"v2f", struct.pack("<ff", 0, 0))
              + attribute(b"screenWindowWidth", b"float", struct.pack("<f", 1)) + b"\0")
    lines = {0: 1, 2: 1, 3: 16}[compression]
    chunks = []
    for top in range(0, h, lines):
        raw = b""
        for y in range(top, min(top + lines, h)):
            for _, kind, samples in channels:
                row = samples[y * w:(y + 1) * w]
                raw += struct.pack("<%d%s" % (w, "e" if kind == 1 else "f"), *row)
        packed = raw
        if compression:
            split = bytes(raw[0::2]) + bytes(raw[1::2])
            predicted = bytes([split[0]]) + bytes((split[i] - split[i - 1] + 128 + 256) & 0xFF for i in range(1, len(split)))
            packed = zlib.compress(predicted, 9)
            if len(packed) >= len(raw):
                packed = raw
        chunks.append(struct.pack("<ii", y0 + top, len(packed)) + packed)
    offset = len(header) + 8 * len(chunks)
    table = b""
    for chunk in chunks:
        table += struct.pack("<Q", offset)
        offset += len(chunk)
    return header + table + b"".join(chunks)


def exr_seeds(d):
    """Depth in metres from a real frame's window, as Record3D stores it (float R) and in the
    other layouts the reader takes: half, a second channel, an offset data window."""
    metres = [v / 10000.0 for v in d]
    out("exr", "depth-float-zip.exr", exr(40, 30, [(b"R", 2, metres)], compression=3))
    out("exr", "depth-float-none.exr", exr(40, 30, [(b"R", 2, metres)]))
    out("exr", "depth-half-zips.exr", exr(40, 30, [(b"R", 1, metres)], compression=2))
    out("exr", "depth-and-g-offset.exr", exr(40, 30, [(b"G", 1, metres[::-1]), (b"R", 2, metres)], compression=3, origin=(-3, 7)))

    # record3d: metadata.json as Record3D writes it for a LiDAR recording (K column-major at the color size).
    out("record3d", "metadata.json",
        b'{"w": 720, "h": 960, "dw": 192, "dh": 256, "fps": 60, "cameraType": 1, '
        b'"K": [711.2, 0, 0, 0, 711.2, 0, 359.1, 479.6, 1], "initPose": [0, 0, 0, 1, 0, 0, 0], '
        b'"frameTimestamps": [0.0, 0.0166, 0.0333], '
        b'"poses": [[0, 0, 0, 1, 0, 0, 0], [0.0174, -0.0087, 0.0012, 0.9998, 0.012, -0.003, 0.021], '
        b'[0.0348, -0.0174, 0.0025, 0.9992, 0.025, -0.006, 0.043]]}')


def main():
    depth = read_pnm("open3d-rgbd/other_formats/NYU_depth.pgm")
    color = read_pnm("open3d-rgbd/other_formats/NYU_color.ppm")
    d = crop(depth, 300, 200, 40, 30)
    c = crop(color, 300, 200, 40, 30)
    gray = [round(0.3 * c[i] + 0.59 * c[i + 1] + 0.11 * c[i + 2]) for i in range(0, len(c), 3)]

    exr_seeds(d)

    # png: the real color types and depths, small windows of a real frame.
    out("png", "depth16.png", png(40, 30, 0, 16, rows_of(d, 40, 1, pack16)))
    out("png", "depth16-sub.png", png(40, 30, 0, 16, rows_of(d, 40, 1, pack16), filter_type=1))
    out("png", "rgb8.png", png(40, 30, 2, 8, rows_of(c, 40, 3)))
    out("png", "gray8.png", png(40, 30, 0, 8, rows_of(gray, 40, 1)))
    rgba = [v for i in range(0, len(c), 3) for v in (c[i], c[i + 1], c[i + 2], 255 - gray[i // 3])]
    out("png", "rgba8.png", png(40, 30, 6, 8, rows_of(rgba, 40, 4)))
    ga = [v for g in gray for v in (g, 200)]
    out("png", "gray-alpha8.png", png(40, 30, 4, 8, rows_of(ga, 40, 2)))
    palette = png_chunk(b"PLTE", bytes(v for k in range(16) for v in (k * 16, 255 - k * 16, k * 8)))
    indices = [g >> 4 for g in gray]
    packed4 = [bytes((indices[r * 40 + 2 * k] << 4) | indices[r * 40 + 2 * k + 1] for k in range(20)) for r in range(30)]
    out("png", "palette4-trns.png", png(40, 30, 3, 4, packed4, extra=palette + png_chunk(b"tRNS", bytes([0, 128]))))
    rgb16 = [v * 257 for v in c]
    out("png", "rgb16.png", png(40, 30, 2, 16, rows_of(rgb16, 40, 3, pack16)))
    bits1 = [bytes(sum((1 << (7 - b)) for b in range(8) if gray[r * 40 + 8 * k + b] > 100) for k in range(5)) for r in range(30)]
    out("png", "gray1.png", png(40, 30, 0, 1, bits1))

    # jpeg: a real frame as it is (63 KB), the EXIF thumbnail of the iPhone photo, and the frame cut short.
    copy("jpeg", "open3d-rgbd/color/00000.jpg", "open3d-frame.jpg")
    with open(os.path.join(DATA, "phone/iphonex-portrait-depth.jpg"), "rb") as f:
        phone = f.read(1 << 20)
    start = phone.index(b"\xff\xd8\xff", 3)
    end = phone.index(b"\xff\xd9", start) + 2
    out("jpeg", "iphone-thumbnail.jpg", phone[start:end])
    with open(os.path.join(DATA, "open3d-rgbd/color/00000.jpg"), "rb") as f:
        out("jpeg", "open3d-frame-truncated.jpg", f.read(6000))

    # jpegheader: the same files, and markers the walk must step over (fill bytes, RST, APPn).
    for name in ("iphone-thumbnail.jpg", "open3d-frame-truncated.jpg"):
        with open(os.path.join(SEEDS, "jpeg", name), "rb") as f:
            out("jpegheader", name, f.read(4096))
    out("jpegheader", "fill-and-app.jpg", b"\xff\xd8\xff\xff\xe1\x00\x04ab\xff\xd0\xff\xc2\x00\x0b\x08\x00\x0c\x00\x10\x01\x01\x11\x00")

    # tiff: the layouts PCL's grabber and other tools write, cut to 40x30.
    out("tiff", "depth16.tiff", tiff(40, 30, 16, 1, [samples_bytes(d, 16)]))
    out("tiff", "depth16-be-deflate.tiff", tiff(40, 30, 16, 1, [samples_bytes(d, 16, True)], compression=8, big_endian=True))
    out("tiff", "rgb8.tiff", tiff(40, 30, 8, 3, [bytes(c)]))
    planes = [bytes(c[k::3]) for k in range(3)]
    out("tiff", "rgb8-planar.tiff", tiff(40, 30, 8, 3, planes, planar=2))
    tiles = []
    for ty in range(0, 32, 16):
        for tx in range(0, 48, 16):
            tile = [gray[(ty + y) * 40 + tx + x] if ty + y < 30 and tx + x < 40 else 0 for y in range(16) for x in range(16)]
            tiles.append(bytes(tile))
    out("tiff", "gray8-tiled.tiff", tiff(40, 30, 8, 1, tiles, tile=16))
    out("tiff", "rgba8.tiff", tiff(40, 30, 8, 4, [bytes(rgba)]))

    # pnm: NYU's own files are a PGM with maxval 65535 and a PPM; windows of them, and the other kinds.
    out("pnm", "depth16.pgm", b"P5 40 30 65535\n" + samples_bytes(d, 16, True))
    out("pnm", "rgb8.ppm", b"P6\n# cut from NYU_color.ppm\n40 30\n255\n" + bytes(c))
    out("pnm", "gray8.pgm", b"P5\n40 30\n255\n" + bytes(gray))
    out("pnm", "depth12.pgm", b"P5 40 30 4095\n" + samples_bytes([v >> 4 for v in d], 16, True))
    out("pnm", "plain.pgm", b"P2\n2 2\n255\n0 1\n2 3\n")

    # pclzf: each image type PCL's grabber writes.
    out("pclzf", "depth16.pclzf", pclzf(40, 30, b"depth16", samples_bytes(d, 16)))
    out("pclzf", "rgb24.pclzf", pclzf(40, 30, b"rgb24", bytes(c[0::3] + c[1::3] + c[2::3])))
    u = bytes(c[6 * k] for k in range(600))
    v = bytes(c[6 * k + 2] for k in range(600))
    out("pclzf", "yuv422.pclzf", pclzf(40, 30, b"yuv422", u + bytes(gray) + v))
    out("pclzf", "bayer8.pclzf", pclzf(40, 30, b"bayer8", bytes(gray)))
    # lzf: 4 bytes of output size (little-endian), then the stream.
    for name, raw in [("depth", samples_bytes(d, 16)), ("color", bytes(c)), ("runs", b"\x00\x01" * 500 + bytes(range(256)))]:
        out("lzf", name + ".lzf", struct.pack("<I", len(raw)) + lzf(raw))

    # intrinsics: the three forms.
    copy("intrinsics", "open3d-rgbd/camera_primesense.json", "open3d.json")
    copy("intrinsics", "pcl-grabber/frame_20121214T142255.814212.xml", "grabber.xml")
    out("intrinsics", "cloudgen.json",
        b'{"fx": 525.0, "fy": 525.0, "cx": 319.5, "cy": 239.5, "width": 640, "height": 480, "depthUnitsPerMetre": 5000}\n')

    # trajectory: Open3D's two logs.
    copy("trajectory", "open3d-rgbd/trajectory.log")
    copy("trajectory", "open3d-rgbd/odometry.log")

    # tum: rgb.txt, a NUL byte, depth.txt (the target splits there).
    rgb = b"# color images\n# file: 'rgbd_dataset_freiburg1_xyz.bag'\n# timestamp filename\n" + b"".join(
        b"1305031102.%06d rgb/1305031102.%06d.png\n" % (175304 + 33333 * k, 175304 + 33333 * k) for k in range(5))
    dep = b"# depth maps\n# timestamp filename\n" + b"".join(
        b"1305031102.%06d depth/1305031102.%06d.png\n" % (160407 + 33320 * k, 160407 + 33320 * k) for k in range(5))
    out("tum", "freiburg-like.txt", rgb + b"\x00" + dep)
    out("tum", "one-list.txt", b"1.0 a.png\n1.01 sub/b.png\n  2.0   with spaces.png  \n")

    # bundle: manifests over the fixed frame files the target provides (16x12 planes, a JPEG).
    calib = (b'"calibration": {"intrinsicMatrix": [[14.0, 0, 0], [0, 14.0, 0], [8.0, 6.0, 1]], '
             b'"referenceDimensions": {"width": 16, "height": 12}')
    lens = (b', "lensDistortionCenter": [8, 6], "lensDistortionLookupTable": [0, 0.001, 0.002, 0.004], '
            b'"inverseLensDistortionLookupTable": [0, -0.001, -0.002, -0.004]')
    extr = b', "extrinsicMatrix": [[1, 0, 0], [0, 1, 0], [0, 0, 1], [10, 0, 0]]'
    pose = b', "cameraToWorld": [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0.5, 0.25, 1, 1]]'

    def frame(depth_file, depth_format, color, extra_cal=b"", extra=b""):
        return (b'{"timestamp": 12.5, "depth": {"file": "%s", "format": "%s", "width": 16, "height": 12, '
                b'"accuracy": "absolute", "filtered": true}, %s%s%s%s}'
                % (depth_file, depth_format, color + b", " if color else b"", calib, extra_cal, extra))

    def manifest(*frames):
        return b'{"format": "cloudgen-capture-bundle", "version": 1, "frames": [' + b", ".join(frames) + b"]}\n"

    yuv = b'"color": {"files": ["c.y", "c.cbcr"], "format": "yuv420f", "width": 16, "height": 12, "yCbCrMatrix": "bt709"}'
    bgra = b'"color": {"files": ["c.bgra"], "format": "bgra", "width": 16, "height": 12}'
    jpg = b'"color": {"files": ["c.jpg"], "format": "jpeg", "width": 16, "height": 12}'
    out("bundle", "yuv-f32.json", manifest(frame(b"d.f32", b"depthFloat32", yuv, extr + b"}", pose)))
    out("bundle", "bgra-f16.json", manifest(frame(b"d.f16", b"disparityFloat16", bgra, lens + b"}")))
    out("bundle", "jpeg-two-frames.json", manifest(frame(b"d.f32", b"depthFloat32", jpg, b"}"),
                                                   frame(b"d.f16", b"depthFloat16", None, b"}")))

    # cloud: PCL's test clouds that are small, and a few points of them in every encoding.
    copy("cloud", "pcl-clouds/bunny.pcd")
    copy("cloud", "pcl-clouds/colored_cloud.pcd")
    copy("cloud", "pcl-clouds/cube.ply")
    with open(os.path.join(DATA, "pcl-clouds/bunny.pcd"), "rb") as f:
        lines = f.read().split(b"\n")
    start = next(i for i, l in enumerate(lines) if l.startswith(b"DATA")) + 1
    points = [tuple(float(x) for x in l.split()) for l in lines[start:start + 24] if l.strip()]
    rgbs = [(c[3 * k], c[3 * k + 1], c[3 * k + 2]) for k in range(len(points))]
    n = len(points)
    header = b"ply\nformat %s 1.0\ncomment cut from bunny.pcd\nelement vertex %d\nproperty float x\nproperty float y\nproperty float z\n" \
             b"property uchar red\nproperty uchar green\nproperty uchar blue\n"
    out("cloud", "ascii.ply", header % (b"ascii", n) + b"end_header\n"
        + b"".join(b"%g %g %g %d %d %d\n" % (p + q) for p, q in zip(points, rgbs)))
    for order, e in ((b"binary_little_endian", "<"), (b"binary_big_endian", ">")):
        body = b"".join(struct.pack(e + "fffBBB", *(p + q)) for p, q in zip(points, rgbs))
        out("cloud", order.decode() + ".ply", header % (order, n) + b"end_header\n" + body)
    faces = b"".join(struct.pack("<BiIi", 3, 0, 1, 2) for _ in range(1))
    out("cloud", "faces.ply", header % (b"binary_little_endian", n) + b"element face 1\nproperty list uchar int vertex_indices\nend_header\n"
        + b"".join(struct.pack("<fffBBB", *(p + q)) for p, q in zip(points, rgbs)) + faces[:13])
    grid = (b"ply\nformat ascii 1.0\nobj_info num_cols 3\nobj_info num_rows 2\nelement vertex 4\nproperty float x\nproperty float y\n"
            b"property float z\nelement range_grid 6\nproperty list uchar int vertex_indices\nend_header\n"
            + b"".join(b"%g %g %g\n" % p for p in points[:4]) + b"1 0\n1 1\n0\n1 2\n0\n1 3\n")
    out("cloud", "range-grid.ply", grid)
    pcd = (b"# .PCD v0.7 - Point Cloud Data file format\nVERSION 0.7\nFIELDS x y z rgb\nSIZE 4 4 4 4\nTYPE F F F U\n"
           b"COUNT 1 1 1 1\nWIDTH %d\nHEIGHT 1\nVIEWPOINT 0 0 0 1 0 0 0\nPOINTS %d\nDATA %s\n")
    packed_rgb = [(r << 16) | (g << 8) | b for r, g, b in rgbs]
    out("cloud", "ascii.pcd", pcd % (n, n, b"ascii") + b"".join(b"%g %g %g %d\n" % (p + (q,)) for p, q in zip(points, packed_rgb)))
    out("cloud", "binary.pcd", pcd % (n, n, b"binary") + b"".join(struct.pack("<fffI", *(p + (q,))) for p, q in zip(points, packed_rgb)))
    soa = b"".join(struct.pack("<%df" % n, *[p[k] for p in points]) for k in range(3)) + struct.pack("<%dI" % n, *packed_rgb)
    packed = lzf(soa)
    out("cloud", "binary_compressed.pcd", pcd % (n, n, b"binary_compressed") + struct.pack("<II", len(packed), len(soa)) + packed)

    # archive: a small Redwood-style folder (the real camera JSON and match file, a real depth window
    # as PNG) in each tar format and zip method the extractor reads.
    members = [("scan/camera_primesense.json", open(os.path.join(DATA, "open3d-rgbd/camera_primesense.json"), "rb").read()),
               ("scan/rgbd.match", open(os.path.join(DATA, "open3d-rgbd/rgbd.match"), "rb").read()),
               ("scan/depth/00000.png", png(40, 30, 0, 16, rows_of(d, 40, 1, pack16)))]
    for name, fmt in (("gnu.tar", tarfile.GNU_FORMAT), ("pax.tar", tarfile.PAX_FORMAT), ("ustar.tar", tarfile.USTAR_FORMAT)):
        buffer = io.BytesIO()
        with tarfile.open(fileobj=buffer, mode="w", format=fmt) as tar:
            for folder in ("scan", "scan/depth"):
                info = tarfile.TarInfo(folder)
                info.type, info.mode, info.mtime = tarfile.DIRTYPE, 0o755, 1700000000
                tar.addfile(info)
            # A path past ustar's 100-byte name field: GNU writes an 'L' member, pax an 'x' header,
            # ustar splits it into its prefix field.
            long_name = "scan/calibration_of_the_primesense_camera_as_open3d_writes_it/for_the_redwood_sequences_of_rooms/camera.json"
            for member, data in members + [(long_name, members[0][1])]:
                info = tarfile.TarInfo(member)
                info.size, info.mode, info.mtime = len(data), 0o644, 1700000000
                tar.addfile(info, io.BytesIO(data))
        # The end blocks are kept, the record padding after them is not (it adds nothing to mutate).
        out("archive", name, buffer.getvalue()[:tar.offset + 1024])
    for name, method in (("stored.zip", zipfile.ZIP_STORED), ("deflate.zip", zipfile.ZIP_DEFLATED)):
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", method) as z:
            z.writestr(zipfile.ZipInfo("scan/", (2023, 11, 14, 22, 13, 20)), b"")
            for member, data in members:
                z.writestr(zipfile.ZipInfo(member, (2023, 11, 14, 22, 13, 20)), data, compress_type=method)
        out("archive", name, buffer.getvalue())

    # Stream messages: a 4-byte little-endian header length, the JSON header, its payloads.
    def message(header, payload):
        return struct.pack("<I", len(header)) + header + payload
    out("stream", "two-payloads.bin", message(b'{"frame":3,"sizes":[4,2]}', bytes([1, 2, 3, 4, 5, 6])))
    out("stream", "no-payload.bin", message(b'{"frame":0,"sizes":[]}', b""))

    # pushframe: a pushed frame, its depth a 16-bit PNG of the real window above, with and without
    # a JPEG color (the iPhone photo's thumbnail) and a pose.
    depth_png = png(40, 30, 0, 16, rows_of(d, 40, 1, pack16))
    with open(os.path.join(SEEDS, "jpeg", "iphone-thumbnail.jpg"), "rb") as f:
        jpeg = f.read()
    depth_header = b'"depth":{"bytes":%d,"encoding":"png","height":30,"width":40}' % len(depth_png)
    out("pushframe", "depth-only.bin", message(b'{"captured":1,%s,"frame":0}' % depth_header, depth_png))
    pose = b'"pose":[1,0,0,0.5,0,1,0,0,0,0,1,2,0,0,0,1]'
    out("pushframe", "color-and-pose.bin", message(
        b'{"captured":2,"color":{"bytes":%d,"encoding":"jpeg"},%s,"frame":1,%s}' % (len(jpeg), depth_header, pose),
        depth_png + jpeg))

    total = sum(os.path.getsize(os.path.join(dp, f)) for dp, _, fs in os.walk(SEEDS) for f in fs)
    print("seeds: %d bytes in %s" % (total, SEEDS))


if __name__ == "__main__":
    main()
