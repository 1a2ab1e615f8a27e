"""RGB-D odometry side by side: cloudgen's `capture --register` against Open3D 0.20's legacy hybrid
odometry and its tensor point-to-plane odometry, on an RGB-D folder with a known trajectory
(Redwood layout: color/, depth/ in millimetres, trajectory.log, Open3D intrinsics JSON).

Each tool's poses are chained from the first frame; the trajectory error is the ATE of TUM's
evaluate_ate (RMSE of the camera positions after the rigid alignment that fits them best, Horn's
method), against the folder's trajectory.log. Times are per frame pair: cloudgen's from its own
`register` stage timing (--json), Open3D's around its calls; image reading is not counted for either.

Usage: .venv-bench/bin/python Tools/bench/odometry.py --cloudgen .build/release/cloudgen DIR [--intrinsics FILE]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import open3d as o3d


def read_log(path):
    rows = [[float(x) for x in line.split()] for line in open(path) if line.strip()]
    return [np.array(rows[i + 1:i + 5]) for i in range(0, len(rows), 5)]


def read_tum(path):
    poses = []
    for line in open(path):
        if line.startswith("#") or not line.strip():
            continue
        _, tx, ty, tz, qx, qy, qz, qw = (float(x) for x in line.split())
        m = np.eye(4)
        m[:3, :3] = o3d.geometry.get_rotation_matrix_from_quaternion([qw, qx, qy, qz])
        m[:3, 3] = [tx, ty, tz]
        poses.append(m)
    return poses


def ate(estimated, truth):
    """RMSE of positions after the best rigid alignment (Horn / Umeyama without scale)."""
    a = np.array([p[:3, 3] for p in estimated])
    b = np.array([p[:3, 3] for p in truth])
    ca, cb = a.mean(0), b.mean(0)
    u, _, vt = np.linalg.svd((a - ca).T @ (b - cb))
    d = np.sign(np.linalg.det(u @ vt))
    r = (u @ np.diag([1, 1, d]) @ vt).T
    aligned = (r @ (a - ca).T).T + cb
    return float(np.sqrt(((aligned - b) ** 2).sum(1).mean()))


def relative_to_first(poses):
    first = np.linalg.inv(poses[0])
    return [first @ p for p in poses]


def open3d_legacy(folder, intrinsic, count):
    frames = []
    for i in range(count):
        color = o3d.io.read_image(f"{folder}/color/{i:05d}.jpg")
        depth = o3d.io.read_image(f"{folder}/depth/{i:05d}.png")
        frames.append(o3d.geometry.RGBDImage.create_from_color_and_depth(color, depth, depth_scale=1000, depth_trunc=4.0))
    poses, seconds, failed = [np.eye(4)], 0.0, 0
    option = o3d.pipelines.odometry.OdometryOption()
    for i in range(1, count):
        start = time.perf_counter()
        ok, motion, _ = o3d.pipelines.odometry.compute_rgbd_odometry(
            frames[i], frames[i - 1], intrinsic, np.eye(4), o3d.pipelines.odometry.RGBDOdometryJacobianFromHybridTerm(), option)
        seconds += time.perf_counter() - start
        failed += 0 if ok else 1
        poses.append(poses[-1] @ motion)
    return poses, seconds / (count - 1), failed


def open3d_tensor(folder, intrinsic, count):
    k = o3d.core.Tensor(intrinsic.intrinsic_matrix, o3d.core.Dtype.Float64)
    frames = []
    for i in range(count):
        color = o3d.t.io.read_image(f"{folder}/color/{i:05d}.jpg")
        depth = o3d.t.io.read_image(f"{folder}/depth/{i:05d}.png")
        frames.append(o3d.t.geometry.RGBDImage(color, depth))
    poses, seconds = [np.eye(4)], 0.0
    criteria = [o3d.t.pipelines.odometry.OdometryConvergenceCriteria(n) for n in (6, 3, 1)]
    for i in range(1, count):
        start = time.perf_counter()
        result = o3d.t.pipelines.odometry.rgbd_odometry_multi_scale(
            frames[i], frames[i - 1], k, o3d.core.Tensor(np.eye(4)), 1000.0, 4.0, criteria,
            o3d.t.pipelines.odometry.Method.PointToPlane)
        seconds += time.perf_counter() - start
        poses.append(poses[-1] @ result.transformation.numpy())
    return poses, seconds / (count - 1)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cloudgen", required=True)
    parser.add_argument("folder")
    parser.add_argument("--intrinsics", help="Open3D intrinsics JSON (default: FOLDER/camera_intrinsic.json or ../camera_primesense.json)")
    args = parser.parse_args()
    folder = os.path.abspath(args.folder)
    intrinsics = args.intrinsics or next(
        p for p in (f"{folder}/camera_intrinsic.json", f"{folder}/camera_primesense.json") if os.path.exists(p))
    truth = relative_to_first(read_log(f"{folder}/trajectory.log"))
    count = len(truth)
    intrinsic = o3d.io.read_pinhole_camera_intrinsic(intrinsics)

    with tempfile.TemporaryDirectory() as scratch:
        trajectory = f"{scratch}/poses.txt"
        run = subprocess.run(
            [args.cloudgen, "capture", "--source", f"redwood:{folder}", "--frames", str(count), "--register",
             "--trajectory", trajectory, "--json"], capture_output=True, text=True)
        if run.returncode != 0:
            sys.exit(f"odometry: cloudgen failed: {run.stderr.strip()}")
        report = json.loads(run.stdout)
        register_ms = next(t["milliseconds"] for t in report["timings"] if t["stage"] == "register")
        ours = read_tum(trajectory)
        refused = run.stderr.count("not registered")
    ours_ms = register_ms / (count - 1)

    legacy, legacy_s, legacy_failed = open3d_legacy(folder, intrinsic, count)
    tensor, tensor_s = open3d_tensor(folder, intrinsic, count)
    rows = [
        ("cloudgen --register", ate(ours, truth), ours_ms, f"{refused} refused"),
        ("Open3D legacy hybrid", ate(legacy, truth), legacy_s * 1000, f"{legacy_failed} failed"),
        ("Open3D tensor point-to-plane", ate(tensor, truth), tensor_s * 1000, ""),
    ]
    print(f"{count} frames of {folder}, ATE against its trajectory.log")
    print(f"{'':30} {'ATE mm':>8} {'ms/pair':>8}  notes")
    for name, error, ms, note in rows:
        print(f"{name:30} {error * 1000:8.2f} {ms:8.1f}  {note}")
    print(f"ratios: ATE cloudgen/legacy {rows[0][1] / max(rows[1][1], 1e-9):.2f}; "
          f"time cloudgen/tensor {rows[0][2] / rows[2][2]:.2f}, cloudgen/legacy {rows[0][2] / rows[1][2]:.2f}")


if __name__ == "__main__":
    main()
