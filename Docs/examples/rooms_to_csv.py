#!/usr/bin/env python3
"""Measure rooms with cloudgen and write one CSV row per room: the example script of Docs/measure.md.

    Docs/examples/rooms_to_csv.py scan1.ply scan2.pcd ... > rooms.csv
    cloudgen measure scan.ply --json | Docs/examples/rooms_to_csv.py -

Each value is written with its 1-sigma uncertainty; a value cloudgen did not see is left empty and
its reason goes to stderr. Reads schema cloudgen.measure/1 and refuses any other. Set CLOUDGEN to
the executable (default: cloudgen on PATH).
"""
import csv
import json
import os
import subprocess
import sys

SCHEMA = "cloudgen.measure/1"


def measure(path):
    """The report for one file ("-": a report on stdin)."""
    if path == "-":
        return json.load(sys.stdin)
    run = subprocess.run([os.environ.get("CLOUDGEN", "cloudgen"), "measure", path, "--json"],
                         capture_output=True, text=True)
    if run.returncode != 0:
        # cloudgen's one error line names the file and the problem.
        raise RuntimeError(run.stderr.strip())
    return json.loads(run.stdout)


def number(report, key):
    """value, sigma of a measured number, or ("", "") when it was not seen."""
    measured = report[key]
    if measured is None:
        print(f"{report['source']}: no {key}: {report['reasons'].get(key, 'not seen')}", file=sys.stderr)
        return "", ""
    return f"{measured['value']:.3f}", f"{measured['sigma']:.3f}"


def main(paths):
    out = csv.writer(sys.stdout, lineterminator="\n")
    out.writerow(["source", "outline", "height_m", "height_sigma", "area_m2", "area_sigma",
                  "perimeter_m", "perimeter_sigma", "walls", "wall_lengths_m"])
    failed = 0
    for path in paths:
        try:
            report = measure(path)
        except RuntimeError as error:
            print(error, file=sys.stderr)
            failed += 1
            continue
        if report.get("schema") != SCHEMA:
            sys.exit(f"{path}: schema {report.get('schema')!r}, this script reads {SCHEMA}")
        walls = [w for w in report["walls"] if w["inOutline"]]
        lengths = " ".join(f"{w['length']['value']:.3f}" for w in walls if w["length"] is not None)
        out.writerow([report["source"], report["outline"], *number(report, "height"), *number(report, "area"),
                      *number(report, "perimeter"), len(walls), lengths])
    return 1 if failed else 0


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1:]))
