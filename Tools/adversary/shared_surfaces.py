"""The adversary's checks of where two doors or two servers meet: a second server on one data
folder, hostile streams under `ulimit -v`, a stream's filters after its DELETE, a recording on a
full disk, the idle server's memory after streams, and the configuration and request edges
(CRLF config files, tokens that are not text, a second Host, refused upgrades). Each reports one
"check passed/failed: adversary: ..." line through `report`."""
import json
import os
import re
import subprocess
import tempfile
import threading
import time

from websocket import Closed, WebSocket, png16, push_message

STREAM_TIMEOUT = 30


def _intrinsics(data):
    with open(os.path.join(data, "camera_primesense.json")) as f:
        return json.load(f)


def _open_stream(server, order):
    status, _, answer = server.request("POST", "/v1/streams", json.dumps(order).encode(), {"Content-Type": "application/json"})
    if status != 201:
        raise RuntimeError(f"POST /v1/streams: {status} {answer[:300]!r}")
    return json.loads(answer)["id"]


def _cpu_seconds(pid):
    """User and system CPU of a process, from /proc (clock ticks of 1/100 s)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _rss_mib(pid):
    with open(f"/proc/{pid}/status") as f:
        return int(re.search(r"VmRSS:\s+(\d+)", f.read()).group(1)) / 1024


def _metric(server, name):
    match = re.search(rf"^{name} (\d+)", server.metrics(), re.M)
    return int(match.group(1)) if match else 0


def _refused_start(command, limit=20):
    """A server start that should be refused: its exit status and stderr, or, when it is still
    running after `limit` seconds (it started), killed with returncode None."""
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        _, stderr = process.communicate(timeout=limit)
        return subprocess.CompletedProcess(command, process.returncode, "", stderr)
    except subprocess.TimeoutExpired:
        process.kill()
        _, stderr = process.communicate()
        return subprocess.CompletedProcess(command, None, "", stderr + "(it started and was killed)")


def check_second_server(Server, cloudgen, report):
    """A plain `serve --data SAME_DIR` beside a running server: refused with one line, nothing lost."""
    first = Server(cloudgen)
    try:
        ids = [first.upload_tum() for _ in range(3)]
        second = _refused_start([cloudgen, "serve", "--port", "0", "--data", first.data])
        lines = second.stderr.strip().splitlines()
        served = [first.request("GET", f"/v1/captures/{i}/cloud.ply")[0] for i in ids]
        kept = sorted(os.listdir(os.path.join(first.data, "captures")))
        ok = second.returncode == 2 and len(lines) == 1 and first.data in lines[0] and served == [200] * 3 and kept == sorted(ids)
        report("a second server on one data folder", ok,
               f"exit {second.returncode}, {len(lines)} line ({lines[0][-110:] if lines else ''}); "
               f"the first still serves {served.count(200)} of 3 clouds, {len(kept)} folders kept")
    finally:
        first.stop()


def check_hostile_streams(Server, cloudgen, report, data, frames):
    """Eight pushed streams of tiny PNGs that decode to 4096x4096, one viewer each of the most
    points, under ulimit -v 4 GiB, with four stream threads making frames at once."""
    server = Server(cloudgen, ["--workers", "8"], ulimit_kib=4 << 20)
    try:
        intrinsics = _intrinsics(data)
        huge = png16(4096, 4096, 1000)
        ids = [_open_stream(server, {"push": {"intrinsics": intrinsics}}) for _ in range(8)]
        received = [0] * 8
        closes = [None] * 8
        done = threading.Event()

        def watch(i):
            try:
                viewer = WebSocket(server.port, f"/v1/streams/{ids[i]}/live?points=2000000", timeout=5)
            except OSError:
                return
            while not done.is_set():
                try:
                    viewer.receive()
                    received[i] += 1
                except (OSError, Closed):
                    if done.is_set():
                        break
                    continue
            viewer.close()

        def push(i):
            try:
                socket = WebSocket(server.port, f"/v1/streams/{ids[i]}/push", timeout=STREAM_TIMEOUT)
                for k in range(frames):
                    socket.send(push_message(k, huge, 4096, 4096))
                socket.sock.settimeout(5)
                try:
                    socket.receive()
                except Closed as closed:
                    closes[i] = closed.code
                except OSError:
                    pass
                socket.close()
            except OSError as error:
                closes[i] = f"{type(error).__name__}"

        viewers = [threading.Thread(target=watch, args=(i,)) for i in range(8)]
        pushers = [threading.Thread(target=push, args=(i,)) for i in range(8)]
        start = time.perf_counter()
        for t in viewers + pushers:
            t.start()
        for t in pushers:
            t.join(300)
        done.set()
        for t in viewers:
            t.join(30)
        elapsed = time.perf_counter() - start
        alive = server.alive()
        health = server.request("GET", "/healthz", timeout=10)[0] if alive else None
        made = _metric(server, "cloudgen_stream_frames_total") if alive else 0
        dropped = _metric(server, "cloudgen_stream_frames_dropped_total") if alive else 0
        report("8 hostile streams under ulimit -v 4 GiB", alive and health == 200 and made + dropped > 0,
               f"{8 * frames} frames of {len(huge) // 1024} KB PNG that decode to 4096x4096 in {elapsed:.1f} s: {made} made, "
               f"{dropped} skipped for memory or threads, push closes {sorted(set(map(str, closes)))}, viewers got {sum(received)}; "
               f"server up: {alive}, /healthz {health}")
    finally:
        server.stop()


def check_filters_after_delete(Server, cloudgen, report, data):
    """Filters no frame can afford are refused at POST; a source's are refused per frame, and
    the stream's work stops when it ends or is deleted."""
    server = Server(cloudgen)
    try:
        body = json.dumps({"push": {"intrinsics": _intrinsics(data)}, "filters": ["sor=5000,1"]}).encode()
        push_status = server.request("POST", "/v1/streams", body, {"Content-Type": "application/json"})[0]
        upload_status = server.request("POST", "/v1/captures", json.dumps({"source": "synthetic:depth=640x480", "filters": ["sor=5000,1"]}).encode(),
                                       {"Content-Type": "application/json"})[0]
        heavy = [_open_stream(server, {"source": "synthetic", "filters": ["sor=5000,1"]}) for _ in range(4)]
        viewers = []
        for stream in heavy:
            try:
                viewers.append(WebSocket(server.port, f"/v1/streams/{stream}/live?points=1000", timeout=5))
            except OSError:
                pass
        time.sleep(2)
        for stream in heavy:
            server.request("DELETE", f"/v1/streams/{stream}")
        for viewer in viewers:
            viewer.close()
        # A stream within the frame's share, deleted while it runs.
        light = _open_stream(server, {"source": "synthetic:depth=640x480", "filters": ["sor=16,1"]})
        viewer = WebSocket(server.port, f"/v1/streams/{light}/live?points=1000", timeout=10)
        viewer.receive()
        deleted_at = time.perf_counter()
        server.request("DELETE", f"/v1/streams/{light}")
        viewer.close()
        time.sleep(1)
        before = _cpu_seconds(server.process.pid)
        time.sleep(2)
        busy = _cpu_seconds(server.process.pid) - before
        report("stream filters under the request limits", push_status == 422 and upload_status == 422 and busy < 0.3,
               f"sor=5000,1 on 640x480 frames: a pushed stream's POST {push_status}, an upload {upload_status}; four server-run streams with it and a "
               f"deleted sor=16,1 stream: {busy:.2f} CPU s used from 1 to 3 s after the DELETE ({time.perf_counter() - deleted_at:.1f} s)")
    finally:
        server.stop()


