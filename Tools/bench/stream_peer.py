"""The baseline of the stream benchmark (Tools/bench/stream): what a user writes today to watch a
depth camera live without cloudgen. A WebSocket relay hands each pushed message (cloudgen's push
framing: 4-byte LE header length, JSON header, 16-bit PNG depth, JPEG color) to its viewers, the
newest one only, as cloudgen does; a viewer decodes the PNG and the JPEG (Pillow) and back-projects
the depth to colored points with numpy, as a hand-written script would.

    stream_peer.py relay --port P
    stream_peer.py view --url ws://HOST:P/live --from N --until M --out FILE --fx .. --fy .. --cx .. --cy ..

The viewer writes FILE (JSON) once it has frame M: frames decoded from frame N on, the seconds
from frame N's `captured` to frame M's points, their latency
(points in hand minus the header's `captured`) p50/p99 in ms, frames skipped. It then stays
connected, idle, until the relay goes: the driver reads both processes' CPU time.
"""

import argparse
import asyncio
import io
import json
import struct
import sys
import time

import numpy as np
from PIL import Image
from websockets.asyncio.server import serve
from websockets.asyncio.client import connect


async def relay(port):
    # One slot per viewer (a dict: its newest message, and an event when one came): a slow viewer
    # gets the newest frame, nothing queues.
    viewers = []

    async def handler(ws):
        if ws.request.path == "/push":
            async for message in ws:
                for viewer in viewers:
                    viewer["newest"] = message
                    viewer["ready"].set()
        elif ws.request.path == "/live":
            viewer = {"newest": None, "ready": asyncio.Event()}
            viewers.append(viewer)
            try:
                while True:
                    await viewer["ready"].wait()
                    viewer["ready"].clear()
                    await ws.send(viewer["newest"])
            finally:
                viewers.remove(viewer)

    async with serve(handler, "127.0.0.1", port, max_size=64 << 20, compression=None):
        print("relay listening", flush=True)
        await asyncio.Future()


def back_project(depth, fx, fy, cx, cy, scale):
    """Points (N x 3, metres) and their colors of the pixels with depth, in the camera's frame."""
    h, w = depth.shape
    z = depth.astype(np.float32) / scale
    u, v = np.meshgrid(np.arange(w, dtype=np.float32), np.arange(h, dtype=np.float32))
    valid = z > 0
    z = z[valid]
    return np.stack(((u[valid] - cx) * z / fx, (v[valid] - cy) * z / fy, z), axis=1), valid


async def view(args):
    latencies, skipped, last, first_captured, now = [], 0, None, None, 0
    async with connect(args.url, max_size=64 << 20, compression=None) as ws:
        async for message in ws:
            (n,) = struct.unpack_from("<I", message)
            header = json.loads(message[4 : 4 + n])
            d = header["depth"]["bytes"]
            depth = np.asarray(Image.open(io.BytesIO(message[4 + n : 4 + n + d])))
            color = np.asarray(Image.open(io.BytesIO(message[4 + n + d :])).convert("RGB"))
            points, valid = back_project(depth, args.fx, args.fy, args.cx, args.cy, args.scale)
            colors = color[valid]
            now = time.time_ns()
            frame = header["frame"]
            if frame >= args.start:
                first_captured = first_captured or header["captured"]
                latencies.append((now - header["captured"]) / 1e6)
                if last is not None:
                    skipped += frame - last - 1
                last = frame
            if frame >= args.until:
                break
        lat = sorted(latencies)
        pick = lambda q: lat[min(len(lat) - 1, int(q * len(lat)))] if lat else 0
        with open(args.out, "w") as out:
            json.dump({"frames": len(lat), "skipped": skipped, "seconds": (now - (first_captured or now)) / 1e9, "latency_p50_ms": pick(0.5),
                       "latency_p99_ms": pick(0.99), "points_last": int(len(points)), "colors_last": int(len(colors))}, out)
        # Stay connected and idle until the relay goes, so that the driver can read this process's CPU time.
        try:
            await ws.wait_closed()
        except Exception:
            pass


def main():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command", required=True)
    r = sub.add_parser("relay")
    r.add_argument("--port", type=int, required=True)
    v = sub.add_parser("view")
    v.add_argument("--url", required=True)
    v.add_argument("--from", dest="start", type=int, required=True)
    v.add_argument("--until", type=int, required=True)
    v.add_argument("--out", required=True)
    for k in ("fx", "fy", "cx", "cy"):
        v.add_argument("--" + k, type=float, required=True)
    v.add_argument("--scale", type=float, default=1000)
    args = parser.parse_args()
    asyncio.run(relay(args.port) if args.command == "relay" else view(args))


if __name__ == "__main__":
    sys.exit(main())
