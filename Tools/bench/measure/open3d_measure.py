#!/usr/bin/env python3
"""Open3D's side of the measure benchmark (Tools/bench/measure/run, Docs/benchmarks.md): what a
room-measurement script does today without `cloudgen measure`. Reads a cloud, downsamples it with
voxel_down_sample(LEAF), then peels planes with segment_plane (distance 0.02 m, ransac_n 3, 1000
iterations), removing each plane's inliers, until 6 planes are found or fewer than 10 % of the
downsampled points are left.

Usage: open3d_measure.py CLOUD [--leaf L] [--json]
Timed from outside as a whole process (Python start-up and `import open3d` included). With --json
it prints one JSON object: its own stage times (after start-up and import) and the planes found
(unit normal, offset d with n.p + d = 0, inlier count); otherwise one line per plane.
"""

import argparse
import json
import sys
import time

import open3d as o3d

THRESHOLD = 0.02
ITERATIONS = 1000
MAX_PLANES = 6
LEFT_FRACTION = 0.10


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cloud")
    parser.add_argument("--leaf", type=float, default=0.02, help="voxel size in metres (default 0.02)")
    parser.add_argument("--json", action="store_true", help="print stage times and planes as JSON")
    args = parser.parse_args()

    stages = {}
    start = time.perf_counter()
    cloud = o3d.io.read_point_cloud(args.cloud)
    if not cloud.has_points():
        sys.exit(f"open3d_measure: {args.cloud}: no points (missing or unreadable file)")
    stages["read"] = time.perf_counter() - start

    start = time.perf_counter()
    rest = cloud.voxel_down_sample(args.leaf)
    stages["voxel"] = time.perf_counter() - start

    start = time.perf_counter()
    total = len(rest.points)
    planes = []
    while len(planes) < MAX_PLANES and len(rest.points) >= max(3, LEFT_FRACTION * total):
        model, inliers = rest.segment_plane(distance_threshold=THRESHOLD, ransac_n=3, num_iterations=ITERATIONS)
        if len(inliers) < 3:
            break
        planes.append({"normal": [float(v) for v in model[:3]], "d": float(model[3]), "support": len(inliers)})
        rest = rest.select_by_index(inliers, invert=True)
    stages["planes"] = time.perf_counter() - start

    if args.json:
        json.dump({"open3d": o3d.__version__, "points": len(cloud.points), "voxels": total, "leaf": args.leaf,
                   "left": len(rest.points), "seconds": stages, "planes": planes}, sys.stdout)
        print()
    else:
        for p in planes:
            print(f"normal {p['normal'][0]:+.4f} {p['normal'][1]:+.4f} {p['normal'][2]:+.4f}  d {p['d']:+.4f}  "
                  f"support {p['support']}")


if __name__ == "__main__":
    main()
