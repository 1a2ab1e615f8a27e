#!/usr/bin/env python3
"""Open3D's side of the rendering benchmark (Tools/bench/run, Docs/benchmarks.md "Rendering").

Usage: open3d_render_bench.py WORKDIR [--runs N] [--warmup N]
Reads WORKDIR/render-cloud.ply (written by `cloudgen-bench render`) and draws it at 1280x720 the
way Open3D can without a display: its OffscreenRenderer (Filament) needs a GPU driver and aborts
here, so the legacy Visualizer is used, which falls back to an EGL context on Mesa's software
rasteriser (llvmpipe). Times reading the PLY, render + read-back, PNG writing, and a whole new
process that reads, draws and writes. Prints one JSON object.
"""

import json
import os
import subprocess
import sys

import numpy as np
import open3d as o3d

# The same clock and statistics as the rest of Open3D's side (this script's folder is on sys.path).
from open3d_bench import measure

WIDTH, HEIGHT = 1280, 720


ONE_PROCESS = """
import sys, numpy as np, open3d as o3d
cloud = o3d.io.read_point_cloud(sys.argv[1])
vis = o3d.visualization.Visualizer()
vis.create_window(visible=False, width=%d, height=%d)
vis.add_geometry(cloud)
image = np.asarray(vis.capture_screen_float_buffer(do_render=True))
o3d.io.write_image(sys.argv[2], o3d.geometry.Image((image * 255).astype(np.uint8)))
vis.destroy_window()
""" % (WIDTH, HEIGHT)


def main():
    # Open3D and GLFW print their notices on stdout; the JSON object must be alone there.
    stdout = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    args = sys.argv[1:]
    runs, warmup = 20, 3
    workdir = None
    while args:
        a = args.pop(0)
        if a in ("--runs", "--warmup"):
            value = int(args.pop(0))
            if a == "--runs":
                runs = value
            else:
                warmup = value
        else:
            workdir = a
    path = f"{workdir}/render-cloud.ply"
    cloud = o3d.io.read_point_cloud(path)
    vis = o3d.visualization.Visualizer()
    if not vis.create_window(visible=False, width=WIDTH, height=HEIGHT):
        json.dump({"available": False, "reason": "Visualizer.create_window failed without a display"}, stdout)
        return
    vis.add_geometry(cloud)

    def render():
        return np.asarray(vis.capture_screen_float_buffer(do_render=True))

    # Rendering is slow here (software OpenGL): fewer runs keep the benchmark to a minute.
    render_runs = max(3, runs // 4)
    read_t = measure(lambda: o3d.io.read_point_cloud(path), render_runs, 1)
    render_t = measure(render, render_runs, 1)
    pixels = (render() * 255).astype(np.uint8)
    out = f"{workdir}/render-open3d.png"
    encode_t = measure(lambda: o3d.io.write_image(out, o3d.geometry.Image(pixels)), render_runs, 1)
    vis.destroy_window()
    process_t = measure(lambda: subprocess.run([sys.executable, "-c", ONE_PROCESS, path, out], check=True,
                                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL), 3, 0)
    points = len(cloud.points)
    render_t["points_per_s"] = points / render_t["median_s"]
    encode_t["points_per_s"] = points / encode_t["median_s"]
    json.dump({"available": True, "open3d": o3d.__version__, "points": points,
               "renderer": "legacy Visualizer, EGL on Mesa (software)",
               "read_ply": read_t, "render_and_read_back": render_t, "write_png": encode_t, "process": process_t}, stdout, indent=1)
    stdout.write("\n")


if __name__ == "__main__":
    main()
