#!/usr/bin/env python3
"""Generates rooms with a known ground truth as Redwood (and optionally TUM) captures.

    generate.py --out DIR [--seed S] [--rooms N] [--kinds box,L,T,cut] [--sensor kinect|phone]
                [--drift] [--tum] [--walk]

Each room goes to DIR/room-SEED-INDEX/: redwood/ (color/, depth/, camera_intrinsic.json,
trajectory.log), tum/ with --tum, and truth.json beside them. Every random choice of a room comes
from one numpy Generator seeded with (seed, index), so a room can be made again on its own.
See README.md for the models and the ground truth's keys.
"""
import argparse
import json
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from plans import KINDS, make_plan, polygon_area, polygon_perimeter  # noqa: E402
from rooms import Room, build_room  # noqa: E402
from scans import drift, pick_stations, station_pan, walk_path  # noqa: E402
from sensors import Renderer, sensor_spec, spoil  # noqa: E402
from writers import RedwoodWriter, TUMWriter  # noqa: E402

# Per-frame steps of the recorded poses' random walk (--drift), as the brief of issue 19 sets.
SCAN_DRIFT = (0.15, 3.0)
# The walk has many more frames; smaller steps keep its accumulated drift at a few centimetres.
WALK_DRIFT = (0.03, 2.0)


def _stations_for(kind, rng):
    if kind in ("L", "T"):
        return int(rng.integers(2, 4))
    return int(rng.integers(1, 3))


def _scan_room(kind, rng, stations=None, furniture=None, doorway=None):
    room = build_room(kind, rng, furniture=furniture, doorway=doorway)
    n = _stations_for(kind, rng) if stations is None else stations
    spots = pick_stations(room, n, rng)
    poses = []
    for s in spots:
        # Several stations share the room's ~40 frames a station would otherwise take alone.
        poses += station_pan(s, rng, yaws=int(rng.integers(10, 15)) if len(spots) == 1 else int(rng.integers(8, 11)),
                             pitches=int(rng.integers(2, 4)) if len(spots) == 1 else 2)
    return room, spots, poses


def _walk_room(rng, frames=None):
    """A 6-7 m room with furniture, objects on the floor and a doorway into another room, walked
    round with a phone."""
    room = Room(make_plan("box", rng), rng)
    w, d = rng.uniform(6.0, 7.0, 2)
    room.poly = np.array([(0, 0), (w, 0), (w, d), (0, d)], dtype=float)
    room.plan["polygon"] = room.poly
    room.plan["parts"] = [(0.0, 0.0, float(w), float(d))]
    from plans import walls_of
    room.walls = walls_of(room.poly)
    room.add_doorway(big_room_behind=True)
    room.add_furniture(int(rng.integers(3, 5)))
    n = int(rng.integers(100, 301)) if frames is None else frames
    poses = walk_path(room, n, rng)
    path = np.array([p[:2, 3] for p in poses])

    def on_path(corners):
        return (np.min(np.linalg.norm(path[:, None, :] - corners[None], axis=2)) < 0.5)

    room.add_floor_objects(int(rng.integers(4, 9)), keep_clear=on_path)
    room.build_surfaces()
    return room, [p[:3, 3] for p in poses[:1]], poses


def wall_visibility(room, renderer, depth, surf, valid, dirs, cam, seen):
    """Adds this frame's valid wall pixels to `seen`: per wall a pixel count and the 10 cm
    columns along it that had any."""
    # Walls are the first surfaces (rooms.Room.build_surfaces), so their index is the wall's.
    m = valid & (surf >= 0) & (surf < len(room.walls))
    which = surf[m]
    pts = cam[:3, 3] + depth[m][:, None].astype(np.float64) * dirs[m]
    for i, w in enumerate(room.walls):
        mine = which == i
        if not mine.any():
            continue
        along = (pts[mine, :2] - w["start"]) @ w["dir"]
        cols = np.clip((along / 0.1).astype(int), 0, seen[i]["columns"].size - 1)
        seen[i]["columns"][cols] = True
        seen[i]["pixels"] += int(mine.sum())
        # Columns whose top 15 cm was seen: measure tells walls from furniture by whether they
        # reach the ceiling, which a pan's top pitch misses on walls near the station.
        top = pts[mine, 2] > room.height - 0.15
        seen[i]["top"][cols[top]] = True


