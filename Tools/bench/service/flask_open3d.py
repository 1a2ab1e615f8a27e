#!/usr/bin/env python3
"""The service benchmark's peer (Tools/bench/service/run, Docs/benchmarks.md "Service"): what a user
would otherwise write to take RGB-D uploads to stored point clouds, a small Flask app over Open3D
with cloudgen's upload contract.

    POST /v1/captures                 multipart: depth, color, intrinsics (Open3D JSON) files and a
                                      depth_scale field -> binary PLY stored under a new id, 201 +
                                      JSON {id, created, points, bounds, timings_ms} + Location
    GET  /v1/captures/<id>/cloud.ply  the stored file
    GET  /healthz                     200 once the worker has imported Open3D

Serve it with gunicorn (the run script does: 2 sync workers, as many as the machine's cores):
    BENCH_SERVICE_DATA=DIR gunicorn --workers 2 --chdir Tools/bench/service flask_open3d:app
"""

import json
import math
import os
import tempfile
import time
import uuid
from datetime import datetime, timezone

import open3d as o3d
from flask import Flask, abort, jsonify, request, send_from_directory

app = Flask(__name__)
data_dir = os.environ.get("BENCH_SERVICE_DATA") or exit("flask_open3d: set BENCH_SERVICE_DATA to the folder for the captures")
os.makedirs(data_dir, exist_ok=True)


def read_intrinsics(part):
    # Open3D's PinholeCameraIntrinsic JSON: the matrix is stored column-major.
    doc = json.load(part.stream)
    m = doc["intrinsic_matrix"]
    return o3d.camera.PinholeCameraIntrinsic(doc["width"], doc["height"], m[0], m[4], m[6], m[7])


@app.get("/healthz")
def healthz():
    return "ok\n"


@app.post("/v1/captures")
def create_capture():
    missing = [name for name in ("depth", "color", "intrinsics") if name not in request.files]
    if missing or "depth_scale" not in request.form:
        return jsonify(error=f"missing part(s): {', '.join(missing or ['depth_scale'])}"), 400
    start = time.perf_counter()
    # Open3D decodes images from files only: the usual way is to save the parts, then read them.
    with tempfile.TemporaryDirectory() as tmp:
        paths = {}
        for name in ("depth", "color"):
            part = request.files[name]
            suffix = os.path.splitext(part.filename or "")[1] or ".png"
            paths[name] = os.path.join(tmp, name + suffix)
            part.save(paths[name])
        depth, color = o3d.io.read_image(paths["depth"]), o3d.io.read_image(paths["color"])
    intrinsic = read_intrinsics(request.files["intrinsics"])
    decoded = time.perf_counter()
    # No truncation (every valid depth kept), colour kept as RGB: the same points as cloudgen's capture.
    rgbd = o3d.geometry.RGBDImage.create_from_color_and_depth(
        color, depth, depth_scale=float(request.form["depth_scale"]), depth_trunc=math.inf,
        convert_rgb_to_intensity=False)
    cloud = o3d.geometry.PointCloud.create_from_rgbd_image(rgbd, intrinsic)
    projected = time.perf_counter()
    capture_id = uuid.uuid4().hex
    o3d.io.write_point_cloud(os.path.join(data_dir, capture_id + ".ply"), cloud, write_ascii=False)
    written = time.perf_counter()
    body = {
        "id": capture_id,
        "created": datetime.now(timezone.utc).isoformat(),
        "points": len(cloud.points),
        "bounds": {"min": list(cloud.get_min_bound()), "max": list(cloud.get_max_bound())},
        "timings_ms": {"decode": (decoded - start) * 1e3, "backproject": (projected - decoded) * 1e3,
                       "write": (written - projected) * 1e3},
    }
    return jsonify(body), 201, {"Location": f"/v1/captures/{capture_id}"}


@app.get("/v1/captures/<capture_id>/cloud.ply")
def cloud_ply(capture_id):
    if not all(c in "0123456789abcdef" for c in capture_id):
        abort(404)
    return send_from_directory(data_dir, capture_id + ".ply", mimetype="application/octet-stream")
