"""An attacker's and a careless client's requests against a fresh `cloudgen serve` on loopback.

Each check prints "check passed: adversary: NAME: FIGURES" or "check failed: adversary: NAME: WHY"
(Tools/test counts them), and the figures go in Docs/reliability.md. Python's standard library
only; every server it starts listens on 127.0.0.1 with a temporary data folder and is stopped at
the end. Bounded: every socket has a timeout, every wait a limit.

    Tools/adversary/run [--quick] [--cloudgen PATH]

The checks of shared surfaces (a data folder, streams, recordings, configuration) are in
shared_surfaces.py, with a minimal WebSocket client in websocket.py; the full-disk check mounts a
small tmpfs, which needs root (CI runs as root).
"""
import argparse
import io
import json
import os
import re
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
import uuid
import zipfile

import shared_surfaces

DATA = os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared", "data", "open3d-rgbd")
FAILED = []


def report(name, ok, text):
    print(f"check {'passed' if ok else 'failed'}: adversary: {name}: {text}", flush=True)
    if not ok:
        FAILED.append(name)


class Server:
    """`cloudgen serve --port 0` on a temporary data folder, optionally under `ulimit -v`."""

    def __init__(self, cloudgen, args=(), ulimit_kib=None, token=None, data=None, environment=None):
        self.work = tempfile.mkdtemp(prefix="cloudgen-adversary-")
        self.data = data or os.path.join(self.work, "data")
        command = [cloudgen, "serve", "--port", "0", "--data", self.data, "--workers", "2", *args]
        if token:
            with open(os.path.join(self.work, "token"), "w") as f:
                f.write(token + "\n")
            command += ["--token-file", os.path.join(self.work, "token")]
        if ulimit_kib:
            command = ["/bin/sh", "-c", f'ulimit -v {ulimit_kib}; exec "$0" "$@"', *command]
        self.log = open(os.path.join(self.work, "serve.log"), "w")
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=self.log, text=True,
                                        env={**os.environ, **(environment or {})})
        line = self.process.stdout.readline()
        match = re.search(r"listening on http://127\.0\.0\.1:(\d+)", line)
        if not match:
            raise RuntimeError(f"the server did not start: {line!r}; log in {self.work}")
        self.port = int(match.group(1))
        self.url = f"http://127.0.0.1:{self.port}"

    def alive(self):
        return self.process.poll() is None

    def stop(self):
        if self.alive():
            self.process.terminate()
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                self.process.kill()
        self.log.close()
        shutil.rmtree(self.work, ignore_errors=True)

    def request(self, method, path, body=None, headers=None, timeout=120):
        """(status, headers, body) of one request."""
        req = urllib.request.Request(self.url + path, data=body, method=method, headers=headers or {})
        try:
            with urllib.request.urlopen(req, timeout=timeout) as answer:
                return answer.status, dict(answer.headers), answer.read()
        except urllib.error.HTTPError as error:
            return error.code, dict(error.headers), error.read()

    def metrics(self, headers=None):
        return self.request("GET", "/metrics", headers=headers)[2].decode()

    def vm_size_kib(self):
        with open(f"/proc/{self.process.pid}/status") as f:
            return int(re.search(r"VmSize:\s+(\d+)", f.read()).group(1))

    def upload_tum(self, headers=None):
        body, content_type = multipart(files={"depth": "other_formats/TUM_depth.png", "color": "other_formats/TUM_color.png",
                                              "intrinsics": "camera_primesense.json"}, fields=[("depth_scale", "5000")])
        status, _, answer = self.request("POST", "/v1/captures", body, {"Content-Type": content_type, **(headers or {})})
        if status != 201:
            raise RuntimeError(f"upload: {status} {answer[:300]!r}")
        return json.loads(answer)["id"]