def check_full_disk(Server, cloudgen, report, data):
    """A recording on a data folder whose disk fills: the push closes with 1011, stopping the
    recording answers 507, and neither names a server path."""
    mount = tempfile.mkdtemp(prefix="cloudgen-full-disk-")
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=96m", "tmpfs", mount], capture_output=True, text=True)
    if mounted.returncode != 0:
        report("a recording on a full disk", False, f"cannot mount a 96 MB tmpfs (needs root): {mounted.stderr.strip()}")
        os.rmdir(mount)
        return
    server = None
    try:
        server = Server(cloudgen, data=os.path.join(mount, "data"))
        stream = _open_stream(server, {"push": {"intrinsics": _intrinsics(data), "depth_scale": 1000}})
        json_headers = {"Content-Type": "application/json"}
        on = server.request("POST", f"/v1/streams/{stream}/record", b'{"on": true}', json_headers)[0]
        depth = open(os.path.join(data, "depth", "00000.png"), "rb").read()
        color = open(os.path.join(data, "color", "00000.jpg"), "rb").read()
        socket = WebSocket(server.port, f"/v1/streams/{stream}/push", timeout=STREAM_TIMEOUT)
        close = None
        for k in range(200):
            try:
                socket.send(push_message(k, depth, 640, 480, color))
            except OSError:
                break
            # One frame at a time, so that the recording, not the stream pool's queue, decides.
            close = socket.closed_by_server(wait=0.3)
            if close:
                break
        close = close or socket.closed_by_server(wait=10)
        socket.close()
        # Now fill what the recording left.
        with open(os.path.join(mount, "filler"), "wb") as f:
            try:
                while True:
                    f.write(b"\0" * (1 << 20))
            except OSError:
                pass
        status, _, answer = server.request("POST", f"/v1/streams/{stream}/record", b'{"on": false}', json_headers)
        texts = [answer.decode(errors="replace"), close.reason if close else ""]
        named = any(server.data in t or mount in t for t in texts)
        health = server.request("GET", "/healthz")[0]
        report("a recording on a full disk", on == 200 and close is not None and close.code == 1011 and status == 507 and not named and health == 200,
               f"the push closed with {close.code if close else None} ({close.reason if close else ''}); stopping the recording: {status}; "
               f"a server path named: {named}; /healthz {health}")
    finally:
        if server:
            server.stop()
        subprocess.run(["umount", mount], capture_output=True)
        os.rmdir(mount)


