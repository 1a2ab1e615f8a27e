#!/usr/bin/env python3
"""The rendering benchmark's table: cloudgen-bench render's JSON beside open3d_render_bench.py's.

Usage: render_report.py CLOUDGEN.json OPEN3D.json   (written by Tools/bench/run)
Ratio = Open3D median / cloudgen median: above 1 cloudgen is faster. Standard library only.
"""

import json
import sys


def ms(x):
    return f"{x['median_s'] * 1e3:.1f} ({x['min_s'] * 1e3:.1f}) ms"


def rate(x):
    return f", {x['points_per_s'] / 1e6:.0f} M points/s" if "points_per_s" in x else ""


def main():
    ours = json.load(open(sys.argv[1]))
    theirs = json.load(open(sys.argv[2]))
    print(f"\nRendering {ours['points']} points at {ours['size'][0]}x{ours['size'][1]} "
          f"({ours['build']} build, {ours['threads']} cores), median (min):\n")
    print("| stage | cloudgen | Open3D | ratio |")
    print("| --- | --- | --- | --- |")
    o3d = theirs if theirs.get("available") else None

    def row(name, o, t=None):
        other = f"{ms(t)}{rate(t)}" if t else "n/a"
        ratio = f"{t['median_s'] / o['median_s']:.1f}" if t else "n/a"
        print(f"| {name} | {ms(o)}{rate(o)} | {other} | {ratio} |")

    row("rasterise (all cores)", ours["rasterise"])
    row("rasterise (1 thread)", ours["rasterise_one_thread"])
    row("shade", ours["shade"])
    row("draw (cloudgen: rasterise + shade; Open3D: render + read back)",
        {k: ours["rasterise"][k] + ours["shade"][k] for k in ("median_s", "min_s")} | {"points_per_s": ours["points"] / (ours["rasterise"]["median_s"] + ours["shade"]["median_s"])},
        o3d and o3d["render_and_read_back"])
    row(f"PNG encode ({ours['png_bytes']} bytes)", ours["encode_png"], o3d and o3d["write_png"])
    row("render to PNG in process", ours["render_to_png"])
    row("whole process: read PLY, draw, write PNG", ours["process"], o3d and o3d["process"])
    if not o3d:
        print(f"\nOpen3D could not draw: {theirs.get('reason')}")
    else:
        print(f"\nOpen3D {o3d['open3d']}: {o3d['renderer']}.")


if __name__ == "__main__":
    main()
