"""Tools/bench/stream's table: reads the JSON reports of cloudgen-bench stream (and the Python
peer's viewer) from the work dir and prints markdown, cloudgen beside the peer as ratios."""

import json
import os
import sys

work = sys.argv[1]


def load(name):
    path = os.path.join(work, name + ".json")
    return json.load(open(path)) if os.path.exists(path) else None


loads = dict(line.split() for line in open(os.path.join(work, "load.txt")))


def worst(report, key):
    return max(v[key] for v in report["viewers"])


def row(label, r, peer=None):
    """One run of cloudgen; with `peer` (its viewer's JSON), the peer's run: its viewer's figures."""
    if peer is not None:
        # The peer makes points only of the frames its viewer takes: its frames made are its viewer's.
        fps = vfps = peer["frames"] / max(peer["seconds"], 1e-9)
        cpu = 1000 * r["cpu_seconds"] / max(peer["frames"], 1)
        p50, p99 = peer["latency_p50_ms"], peer["latency_p99_ms"]
        made, skipped = f"{peer['frames']} of {r['pushed'] - 20}", peer["skipped"]
    else:
        fps, cpu = r["frames_per_second"], r["cpu_ms_per_frame"]
        p50, p99 = worst(r, "latency_p50_ms"), worst(r, "latency_p99_ms")
        made = f"{r['made']} of {r['pushed'] - 20}, {r['dropped']} dropped"
        vfps = min(v["frames_per_second"] for v in r["viewers"])
        skipped = sum(v["skipped"] for v in r["viewers"])
    return dict(label=label, fps=fps, vfps=vfps, cpu=cpu, p50=p50, p99=p99, bytes=r["push_bytes"], made=made, skipped=skipped,
                load=loads.get(label.split()[0], "?"))


rows = []
names = [("fast-zstd", "as fast as it goes, zstd"), ("fast-rvl", "as fast as it goes, rvl"),
         ("fast-png", "as fast as it goes, png"),
         ("fast-points", "as fast as it goes, zstd, points only"), ("paced", "30 fps, zstd"), ("viewers20", "30 fps, zstd, 20 viewers"),
         ("paced-points", "30 fps, zstd, points only"), ("viewers20-points", "30 fps, zstd, 20 viewers, points only")]
for name, label in names:
    r = load(name)
    if r:
        rows.append((name, label, row(name, r)))
for name, label in [("peer-fast", "Python peer, as fast as it goes, png"), ("peer-paced", "Python peer, 30 fps, png")]:
    r, v = load(name), load(name + "-viewer")
    if r and v:
        rows.append((name, label, row(name, r, v)))

print("| run | frames made/s | viewer frames/s | CPU ms/frame | latency p50 / p99 ms | push bytes/frame | frames made | viewers' skips | load |")
print("|---|---:|---:|---:|---:|---:|---|---:|---:|")
for name, label, x in rows:
    print(f"| {label} | {x['fps']:.1f} | {x['vfps']:.1f} | {x['cpu']:.1f} | {x['p50']:.1f} / {x['p99']:.1f} | {x['bytes'] / 1024:.0f} KiB "
          f"| {x['made']} | {x['skipped']} | {loads.get(name, '?')} |")

by = {name: x for name, _, x in rows}
print()
for ours, theirs, what in [("fast-png", "peer-fast", "as fast as it goes"), ("paced", "peer-paced", "at 30 fps")]:
    if ours in by and theirs in by:
        a, b = by[ours], by[theirs]
        print(f"- {what}: cloudgen {a['fps'] / b['fps']:.2f}x the peer's frames/s, "
              f"{a['cpu'] / b['cpu']:.2f}x its CPU per frame, p50 latency {a['p50'] / b['p50']:.2f}x, p99 {a['p99'] / b['p99']:.2f}x")

v20 = load("viewers20")
if v20:
    print("- 20 viewers at 30 fps, per viewer p50 / p99 ms: "
          + ", ".join(f"{v['latency_p50_ms']:.0f}/{v['latency_p99_ms']:.0f}" for v in v20["viewers"]))
for name in ("fast-zstd", "paced", "viewers20", "paced-points", "viewers20-points"):
    r = load(name)
    if r:
        v = r["viewers"][0]
        print(f"- {name}, first viewer's median stages ms: push in {v['in_p50_ms']:.1f}, make {v['make_p50_ms']:.1f}, "
              f"to the viewer {v['out_p50_ms']:.1f}")
m = load("memory")
if m:
    print(f"- memory: {m['pushed']} frames of {m['width']}x{m['height']} at {m['frames_per_second']:.0f}/s, "
          f"server RSS {m['rss_before_kib'] / 1024:.1f} MiB after the warm-up, {m['rss_after_kib'] / 1024:.1f} MiB after "
          f"({m['made']} made, {m['dropped']} dropped; CPU {m['cpu_ms_per_frame']:.2f} ms/frame, load {loads.get('memory', '?')})")
