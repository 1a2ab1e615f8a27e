#!/usr/bin/env python3
"""Puts the JSON reports of cloudgen-bench and open3d_bench.py side by side as markdown.

Usage: report.py WORKDIR   (the work dir of Tools/bench/run: cloudgen.json, cloudgen-1core.json,
open3d.json, machine.json, cpu.txt)
Ratio = Open3D median time / cloudgen median time: above 1 cloudgen is faster. Exits 1 when the
two sides' point counts differ, because then the timings do not compare like with like. When the
run timed real files (cloudgen-bench --data), a second table shows those pipelines end to end and
by stage, and frames/s for the fused sequence; with --grabber, a third shows the cleaning pipeline
(voxel, outlier removal, normals) on the grabber and TUM frames.
Standard library only.
"""

import json
import os
import sys


def t(x):
    """Median (min) in milliseconds."""
    return f"{x['median_s'] * 1e3:.2f} ({x['min_s'] * 1e3:.2f}) ms"


def ratio(ours, theirs):
    return f"{theirs['median_s'] / ours['median_s']:.2f}"


def row(out, stage, o, o1, th, extra=lambda x: ""):
    """A table row: cloudgen on all cores and on one, Open3D, and the two ratios."""
    out.append(f"| {stage} | {t(o)}{extra(o)} | {t(o1)}{extra(o1)} | {t(th)}{extra(th)} "
               f"| {ratio(o, th)} | {ratio(o1, th)} |")


def others_load(path, ticks_per_s):
    """CPUs' worth of work other processes did while the benchmarks ran, on average: the machine's
    busy time over each run less the run's own CPU time. Lines: NAME wall user sys busy0 busy1."""
    other = wall = 0.0
    with open(path) as f:
        for line in f:
            _, w, user, system, before, after = line.split()
            wall += float(w)
            other += (int(after) - int(before)) / ticks_per_s - float(user) - float(system)
    return max(0.0, other) / wall if wall else 0.0


# The stages `cloudgen capture --json` reports, which Open3D's side laps under the same names.
STAGES = {
    "acquire": "open the source, read + decode the images",
    "convert": "convert (depth to metres, color at the depth size)",
    "backProject": "back-projection",
    "toWorld": "transform by the pose",
    "fuse": "concatenate",
    "write": "write binary PLY",
    "voxel": "voxel grid 1 cm",
    "sor": "outlier removal SOR(20, 2)",
    "normals": "normals 5 cm, toward the camera",
}