def check_idle_memory(Server, cloudgen, report, data, rounds):
    """The idle server's resident memory after rounds of streams comes back near its start."""
    server = Server(cloudgen)
    try:
        server.request("GET", "/healthz")
        time.sleep(1)
        start = _rss_mib(server.process.pid)
        intrinsics = _intrinsics(data)
        depth = open(os.path.join(data, "depth", "00000.png"), "rb").read()
        color = open(os.path.join(data, "color", "00000.jpg"), "rb").read()
        peak = start
        for r in range(rounds):
            streams = [_open_stream(server, {"source": "synthetic:depth=640x480,color=640x480"}) for _ in range(2)]
            pushed = _open_stream(server, {"push": {"intrinsics": intrinsics, "depth_scale": 1000}})
            viewers = [WebSocket(server.port, f"/v1/streams/{s}/live?points=200000&depth=1&color=1", timeout=10)
                       for s in streams + [pushed]]
            socket = WebSocket(server.port, f"/v1/streams/{pushed}/push", timeout=STREAM_TIMEOUT)
            for k in range(10):
                socket.send(push_message(k, depth, 640, 480, color))
            for viewer in viewers[:2]:
                for _ in range(5):
                    viewer.receive()
            peak = max(peak, _rss_mib(server.process.pid))
            socket.close()
            for viewer in viewers:
                viewer.close()
            for s in streams + [pushed]:
                server.request("DELETE", f"/v1/streams/{s}")
        time.sleep(5)
        end = _rss_mib(server.process.pid)
        report("the idle server's memory after streams", end - start < 100,
               f"{rounds} rounds of 2 server-run streams and a pushed one, 640x480, a viewer each: resident {start:.0f} MiB at start, "
               f"{peak:.0f} MiB at the busiest, {end:.0f} MiB 5 s after the last stream ended")
    finally:
        server.stop()


