#!/usr/bin/env python3
"""Open3D's side of the whole-process cleaning pipeline (Tools/bench/startup, Docs/benchmarks.md
"Start-up"): one RGBD frame's two image files -> cloud -> voxel grid 1 cm -> statistical outlier
removal (20, 2) -> normals within 5 cm (hybrid search, 30 neighbours) turned toward the camera ->
binary PLY, timed inside this process (after Python has started and imported Open3D), as an Open3D
user would run it in a long-lived program.

Usage: open3d_pipeline.py COLOR DEPTH INTRINSICS_JSON DEPTH_SCALE OUT_PLY [--runs N] [--warmup N]
Prints one JSON object: median and min seconds, and the point count after each stage.
"""

import argparse
import json
import math
import os
import sys

import numpy as np
import open3d as o3d

# The same clock and statistics as the rest of Open3D's side (this script's folder is on sys.path).
from open3d_bench import measure, read_image, write_ply


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for name in ("color", "depth", "intrinsics", "depth_scale", "out"):
        parser.add_argument(name)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--warmup", type=int, default=2)
    args = parser.parse_args()
    points = {}

    def pipeline():
        intrinsic = o3d.io.read_pinhole_camera_intrinsic(args.intrinsics)
        color, depth = read_image(args.color), read_image(args.depth)
        rgbd = o3d.geometry.RGBDImage.create_from_color_and_depth(
            color, depth, depth_scale=float(args.depth_scale), depth_trunc=math.inf, convert_rgb_to_intensity=False)
        cloud = o3d.geometry.PointCloud.create_from_rgbd_image(rgbd, intrinsic)
        points["backproject"] = len(cloud.points)
        cloud = cloud.voxel_down_sample(0.01)
        points["voxel"] = len(cloud.points)
        cloud, _ = cloud.remove_statistical_outlier(nb_neighbors=20, std_ratio=2.0)
        points["sor"] = len(cloud.points)
        cloud.estimate_normals(o3d.geometry.KDTreeSearchParamHybrid(radius=0.05, max_nn=30))
        cloud.orient_normals_towards_camera_location(np.zeros(3))
        write_ply(args.out, cloud)

    timing = measure(pipeline, args.runs, args.warmup)
    json.dump({"open3d": o3d.__version__, "timing": timing, "points": points, "bytes": os.path.getsize(args.out)},
              sys.stdout)
    print()


if __name__ == "__main__":
    main()