def generate(out, seed, index, kind, sensor, use_drift=False, tum=False, walk=False, stations=None,
             furniture=None, doorway=None, frames=None, noise=True):
    t0 = time.time()
    rng = np.random.default_rng([seed, index])
    if walk:
        room, spots, poses = _walk_room(rng, frames)
        sensor = "phone"
    else:
        room, spots, poses = _scan_room(kind, rng, stations, furniture, doorway)
    spec = sensor_spec(sensor)
    rd = WALK_DRIFT if walk else SCAN_DRIFT
    recorded = drift(poses, rng, *rd) if (use_drift or walk) else poses
    # The world is the first camera's frame: every recorded pose is taken relative to it.
    world_from_room = np.linalg.inv(poses[0])
    folder = os.path.join(out, f"room-{seed}-{index:04d}")
    writers = [RedwoodWriter(os.path.join(folder, "redwood"), spec)]
    if tum:
        writers.append(TUMWriter(os.path.join(folder, "tum"), spec))
    renderer = Renderer(room.surfaces, spec)
    light = rng.normal(size=3)
    light[2] = abs(light[2]) + 1.0
    light /= np.linalg.norm(light)
    seen = [{"pixels": 0, "columns": np.zeros(int(np.ceil(w["length"] / 0.1)) + 1, dtype=bool),
             "top": np.zeros(int(np.ceil(w["length"] / 0.1)) + 1, dtype=bool)} for w in room.walls]
    for k, (true_pose, rec_pose) in enumerate(zip(poses, recorded)):
        depth, surf, normals, dirs = renderer.cast(true_pose)
        mm = spoil(depth, spec, rng, noise=noise)
        color = renderer.shade(surf, normals, dirs, light)
        wall_visibility(room, renderer, depth, surf, mm > 0, dirs, true_pose, seen)
        cam_to_world = world_from_room @ rec_pose
        for w in writers:
            w.add(k, color, mm, cam_to_world)
    for w in writers:
        w.close()
    truth = ground_truth(room, seed, index, kind if not walk else "walk", sensor, spots, poses, recorded,
                         world_from_room, seen, use_drift or walk, rd, tum, noise)
    truth["generateSeconds"] = round(time.time() - t0, 2)
    with open(os.path.join(folder, "truth.json"), "w") as f:
        json.dump(truth, f, indent=1)
    return folder, truth


def _r(x, n=6):
    return np.round(np.asarray(x, dtype=float), n).tolist()


def ground_truth(room, seed, index, kind, sensor, spots, poses, recorded, world_from_room, seen, drifted, rd, tum, noise):
    walls = []
    for w, s in zip(room.walls, seen):
        walls.append({"index": w["index"], "start": _r(w["start"]), "end": _r(w["end"]), "length": round(w["length"], 6),
                      "inward": _r(w["inward"]), "seenPixels": s["pixels"],
                      "seenFraction": round(float(s["columns"][:-1].mean()) if s["columns"].size > 1 else 0.0, 3),
                      "topSeenFraction": round(float(s["top"][:-1].mean()) if s["top"].size > 1 else 0.0, 3),
                      "unseen": s["pixels"] < 50})
    # How far the last recorded pose is from the true one: the drift a measurement must absorb.
    last = np.linalg.inv(poses[-1]) @ recorded[-1]
    final_drift = {"mm": round(float(np.linalg.norm(recorded[-1][:3, 3] - poses[-1][:3, 3]) * 1000), 1),
                   "degrees": round(float(np.degrees(np.arccos(np.clip((np.trace(last[:3, :3]) - 1) / 2, -1, 1)))), 3)}
    truth = {
        "schema": "cloudgen.rooms-truth/1",
        "seed": seed, "index": index, "kind": kind, "sensor": sensor, "depthNoise": noise,
        "frames": len(poses),
        "stations": [_r(s, 4) for s in spots] if kind != "walk" else [],
        "drift": {"degreesPerFrame": rd[0], "mmPerFrame": rd[1], "final": final_drift} if drifted else None,
        "height": round(room.height, 6),
        "floorPolygon": _r(room.poly),
        "roomToWorld": _r(world_from_room, 9),
        "walls": walls,
        "area": round(polygon_area(room.poly), 6),
        "perimeter": round(polygon_perimeter(room.poly), 6),
        "unseenWalls": [w["index"] for w in walls if w["unseen"]],
        "doorway": room.door,
        "behind": None if room.behind is None else {"kind": room.behind["kind"], "polygon": _r(room.behind["polygon"]),
                                                    "height": round(room.behind["height"], 6)},
        "furniture": [{"kind": f["kind"], "wall": f["wall"], "height": round(f["height"], 4), "footprint": _r(f["footprint"], 4)}
                      for f in room.furniture],
        "objects": [{"height": round(f["height"], 4), "footprint": _r(f["footprint"], 4)} for f in room.objects],
        "folders": {"redwood": "redwood", "tum": "tum" if tum else None},
    }
    return truth


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--rooms", type=int, default=1)
    ap.add_argument("--first", type=int, default=0, help="index of the first room")
    ap.add_argument("--kinds", default="box,L,T,cut")
    ap.add_argument("--sensor", default="kinect", choices=["kinect", "phone"])
    ap.add_argument("--stations", type=int)
    ap.add_argument("--furniture", type=int)
    ap.add_argument("--doorway", choices=["yes", "no"])
    ap.add_argument("--drift", action="store_true")
    ap.add_argument("--no-noise", action="store_true")
    ap.add_argument("--tum", action="store_true")
    ap.add_argument("--walk", action="store_true")
    ap.add_argument("--frames", type=int, help="walk: number of frames (default 100-300)")
    a = ap.parse_args(argv)
    kinds = a.kinds.split(",")
    for k in kinds:
        if k not in KINDS:
            ap.error(f"unknown kind {k} (one of {', '.join(KINDS)})")
    for i in range(a.first, a.first + a.rooms):
        folder, truth = generate(a.out, a.seed, i, kinds[i % len(kinds)], a.sensor, a.drift, a.tum, a.walk, a.stations,
                                 a.furniture, None if a.doorway is None else a.doorway == "yes", a.frames, not a.no_noise)
        print(f"{folder}: {truth['kind']}, {truth['frames']} frames, {len(truth['walls'])} walls, "
              f"{len(truth['furniture'])} furniture, door {'yes' if truth['doorway'] else 'no'}, "
              f"unseen walls {truth['unseenWalls']}, {truth['generateSeconds']} s")


if __name__ == "__main__":
    main()
