#!/usr/bin/env python3
"""cloudgen's dataset sources against Open3D's own readers, frame by frame.

Usage: open3d_parity.py CLOUDGEN DATA WORKDIR [--figures FILE]

CLOUDGEN is the cloudgen executable, DATA the `open3d-rgbd` fixture folder, WORKDIR an empty
folder for the clouds. For each case cloudgen captures the frame to a binary PLY, Open3D builds
its RGBDImage with the factory a user of that dataset calls and back-projects it with
`PointCloud.create_from_rgbd_image`, and the two clouds are compared point by point: both walk
the depth image row by row and emit the valid pixels in order, so the i-th points must agree.

Truncation: Open3D drops depth z >= depth_trunc, and its TUM, NYU and SUN factories fix
depth_trunc (4, 7 and 7 m). cloudgen truncates nothing by default and its `--range MIN,MAX` keeps
MAX itself, so for those cases cloudgen gets MAX half a raw depth unit below Open3D's limit,
which keeps exactly the raw values Open3D keeps. Where the API lets us choose
(`create_from_color_and_depth`), Open3D gets depth_trunc = inf and cloudgen no --range.

Prints a table; exits 1 if any case differs in point count, by 1e-5 m or more in a coordinate, or
in any color. --figures writes the Open3D figures the unit tests pin (Tests/CloudCaptureTests/
DatasetOpen3DFiguresTests.swift), so that CI needs no Open3D.
"""

import argparse
import json
import math
import os
import re
import subprocess
import sys

import numpy as np
import open3d as o3d

TOLERANCE_M = 1e-5


def read_netpbm(path):
    """Binary PGM/PPM as a numpy array, the way Open3D's NYU tutorial reads them (Open3D's own
    image reader knows only PNG and JPEG). 16-bit samples are read big-endian, as PGM prescribes;
    `create_from_nyu_format` then swaps the bytes of NYU's little-endian raw dumps back."""
    with open(path, "rb") as f:
        data = f.read()
    m = re.match(rb"P([56])\s+(\d+)\s+(\d+)\s+(\d+)\s", data)
    if not m:
        raise ValueError(f"{path}: not a binary PGM/PPM")
    channels = 1 if m.group(1) == b"5" else 3
    width, height, maxval = (int(m.group(i)) for i in (2, 3, 4))
    dtype = ">u2" if maxval > 255 else "u1"
    count = width * height * channels
    pixels = np.frombuffer(data, dtype=dtype, count=count, offset=m.end())
    shape = (height, width) if channels == 1 else (height, width, channels)
    # Open3D's Image wants native, contiguous arrays.
    return np.ascontiguousarray(pixels.reshape(shape).astype(pixels.dtype.newbyteorder("=")))


def read_trajectory(path):
    """Camera-to-world 4x4 poses of an Open3D/Redwood .log file ("id id frame" + 4 rows each)."""
    rows = [line.split() for line in open(path) if line.strip()]
    return [np.array(rows[i + 1:i + 5], dtype=np.float64) for i in range(0, len(rows), 5)]


def open3d_cloud(color, depth, factory, intrinsic, pose=None):
    rgbd = factory(color, depth)
    cloud = o3d.geometry.PointCloud.create_from_rgbd_image(rgbd, intrinsic)
    if pose is not None:
        cloud.transform(pose)
    return np.asarray(cloud.points), np.asarray(cloud.colors)


def run_cloudgen(cloudgen, args, out):
    cmd = [cloudgen, "capture", *args, "--ply", out]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {done.returncode}: {done.stderr.strip()}")
    cloud = o3d.io.read_point_cloud(out)
    return np.asarray(cloud.points), np.asarray(cloud.colors), done.stderr


