#!/usr/bin/env python3
"""Open3D's side of Tools/bench: the same frames and stages as `cloudgen-bench`, timed the same way.

Usage: open3d_bench.py WORKDIR [--runs N] [--warmup N]

WORKDIR is what `cloudgen-bench WORKDIR` exported: for each frame (A, B) a meta.json, the depth
plane (raw uint16 millimetres for A, float32 metres for B), the decoded RGB8 color image, and our
own cloud (xyz float32, rgb uint8) so that points can be compared one by one. When it also holds
datasets.json (cloudgen-bench --data), the same real files go to binary PLY the way an Open3D user
writes it: the TUM frame, and the Redwood sequence fused by its trajectory; our PLYs are then read
back and compared point by point with Open3D's clouds. When it holds filter_pipelines.json
(cloudgen-bench --grabber), the cleaning pipeline runs on the same frames: voxel grid 1 cm,
statistical outlier removal (20, 2), normals within 5 cm (hybrid search, 30 neighbours) turned
toward the camera, binary PLY. Prints one JSON object on stdout. Run it
from the venv `Tools/bench/run` makes; nothing here installs anything.
"""

import argparse
import json
import math
import os
import platform
import sys
import time

import numpy as np
import open3d as o3d


def measure(body, runs, warmup):
    """Median and min wall time of `body()` in seconds, after `warmup` untimed calls.

    perf_counter_ns is monotonic and of the same resolution as DispatchTime on the Swift side.
    """
    for _ in range(warmup):
        body()
    samples = []
    for _ in range(runs):
        start = time.perf_counter_ns()
        body()
        samples.append(time.perf_counter_ns() - start)
    return stats(samples)