def multipart(files=None, fields=(), raw_files=None):
    boundary = uuid.uuid4().hex
    out = io.BytesIO()
    for name, relative in (files or {}).items():
        with open(os.path.join(DATA, relative), "rb") as f:
            content = f.read()
        out.write(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"; filename="{os.path.basename(relative)}"\r\n\r\n'.encode())
        out.write(content + b"\r\n")
    for name, content in (raw_files or {}).items():
        out.write(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"; filename="{name}.zip"\r\n\r\n'.encode())
        out.write(content + b"\r\n")
    for name, value in fields:
        out.write(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode())
    out.write(f"--{boundary}--\r\n".encode())
    return out.getvalue(), f"multipart/form-data; boundary={boundary}"


def connect(port, timeout=30):
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    s.settimeout(timeout)
    return s


def raw_status(port, text, timeout=30):
    s = connect(port, timeout)
    try:
        s.sendall(text.encode() if isinstance(text, str) else text)
        head = b""
        while b"\r\n" not in head:
            chunk = s.recv(4096)
            if not chunk:
                break
            head += chunk
        match = re.match(rb"HTTP/1\.1 (\d{3})", head)
        return int(match.group(1)) if match else None
    finally:
        s.close()


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def latencies(server, count):
    times = []
    for _ in range(count):
        start = time.perf_counter()
        server.request("GET", "/healthz")
        times.append(time.perf_counter() - start)
    return times


def closed_within(s, limit):
    """Seconds until the server closed `s`, or None."""
    start = time.perf_counter()
    s.settimeout(0.2)
    while time.perf_counter() - start < limit:
        try:
            if s.recv(4096) == b"":
                return time.perf_counter() - start
        except socket.timeout:
            continue
        except OSError:
            return time.perf_counter() - start
    return None


def check_slow_clients(cloudgen, slow):
    idle = 3
    server = Server(cloudgen, ["--idle-timeout", str(idle)])
    try:
        before = latencies(server, 200)
        sockets = []
        for _ in range(slow):
            s = connect(server.port)
            s.sendall(b"GET /v1/captures HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
            sockets.append(s)
        bodies = []
        for _ in range(20):
            s = connect(server.port)
            s.sendall(b"POST /v1/captures HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: multipart/form-data; boundary=x\r\nContent-Length: 1000000\r\n\r\n--x\r\n")
            bodies.append(s)
        opened = time.perf_counter()
        trickle = threading.Event()

        def drip():
            while not trickle.wait(0.5):
                for s in sockets:
                    try:
                        s.sendall(b"a")
                    except OSError:
                        pass
        dripper = threading.Thread(target=drip, daemon=True)
        dripper.start()
        during = latencies(server, 200)
        closes = [closed_within(s, idle + 30 - (time.perf_counter() - opened)) for s in sockets + bodies]
        trickle.set()
        still_open = sum(1 for c in closes if c is None)
        waited = time.perf_counter() - opened
        p99_before, p99_during = percentile(before, 99) * 1000, percentile(during, 99) * 1000
        ok = still_open == 0 and p99_during <= max(3 * p99_before, p99_before + 25) and server.alive()
        metrics = server.metrics()
        errors = re.findall(r'status="5\d\d"} (\d+)', metrics)
        ok = ok and not errors
        if errors:
            # What the server said of them (ProblemMiddleware logs every 5xx at level error).
            with open(os.path.join(server.work, "serve.log")) as log:
                print("".join(line for line in log if " error " in line)[:2000], flush=True)
        report("slow headers and bodies", ok,
               f"{slow} half-sent heads (a byte every 0.5 s) and 20 stalled bodies: all closed "
               f"{'' if still_open == 0 else f'but {still_open} '}within {waited:.1f} s (--idle-timeout {idle}); "
               f"/healthz p99 {p99_before:.1f} ms before, {p99_during:.1f} ms during; 5xx in /metrics: {sum(map(int, errors)) if errors else 0}")
        for s in sockets + bodies:
            s.close()
    finally:
        server.stop()


def check_requests(cloudgen, quick):
    server = Server(cloudgen, ["--max-upload-mb", "64"])
    try:
        capture = server.upload_tum()
        # Oversized requests.
        big_header = raw_status(server.port, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + "a" * 200_000 + "\r\n\r\n")
        big_body = raw_status(server.port, "POST /v1/captures HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: multipart/form-data; boundary=x\r\n"
                                           "Content-Length: 10000000000\r\n\r\n")
        report("oversized requests", big_header in (400, 431) and big_body == 413,
               f"a 200 KB header: {big_header}; a 10 GB Content-Length: {big_body}")

        # Path tricks.
        tricks = ["/v1/captures/..%2F..%2Fetc%2Fpasswd", "/v1/captures/%2e%2e/cloud.ply", "/v1/captures/../../etc/passwd",
                  f"/v1/captures/{capture}/..%2F..%2Findex.sqlite", "/v1/captures/%00/cloud.ply"]
        statuses = [server.request("GET", t)[0] for t in tricks]
        report("path tricks", all(s in (400, 404) for s in statuses), f"{len(tricks)} paths: {statuses}")

        # Host and Origin.
        foreign_host = raw_status(server.port, "GET /v1/captures HTTP/1.1\r\nHost: attacker.example\r\nConnection: close\r\n\r\n")
        body, content_type = multipart(files={"depth": "other_formats/TUM_depth.png", "intrinsics": "camera_primesense.json"},
                                       fields=[("depth_scale", "5000")])
        foreign_origin = server.request("POST", "/v1/captures", body, {"Content-Type": content_type, "Origin": "http://attacker.example"})[0]
        cross_site = server.request("GET", f"/v1/captures/{capture}/preview.png?width=4096&height=4096",
                                    headers={"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "no-cors"})[0]
        report("Host and Origin", (foreign_host, foreign_origin, cross_site) == (421, 403, 403),
               f"Host attacker.example: {foreign_host}; a POST from Origin http://attacker.example: {foreign_origin}; "
               f"another site's <img> of a 4096x4096 preview: {cross_site}")

        # Many steps.
        body, content_type = multipart(files={"depth": "other_formats/TUM_depth.png", "intrinsics": "camera_primesense.json"},
                                       fields=[("depth_scale", "5000")] + [("normals", "0.1")] * 10_000)
        start = time.perf_counter()
        status = server.request("POST", "/v1/captures", body, {"Content-Type": content_type})[0]
        elapsed = (time.perf_counter() - start) * 1000
        report("10,000 filter steps", status == 422 and elapsed < 50,
               f"a {len(body) // 1024} KB form of 10,000 normals steps: {status} in {elapsed:.1f} ms")

        # Archive bombs and tricks.
        bomb = io.BytesIO()
        with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
            z.writestr("frames/depth.png", b"\0" * (600 << 20))
        sneaky = io.BytesIO()
        with zipfile.ZipFile(sneaky, "w") as z:
            z.writestr("../../escape.txt", b"x")
        outcomes = []
        for name, archive in [("bomb", bomb.getvalue()), ("../ path", sneaky.getvalue())]:
            body, content_type = multipart(raw_files={"bundle": archive})
            status, headers, answer = server.request("POST", "/v1/captures", body, {"Content-Type": content_type})
            state = None
            if status == 202:
                job = headers.get("Location")
                for _ in range(600):
                    state = json.loads(server.request("GET", job)[2])
                    if state["state"] in ("succeeded", "failed"):
                        break
                    time.sleep(0.1)
                state = (state["state"], (state.get("problem") or {}).get("status"))
            outcomes.append((name, status, state))
        escaped = os.path.exists(os.path.join(server.data, "..", "escape.txt")) or os.path.exists(os.path.join(server.work, "escape.txt"))
        ok = all(s in (400, 413, 422) or (s == 202 and st and st[0] == "failed" and st[1] < 500) for _, s, st in outcomes) and not escaped
        report("archive bombs and tricks", ok and server.alive(),
               f"{bomb.getbuffer().nbytes // 1024} KB zip of 600 MB: {outcomes[0][1:]}, a ../ member: {outcomes[1][1:]}, escaped: {escaped}")

        # A client that gives up.
        before = server.metrics()
        captures_before = len(json.loads(server.request("GET", "/v1/captures?limit=100")[2])["captures"])
        payload = json.dumps({"source": "synthetic:path=orbit,frames=400,color=256x192", "frames": "all", "fuse": True})
        s = connect(server.port)
        s.sendall(f"POST /v1/captures HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: {len(payload)}\r\n\r\n{payload}".encode())
        for _ in range(200):
            if 'cloudgen_pool_running{pool="capture"} 1' in server.metrics():
                break
            time.sleep(0.05)
        s.close()
        left = time.perf_counter()
        cancelled = None
        for _ in range(400):
            if 'cloudgen_pool_running{pool="capture"} 0' in server.metrics():
                cancelled = time.perf_counter() - left
                break
            time.sleep(0.01)
        after = server.metrics()
        aborted = sum(map(int, re.findall(r'status="499"} (\d+)', after))) - sum(map(int, re.findall(r'status="499"} (\d+)', before)))
        captures_after = len(json.loads(server.request("GET", "/v1/captures?limit=100")[2])["captures"])
        report("a client that leaves", cancelled is not None and cancelled < 1 and aborted == 1 and captures_after == captures_before,
               f"its fused capture stopped {cancelled if cancelled is None else f'{cancelled * 1000:.0f} ms'} after it left; "
               f"counted as 499: {aborted}; captures stored: {captures_after - captures_before}")

        # The delete race.
        victim = server.upload_tum()
        answers = []
        threads = [threading.Thread(target=lambda a=a: answers.append(server.request("GET", f"/v1/captures/{victim}/preview.png?azimuth={a}")[0]))
                   for a in range(0, 200, 20)]
        for t in threads:
            t.start()
        # Deleted once the first picture is served: the others are queued or being drawn.
        for _ in range(1200):
            if answers:
                break
            time.sleep(0.05)
        deleted = server.request("DELETE", f"/v1/captures/{victim}")[0]
        for t in threads:
            t.join(120)
        orphan = os.path.exists(os.path.join(server.data, "captures", victim))
        report("the delete race", deleted == 204 and all(a in (200, 404) for a in answers) and not orphan,
               f"10 previews, a DELETE once the first was served: DELETE {deleted}, previews {sorted(answers)}, folder left: {orphan}")
        report("no server error", server.alive() and not re.search(r'status="5\d\d"', server.metrics()),
               "the server is up and /metrics counts no 5xx after all of the above")
    finally:
        server.stop()


def check_token(cloudgen):
    token = secrets.token_hex(32)
    server = Server(cloudgen, token=token)
    try:
        statuses = [server.request("GET", "/v1/captures", headers={"Authorization": f"Bearer {token}" + "x" * extra})[0] for extra in (256, 512, 768)]
        right = server.request("GET", "/v1/captures", headers={"Authorization": f"Bearer {token}"})[0]
        report("the token and 256 more bytes", statuses == [401, 401, 401] and right == 200,
               f"the token + 256, 512, 768 bytes: {statuses}; the token: {right}")
    finally:
        server.stop()


def check_connection_cap(cloudgen):
    """Past --max-connections the server accepts no more until one closes. (Checked on the real
    process: HummingbirdTesting's live server drops the application's connection limit.)"""
    server = Server(cloudgen, ["--max-connections", "8"])
    try:
        held = []
        for _ in range(8):
            s = connect(server.port, 10)
            s.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            s.recv(4096)
            held.append(s)
        ninth = connect(server.port, 2)
        ninth.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        try:
            early = ninth.recv(100)
        except socket.timeout:
            early = None
        held[0].close()
        ninth.settimeout(10)
        start = time.perf_counter()
        late = ninth.recv(100)
        waited = time.perf_counter() - start
        report("the connection cap", early is None and late.startswith(b"HTTP/1.1 200"),
               f"--max-connections 8 and 8 open: a ninth got {'no answer' if early is None else early[:12]} in 2 s, "
               f"then {late[:12]!r} {waited * 1000:.0f} ms after one closed")
        for s in held[1:] + [ninth]:
            s.close()
    finally:
        server.stop()


def check_cache(cloudgen, previews):
    server = Server(cloudgen, ["--derived-cache-mb", "2"])
    try:
        capture = server.upload_tum()
        for i in range(previews):
            server.request("GET", f"/v1/captures/{capture}/preview.png?azimuth={i * 7.31 % 360:.3f}&width=1024&height=768")
        derived = os.path.join(server.data, "captures", capture, "derived")
        held = sum(os.path.getsize(os.path.join(derived, f)) for f in os.listdir(derived))
        evictions = re.search(r"cloudgen_derived_evictions_total (\d+)", server.metrics())
        report("the derived files' budget", held <= 2 << 20,
               f"{previews} previews at fractional azimuths, 1024x768: {held / (1 << 20):.2f} MiB on disk under a 2 MiB budget, "
               f"{evictions.group(1) if evictions else '?'} evicted")
    finally:
        server.stop()


def check_fused_under_ulimit(cloudgen):
    probe = Server(cloudgen)
    baseline = probe.vm_size_kib()
    probe.stop()
    limit = baseline + (400 << 10)
    server = Server(cloudgen, ulimit_kib=limit)
    try:
        payload = json.dumps({"source": "synthetic:path=orbit,frames=10000,depth=640x480,color=256x192", "frames": "all", "fuse": True}).encode()
        start = time.perf_counter()
        status, _, answer = server.request("POST", "/v1/captures", payload, {"Content-Type": "application/json"}, timeout=600)
        elapsed = time.perf_counter() - start
        detail = json.loads(answer).get("detail", "") if answer.startswith(b"{") else answer[:200]
        health = server.request("GET", "/healthz")[0] if server.alive() else None
        report("a fused capture under ulimit -v", status == 422 and health == 200,
               f"10,000 frames under ulimit -v {limit >> 10} MiB (VmSize at start + 400 MiB): {status} after {elapsed:.1f} s "
               f"({str(detail)[-150:]}); /healthz after: {health}")
    finally:
        server.stop()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cloudgen", default=os.environ.get("CLOUDGEN", ".build/debug/cloudgen"))
    parser.add_argument("--quick", action="store_true", help="the short form CI runs")
    args = parser.parse_args()
    cloudgen = os.path.abspath(args.cloudgen)
    check_slow_clients(cloudgen, slow=150)
    check_requests(cloudgen, args.quick)
    check_token(cloudgen)
    check_connection_cap(cloudgen)
    check_cache(cloudgen, previews=12 if args.quick else 40)
    check_fused_under_ulimit(cloudgen)
    # Where two doors or two servers meet (Tools/adversary/shared_surfaces.py). A check that
    # stops on an exception (a server that died under it) is reported failed, and the rest run.
    for name, check in [
        ("a second server on one data folder", lambda: shared_surfaces.check_second_server(Server, cloudgen, report)),
        ("8 hostile streams under ulimit -v 4 GiB",
         lambda: shared_surfaces.check_hostile_streams(Server, cloudgen, report, DATA, frames=6 if args.quick else 20)),
        ("stream filters under the request limits", lambda: shared_surfaces.check_filters_after_delete(Server, cloudgen, report, DATA)),
        ("a recording on a full disk", lambda: shared_surfaces.check_full_disk(Server, cloudgen, report, DATA)),
        ("the idle server's memory after streams",
         lambda: shared_surfaces.check_idle_memory(Server, cloudgen, report, DATA, rounds=3 if args.quick else 7)),
        ("configuration", lambda: shared_surfaces.check_configuration(Server, cloudgen, report)),
        ("request edges", lambda: shared_surfaces.check_request_edges(Server, cloudgen, report, raw_status)),
    ]:
        try:
            check()
        except Exception as error:  # noqa: BLE001 - any failure is the check's
            report(name, False, f"stopped: {type(error).__name__}: {str(error)[:200]}")
    sys.exit(1 if FAILED else 0)


if __name__ == "__main__":
    main()
