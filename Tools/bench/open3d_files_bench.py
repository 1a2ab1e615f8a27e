#!/usr/bin/env python3
"""Open3D's side of `cloudgen-bench files`: o3d.io.read_point_cloud on the same files, and
write_point_cloud of the cloud read from fused.ply (binary PLY, binary PCD, compressed PCD).

Usage: open3d_files_bench.py DIR [--runs N] [--warmup N]   (run by Tools/bench/run)
"""

import argparse
import json
import os
import sys

import open3d as o3d

from open3d_bench import measure

FILES = ["fused.ply", "fused.pcd", "fused-compressed.pcd"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dir")
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--warmup", type=int, default=3)
    args = parser.parse_args()
    o3d.utility.set_verbosity_level(o3d.utility.VerbosityLevel.Error)
    reads = {}
    for name in FILES:
        path = os.path.join(args.dir, name)
        reads[name] = measure(lambda: len(o3d.io.read_point_cloud(path).points), args.runs, args.warmup)
    cloud = o3d.io.read_point_cloud(os.path.join(args.dir, "fused.ply"))
    out = os.path.join(args.dir, "open3d-out")
    os.makedirs(out, exist_ok=True)
    writes = {}
    for key, name, compressed in [("ply_binary", "w.ply", False), ("pcd_binary", "w.pcd", False),
                                  ("pcd_binary_compressed", "w-compressed.pcd", True)]:
        path = os.path.join(out, name)
        writes[key] = measure(lambda: o3d.io.write_point_cloud(path, cloud, write_ascii=False, compressed=compressed),
                              args.runs, args.warmup)
        writes[key]["bytes"] = os.path.getsize(path)
    json.dump({"open3d": o3d.__version__, "points": len(cloud.points), "reads": reads, "writes": writes}, sys.stdout, indent=2)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
