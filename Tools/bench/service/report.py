#!/usr/bin/env python3
"""The service benchmark's tables (Tools/bench/service/run, Docs/benchmarks.md "Service"), from the
JSON that report.lua wrote for each wrk load and the capture and PLY fetched from each service.

Usage: report.py WORK --seconds N --workers N --machine TEXT --date TEXT --load BEFORE AFTER [--open3d V]
Prints markdown. Exits 1 (after printing) when a load had an error or a non-2xx answer, or when the
two services' PLY files of the same frame hold different numbers of points. Standard library only.
"""

import argparse
import json
import os
import sys

NAMES = {"cloudgen": "cloudgen serve (lazy)", "cloudgen-eager": "cloudgen serve --store-clouds eager",
         "flask": "Flask + Open3D (gunicorn)"}
READS = [("read-json", "cloudgen: `GET /v1/captures/{id}`"),
         ("read-preview", "cloudgen: `GET /v1/captures/{id}/preview.png`, not yet drawn when the load starts"),
         ("read-preview-again", "cloudgen: `GET /v1/captures/{id}/preview.png` again, drawn"),
         ("read-flask-ply", "Flask: `GET /v1/captures/{id}/cloud.ply`")]


def load(work, name):
    path = os.path.join(work, name + ".json")
    if not os.path.exists(path):
        return None
    run = json.load(open(path))
    statuses = {int(k): n for k, n in run["statuses"].items()}
    run["ok"] = sum(n for code, n in statuses.items() if 200 <= code < 300)
    run["non_2xx"] = sum(n for code, n in statuses.items() if not 200 <= code < 300)
    run["other_statuses"] = {code: n for code, n in statuses.items() if not 200 <= code < 300}
    run["socket_error_count"] = sum(run["socket_errors"].values())
    run["rate"] = run["ok"] / (run["duration_us"] / 1e6)
    run["cpu"] = cpu(os.path.join(work, name + ".cpu"), run["duration_us"] / 1e6)
    return run


def cpu(path, seconds):
    """Cores used during a load by the service, by wrk and by everything else on the machine (the
    run script's accounting: busy ticks, the service's ticks, wrk's user and system seconds)."""
    busy, service, wrk_user, wrk_sys, clk_tck = open(path).read().split()
    service_s, busy_s = int(service) / int(clk_tck), int(busy) / int(clk_tck)
    wrk_s = float(wrk_user) + float(wrk_sys)
    return f"{service_s / seconds:.2f} / {wrk_s / seconds:.2f} / {max(busy_s - service_s - wrk_s, 0) / seconds:.2f}"


def ms(us):
    return f"{us / 1e3:.1f} ms"


def errors(run):
    statuses = ", ".join(f"{n}x {code}" for code, n in sorted(run["other_statuses"].items()))
    sockets = ", ".join(f"{n} {kind}" for kind, n in run["socket_errors"].items() if n)
    return f"{run['non_2xx']}{f' ({statuses})' if statuses else ''} | {run['socket_error_count']}{f' ({sockets})' if sockets else ''}"