def make_tum_folder(data, work):
    """A one-frame TUM sequence around the TUM fixture, with the color frame 14.9 ms after the
    depth frame (within the 20 ms association limit), as in the benchmark's own index files."""
    folder = os.path.join(work, "tum")
    for sub in ("rgb", "depth"):
        os.makedirs(os.path.join(folder, sub), exist_ok=True)
    color_name, depth_name = "rgb/1305031102.175304.png", "depth/1305031102.160407.png"
    for name, src in ((color_name, "TUM_color.png"), (depth_name, "TUM_depth.png")):
        target = os.path.join(folder, name)
        if not os.path.lexists(target):
            os.symlink(os.path.abspath(os.path.join(data, "other_formats", src)), target)
    with open(os.path.join(folder, "rgb.txt"), "w") as f:
        f.write(f"# color images\n# timestamp filename\n1305031102.175304 {color_name}\n")
    with open(os.path.join(folder, "depth.txt"), "w") as f:
        f.write(f"# depth maps\n# timestamp filename\n1305031102.160407 {depth_name}\n")
    return folder


def cases(data, work):
    fmt = os.path.join(data, "other_formats")
    primesense = os.path.join(data, "camera_primesense.json")
    intrinsic = o3d.io.read_pinhole_camera_intrinsic(primesense)
    tum_intrinsic = o3d.camera.PinholeCameraIntrinsic(o3d.camera.PinholeCameraIntrinsicParameters.PrimeSenseDefault)
    tum = make_tum_folder(data, work)
    img = o3d.io.read_image

    def color_and_depth(scale):
        return lambda c, d: o3d.geometry.RGBDImage.create_from_color_and_depth(
            c, d, depth_scale=scale, depth_trunc=math.inf, convert_rgb_to_intensity=False)

    def tum_format(c, d):
        return o3d.geometry.RGBDImage.create_from_tum_format(c, d, convert_rgb_to_intensity=False)

    def nyu_format(c, d):
        return o3d.geometry.RGBDImage.create_from_nyu_format(c, d, convert_rgb_to_intensity=False)

    def sun_format(c, d):
        return o3d.geometry.RGBDImage.create_from_sun_format(c, d, convert_rgb_to_intensity=False)

    rgbd = lambda c, d: f"rgbd:{os.path.join(fmt, c)},{os.path.join(fmt, d)}"
    yield {
        "name": "tum", "call": "create_from_tum_format (5000/m, trunc 4 m)",
        "cloudgen": ["--source", f"tum:{tum}", "--range", "0,3.9999"],
        "open3d": lambda: open3d_cloud(img(os.path.join(fmt, "TUM_color.png")), img(os.path.join(fmt, "TUM_depth.png")),
                                       tum_format, tum_intrinsic),
    }
    yield {
        "name": "tum-full", "call": "create_from_color_and_depth (5000/m, trunc inf)",
        "cloudgen": ["--source", f"tum:{tum}"],
        "open3d": lambda: open3d_cloud(img(os.path.join(fmt, "TUM_color.png")), img(os.path.join(fmt, "TUM_depth.png")),
                                       color_and_depth(5000.0), tum_intrinsic),
    }
    yield {
        "name": "nyu", "call": "create_from_nyu_format (trunc 7 m)",
        "cloudgen": ["--source", rgbd("NYU_color.ppm", "NYU_depth.pgm"), "--intrinsics", primesense,
                     "--depth-encoding", "nyu", "--range", "0,6.9995"],
        "open3d": lambda: open3d_cloud(o3d.geometry.Image(read_netpbm(os.path.join(fmt, "NYU_color.ppm"))),
                                       o3d.geometry.Image(read_netpbm(os.path.join(fmt, "NYU_depth.pgm"))),
                                       nyu_format, intrinsic),
    }
    yield {
        "name": "sun", "call": "create_from_sun_format (1000/m, trunc 7 m)",
        "cloudgen": ["--source", rgbd("SUN_color.jpg", "SUN_depth.png"), "--intrinsics", primesense,
                     "--depth-encoding", "sun", "--range", "0,6.9995"],
        "open3d": lambda: open3d_cloud(img(os.path.join(fmt, "SUN_color.jpg")), img(os.path.join(fmt, "SUN_depth.png")),
                                       sun_format, intrinsic),
    }
    yield {
        "name": "redwood", "call": "create_from_color_and_depth (1000/m, trunc inf)",
        "cloudgen": ["--source", f"redwood:{data}"],
        "open3d": lambda: open3d_cloud(img(os.path.join(data, "color", "00000.jpg")), img(os.path.join(data, "depth", "00000.png")),
                                       color_and_depth(1000.0), intrinsic),
    }

    def fused():
        poses = read_trajectory(os.path.join(data, "trajectory.log"))
        parts = [open3d_cloud(img(os.path.join(data, "color", f"{i:05d}.jpg")), img(os.path.join(data, "depth", f"{i:05d}.png")),
                              color_and_depth(1000.0), intrinsic, pose) for i, pose in enumerate(poses)]
        return np.concatenate([p for p, _ in parts]), np.concatenate([c for _, c in parts])

    yield {
        "name": "redwood-fused", "call": "5 x create_from_color_and_depth, transformed by trajectory.log",
        "cloudgen": ["--source", f"redwood:{data}", "--fuse"],
        "open3d": fused,
    }


