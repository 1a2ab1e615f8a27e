"""Floor plans of the generated rooms, in a z-up room frame (metres, floor at z = 0).

A plan is a counter-clockwise polygon plus the axis-aligned rectangles ("parts") it is the union
of. The parts exist so that stations can be put in every arm of an L or T: one station per part
sees every wall of a room built this way. All numbers come from the room's numpy Generator.
"""
import numpy as np

KINDS = ("box", "L", "T", "cut")


def polygon_area(poly):
    x, y = poly[:, 0], poly[:, 1]
    return 0.5 * float(np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y))


def polygon_perimeter(poly):
    return float(np.sum(np.linalg.norm(np.roll(poly, -1, axis=0) - poly, axis=1)))


def inside_polygon(poly, pts):
    """Even-odd test for many points at once (pts: (n, 2)); points on an edge may go either way."""
    pts = np.atleast_2d(pts)
    x, y = pts[:, 0], pts[:, 1]
    inside = np.zeros(len(pts), dtype=bool)
    n = len(poly)
    for i in range(n):
        x0, y0 = poly[i]
        x1, y1 = poly[(i + 1) % n]
        crosses = (y0 > y) != (y1 > y)
        with np.errstate(divide="ignore", invalid="ignore"):
            xc = x0 + (y - y0) * (x1 - x0) / (y1 - y0)
        inside ^= crosses & (x < xc)
    return inside


def distance_to_outline(poly, pts):
    """Distance of each point to the nearest polygon edge."""
    pts = np.atleast_2d(pts)
    best = np.full(len(pts), np.inf)
    n = len(poly)
    for i in range(n):
        a, b = poly[i], poly[(i + 1) % n]
        ab = b - a
        t = np.clip(((pts - a) @ ab) / (ab @ ab), 0.0, 1.0)
        best = np.minimum(best, np.linalg.norm(pts - (a + t[:, None] * ab), axis=1))
    return best


def make_plan(kind, rng):
    """Returns dict(kind, polygon (n,2) CCW, parts [(x0,y0,x1,y1)], height)."""
    height = float(rng.uniform(2.2, 3.5))
    if kind == "box":
        w, d = rng.uniform(2.0, 8.0, 2)
        poly = [(0, 0), (w, 0), (w, d), (0, d)]
        parts = [(0, 0, w, d)]
    elif kind == "L":
        # The cut-away rectangle [a, w] x [b, d]: arms at least 1.5 m wide, steps at least 1 m,
        # so every wall is long enough to be fitted and every arm can hold a station.
        w, d = rng.uniform(3.0, 8.0, 2)
        a = rng.uniform(1.5, w - 1.0)
        b = rng.uniform(1.5, d - 1.0)
        poly = [(0, 0), (w, 0), (w, b), (a, b), (a, d), (0, d)]
        parts = [(0, 0, w, b), (0, b, a, d)]
    elif kind == "T":
        # A bar [0, w] x [d - b, d] across the top and a stem [s, s + sw] x [0, d - b] below it.
        w = rng.uniform(4.0, 8.0)
        d = rng.uniform(3.0, 8.0)
        b = rng.uniform(1.5, d - 1.0)
        sw = rng.uniform(1.5, w - 2.0)
        s = rng.uniform(1.0, w - sw - 1.0)
        poly = [(s, 0), (s + sw, 0), (s + sw, d - b), (w, d - b), (w, d), (0, d), (0, d - b), (s, d - b)]
        parts = [(0, d - b, w, d), (s, 0, s + sw, d - b)]
    elif kind == "cut":
        # One corner cut at 45 degrees; the cut leaves at least 1 m of both walls it shortens.
        w, d = rng.uniform(2.5, 8.0, 2)
        c = rng.uniform(0.6, min(w, d) - 1.0)
        poly = [(0, 0), (w, 0), (w, d - c), (w - c, d), (0, d)]
        parts = [(0, 0, w, d)]
    else:
        raise ValueError(f"unknown room kind {kind!r} (one of {', '.join(KINDS)})")
    return {"kind": kind, "polygon": np.array(poly, dtype=float),
            "parts": [tuple(float(v) for v in p) for p in parts], "height": height}


def walls_of(poly):
    """Each polygon edge as a wall: start, end, unit direction, inward normal, length."""
    walls = []
    n = len(poly)
    for i in range(n):
        a, b = poly[i], poly[(i + 1) % n]
        length = float(np.linalg.norm(b - a))
        u = (b - a) / length
        # Counter-clockwise outline: the room lies to the left of each edge.
        inward = np.array([-u[1], u[0]])
        walls.append({"index": i, "start": a, "end": b, "dir": u, "inward": inward, "length": length})
    return walls
