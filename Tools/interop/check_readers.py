#!/usr/bin/env python3
"""Reads cloud files with Open3D, plyfile, trimesh and pypcd4 and checks they agree with `cloudgen info`.

Usage: check_readers.py CLOUDGEN FILE...   (run through Tools/interop/run, which makes the venv)
For each PLY/PCD file: the point count every reader sees, whether colors match cloudgen's
reading exactly, and whether the normals (and, where the reader keeps them, the curvature values)
agree between readers. Exits 1 when any reader disagrees.
"""
import json
import subprocess
import sys

import numpy as np
import open3d as o3d


def cloudgen_info(cloudgen, path):
    out = subprocess.run([cloudgen, "info", path, "--json"], check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def open3d_read(path):
    pc = o3d.io.read_point_cloud(path)
    colors = np.round(np.asarray(pc.colors) * 255).astype(np.uint8) if pc.has_colors() else None
    normals = np.asarray(pc.normals) if pc.has_normals() else None
    return np.asarray(pc.points), colors, normals, None  # Open3D keeps no curvature


def plyfile_read(path):
    from plyfile import PlyData

    v = PlyData.read(path)["vertex"].data
    xyz = np.stack([v["x"], v["y"], v["z"]], axis=1).astype(np.float64)
    rgb = np.stack([v["red"], v["green"], v["blue"]], axis=1) if "red" in v.dtype.names else None
    normals = np.stack([v["nx"], v["ny"], v["nz"]], axis=1).astype(np.float64) if "nx" in v.dtype.names else None
    curvature = v["curvature"].astype(np.float64) if "curvature" in v.dtype.names else None
    return xyz, rgb, normals, curvature


def trimesh_read(path):
    import trimesh

    cloud = trimesh.load(path, process=False)
    xyz = np.asarray(cloud.vertices, dtype=np.float64)
    colors = getattr(cloud, "colors", None)
    rgb = np.asarray(colors)[:, :3].astype(np.uint8) if colors is not None and len(colors) else None
    return xyz, rgb, None, None  # trimesh's point clouds keep no normals


def pypcd4_read(path):
    from pypcd4 import PointCloud

    pc = PointCloud.from_path(path)
    arr = pc.numpy(("x", "y", "z"))
    rgb = None
    if "rgb" in pc.fields:
        # PCL declares rgb as F (a packed float) in binary files and U in ascii ones.
        raw = pc.pc_data["rgb"]
        packed = raw.view(np.uint32) if raw.dtype == np.float32 else raw.astype(np.uint32)
        rgb = np.stack([(packed >> 16) & 255, (packed >> 8) & 255, packed & 255], axis=1).astype(np.uint8)
    normals = pc.numpy(("normal_x", "normal_y", "normal_z")).astype(np.float64) if "normal_x" in pc.fields else None
    curvature = pc.pc_data["curvature"].astype(np.float64) if "curvature" in pc.fields else None
    return arr.astype(np.float64), rgb, normals, curvature


def main():
    cloudgen, files = sys.argv[1], sys.argv[2:]
    failed = False
    for path in files:
        info = cloudgen_info(cloudgen, path)
        expected = info["points"]
        readers = {"open3d": open3d_read}
        if path.endswith(".ply"):
            readers["plyfile"] = plyfile_read
            readers["trimesh"] = trimesh_read
        else:
            readers["pypcd4"] = pypcd4_read
        results = {}
        curvatures = []
        for name, read in readers.items():
            xyz, rgb, normals, curvature = read(path)
            finite = np.isfinite(xyz).all(axis=1)
            results[name] = (int(finite.sum()), rgb[finite] if rgb is not None else None, xyz[finite],
                             normals[finite] if normals is not None else None)
            if curvature is not None:
                curvatures.append(curvature[finite])
        counts = {name: r[0] for name, r in results.items()}
        ok = all(c == expected for c in counts.values())
        ref_xyz, ref_rgb, ref_normals = results["open3d"][2], results["open3d"][1], results["open3d"][3]
        if info["hasNormals"] and not curvatures:
            ok = False
            print("  no reader found the curvature field")
        for name, (_, rgb, xyz, normals) in results.items():
            if info["hasNormals"] and name != "trimesh" and (normals is None or ref_normals is None or
                                       not np.allclose(normals, ref_normals, atol=1e-6, equal_nan=True)):
                ok = False
                print(f"  {name}: normals differ from open3d's or are missing")
            if info["hasColors"] and (rgb is None or ref_rgb is None or not np.array_equal(rgb, ref_rgb)):
                ok = False
                print(f"  {name}: colors differ from open3d's or are missing")
            if xyz.shape != ref_xyz.shape or np.abs(xyz - ref_xyz).max(initial=0) > 1e-6:
                ok = False
                print(f"  {name}: coordinates differ from open3d's")
        failed |= not ok
        print(f"{'ok  ' if ok else 'FAIL'} {path}: cloudgen {expected} points, " +
              ", ".join(f"{n} {c}" for n, c in counts.items()) +
              ((", colors equal" if ok else "") if info["hasColors"] else ", no colors") +
              ((", normals equal" if ok else "") if info["hasNormals"] else ""))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
