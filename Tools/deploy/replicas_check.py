#!/usr/bin/env python3
"""The HTTP side of Tools/deploy/replicas-check: three `cloudgen serve` replicas on one data folder
and one PostgreSQL index, talked to directly. Prints "check passed: replicas: ..." or
"check failed: replicas: ..." lines, and the tail of a replica's log under a failed one.

Usage: replicas_check.py WORK DATA STEP PORT... where STEP is
  uploads                  200 concurrent uploads, then their PLYs from every replica
  outage                   uploads while PostgreSQL stops for 10 s (by cluster.sh's stop_cluster and
                           restart_cluster, exported to bash by the driver)
  archive PID              an archive job on the first port, its replica (PID) killed with SIGKILL
  restarted [CAPTURE_ID]   after the first port's replica restarted: it lists what the others do,
                           the archive's capture (when the job made one) once
Standard library only.
"""

import concurrent.futures
import hashlib
import http.client
import io
import json
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
import zipfile

WORK, DATA, STEP = sys.argv[1:4]
failures = 0


def passed(line):
    print(f"check passed: replicas: {line}", flush=True)


def failed(line, replica=1):
    """A failed check, and the end of the log of the replica it concerns (1-based, as the driver names them)."""
    global failures
    failures += 1
    print(f"check failed: replicas: {line}", flush=True)
    try:
        with open(os.path.join(WORK, f"replica-{replica}.log"), errors="replace") as f:
            # PostgresNIO logs each failed reconnection (a line a second per connection while the
            # database is down): left out, they would be all the tail shows.
            lines = [line for line in f if "Connection creation failed" not in line]
        for tail in lines[-12:]:
            print(f"  replica-{replica}.log: {tail.rstrip()[:400]}")
    except OSError:
        pass


