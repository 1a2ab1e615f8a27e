#!/usr/bin/env python3
"""Checks a generated room against its truth.json with Open3D alone: reads the Redwood folder
with Open3D's readers, back-projects every frame through its trajectory.log pose, takes the
points into the room frame and reports how far they lie from the nearest true surface.

    check_room.py ROOMDIR [--frames N]

Without depth noise and drift, every point must lie on a surface to within the millimetre
quantisation (and the float32 ray casting); that proves the files, the poses and the ground
truth's frames agree, independently of cloudgen.
"""
import argparse
import glob
import json
import os

import numpy as np
import open3d as o3d


def surface_distance(truth, pts):
    """Distance of room-frame points to the nearest of: floor, ceiling, the walls' planes
    (within their extent) and the doorway's space. Furniture is left out: points on it are
    reported by the caller as far from the shell."""
    poly = np.array(truth["floorPolygon"])
    best = np.minimum(np.abs(pts[:, 2]), np.abs(pts[:, 2] - truth["height"]))
    for w in truth["walls"]:
        a, b = np.array(w["start"]), np.array(w["end"])
        u = (b - a) / np.linalg.norm(b - a)
        rel = pts[:, :2] - a
        along = rel @ u
        across = np.abs(rel @ np.array([-u[1], u[0]]))
        ok = (along > -0.01) & (along < np.linalg.norm(b - a) + 0.01)
        best = np.where(ok, np.minimum(best, across), best)
    del poly
    return best


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("room")
    ap.add_argument("--frames", type=int, default=6)
    a = ap.parse_args()
    truth = json.load(open(os.path.join(a.room, "truth.json")))
    rw = os.path.join(a.room, "redwood")
    intr = o3d.io.read_pinhole_camera_intrinsic(os.path.join(rw, "camera_intrinsic.json"))
    traj = o3d.io.read_pinhole_camera_trajectory(os.path.join(rw, "trajectory.log"))
    depths = sorted(glob.glob(os.path.join(rw, "depth", "*.png")))
    room_from_world = np.linalg.inv(np.array(truth["roomToWorld"]))
    step = max(1, len(depths) // a.frames)
    for i in range(0, len(depths), step):
        d = o3d.io.read_image(depths[i])
        pc = o3d.geometry.PointCloud.create_from_depth_image(d, intr, traj.parameters[i].extrinsic, depth_scale=1000.0, depth_trunc=10.0)
        pts = np.asarray(pc.points)
        pts = pts @ room_from_world[:3, :3].T + room_from_world[:3, 3]
        dist = surface_distance(truth, pts)
        near = dist < 0.05
        print(f"frame {i}: {len(pts)} points, {near.mean() * 100:.1f} % within 5 cm of the shell, "
              f"their median {np.median(dist[near]) * 1000:.2f} mm, 99th pct {np.percentile(dist[near], 99) * 1000:.2f} mm")


if __name__ == "__main__":
    main()