def check_configuration(Server, cloudgen, report):
    """A CRLF config file keeps its token; a token file that is not printable ASCII is refused;
    bytes that are not text never match; a misspelt variable is named at start."""
    work = tempfile.mkdtemp(prefix="cloudgen-config-")
    token = "0123456789abcdef0123456789abcdef"
    with open(os.path.join(work, "token"), "w") as f:
        f.write(token + "\r\n")
    config = os.path.join(work, "serve.conf")
    with open(config, "wb") as f:
        f.write(f"allow-host = scans.example\r\ntoken-file = {work}/token\r\n".encode())
    server = Server(cloudgen, ["--config", config], environment={"CLOUDGEN_MAX_UPLAOD_MB": "1"})
    try:
        open_status = server.request("GET", "/v1/captures")[0]
        right = server.request("GET", "/v1/captures", headers={"Authorization": f"Bearer {token}"})[0]
        with open(server.log.name) as f:
            named = "CLOUDGEN_MAX_UPLAOD_MB" in f.read()
        report("a CRLF config file and a misspelt variable", open_status == 401 and right == 200 and named,
               f"no Authorization: {open_status}; the token: {right}; CLOUDGEN_MAX_UPLAOD_MB named at start: {named}")
    finally:
        server.stop()
    with open(os.path.join(work, "token"), "wb") as f:
        f.write(bytes(range(0xFF, 0xEF, -1)))
    refused = _refused_start([cloudgen, "serve", "--port", "0", "--data", os.path.join(work, "data"), "--token-file", f"{work}/token"])
    report("a token file of bytes that are not text", refused.returncode == 2 and "printable ASCII" in refused.stderr,
           f"16 bytes 0xff..0xf0: exit {refused.returncode}, {refused.stderr.strip()[-90:]}")
    subprocess.run(["rm", "-rf", work])


def check_request_edges(Server, cloudgen, report, raw_status):
    """A second Host, a NUL in a search, a recording named in capitals, a PATCH of text, an
    extension's socket, and upgrades refused with problem documents."""
    token = "0123456789abcdef0123456789abcdef"
    server = Server(cloudgen, token=token)
    auth = {"Authorization": f"Bearer {token}"}
    try:
        server.upload_tum(auth)
        two_hosts = raw_status(server.port, "GET /v1/captures HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: attacker.example\r\n"
                                            f"Authorization: Bearer {token}\r\nConnection: close\r\n\r\n")
        nul = server.request("GET", "/v1/captures?q=%00", headers=auth)[0]
        not_text = [raw_status(server.port, b"GET /v1/captures HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + bytes([b]) * 16
                               + b"\r\nConnection: close\r\n\r\n") for b in (0x80, 0xC0)]
        oni = server.request("POST", "/v1/captures", json.dumps({"source": "openni2:SCAN.ONI"}).encode(),
                             {"Content-Type": "application/json", **auth})[0]
        stream = json.loads(server.request("POST", "/v1/streams", json.dumps({"source": "synthetic"}).encode(),
                                           {"Content-Type": "application/json", **auth})[2])["id"]
        patch = server.request("PATCH", f"/v1/streams/{stream}", b'{"range": null}', {"Content-Type": "text/plain", **auth})[0]
        refusals = []
        for name, path, headers in [("no token", f"/v1/streams/{stream}/live", {}),
                                    ("an extension's page", f"/v1/streams/{stream}/live", {**auth, "Origin": "chrome-extension://abc"}),
                                    ("no such stream", "/v1/streams/0123456789abcdef/live", auth)]:
            try:
                WebSocket(server.port, path, headers, timeout=10).close()
                refusals.append((name, 101, False))
            except ConnectionError as error:
                text = str(error)
                match = re.search(r"HTTP/1\.1 (\d{3})", text)
                refusals.append((name, int(match.group(1)) if match else None, "application/problem+json" in text))
        server.request("DELETE", f"/v1/streams/{stream}", headers=auth)
        ok = (two_hosts, nul, not_text, oni, patch) == (400, 400, [401, 401], 403, 415) \
            and [(s, p) for _, s, p in refusals] == [(401, True), (403, True), (404, True)]
        report("request edges", ok,
               f"two Hosts: {two_hosts}; q=%00: {nul}; Bearer of 0x80 or 0xc0 bytes: {not_text}; openni2:SCAN.ONI: {oni}; "
               f"PATCH a stream as text/plain: {patch}; upgrades refused: {[(n, s, 'problem+json' if p else 'bare') for n, s, p in refusals]}")
    finally:
        server.stop()