def ply_points(path):
    """The vertex count and format in a PLY file's header."""
    points, form = None, None
    with open(path, "rb") as f:
        for raw in f:
            line = raw.decode("ascii", "replace").split()
            if line[:2] == ["element", "vertex"]:
                points = int(line[2])
            elif line[:1] == ["format"]:
                form = line[1]
            elif line[:1] == ["end_header"]:
                break
    return points, form


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("work")
    for name in ("--seconds", "--workers", "--machine", "--date", "--open3d"):
        parser.add_argument(name, default="")
    parser.add_argument("--load", nargs=2, default=("?", "?"))
    args = parser.parse_args()
    work = args.work
    sides = [s for s in NAMES if os.path.exists(os.path.join(work, f"upload-{s}.json"))]
    names = dict(NAMES, flask=f"Flask + Open3D {args.open3d} (gunicorn)") if args.open3d else NAMES
    failed = []

    body = os.path.getsize(os.path.join(work, "upload.body"))
    print(f"{args.date}, {args.machine}; {args.workers} workers on each side; wrk on the same machine; "
          f"{args.seconds} s per load; load average {args.load[0]} before the loads, {args.load[1]} after.\n")
    print(f"Uploads: the TUM frame (640x480 depth + colour PNG, one {body:,}-byte multipart body) to a stored binary PLY:\n")
    print("| service | connections | frames/s | p50 | p99 | max | non-2xx | socket errors | cores: service / wrk / others |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    runs = {}
    for prefix, connections in (("upload", 8), ("upload-1", 1)):
        for side in sides:
            run = runs[prefix, side] = load(work, f"{prefix}-{side}")
            lat = run["latency_us"]
            print(f"| {names[side]} | {connections} | {run['rate']:.1f} | {ms(lat['p50'])} | {ms(lat['p99'])} "
                  f"| {ms(lat['max'])} | {errors(run)} | {run['cpu']} |")
            if run["non_2xx"] or run["socket_error_count"]:
                failed.append(f"{prefix} {side}: errors")
    for side in (s for s in sides if s.startswith("cloudgen") and "flask" in sides):
        ratio = runs["upload", side]["rate"] / runs["upload", "flask"]["rate"]
        ratio1 = runs["upload-1", side]["rate"] / runs["upload-1", "flask"]["rate"]
        print(f"\nThroughput {names[side]} / Flask: {ratio:.2f}x with 8 connections (goal: at least 3x), {ratio1:.2f}x with one.")
    for side in (s for s in sides if s.startswith("cloudgen")):
        p99 = runs["upload-1", side]["latency_us"]["p99"]
        print(f"Single frame (one connection), {names[side]}'s p99: {ms(p99)} (goal: under 100 ms).")

    counts, texts = set(), []
    for side in sides:
        points, form = ply_points(os.path.join(work, f"cloud-{side}.ply"))
        answered = json.load(open(os.path.join(work, f"capture-{side}.json"))).get("points")
        counts.add(points)
        texts.append(f"{names[side]} {points:,} points ({form}; its answer said {answered:,})")
        if points != answered:
            failed.append(f"{side}: its PLY has {points} points, its answer said {answered}")
    if len(counts) != 1:
        failed.append("the services' PLY files of the same frame differ in point count")
    if "cloudgen" in sides and "cloudgen-eager" in sides:
        made, written = (open(os.path.join(work, f"cloud-{s}.ply"), "rb").read() for s in ("cloudgen", "cloudgen-eager"))
        same = made == written
        print(f"cloudgen's lazily made PLY and its eagerly written one: {'byte for byte the same' if same else 'DIFFERENT bytes'}.")
        if not same:
            failed.append("cloudgen's lazy and eager PLY files of the same frame differ")
    verdict = "" if len(sides) < 2 else ": the same" if len(counts) == 1 else ": DIFFERENT"
    print(f"\nSame frame, one PLY downloaded from each (lazy cloudgen makes it then): {'; '.join(texts)}{verdict}.")

    reads = [(name, label, load(work, name)) for name, label in READS]
    reads = [r for r in reads if r[2]]
    if reads:
        print("\nReads of one stored capture, 100 connections (goal: no errors):\n")
        print("| route | requests/s | p50 | p99 | max | non-2xx | socket errors | cores: service / wrk / others |")
        print("| --- | --- | --- | --- | --- | --- | --- | --- |")
        for name, label, run in reads:
            lat = run["latency_us"]
            print(f"| {label} | {run['rate']:.0f} | {ms(lat['p50'])} | {ms(lat['p99'])} | {ms(lat['max'])} | {errors(run)} | {run['cpu']} |")
            if run["non_2xx"] or run["socket_error_count"]:
                failed.append(f"{name}: errors")

    if failed:
        print(f"\nbench/service: failed: {'; '.join(failed)}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
