"""Holds one `cloudgen measure --json` report against a room's truth.json.

The report's plan coordinates are in its own gravity-aligned frame (`frame`: origin, x, y given in
the cloud's coordinates, which here are the first camera's). A plan point (px, py) is the cloud
point origin + px x + py y; truth.json's roomToWorld takes the room frame to those coordinates, so
its inverse brings every measured wall into the room frame, where the true walls are. The small
difference between the measured floor plane and the true one does not matter at this scale: the
plan points lie on the measured floor, and only their x and y are used.
"""
import numpy as np

from plans import distance_to_outline, inside_polygon

# A measured wall is the true wall's when its line is within 10 degrees of the true one, it
# faces the same way, and its middle lies within 15 cm of the true line, inside the true wall's
# span (30 cm of slack).
MATCH_DEGREES = 10.0
MATCH_DISTANCE = 0.15
SPAN_SLACK = 0.30
# A measured wall is reported as crossing the floor when this much of it runs over the true
# floor more than 20 cm from every true wall and clear of the furniture.
CROSS_LENGTH = 0.3
CROSS_CLEARANCE = 0.2


def off_or_within(error, sigma):
    """How a length or height more than 1 cm from the truth is listed: "off" when its own 2 sigma
    does not reach the truth either (a number wrong by its own account, which the gate counts),
    "beyond 1 cm, within 2 sigma" when measure said it could not tell it to 1 cm (a wall at a
    Kinect's range limit, whose depth noise is 6 cm), which is listed and held to the coverage
    targets instead."""
    return "off" if abs(error) > 2 * sigma else "beyond 1 cm, within 2 sigma,"


def _value(m):
    return None if m is None else (m["value"], m["sigma"])


def measured_walls_in_room(report, truth):
    room_from_world = np.linalg.inv(np.array(truth["roomToWorld"]))
    f = report["frame"]
    o, x, y = (np.array(f[k], dtype=float) for k in ("origin", "x", "y"))

    def to_room(p):
        w = o + p[0] * x + p[1] * y
        return (room_from_world[:3, :3] @ w + room_from_world[:3, 3])[:2]

    out = []
    for w in report["walls"]:
        s, e = to_room(w["start"]), to_room(w["end"])
        n = room_from_world[:3, :3] @ np.array(w["normal"], dtype=float)
        n = n[:2] / max(np.linalg.norm(n[:2]), 1e-12)
        out.append({"report": w, "start": s, "end": e, "normal": n})
    return out


def _footprints(truth):
    return [np.array(f["footprint"]) for f in truth["furniture"] + truth.get("objects", [])]


def crosses_floor(truth, seg_start, seg_end):
    """Metres of the segment that run over open floor (not along a wall, not over furniture)."""
    length = float(np.linalg.norm(seg_end - seg_start))
    n = max(2, int(length / 0.05))
    pts = seg_start + np.linspace(0, 1, n)[:, None] * (seg_end - seg_start)
    # The room's floor and the floor behind its doorway (the walk's second room) were both seen.
    polys = [np.array(truth["floorPolygon"])] + ([np.array(truth["behind"]["polygon"])] if truth.get("behind") else [])
    open_floor = np.zeros(len(pts), dtype=bool)
    for poly in polys:
        open_floor |= inside_polygon(poly, pts) & (distance_to_outline(poly, pts) > CROSS_CLEARANCE)
    for fp in _footprints(truth):
        open_floor &= ~inside_polygon(fp, pts) | (distance_to_outline(fp, pts) < 0.05)
    return float(open_floor.mean() * length)


def clutter_on(report, truth, tw):
    """The reason of a vertical clutter plane lying on the true wall, if measure found the wall's
    plane but called it furniture: that tells a missed plane from a misjudged one."""
    room_from_world = np.linalg.inv(np.array(truth["roomToWorld"]))
    R, t = room_from_world[:3, :3], room_from_world[:3, 3]
    a, b = np.array(tw["start"]), np.array(tw["end"])
    mid = np.array([*(a + b) / 2, truth["height"] / 2])
    inward = np.array(tw["inward"])
    for c in report.get("clutter", []):
        if c["kind"] != "vertical":
            continue
        p = np.array(c["surface"]["plane"], dtype=float)
        n = R @ p[:3]
        point = R @ (-p[3] * p[:3]) + t
        if abs(n[:2] @ inward) < np.cos(np.radians(MATCH_DEGREES)):
            continue
        if abs((mid - point) @ n) < MATCH_DISTANCE:
            return c["reason"]
    return None


def what_is_there(truth, mw):
    """Names what a measured wall that is no true wall most likely is, for the failure listing:
    a face of furniture, a wall of the space behind the door, or nothing known."""
    mid = ((mw["start"] + mw["end"]) / 2)[None]
    for f in truth["furniture"] + truth.get("objects", []):
        fp = np.array(f["footprint"])
        if distance_to_outline(fp, mid)[0] < 0.08:
            return f"a {f.get('kind', 'object')}'s face ({f['height']:.2f} m high)"
    if truth.get("behind"):
        bp = np.array(truth["behind"]["polygon"])
        if distance_to_outline(bp, mid)[0] < 0.1 or inside_polygon(bp, mid)[0]:
            return f"the {truth['behind']['kind']} behind the door"
    poly = np.array(truth["floorPolygon"])
    if distance_to_outline(poly, mid)[0] < MATCH_DISTANCE:
        # Along a true wall whose match went to another measured wall: the same wall twice.
        return "a second piece of a true wall (the wall found twice)"
    if not inside_polygon(poly, mid)[0]:
        return "outside the room"
    return f"{distance_to_outline(poly, mid)[0]:.2f} m inside the room, no surface there"


