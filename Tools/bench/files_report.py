#!/usr/bin/env python3
"""The cloud-file benchmark's table: cloudgen-bench files' JSON beside open3d_files_bench.py's.

Usage: files_report.py CLOUDGEN.json OPEN3D.json   (written by Tools/bench/run)
Ratio = Open3D median / cloudgen median: above 1 cloudgen is faster. Standard library only.
"""

import json
import sys

from render_report import ms


def main():
    ours = json.load(open(sys.argv[1]))
    theirs = json.load(open(sys.argv[2]))
    print(f"\nCloud files: the fused Redwood sequence, {ours['points']} points ({ours['build']} build; "
          f"Open3D {theirs['open3d']} read {theirs['points']}), median (min):\n")
    print("| operation | cloudgen | Open3D | ratio |")
    print("| --- | --- | --- | --- |")
    for name, t in ours["reads"].items():
        o = theirs["reads"][name]
        print(f"| read {name} | {ms(t)} | {ms(o)} | {o['median_s'] / t['median_s']:.1f} |")
    for key, t in ours["writes"].items():
        o = theirs["writes"][key]
        print(f"| write {key} ({t['bytes']} / {o['bytes']} bytes) | {ms(t)} | {ms(o)} | {o['median_s'] / t['median_s']:.1f} |")


if __name__ == "__main__":
    main()
