#!/usr/bin/env python3
"""The floor plane of the real frames in ../shared/data, as Open3D and PCL find it.

Usage: open3d_planes.py CLOUDGEN DATA WORKDIR [--runs N] [--json FILE] [--swift]

CLOUDGEN is the cloudgen executable, DATA the ../shared/data folder, WORKDIR an empty folder for
the clouds. These are the references `cloudgen measure`'s floor is held to (issue 12: "the floor
plane equals PCL's own SACSegmentation or Open3D's segment_plane on the same points within 1 cm
and 1 degree"); Tests/CloudPCLTests/RealFloorReferenceTests.swift pins what this prints.

For each input cloudgen captures the cloud to a binary PLY (in the frame cloudgen writes it:
the first camera's for a single frame, x right, y down; the trajectory's world frame for the
fused Redwood sequence). Then, with Open3D:
  1. voxel_down_sample(0.02);
  2. peel planes: segment_plane(distance_threshold=0.02, ransac_n=3, num_iterations=2000) with
     o3d.utility.random.seed(SEED), the inliers removed, until fewer than 10 % of the points are
     left or 8 planes are found;
  3. refit each plane by least squares on its inliers (the normal is the direction of least
     spread of the centred inliers, the offset puts the plane through their centroid);
  4. the floor is the plane with the most inliers among those whose normal is within 30 degrees
     of the first camera's up (-y of that camera; 50 degrees for the PCL grabber frames, whose
     camera looks down at 46 degrees) and that has few points below it (at most 2 % of the
     downsampled cloud more than 5 cm beneath; a table top has the floor under it).
The TUM frame gets a 5 cm threshold instead of 2 cm (steps 2 and PCL's): its floor lies 2 to 4 m
from a Kinect whose noise there is 0.6 to 2.3 cm and whose depth steps are 1 to 4.5 cm (both grow
with the square of the depth), so a 2 cm slab holds only part of the floor's thickness and which part depends on the draw (seven runs gave floors
1.4 degrees apart, and PCL one 2.2 degrees off); at 4-5 cm Open3D and PCL agree within 0.3 degrees.
Open3D 0.20's segment_plane is not reproducible even with a fixed seed (its parallel RANSAC
draws from one shared generator), so steps 2-4 run N times (seeds SEED, SEED+1, ...): the floor
reported is the run's floor nearest to all the others (the medoid), and the spread is the largest
difference between it and any other run's floor: how far this reference itself can be trusted.
And with PCL: Debian's `pcl_sac_segmentation_plane` (RANSAC, then PCL's refineModel) with the
same threshold and iterations, on the downsampled points within 10 cm of Open3D's floor (the
floor band), and on the whole downsampled cloud, where it finds the largest plane: the floor or
not, as the table says.

Planes are n.p + d = 0 with n the unit normal pointing up (toward the first camera's up).
Offsets at the origin amplify a small tilt by the distance to the floor, so the comparisons are
made at the floor inliers' centroid: the angle between the normals, and the distance from the
centroid to the other plane.
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

SEED = 42
LEAF = 0.02
THRESHOLD = 0.02
ITERATIONS = 2000
MAX_PLANES = 8
LEFT_FRACTION = 0.10
BELOW_DEPTH = 0.05
BELOW_FRACTION = 0.02
BAND = 0.10


def inputs(data):
    """The real inputs: (name, cloudgen capture arguments, the first camera's up in the cloud's
    frame, how far from it the floor's normal may be in degrees, the RANSAC threshold in metres)."""
    rgbd = os.path.join(data, "open3d-rgbd")
    fmt = os.path.join(rgbd, "other_formats")
    grabber = os.path.join(data, "pcl-grabber")
    camera_up = np.array([0.0, -1.0, 0.0])
    cases = [("redwood-fused", ["--source", f"redwood:{rgbd}", "--fuse"], first_pose_up(os.path.join(rgbd, "trajectory.log")), 30.0, THRESHOLD),
             ("tum", ["--source", f"rgbd:{fmt}/TUM_color.png,{fmt}/TUM_depth.png",
                      "--intrinsics", os.path.join(rgbd, "camera_primesense.json"), "--depth-scale", "5000"], camera_up, 30.0, 0.05)]
    for stamp in ("20121214T142255.814212", "20121214T142256.068683"):
        frame = os.path.join(grabber, f"frame_{stamp}")
        cases.append((f"pcl-grabber-{stamp[-6:]}", ["--source", f"rgbd:{frame}_rgb.tiff,{frame}_depth.tiff",
                                                    "--intrinsics", f"{frame}.xml"], camera_up, 50.0, THRESHOLD))
    return cases


def first_pose_up(trajectory):
    """-y of the first camera in the world frame: minus the second column of its camera-to-world
    rotation (trajectory.log: a header line, then the 4x4 matrix row by row)."""
    with open(trajectory) as f:
        rows = [list(map(float, f.readline().split())) for _ in range(5)][1:]
    return -np.array(rows)[:3, 1]


def capture(cloudgen, args, out):
    done = subprocess.run([cloudgen, "capture", *args, "--ply", out], capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"open3d_planes: cloudgen capture {' '.join(args)} failed ({done.returncode}): {done.stderr.strip()}")


def refit(points, up):
    """Least-squares plane through `points`: unit normal toward `up`, offset d, centroid, RMS residual."""
    centroid = points.mean(axis=0)
    _, _, vt = np.linalg.svd(points - centroid, full_matrices=False)
    normal = vt[2]
    if normal @ up < 0:
        normal = -normal
    d = -float(normal @ centroid)
    rms = float(np.sqrt(np.mean((points @ normal + d) ** 2)))
    return normal, d, centroid, rms


def peel(cloud, up, threshold):
    """segment_plane in a loop on the remaining points; each plane refitted on its inliers."""
    planes = []
    rest = cloud
    total = len(cloud.points)
    while len(planes) < MAX_PLANES and len(rest.points) >= LEFT_FRACTION * total and len(rest.points) >= 3:
        _, inliers = rest.segment_plane(distance_threshold=threshold, ransac_n=3, num_iterations=ITERATIONS)
        if len(inliers) < 3:
            break
        points = np.asarray(rest.points)[inliers]
        normal, d, centroid, rms = refit(points, up)
        planes.append({"normal": normal, "d": d, "centroid": centroid, "rms": rms, "support": len(inliers)})
        rest = rest.select_by_index(inliers, invert=True)
    return planes


def angle_degrees(a, b):
    return math.degrees(math.acos(max(-1.0, min(1.0, abs(float(a @ b)) / (np.linalg.norm(a) * np.linalg.norm(b))))))


def choose_floor(planes, points, up, tolerance):
    """The best-supported near-horizontal plane with (almost) nothing beneath it, and why each was
    or was not taken."""
    floor = None
    for plane in planes:
        plane["upAngle"] = angle_degrees(plane["normal"], up)
        plane["below"] = float(np.mean(points @ plane["normal"] + plane["d"] < -BELOW_DEPTH))
        plane["floorCandidate"] = plane["upAngle"] <= tolerance and plane["below"] <= BELOW_FRACTION
        if plane["floorCandidate"] and (floor is None or plane["support"] > floor["support"]):
            floor = plane
    return floor


def pcl_plane(points, work, name, up, threshold):
    """pcl_sac_segmentation_plane on `points`: its printed coefficients, normal toward `up`, and its
    inlier count (the points it writes)."""
    source = os.path.join(work, f"{name}.pcd")
    out = os.path.join(work, f"{name}-plane.pcd")
    cloud = o3d.geometry.PointCloud(o3d.utility.Vector3dVector(points))
    o3d.io.write_point_cloud(source, cloud, write_ascii=False)
    done = subprocess.run(["pcl_sac_segmentation_plane", source, out, "-thresh", str(threshold), "-max_it", str(ITERATIONS)],
                          capture_output=True, text=True)
    found = re.search(r"Model coefficients: \[([^\]]+)\]", done.stdout)
    if done.returncode != 0 or not found:
        sys.exit(f"open3d_planes: pcl_sac_segmentation_plane on {source} failed ({done.returncode}): {done.stdout[-300:]} {done.stderr[-300:]}")
    a, b, c, d = map(float, found.group(1).split())
    norm = math.sqrt(a * a + b * b + c * c)
    normal, d = np.array([a, b, c]) / norm, d / norm
    if normal @ up < 0:
        normal, d = -normal, -d
    support = len(o3d.io.read_point_cloud(out).points)
    return {"normal": normal, "d": d, "support": support}


def compare(plane, floor):
    """Angle between the normals, and the distance from the floor inliers' centroid to `plane`."""
    return angle_degrees(plane["normal"], floor["normal"]), abs(float(plane["normal"] @ floor["centroid"] + plane["d"]))


def vec(v, digits=6):
    return "(" + ", ".join(f"{x:.{digits}f}" for x in v) + ")"


def medoid_floor(floors):
    """The floor nearest to all the others (least summed angle), and the largest angle and
    distance (at its centroid) between it and any other."""
    best = min(floors, key=lambda f: sum(compare(g, f)[0] for g in floors))
    spread = [compare(g, best) for g in floors]
    return best, max(a for a, _ in spread), max(d for _, d in spread)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("cloudgen")
    parser.add_argument("data")
    parser.add_argument("work")
    parser.add_argument("--runs", type=int, default=7, help="peel the planes this many times (seeds SEED...), default 7")
    parser.add_argument("--json", help="also write every figure (full precision) to this file")
    parser.add_argument("--swift", action="store_true", help="also print the floors as RealFloorReference constants")
    args = parser.parse_args()

    results = []
    for name, cloudgen_args, up, tolerance, threshold in inputs(args.data):
        up = up / np.linalg.norm(up)
        ply = os.path.join(args.work, f"{name}.ply")
        capture(args.cloudgen, cloudgen_args, ply)
        full = o3d.io.read_point_cloud(ply)
        down = full.voxel_down_sample(LEAF)
        points = np.asarray(down.points)
        runs = []
        for run in range(args.runs):
            o3d.utility.random.seed(SEED + run)
            planes = peel(down, up, threshold)
            runs.append({"planes": planes, "floor": choose_floor(planes, points, up, tolerance)})
        result = {"name": name, "args": cloudgen_args, "up": up, "upTolerance": tolerance, "threshold": threshold, "points": len(full.points),
                  "downsampled": len(points), "runsWithFloor": sum(r["floor"] is not None for r in runs), "floor": None}
        floors = [r["floor"] for r in runs if r["floor"] is not None]
        if floors:
            floor, result["spreadDegrees"], result["spreadMetres"] = medoid_floor(floors)
            result["floor"] = floor
            result["planes"] = next(r["planes"] for r in runs if r["floor"] is floor)
            band = points[np.abs(points @ floor["normal"] + floor["d"]) <= BAND]
            result["band"] = len(band)
            result["pclBand"] = pcl_plane(band, args.work, f"{name}-band", up, threshold)
            result["pclWhole"] = pcl_plane(points, args.work, f"{name}-whole", up, threshold)
        else:
            result["planes"] = runs[0]["planes"]
        results.append(result)

    print(f"Open3D {o3d.__version__}, voxel {LEAF} m, segment_plane(distance_threshold={THRESHOLD}, ransac_n=3, "
          f"num_iterations={ITERATIONS}), {args.runs} runs from seed {SEED}; "
          f"pcl_sac_segmentation_plane -thresh {THRESHOLD} -max_it {ITERATIONS}; TUM's threshold 0.05\n")
    print("| input | points | voxels | planes of the floor's run (support, degrees from up, share below) | "
          "floor: normal, d (m) | support | RMS (mm) | runs with it | spread over runs |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in results:
        planes = "; ".join(f"{p['support']} {p['upAngle']:.0f}° {100 * p['below']:.0f}%" for p in r["planes"])
        f = r["floor"]
        if f is None:
            print(f"| {r['name']} | {r['points']} | {r['downsampled']} | {planes} | none within {r['upTolerance']:.0f}° | - | - | "
                  f"0/{args.runs} | - |")
            continue
        print(f"| {r['name']} | {r['points']} | {r['downsampled']} | {planes} | {vec(f['normal'], 4)}, {f['d']:.4f} | "
              f"{f['support']} | {1000 * f['rms']:.1f} | {r['runsWithFloor']}/{args.runs} | "
              f"{r['spreadDegrees']:.2f}°, {1000 * r['spreadMetres']:.1f} mm |")
    print("\n| input | PCL on | PCL normal, d (m) | PCL support | angle to Open3D floor (°) | distance at floor centroid (mm) |")
    print("|---|---|---|---|---|---|")
    for r in results:
        if r["floor"] is None:
            continue
        for label, key, count in (("floor band", "pclBand", r["band"]), ("whole cloud", "pclWhole", r["downsampled"])):
            p = r[key]
            angle, distance = compare(p, r["floor"])
            print(f"| {r['name']} | {label} ({count} points) | {vec(p['normal'], 4)}, {p['d']:.4f} | {p['support']} | "
                  f"{angle:.3f} | {1000 * distance:.1f} |")

    if args.json:
        with open(args.json, "w") as f:
            json.dump(plain(results), f, indent=1)
    if args.swift:
        print()
        for r in results:
            if r["floor"] is not None:
                print(swift_constant(r, args.data))


def plain(x):
    """`x` with numpy arrays as lists, for json."""
    if isinstance(x, np.ndarray):
        return x.tolist()
    if isinstance(x, dict):
        return {k: plain(v) for k, v in x.items()}
    if isinstance(x, list):
        return [plain(v) for v in x]
    return x


def swift_constant(r, data):
    """A RealFloorReference literal; paths under DATA are written relative to it, as `$DATA/...`."""
    f = r["floor"]
    head, *rest = re.split(r"[-_]", r["name"])
    name = head + "".join(part[:1].upper() + part[1:] for part in rest)
    args = "[" + ", ".join(json.dumps(a.replace(os.path.abspath(data), "$DATA")) for a in r["args"]) + "]"

    def simd(v):
        return "SIMD3(" + ", ".join(repr(float(x)) for x in v) + ")"
    return (f"    static let {name} = RealFloorReference(\n"
            f"        name: \"{r['name']}\", arguments: {args},\n"
            f"        up: {simd(r['up'])}, upTolerance: {r['upTolerance']}, threshold: {r['threshold']},\n"
            f"        normal: {simd(f['normal'])}, offset: {f['d']!r},\n"
            f"        centroid: {simd(f['centroid'])}, support: {f['support']},\n"
            f"        spreadDegrees: {r['spreadDegrees']:.3f}, spreadMetres: {r['spreadMetres']:.4f})")


if __name__ == "__main__":
    main()
