#!/usr/bin/env python3
"""The rendering benchmark's table: cloudgen-bench render's JSON beside open3d_render_bench.py's.

Usage: render_report.py CLOUDGEN.json OPEN3D.json [CPU.txt CLK_TCK]   (written by Tools/bench/render)
Ratio = Open3D median / cloudgen median: above 1 cloudgen is faster. CPU.txt (lines: NAME wall
user sys busy0 busy1) says how many CPUs other processes kept busy meanwhile. Standard library only.
"""

import json
import sys


def ms(x):
    return f"{x['median_s'] * 1e3:.1f} ({x['min_s'] * 1e3:.1f}) ms"


def rate(x):
    return f", {x['points_per_s'] / 1e6:.0f} M points/s" if "points_per_s" in x else ""


def total(*parts):
    """Stages timed apart, added: the sum of their medians (and of their mins)."""
    return {k: sum(p[k] for p in parts) for k in ("median_s", "min_s")}


def others_load(path, ticks_per_s):
    """CPUs' worth of work other processes did, on average: the machine's busy time over each run
    less the run's own CPU time (the same account as report.py's)."""
    other = wall = 0.0
    for line in open(path):
        _, w, user, system, before, after = line.split()
        wall += float(w)
        other += (int(after) - int(before)) / ticks_per_s - float(user) - float(system)
    return max(0.0, other) / wall if wall else 0.0


def main():
    ours = json.load(open(sys.argv[1]))
    theirs = json.load(open(sys.argv[2]))
    print(f"\nRendering {ours['cloud_name']}, {ours['points']} points, at {ours['size'][0]}x{ours['size'][1]} "
          f"({ours['build']} build, {ours['threads']} cores), median (min):\n")
    print("| stage | cloudgen | Open3D | ratio |")
    print("| --- | --- | --- | --- |")
    o3d = theirs if theirs.get("available") else None

    def row(name, o, t=None):
        other = f"{ms(t)}{rate(t)}" if t else "n/a"
        ratio = f"{t['median_s'] / o['median_s']:.1f}" if t else "n/a"
        print(f"| {name} | {ms(o)}{rate(o)} | {other} | {ratio} |")

    row("read the binary PLY", ours["read"], o3d and o3d.get("read_ply"))
    row("framing: fit distance and centre (all cores)", ours["framing"])
    row("rasterise (all cores)", ours["rasterise"])
    row("rasterise (1 thread)", ours["rasterise_one_thread"])
    row("shade", ours["shade"])
    row("draw (cloudgen: rasterise + shade; Open3D: render + read back)",
        total(ours["rasterise"], ours["shade"]) | {"points_per_s": ours["points"] / (ours["rasterise"]["median_s"] + ours["shade"]["median_s"])},
        o3d and o3d["render_and_read_back"])
    row(f"PNG encode ({ours['png_bytes']} bytes)", ours["encode_png"], o3d and o3d["write_png"])
    row("frame, draw and encode in process", ours["render_to_png"])
    row("read + render + write in process (cloudgen: read + the row above; Open3D: its three rows)",
        total(ours["read"], ours["render_to_png"]),
        o3d and "read_ply" in o3d and total(o3d["read_ply"], o3d["render_and_read_back"], o3d["write_png"]))
    row("whole process: start, read PLY, frame, draw, write PNG", ours["process"], o3d and o3d["process"])
    if not o3d:
        print(f"\nOpen3D could not draw: {theirs.get('reason')}")
    else:
        print(f"\nOpen3D {o3d['open3d']}: {o3d['renderer']}.")
    # In the order the process runs them; a stage this list does not know yet comes last.
    order = ["startup", "read", "bounds", "framing", "rasterise", "shade", "encode", "write"]
    stages = sorted(ours["process_stages_ms"].items(), key=lambda kv: order.index(kv[0]) if kv[0] in order else len(order))
    print("\n`cloudgen render --json`'s own stages, median over the process runs: "
          + ", ".join(f"{k} {v:.1f} ms" for k, v in stages)
          + f"; they add up to {ours['process_stages_share'] * 100:.0f} % (median) of each process's wall time"
          " measured from outside.")
    if len(sys.argv) > 4:
        print(f"\nOther processes kept {others_load(sys.argv[3], int(sys.argv[4])):.2f} CPUs busy on average during these runs.")


if __name__ == "__main__":
    main()