def figures(points, colors):
    """What the unit tests pin: count, coordinate sums, and a few points with their colors."""
    n = len(points)
    picks = sorted({0, n // 3, n // 2, (2 * n) // 3, n - 1})
    return {
        "count": n,
        "sum": [float(s) for s in points.sum(axis=0)],
        "points": [{"index": i, "xyz": [float(v) for v in points[i]],
                    "rgb": [int(v) for v in np.rint(colors[i] * 255)]} for i in picks],
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("cloudgen")
    parser.add_argument("data")
    parser.add_argument("work")
    parser.add_argument("--figures", help="write the Open3D figures the unit tests pin to this JSON file")
    args = parser.parse_args()

    rows, pinned, failed = [], {}, False
    for case in cases(args.data, args.work):
        ref_p, ref_c = case["open3d"]()
        pinned[case["name"]] = figures(ref_p, ref_c)
        try:
            ours_p, ours_c, warnings = run_cloudgen(args.cloudgen, case["cloudgen"], os.path.join(args.work, case["name"] + ".ply"))
        except RuntimeError as error:
            print(f"  {case['name']}: {error}", file=sys.stderr)
            rows.append((case["name"], case["call"], "-", len(ref_p), math.nan, "-", "CLOUDGEN FAILED"))
            failed = True
            continue
        # Open3D colors are 0..1 doubles of 8-bit values: c * 255 is an integer to rounding.
        ours_rgb, ref_rgb = np.rint(ours_c * 255).astype(int), np.rint(ref_c * 255).astype(int)
        same_count = len(ours_p) == len(ref_p)
        max_delta = float(np.abs(ours_p - ref_p).max()) if same_count and len(ref_p) else math.nan
        color_diff = int((ours_rgb != ref_rgb).any(axis=1).sum()) if same_count else "-"
        ok = same_count and max_delta < TOLERANCE_M and color_diff == 0
        failed |= not ok
        rows.append((case["name"], case["call"], len(ours_p), len(ref_p), max_delta, color_diff, "equal" if ok else "DIFFERENT"))
        for line in warnings.splitlines():
            if "warning" in line:
                print(f"  {case['name']}: {line}", file=sys.stderr)

    print("| case | Open3D call | cloudgen points | Open3D points | max abs diff (m) | colors differing | result |")
    print("|---|---|---:|---:|---:|---:|---|")
    for name, call, ours, ref, delta, colors, result in rows:
        print(f"| {name} | {call} | {ours} | {ref} | {delta:.2e} | {colors} | {result} |")
    if args.figures:
        with open(args.figures, "w") as f:
            json.dump(pinned, f, indent=1)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