def filter_pipelines(out, ours, ours1, theirs):
    """The cleaning pipeline beside Open3D, by stage with the points each side kept. Returns
    whether both sides back-projected the same points (the later counts differ a little: Open3D's
    voxel grid starts at the cloud's corner, PCL's at a multiple of the leaf)."""
    out += [
        "",
        "Cleaning pipeline: frame files -> cloud -> voxel 1 cm -> SOR(20, 2) -> normals 5 cm -> binary PLY "
        "(Open3D's outlier removal and normals use both cores, as cloudgen's do):",
        "",
        "| frame, stage (points after it: cloudgen / Open3D) | cloudgen | cloudgen, 1 core | Open3D | ratio | ratio, 1 core |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    same = True
    for key, title in (("grabber_frame", "PCL grabber frame"), ("tum_frame", "TUM frame")):
        o, o1, th = ours[key]["timing"], ours1[key]["timing"], theirs[key]["timing"]
        row(out, f"{title}: whole", o["whole"], o1["whole"], th["whole"])
        for stage in o["stage_order"]:
            label = STAGES[stage]
            if stage in ours[key]["points"] and stage in theirs[key]["points"]:
                label += f" ({ours[key]['points'][stage]} / {theirs[key]['points'][stage]})"
            if stage == "write":
                label += f" ({ours[key]['bytes'] / 1e6:.2f} MB / Open3D {theirs[key]['bytes'] / 1e6:.2f} MB)"
            row(out, f"{title}: {label}", o["stages"][stage], o1["stages"][stage], th["stages"][stage])
        same = same and ours[key]["points"]["backProject"] == theirs[key]["points"]["backProject"]
    return same


def pipelines(out, ours, ours1, theirs):
    """The real-file pipelines: a table beside Open3D, the simulated orbit alone, and the point
    checks. Returns whether every point count matched."""
    def fps(x, frames):
        return f"{frames / x['median_s']:.1f} ({frames / x['min_s']:.1f}) frames/s"

    def per_frame(x, frames):
        return {k: x[k] / frames for k in ("median_s", "min_s")}

    tum, redwood = ours["tum_frame"], ours["redwood_sequence"]
    out += [
        "",
        "Real files to binary PLY, end to end (files in the page cache; no depth truncation on either side):",
        "",
        "| pipeline, stage | cloudgen | cloudgen, 1 core | Open3D | ratio | ratio, 1 core |",
        "| --- | --- | --- | --- | --- | --- |",
    ]

    for key, title in (("tum_frame", f"TUM frame ({tum['points']} points)"),
                       ("redwood_sequence", f"Redwood, {redwood['frames']} frames fused ({redwood['points']} points)")):
        o, o1, th = ours[key]["timing"], ours1[key]["timing"], theirs[key]["timing"]
        frames = ours[key]["frames"]
        if frames == 1:
            row(out, f"{title}: whole", o["whole"], o1["whole"], th["whole"])
        else:
            row(out, f"{title}: whole", o["whole"], o1["whole"], th["whole"], lambda x: ", " + fps(x, frames))
            row(out, f"{title}: per frame (whole / {frames})", per_frame(o["whole"], frames),
                per_frame(o1["whole"], frames), per_frame(th["whole"], frames))
        for stage in o["stage_order"]:
            label = STAGES[stage]
            if stage == "write":
                label += f" ({ours[key]['bytes'] / 1e6:.2f} MB / Open3D {theirs[key]['bytes'] / 1e6:.2f} MB)"
            row(out, f"{title}: {label}", o["stages"][stage], o1["stages"][stage], th["stages"][stage])

    orbit, orbit1 = ours["synthetic_orbit"], ours1["synthetic_orbit"]
    n = orbit["frames"]
    stages = ", ".join(f"{s} {orbit['timing']['stages'][s]['median_s'] * 1e3:.1f}"
                       for s in orbit["timing"]["stage_order"])
    out += [
        "",
        f"cloudgen alone, not compared (Open3D has no simulated camera): `{orbit['source']}` fused into one "
        f"binary PLY ({orbit['points']} points, {orbit['bytes'] / 1e6:.2f} MB), median (min) of "
        f"{orbit['timing']['whole']['runs']} runs: {fps(orbit['timing']['whole'], n)}, "
        f"{fps(orbit1['timing']['whole'], n)} on 1 core; stage medians per run in ms: {stages}.",
        "",
        "Point counts of the real-file pipelines (our PLY read back with Open3D and compared point by point):",
    ]
    same = True
    for key, name in (("tum_frame", "TUM frame"), ("redwood_sequence", "Redwood fused")):
        o, th = ours[key], theirs[key]
        check = th["check"]
        equal = o["points"] == th["points"] == check["cloudgen_points"]
        same = same and equal
        line = f"- {name}: cloudgen {o['points']}, Open3D {th['points']} ({'equal' if equal else 'DIFFERENT'})"
        if "max_position_difference_m" in check:
            line += (f"; largest position difference {check['max_position_difference_m']:.1e} m, "
                     f"{check['colors_differing']} colors differing")
        out.append(line)
    return same


def main():
    work = sys.argv[1]
    ours, ours1, theirs, machine = (json.load(open(os.path.join(work, n))) for n in
                                    ("cloudgen.json", "cloudgen-1core.json", "open3d.json", "machine.json"))
    load = others_load(os.path.join(work, "cpu.txt"), machine["clk_tck"])
    heap = (f"glibc malloc keeping freed memory (GLIBC_TUNABLES={machine['glibc_tunables']})"
            if machine["glibc_tunables"] else "default glibc malloc settings")
    out = [
        f"- Machine: {machine['cpu']}, {machine['nproc']} CPUs (nproc); {machine['os']}; "
        f"{machine['date']}; other processes used {load:.2f} CPUs on average during the runs",
        f"- Software: {machine['swift']}, cloudgen-bench {ours['build']} build; Open3D {theirs['open3d']} "
        f"(PyPI open3d-cpu), numpy {theirs['numpy']}, Python {theirs['python']}",
        f"- Each figure: median (min) of {ours['runs']} timed runs after {ours['warmup']} warm-up runs. "
        "Ratio = Open3D time / cloudgen time: above 1 cloudgen is faster. \"1 core\": cloudgen-bench "
        "pinned to one CPU with taskset (the Open3D stages timed here are single-threaded). "
        f"Both sides ran with {heap}.",
        "",
        "| stage | cloudgen | cloudgen, 1 core | Open3D | ratio | ratio, 1 core |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    if load > 0.2:
        out.insert(0, f"**Other processes kept {load:.2f} CPUs busy during these runs: the figures below "
                      "are skewed by them. Rerun on a quiet machine.**\n")
    labels = {"A": "A (640x480 mm16, color 640x480)", "B": "B (256x192 Float16, color 1920x1440)"}

    def pts(x):
        return f", {x['points_per_s'] / 1e6:.0f} M points/s" if "points_per_s" in x else ""

    def mbs(x):
        return f", {x['mb_per_s']:.0f} MB/s" if "mb_per_s" in x else ""

    for name in ("A", "B"):
        o, o1, th = ours["frames"][name], ours1["frames"][name], theirs["frames"][name]
        row(out, f"{labels[name]}: raw frame -> metres + RGB", o["convert"], o1["convert"], th["convert"])
        row(out, f"{labels[name]}: back-projection", o["backproject"], o1["backproject"], th["backproject"], pts)
        # Open3D's two stages were timed apart; their sum stands for the whole.
        whole = {k: th["convert"][k] + th["backproject"][k] for k in ("median_s", "min_s")}
        row(out, f"{labels[name]}: raw frame -> cloud", o["frame_to_cloud"], o1["frame_to_cloud"], whole)
    names = {"ply_binary": "binary PLY", "pcd_binary": "binary PCD", "pcd_binary_compressed": "binary_compressed PCD"}
    for key, label in names.items():
        o, o1, th = ours["writes_a"][key], ours1["writes_a"][key], theirs["writes_a"][key]
        row(out, f"write A's cloud, {label} ({o['bytes'] / 1e6:.2f} MB / Open3D {th['bytes'] / 1e6:.2f} MB)",
            o, o1, th, mbs)

    out.append("")
    out.append("cloudgen's raw frame -> metres + RGB, split into depth only / color only: " + "; ".join(
        f"{n} {t(ours['frames'][n]['convert_depth_only'])} / {t(ours['frames'][n]['convert_color_only'])}"
        for n in ("A", "B")) + ".")
    out.append(f"Open3D's color for B: {theirs['frames']['B']['color_path']}.")
    out.append("")
    out.append("Point counts (no depth truncation on either side):")
    same = True
    for name in ("A", "B"):
        o, th = ours["frames"][name], theirs["frames"][name]
        check = th.get("check", {})
        equal = o["points"] == th["points"]
        same = same and equal
        line = (f"- {name}: cloudgen {o['points']}, Open3D {th['points']} ({'equal' if equal else 'DIFFERENT'}; "
                f"{o['valid_pixels']} of {o['depth'][0] * o['depth'][1]} depth pixels are valid)")
        if "max_position_difference_m" in check:
            line += (f"; point by point: largest position difference {check['max_position_difference_m']:.1e} m, "
                     f"largest color difference {check['max_color_difference']}")
        out.append(line)
    if "pipelines" in ours:
        same = pipelines(out, ours["pipelines"], ours1["pipelines"], theirs["pipelines"]) and same
    if "filter_pipelines" in ours:
        same = filter_pipelines(out, ours["filter_pipelines"], ours1["filter_pipelines"], theirs["filter_pipelines"]) and same
    ref = theirs.get("reference_tum")
    if ref:
        out.append("")
        out.append(f"Open3D alone on the real TUM frame ({ref['frame']}, {ref['points']} points): "
                   f"frame -> cloud {t(ref['frame_to_cloud'])}, binary PLY write {t(ref['write_ply_binary'])} "
                   f"({ref['write_ply_binary']['bytes'] / 1e6:.2f} MB).")
    print("\n".join(out))
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