def stats(samples):
    """Median and min of samples in nanoseconds, in seconds."""
    samples = sorted(samples)
    n = len(samples)
    median = samples[n // 2] if n % 2 else (samples[n // 2 - 1] + samples[n // 2]) / 2
    return {"median_s": median * 1e-9, "min_s": samples[0] * 1e-9, "runs": n}


class Laps:
    """The clock of one end-to-end run: lap(stage) charges the time since the previous lap (or the
    start) to `stage`, adding up when a stage recurs, as it does once per frame of a sequence."""

    def __init__(self):
        self.ns = {}
        self.last = time.perf_counter_ns()

    def __call__(self, stage):
        now = time.perf_counter_ns()
        self.ns[stage] = self.ns.get(stage, 0) + now - self.last
        self.last = now


def measure_stages(body, runs, warmup):
    """Like measure, for a pipeline `body(lap)` that calls lap(stage) after each stage: each run is
    timed as a whole, and each stage's median is taken over the same runs (cloudgen-bench's
    measureStages). Returns the timing and the last run's result."""
    for _ in range(warmup):
        body(Laps())
    whole, per_stage = [], {}
    for _ in range(runs):
        start = time.perf_counter_ns()
        laps = Laps()
        result = body(laps)
        whole.append(time.perf_counter_ns() - start)
        for stage, ns in laps.ns.items():  # dicts keep the order stages first ran in
            per_stage.setdefault(stage, []).append(ns)
    timing = {"whole": stats(whole), "stages": {k: stats(v) for k, v in per_stage.items()},
              "stage_order": list(per_stage)}
    return timing, result


def nearest_indices(n_from, n_to):
    """For each of `n_from` pixels, the index among `n_to` pixels covering the same field of view
    whose footprint holds its centre: the sampling cloudgen's back-projection uses for color."""
    i = np.arange(n_from, dtype=np.float64)
    return np.minimum(n_to - 1, np.floor((i + 0.5) * n_to / n_from).astype(np.int64))


def load_frame(workdir, name):
    folder = os.path.join(workdir, name)
    with open(os.path.join(folder, "meta.json")) as f:
        meta = json.load(f)
    d, c = meta["depth"], meta["color"]
    # The files are little-endian; numpy's native types then read them as they are (and Open3D's
    # Image refuses arrays whose dtype carries an explicit byte order).
    assert sys.byteorder == "little", "the exported planes are little-endian"
    dtype = {"uint16": np.uint16, "float32": np.float32}[meta["depth_dtype"]]
    depth = np.fromfile(os.path.join(folder, meta["depth_file"]), dtype=dtype).reshape(d["height"], d["width"])
    color = np.fromfile(os.path.join(folder, meta["color_file"]), dtype=np.uint8)
    color = color.reshape(c["height"], c["width"], 3)
    ours = None
    if "cloud_xyz_file" in meta:
        xyz = np.fromfile(os.path.join(folder, meta["cloud_xyz_file"]), dtype=np.float32).reshape(-1, 3)
        rgb = np.fromfile(os.path.join(folder, meta["cloud_rgb_file"]), dtype=np.uint8).reshape(-1, 3)
        ours = (xyz, rgb)
    return meta, depth, color, ours


def bench_frame(workdir, name, runs, warmup):
    meta, depth_np, color_np, ours = load_frame(workdir, name)
    d = meta["depth"]
    same_size = color_np.shape[:2] == depth_np.shape
    rows = cols = None
    if not same_size:
        rows = nearest_indices(d["height"], color_np.shape[0])
        cols = nearest_indices(d["width"], color_np.shape[1])

    # Open3D wants color and depth of one size. With a high-resolution color camera the realistic
    # path is to bring color down to the depth grid first; nearest sampling in numpy, on the same
    # pixels cloudgen samples, so that both give the same colors.
    def convert():
        color = color_np if same_size else np.ascontiguousarray(color_np[rows[:, None], cols[None, :]])
        return o3d.geometry.RGBDImage.create_from_color_and_depth(
            o3d.geometry.Image(color), o3d.geometry.Image(depth_np),
            depth_scale=meta["depth_scale"], depth_trunc=1e9, convert_rgb_to_intensity=False)

    # Open3D's intrinsics are at the depth size: the same scaled values cloudgen back-projects with.
    intrinsic = o3d.camera.PinholeCameraIntrinsic(d["width"], d["height"], d["fx"], d["fy"], d["cx"], d["cy"])
    rgbd = convert()

    def project():
        return o3d.geometry.PointCloud.create_from_rgbd_image(rgbd, intrinsic)

    result = {
        "depth": [d["width"], d["height"]],
        "color": [color_np.shape[1], color_np.shape[0]],
        "color_path": "as is" if same_size else
            "numpy nearest resize of color to the depth size, then create_from_color_and_depth (timed in convert)",
        "convert": measure(convert, runs, warmup),
        "backproject": measure(project, runs, warmup),
    }
    cloud = project()
    points = np.asarray(cloud.points)
    result["points"] = len(points)
    result["backproject"]["points_per_s"] = len(points) / result["backproject"]["median_s"]
    if ours is not None:
        xyz, rgb = ours
        check = {"cloudgen_points": len(xyz), "same_count": len(xyz) == len(points)}
        if len(xyz) == len(points):
            # Both walk the valid pixels in row-major order, so point i is the same pixel in both.
            check["max_position_difference_m"] = float(np.max(np.abs(points - xyz.astype(np.float64)))) if len(xyz) else 0.0
            colors = np.rint(np.asarray(cloud.colors) * 255).astype(np.int64)
            check["max_color_difference"] = int(np.max(np.abs(colors - rgb.astype(np.int64)))) if len(rgb) else 0
        result["check"] = check
    return result, cloud


def bench_writes(workdir, cloud, runs, warmup):
    out = os.path.join(workdir, "open3d-out")
    os.makedirs(out, exist_ok=True)
    results = {}
    cases = [("ply_binary", "a.ply", False), ("pcd_binary", "a.pcd", False),
             ("pcd_binary_compressed", "a-compressed.pcd", True)]
    for key, filename, compressed in cases:
        path = os.path.join(out, filename)

        def write():
            if not o3d.io.write_point_cloud(path, cloud, write_ascii=False, compressed=compressed):
                raise RuntimeError(f"Open3D could not write {path}")

        stats = measure(write, runs, warmup)
        size = os.path.getsize(path)
        stats["bytes"] = size
        stats["mb_per_s"] = size / 1e6 / stats["median_s"]
        results[key] = stats
    return results


def bench_reference(folder, workdir, runs, warmup):
    """Open3D alone on a real TUM RGB-D frame with its default 3 m truncation: the setting of the
    reference figures in Docs/benchmarks.md, so that a reader can tell how this machine compares."""
    color = o3d.io.read_image(os.path.join(folder, "TUM_color.png"))
    depth = o3d.io.read_image(os.path.join(folder, "TUM_depth.png"))
    intrinsic = o3d.camera.PinholeCameraIntrinsic(o3d.camera.PinholeCameraIntrinsicParameters.PrimeSenseDefault)

    def frame_to_cloud():
        rgbd = o3d.geometry.RGBDImage.create_from_color_and_depth(
            color, depth, depth_scale=5000.0, convert_rgb_to_intensity=False)
        return o3d.geometry.PointCloud.create_from_rgbd_image(rgbd, intrinsic)

    cloud = frame_to_cloud()
    path = os.path.join(workdir, "open3d-out", "tum.ply")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    write = measure(lambda: o3d.io.write_point_cloud(path, cloud, write_ascii=False), runs, warmup)
    write["bytes"] = os.path.getsize(path)
    return {"frame": "TUM_depth.png + TUM_color.png (640x480), depth_trunc 3.0 (Open3D's default)",
            "points": len(cloud.points), "frame_to_cloud": measure(frame_to_cloud, runs, warmup),
            "write_ply_binary": write}


def read_image(path):
    image = o3d.io.read_image(path)
    if image.is_empty():
        raise RuntimeError(f"Open3D could not read {path}")
    return image


def images_to_cloud(color_file, depth_file, depth_scale, intrinsic, lap):
    """A frame's two image files to Open3D's cloud, as an Open3D user makes it, without depth
    truncation (cloudgen truncates nothing by default). Laps the stages of `cloudgen capture
    --json`: "acquire" (reading the files), "convert" and "backProject"."""
    color, depth = read_image(color_file), read_image(depth_file)
    lap("acquire")
    rgbd = o3d.geometry.RGBDImage.create_from_color_and_depth(
        color, depth, depth_scale=depth_scale, depth_trunc=math.inf, convert_rgb_to_intensity=False)
    lap("convert")
    cloud = o3d.geometry.PointCloud.create_from_rgbd_image(rgbd, intrinsic)
    lap("backProject")
    return cloud


def write_ply(path, cloud):
    if not o3d.io.write_point_cloud(path, cloud, write_ascii=False):
        raise RuntimeError(f"Open3D could not write {path}")


def read_log_poses(path):
    """Camera-to-world 4x4 matrices of a Redwood/Open3D trajectory.log: per frame a line of three
    ids, then the matrix's four rows."""
    with open(path) as f:
        numbers = [line.split() for line in f if line.strip()]
    return [np.array(numbers[i + 1:i + 5], dtype=np.float64) for i in range(0, len(numbers), 5)]


def compare_with_ours(cloud, ply):
    """Our PLY read back against Open3D's cloud: both emit the valid depth pixels row by row, frame
    by frame, so point i is the same pixel in both."""
    ours = o3d.io.read_point_cloud(ply)
    theirs_xyz, ours_xyz = np.asarray(cloud.points), np.asarray(ours.points)
    check = {"cloudgen_points": len(ours_xyz), "same_count": len(ours_xyz) == len(theirs_xyz)}
    if check["same_count"] and len(ours_xyz):
        check["max_position_difference_m"] = float(np.max(np.abs(theirs_xyz - ours_xyz)))
        theirs_rgb = np.rint(np.asarray(cloud.colors) * 255).astype(np.int64)
        ours_rgb = np.rint(np.asarray(ours.colors) * 255).astype(np.int64)
        check["colors_differing"] = int(np.any(theirs_rgb != ours_rgb, axis=1).sum())
    return check


def bench_pipelines(workdir, runs, warmup):
    """Files on disk to a binary PLY, timed as a whole and by stage, on the files cloudgen-bench
    timed (datasets.json). No depth truncation: create_from_color_and_depth with depth_trunc = inf,
    as cloudgen truncates nothing by default (create_from_tum_format would fix it at 4 m)."""
    with open(os.path.join(workdir, "datasets.json")) as f:
        meta = json.load(f)
    out = os.path.join(workdir, "open3d-out")
    os.makedirs(out, exist_ok=True)
    results = {}

    tum = meta["tum_frame"]
    tum_ply = os.path.join(out, "tum-frame.ply")

    def frame(lap):
        # Stands for cloudgen opening the source (index files, pairing, TUM's default intrinsics),
        # which its "acquire" includes: the same intrinsics, fx = fy = 525, cx = 319.5, cy = 239.5.
        intrinsic = o3d.camera.PinholeCameraIntrinsic(o3d.camera.PinholeCameraIntrinsicParameters.PrimeSenseDefault)
        cloud = images_to_cloud(tum["color_file"], tum["depth_file"], 5000.0, intrinsic, lap)
        write_ply(tum_ply, cloud)
        lap("write")
        return cloud

    timing, cloud = measure_stages(frame, runs, warmup)
    results["tum_frame"] = {"frames": 1, "points": len(cloud.points), "bytes": os.path.getsize(tum_ply),
                            "timing": timing, "check": compare_with_ours(cloud, tum["cloudgen_ply"])}

    redwood = meta["redwood"]
    folder = redwood["directory"]
    redwood_ply = os.path.join(out, "redwood.ply")

    def sequence(lap):
        # What a script around Open3D does before its loop, as cloudgen's redwood: source does:
        # list the frames, read the intrinsics and the trajectory.
        def images(sub, extensions):
            names = sorted(n for n in os.listdir(os.path.join(folder, sub)) if n.lower().endswith(extensions))
            return [os.path.join(folder, sub, n) for n in names]
        colors, depths = images("color", (".jpg", ".jpeg", ".png")), images("depth", (".png",))
        intrinsic = o3d.io.read_pinhole_camera_intrinsic(os.path.join(folder, "camera_primesense.json"))
        poses = read_log_poses(os.path.join(folder, "trajectory.log"))
        if not (len(colors) == len(depths) == len(poses)):
            raise RuntimeError(f"{folder}: {len(colors)} color images, {len(depths)} depth images, {len(poses)} poses")
        # Opening is charged to the first frame's "acquire", as cloudgen's pipeline charges it.
        fused = o3d.geometry.PointCloud()
        for color_file, depth_file, pose in zip(colors, depths, poses):
            cloud = images_to_cloud(color_file, depth_file, 1000.0, intrinsic, lap)
            cloud.transform(pose)
            lap("toWorld")
            fused += cloud
            lap("fuse")
        write_ply(redwood_ply, fused)
        lap("write")
        return fused, len(poses)

    timing, (cloud, frames) = measure_stages(sequence, runs, warmup)
    results["redwood_sequence"] = {"frames": frames, "points": len(cloud.points), "bytes": os.path.getsize(redwood_ply),
                                   "timing": timing, "check": compare_with_ours(cloud, redwood["cloudgen_ply"])}
    return results


def bench_filter_pipelines(workdir, runs, warmup):
    """cloudgen-bench's filter pipelines (`capture --voxel 0.01 --sor 20,2 --normals 0.05`) the way an Open3D user writes it, on the same files
    (filter_pipelines.json): read both images, make the cloud, voxel_down_sample,
    remove_statistical_outlier, estimate_normals with the hybrid search and orient them toward the
    camera (cloudgen's normals face it), write. Open3D runs its outlier removal and normals on
    every core, as cloudgen does."""
    with open(os.path.join(workdir, "filter_pipelines.json")) as f:
        inputs = json.load(f)
    out = os.path.join(workdir, "open3d-out")
    os.makedirs(out, exist_ok=True)
    results = {}
    for key, frame in inputs.items():
        ply = os.path.join(out, f"{key}-filtered.ply")
        points = {}

        def pipeline(lap):
            # What cloudgen's source does before decoding: the calibration from the folder's file,
            # or the images named by TUM's index files (with TUM's default calibration).
            color_file, depth_file = frame["color_file"], frame["depth_file"]
            if frame.get("intrinsics_file"):
                intrinsic = o3d.io.read_pinhole_camera_intrinsic(frame["intrinsics_file"])
            else:
                intrinsic = o3d.camera.PinholeCameraIntrinsic(frame["width"], frame["height"], frame["fx"], frame["fy"],
                                                              frame["cx"], frame["cy"])
            if frame.get("tum_folder"):
                def first_entry(index):
                    with open(os.path.join(frame["tum_folder"], index)) as f:
                        stamp, name = next(line.split() for line in f if line.strip() and not line.startswith("#"))
                    return float(stamp), os.path.join(frame["tum_folder"], name)
                (color_stamp, color_file), (depth_stamp, depth_file) = first_entry("rgb.txt"), first_entry("depth.txt")
                if abs(color_stamp - depth_stamp) > 0.02:
                    raise RuntimeError(f"{frame['tum_folder']}: the first color and depth frames are not a pair")
            cloud = images_to_cloud(color_file, depth_file, frame["depth_scale"], intrinsic, lap)
            points["backProject"] = len(cloud.points)
            cloud = cloud.voxel_down_sample(0.01)
            lap("voxel")
            points["voxel"] = len(cloud.points)
            cloud, _ = cloud.remove_statistical_outlier(nb_neighbors=20, std_ratio=2.0)
            lap("sor")
            points["sor"] = len(cloud.points)
            cloud.estimate_normals(o3d.geometry.KDTreeSearchParamHybrid(radius=0.05, max_nn=30))
            cloud.orient_normals_towards_camera_location(np.zeros(3))
            lap("normals")
            write_ply(ply, cloud)
            lap("write")
            return cloud

        timing, cloud = measure_stages(pipeline, runs, warmup)
        results[key] = {"points": points, "bytes": os.path.getsize(ply), "timing": timing}
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("workdir")
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--reference-tum", metavar="DIR",
                        help="folder with TUM_color.png and TUM_depth.png: also time Open3D alone on that real frame")
    args = parser.parse_args()
    o3d.utility.set_verbosity_level(o3d.utility.VerbosityLevel.Error)

    frames = {}
    cloud_a = None
    for name in ("A", "B"):
        frames[name], cloud = bench_frame(args.workdir, name, args.runs, args.warmup)
        if name == "A":
            cloud_a = cloud
    report = {
        "open3d": o3d.__version__,
        "numpy": np.__version__,
        "python": platform.python_version(),
        "runs": args.runs,
        "warmup": args.warmup,
        "frames": frames,
        "writes_a": bench_writes(args.workdir, cloud_a, args.runs, args.warmup),
    }
    if os.path.exists(os.path.join(args.workdir, "datasets.json")):
        report["pipelines"] = bench_pipelines(args.workdir, args.runs, args.warmup)
    if os.path.exists(os.path.join(args.workdir, "filter_pipelines.json")):
        report["filter_pipelines"] = bench_filter_pipelines(args.workdir, args.runs, args.warmup)
    if args.reference_tum:
        report["reference_tum"] = bench_reference(args.reference_tum, args.workdir, args.runs, args.warmup)
    json.dump(report, sys.stdout, indent=2)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