def request(port, method, path, body=None, headers=None, timeout=120):
    """One request on a connection of its own: (status, headers, body)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        connection.request(method, path, body, headers or {})
        answer = connection.getresponse()
        return answer.status, answer.headers, answer.read()
    finally:
        connection.close()


def multipart(files, fields=()):
    """A multipart/form-data body: files are (part name, file name, bytes)."""
    boundary = uuid.uuid4().hex
    out = io.BytesIO()
    for name, filename, content in files:
        out.write(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"; filename="{filename}"\r\n\r\n'.encode())
        out.write(content + b"\r\n")
    for name, value in fields:
        out.write(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode())
    out.write(f"--{boundary}--\r\n".encode())
    return out.getvalue(), {"Content-Type": f"multipart/form-data; boundary={boundary}"}


def read(relative):
    with open(os.path.join(DATA, relative), "rb") as f:
        return f.read()


# The TUM frame nginx-check's wrk load posts (Tools/bench/service/make_upload.py), built once.
FRAME = multipart([("depth", "TUM_depth.png", read("other_formats/TUM_depth.png")),
                   ("color", "TUM_color.png", read("other_formats/TUM_color.png")),
                   ("intrinsics", "camera_primesense.json", read("camera_primesense.json"))],
                  [("depth_scale", "5000")])


def upload(port):
    """One upload as a client keeps to the contract: a 503 is retried after its Retry-After.
    Returns (capture id, retries)."""
    retries = 0
    while True:
        status, headers, body = request(port, "POST", "/v1/captures", *FRAME)
        if status == 201:
            return json.loads(body)["id"], retries
        if status != 503 or headers.get("Retry-After") is None:
            raise RuntimeError(f"port {port}: {status} {body[:200]!r}")
        retries += 1
        time.sleep(float(headers["Retry-After"]))


def listing(port):
    """Every capture id the replica lists, following its pages (as count_captures.py does)."""
    ids, path = [], "/v1/captures?limit=100"
    while path:
        status, _, body = request(port, "GET", path)
        if status != 200:
            raise RuntimeError(f"port {port} {path}: {status} {body[:200]!r}")
        page = json.loads(body)
        ids += [capture["id"] for capture in page["captures"]]
        path = page.get("next")
    return ids


def listed_once(ports, wanted, before=()):
    """None when every replica lists each wanted id exactly once and nothing beyond wanted and
    before; else what is wrong, for the first replica where it is."""
    wanted, before = set(wanted), set(before)
    for n, port in enumerate(ports, 1):
        ids = listing(port)
        twice = len(ids) - len(set(ids))
        missing = wanted - set(ids)
        extra = set(ids) - wanted - before
        if twice or missing or extra:
            return n, (f"replica {n} lists {len(ids)} ids: {len(missing)} answered 201 missing "
                       f"{sorted(missing)[:3]}, {twice} listed twice, {len(extra)} never answered 201 {sorted(extra)[:3]}")
    return None


def ply_digest(port, capture):
    status, _, body = request(port, "GET", f"/v1/captures/{capture}/cloud.ply")
    return status, hashlib.sha256(body).hexdigest() if status == 200 else body[:200], len(body)


def check_uploads(ports):
    """200 uploads from 200 threads at once, round-robin over the replicas; then a sample's PLYs."""
    barrier = threading.Barrier(200)

    def one(i):
        barrier.wait()  # released together: the 200 requests really are concurrent
        return upload(ports[i % len(ports)])

    start = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(200) as pool:
        futures = [pool.submit(one, i) for i in range(200)]
        results, errors = [], []
        for future in futures:
            try:
                results.append(future.result())
            except Exception as error:
                errors.append(str(error))
    wall = time.monotonic() - start
    ids = [capture for capture, _ in results]
    retries = sum(r for _, r in results)
    line = f"200 concurrent uploads over {len(ports)} replicas: {len(ids)} got 201 ({retries} retries after 503) in {wall:.1f} s"
    wrong = listed_once(ports, ids)
    if errors:
        failed(f"{line}; {len(errors)} failed, the first: {errors[0]}")
    elif wrong:
        failed(f"{line}; {wrong[1]}", wrong[0])
    else:
        passed(f"{line}; every replica lists each of the {len(set(ids))} ids once")

    # The three replicas asked at once: with lazy clouds the first download makes the file in the
    # shared folder, so this is also three replicas racing to make one derived file.
    sample = ids[:: max(1, len(ids) // 5)][:5]
    differ, sizes = [], set()
    with concurrent.futures.ThreadPoolExecutor(len(ports)) as pool:
        for capture in sample:
            answers = list(pool.map(lambda port: ply_digest(port, capture), ports))
            sizes |= {size for _, _, size in answers}
            if any(status != 200 for status, _, _ in answers) or len({digest for _, digest, _ in answers}) != 1:
                differ.append((capture, answers))
    if differ or not sample:
        failed(f"PLYs from {len(ports)} replicas differ: {differ[:2]}")
    else:
        passed(f"{len(sample)} captures' PLYs ({'/'.join(map(str, sorted(sizes)))} bytes) byte-identical (sha256) from each of {len(ports)} replicas, asked at once")


def check_outage(ports):
    """Uploads from 8 threads while PostgreSQL stops for 10 s: only 201 or 503 + Retry-After,
    nothing lost, nothing half-made listed, and the replicas answer again by themselves."""
    before = listing(ports[0])
    stop = threading.Event()
    lock = threading.Lock()
    created, refused, wrong = [], [], []  # (time, id), time, (time, replica, what)

    def uploader(i):
        port = ports[i % len(ports)]
        while not stop.is_set():
            try:
                status, headers, body = request(port, "POST", "/v1/captures", *FRAME, timeout=60)
            except Exception as error:  # a connection refused or dropped is not the contract
                status, headers, body = None, {}, repr(error).encode()
            now = time.monotonic()
            with lock:
                if status == 201:
                    created.append((now, json.loads(body)["id"]))
                elif status == 503 and headers.get("Retry-After"):
                    refused.append(now)
                else:
                    wrong.append((now, i % len(ports) + 1, f"replica {i % len(ports) + 1}: {status} {body[:150]!r}"))
            if status == 503:
                # The contract says wait Retry-After; a shorter pause finds the recovery sooner.
                time.sleep(min(1.0, float(headers.get("Retry-After") or 1)))

    threads = [threading.Thread(target=uploader, args=(i,)) for i in range(8)]
    start = time.monotonic()
    for thread in threads:
        thread.start()
    time.sleep(3)
    subprocess.run(["bash", "-c", "stop_cluster"], check=True)
    stopped = time.monotonic()
    time.sleep(10)
    subprocess.run(["bash", "-c", "restart_cluster"], check=True)
    started = time.monotonic()
    time.sleep(5)
    # Uploads stop a while after PostgreSQL is back; those that have not had their first 201 by
    # then get up to 30 s more, so that a slow recovery is measured rather than cut off.
    deadline = started + 30
    while time.monotonic() < deadline and not any(t > started for t, _ in created):
        time.sleep(0.2)
    stop.set()
    for thread in threads:
        thread.join()

    ids = [capture for _, capture in created]
    first_after = min((t - started for t, _ in created if t > started), default=None)
    counts = (f"{sum(t < stopped for t, _ in created)} before the stop, {sum(stopped <= t < started for t, _ in created)} "
              f"while stopped, {sum(t >= started for t, _ in created)} after; {len(refused)} 503s")
    line = f"PostgreSQL stopped 10 s during uploads from 8 threads: {len(ids)} answered 201 ({counts})"
    if wrong:
        failed(f"{line}; {len(wrong)} answers neither 201 nor 503 with Retry-After, the first {wrong[0][0] - stopped:+.1f} s "
               f"from the stop: {wrong[0][2]}", wrong[0][1])
    else:
        passed(f"{line}, nothing else")
    if first_after is None:
        failed(f"no upload answered 201 within 30 s of PostgreSQL's start")
    else:
        passed(f"the replicas answered again by themselves: the first 201 {first_after:.1f} s after PostgreSQL started")

    problem = listed_once(ports, ids, before)
    after = listing(ports[0])
    new = [capture for capture in after if capture not in set(before)]
    # Every capture the outage could have half-made: each must download.
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        broken = [(c, s) for c, (s, _, _) in zip(new, pool.map(lambda c: ply_digest(ports[0], c), new)) if s != 200]
    line = f"after the outage each replica lists {len(after)} = {len(before)} before + {len(new)} new for {len(ids)} answered 201"
    if problem:
        failed(f"{line}; {problem[1]}", problem[0])
    elif broken:
        failed(f"{line}; {len(broken)} listed captures do not download their PLY: {broken[:3]}")
    else:
        passed(f"{line}, each once; the {len(new)} new PLYs all download (no half capture listed)")


def redwood_zip(frames):
    """A Redwood folder (color/, depth/, intrinsics, trajectory.log) of the five real frames
    repeated, zipped: enough frames that fusing them takes the job several seconds."""
    with open(os.path.join(DATA, "trajectory.log")) as f:
        poses = f.read().splitlines()
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as z:
        z.writestr("scan/camera_primesense.json", read("camera_primesense.json"))
        log = []
        for i in range(frames):
            z.writestr(f"scan/color/{i:05}.jpg", read(f"color/{i % 5:05}.jpg"))
            z.writestr(f"scan/depth/{i:05}.png", read(f"depth/{i % 5:05}.png"))
            log += [f"{i} {i} {i + 1}"] + poses[5 * (i % 5) + 1:5 * (i % 5) + 5]
        z.writestr("scan/trajectory.log", "\n".join(log) + "\n")
    return out.getvalue()


def job(port, job_id):
    status, _, body = request(port, "GET", f"/v1/jobs/{job_id}", timeout=10)
    return json.loads(body) if status == 200 else {"state": f"HTTP {status}"}


def check_archive(ports, pid):
    """An archive job on replica 1, which is killed with SIGKILL mid-job: the job must finish on
    another replica once its lease (30 s) runs out, and its capture be listed once."""
    a, others = ports[0], ports[1:]
    status, headers, body = request(a, "POST", "/v1/captures", *multipart([("bundle", "scan.zip", redwood_zip(150))],
                                                                          [("fuse", "true"), ("source", "redwood")]))
    if status != 202:
        return failed(f"an archive upload to replica 1 answered {status}: {body[:300]!r}")
    job_id = headers["Location"].rsplit("/", 1)[-1]
    deadline = time.monotonic() + 60
    state = job(a, job_id)
    while not (state["state"] == "running" and state["frames_done"] >= 1):
        if state["state"] in ("succeeded", "failed") or time.monotonic() > deadline:
            return failed(f"job {job_id} on replica 1 was never seen running with a frame done: {state}")
        time.sleep(0.05)
        state = job(a, job_id)
    os.kill(pid, signal.SIGKILL)
    killed = time.monotonic()
    line = f"job {job_id}, replica 1 killed (SIGKILL) at frame {state['frames_done']}/{state['frames_total']}"
    seen = set()
    while time.monotonic() < killed + 90:
        state = job(others[0], job_id)
        seen.add(state["state"])
        if state["state"] in ("succeeded", "failed"):
            break
        time.sleep(0.5)
    took = time.monotonic() - killed
    if state["state"] != "succeeded":
        return failed(f"{line}: through replica 2 the job is {state['state']} {took:.0f} s later "
                      f"(states seen {sorted(seen)}), problem {state.get('problem')}", 2)
    capture = state["capture"].rsplit("/", 1)[-1]
    problem = listed_once(others, [capture], listing(others[0]))
    status = ply_digest(others[-1], capture)[0]
    if problem or status != 200:
        return failed(f"{line}: succeeded {took:.0f} s later, capture {capture}: "
                      f"{problem[1] if problem else f'its PLY answered {status}'}", 2)
    with open(os.path.join(WORK, "archive-capture"), "w") as f:
        f.write(capture)
    passed(f"{line}: succeeded through replica 2 {took:.1f} s after the kill, capture {capture} listed once by "
           f"replicas 2 and 3, its PLY downloads")


def check_restarted(ports, capture):
    listings = [listing(port) for port in ports]
    line = f"replica 1 restarted after its SIGKILL: healthy, lists {len(listings[0])} captures"
    if any(sorted(ids) != sorted(listings[0]) for ids in listings):
        failed(f"{line}, replicas 1-3 list {[len(ids) for ids in listings]}, not the same ids", 1)
    elif capture and listings[0].count(capture) != 1:
        failed(f"{line}, the archive's capture {capture} {listings[0].count(capture)} times", 1)
    else:
        passed(f"{line}, the same as replicas 2 and 3" + (f", the archive's capture {capture} once" if capture else ""))


def main():
    rest = sys.argv[4:]
    if STEP == "uploads":
        check_uploads([int(p) for p in rest])
    elif STEP == "outage":
        check_outage([int(p) for p in rest])
    elif STEP == "archive":
        check_archive([int(p) for p in rest[1:]], int(rest[0]))
    elif STEP == "restarted":
        check_restarted([int(p) for p in rest[1:]], rest[0])
    else:
        sys.exit(__doc__)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