def compare(report, truth):
    """Returns (numbers, failures): numbers as dicts(quantity, error, sigma, where), failures as
    strings, one per problem found."""
    numbers, failures = [], []
    h = _value(report.get("height"))
    if h is None:
        failures.append(f"height null ({report.get('reasons', {}).get('height', 'no reason')})")
    else:
        numbers.append({"quantity": "height", "error": h[0] - truth["height"], "sigma": h[1], "where": "room"})
    measured = measured_walls_in_room(report, truth)
    owner = {}
    for tw in truth["walls"]:
        a, b = np.array(tw["start"]), np.array(tw["end"])
        L = tw["length"]
        u = (b - a) / L
        inward = np.array(tw["inward"])
        best = None
        for j, mw in enumerate(measured):
            # Lines within 10 degrees, facing either way: a wall whose normal points out of the
            # room is still that wall, and is reported as such below.
            facing = mw["normal"] @ inward
            if abs(facing) < np.cos(np.radians(MATCH_DEGREES)):
                continue
            mid = (mw["start"] + mw["end"]) / 2
            off = abs((mid - a) @ inward)
            along = (mid - a) @ u
            if off > MATCH_DISTANCE or along < -SPAN_SLACK or along > L + SPAN_SLACK:
                continue
            # A wall facing the right way wins over one facing away, then the nearer one.
            key = (facing < 0, off)
            if best is None or key < best[0]:
                best = (key, j)
        tag = f"wall {tw['index']} ({L:.2f} m{', unseen' if tw['unseen'] else ''})"
        if best is None:
            if not tw["unseen"]:
                why = clutter_on(report, truth, tw)
                failures.append(f"{tag}: no measured wall (seen {tw['seenFraction'] * 100:.0f} % of its length)"
                                + (f"; taken as clutter: {why}" if why else "; no plane found there"))
            continue
        j = best[1]
        owner.setdefault(j, []).append(tw["index"])
        mw = measured[j]["report"]
        if best[0][0]:
            failures.append(f"{tag}: measured wall {mw['index']} lies on it but its normal points out of the room")
        length = _value(mw["length"])
        if tw["unseen"] and length is not None:
            failures.append(f"{tag}: unseen, but measured {length[0]:.3f} m")
            continue
        if length is None:
            failures.append(f"{tag}: length null ({mw.get('reason')}); visible {mw['visibleLength']:.2f} m")
            continue
        err = length[0] - L
        numbers.append({"quantity": "wall length", "error": err, "sigma": length[1], "where": f"wall {tw['index']}"})
        if abs(err) > 0.01:
            failures.append(f"{tag}: length {off_or_within(err, length[1])} by {err * 1000:+.1f} mm "
                            f"(sigma {length[1] * 1000:.1f} mm)")
    for j, walls in owner.items():
        if len(walls) > 1:
            failures.append(f"measured wall {measured[j]['report']['index']} stands for true walls {walls} (merged)")
    for j, mw in enumerate(measured):
        if j in owner:
            continue
        r = mw["report"]
        what = "in the outline" if r["inOutline"] else "not in the outline"
        cross = crosses_floor(truth, mw["start"], mw["end"])
        extra = f", runs {cross:.2f} m over open floor" if cross >= CROSS_LENGTH else ""
        failures.append(f"measured wall {r['index']} ({what}, visible {r['visibleLength']:.2f} m) is no true wall: "
                        f"{what_is_there(truth, mw)}{extra}")
    if report.get("outline") != "closed":
        failures.append("outline open" + (f" ({'; '.join(report.get('warnings', []))})" if report.get("warnings") else ""))
    elif truth["unseenWalls"]:
        failures.append(f"outline closed over unseen walls {truth['unseenWalls']}")
    else:
        for key, quantity, true in (("area", "floor area", truth["area"]), ("perimeter", "perimeter", truth["perimeter"])):
            v = _value(report.get(key))
            if v is None:
                failures.append(f"{key} null")
                continue
            numbers.append({"quantity": quantity, "error": v[0] - true, "sigma": v[1], "where": "room", "true": true})
            if quantity == "floor area" and abs(v[0] - true) > 0.01 * true:
                failures.append(f"area off by {(v[0] - true) / true * 100:+.2f} % ({v[0]:.3f} for {true:.3f} m²)")
    for n in numbers:
        if n["quantity"] == "height" and abs(n["error"]) > 0.01:
            failures.append(f"height {off_or_within(n['error'], n['sigma'])} by {n['error'] * 1000:+.1f} mm "
                            f"(sigma {n['sigma'] * 1000:.1f} mm)")
    return numbers, failures
