"""A whole room as triangle meshes: walls (one with a doorway and a corridor or room behind it),
floor, ceiling and furniture against the walls and in the corners.

Surfaces are zero-thickness except at the doorway, where jambs and a head of `WALL_THICKNESS`
frame the opening as in a real wall: the camera sees the jambs' faces through the door.
"""
import numpy as np

import meshes
from plans import inside_polygon, make_plan, walls_of

WALL_THICKNESS = 0.12
# Furniture keeps this gap from the wall it stands against (skirting boards, cables).
WALL_GAP = 0.02


def pale(rng):
    return rng.uniform(0.65, 0.92, 3)


def _grid(corners, n=6):
    """Points spread over a convex quad (for overlap tests by sampling)."""
    s = np.linspace(0.0, 1.0, n)
    a, b, c, d = corners
    out = []
    for t in s:
        p, q = a + t * (b - a), d + t * (c - d)
        out += [p + r * (q - p) for r in s]
    return np.array(out)


def _inside_quad(corners, pts, margin=0.0):
    """Points inside a convex quad grown by margin."""
    inside = np.ones(len(pts), dtype=bool)
    for i in range(4):
        a, b = corners[i], corners[(i + 1) % 4]
        e = (b - a) / np.linalg.norm(b - a)
        n_in = np.array([-e[1], e[0]])
        # Corners are counter-clockwise, so the inside is to the left of each edge.
        inside &= (pts - a) @ n_in >= -margin
    return inside


def _ccw(corners):
    a, b, c = corners[0], corners[1], corners[2]
    if (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]) < 0:
        return corners[::-1].copy()
    return corners


class Room:
    def __init__(self, plan, rng):
        self.plan = plan
        self.rng = rng
        self.poly = plan["polygon"]
        self.height = plan["height"]
        self.walls = walls_of(self.poly)
        self.surfaces = []
        self.door = None
        self.behind = None      # the corridor or room behind the door: polygon and height
        self.furniture = []     # dicts: kind, wall, footprint corners (CCW), height
        self.objects = []       # loose boxes on the floor (walk mode)

    # -- the doorway -------------------------------------------------------------------------
    def add_doorway(self, big_room_behind=False):
        """Cuts a door into a wall long enough for it and builds what lies behind: a corridor
        (or, for the walk, another room) whose floor continues the room's. Walls whose outside is
        taken by another part of the room (an L's inner corner) are tried and skipped."""
        rng = self.rng
        order = rng.permutation(len(self.walls))
        for wi in order:
            wall = self.walls[wi]
            width = rng.uniform(0.8, 0.9)
            if wall["length"] < width + 0.8:
                continue
            dh = min(rng.uniform(2.0, 2.1), self.height - 0.1)
            center = rng.uniform(0.4 + width / 2, wall["length"] - 0.4 - width / 2)
            if big_room_behind:
                cw, cd = rng.uniform(3.0, 4.0), rng.uniform(2.5, 4.0)
            else:
                cw, cd = rng.uniform(1.2, 2.4), rng.uniform(1.0, 2.5)
            cw = max(cw, width + 0.3)
            out = -wall["inward"]
            s, u = wall["start"], wall["dir"]
            # The space behind, as a CCW rectangle on the plan, starting at the wall's far face.
            c0 = s + (center - cw / 2) * u + WALL_THICKNESS * out
            c1 = s + (center + cw / 2) * u + WALL_THICKNESS * out
            behind = np.array([c0, c1, c1 + cd * out, c0 + cd * out])
            behind = _ccw(behind)
            # It must not overlap the room itself (nor come within 5 cm of it).
            probe = _grid(behind, 12)
            grown = np.vstack([probe, probe + 0.05 * out])
            if inside_polygon(self.poly, grown).any() or _inside_quad(behind, self.poly, 0.05).any():
                continue
            bh = float(min(self.height, rng.uniform(max(dh + 0.2, 2.3), max(dh + 0.3, self.height))))
            self.door = {"wall": int(wi), "center": float(center), "width": float(width), "height": float(dh)}
            self.behind = {"polygon": behind, "height": bh, "kind": "room" if big_room_behind else "corridor"}
            return True
        return False

    # -- furniture ---------------------------------------------------------------------------
    def _free(self, corners, margin=0.05):
        pts = _grid(corners)
        # Slightly shrunk so that a box standing 2 cm off a wall still counts as inside.
        shrunk = corners + 0.01 * (corners.mean(axis=0) - corners) / np.linalg.norm(corners.mean(axis=0) - corners, axis=1)[:, None]
        if not inside_polygon(self.poly, _grid(shrunk)).all():
            return False
        for other in self.furniture + self.objects:
            if _inside_quad(other["footprint"], pts, margin).any() or _inside_quad(corners, _grid(other["footprint"]), margin).any():
                return False
        if self.door is not None:
            # Keep the doorway and the floor in front of it clear.
            w = self.walls[self.door["wall"]]
            mid = w["start"] + self.door["center"] * w["dir"]
            door_zone = _ccw(np.array([mid - 0.9 * w["dir"], mid + 0.9 * w["dir"],
                                       mid + 0.9 * w["dir"] + 1.0 * w["inward"], mid - 0.9 * w["dir"] + 1.0 * w["inward"]]))
            if _inside_quad(door_zone, pts).any() or _inside_quad(corners, _grid(door_zone)).any():
                return False
        return True

    def add_furniture(self, count):
        """Places up to `count` pieces against walls: bookshelves, sideboards, beds (head to a
        wall) and cabinets pushed into a corner."""
        rng = self.rng
        for _ in range(count):
            kind = str(rng.choice(["bookshelf", "sideboard", "bed", "cabinet"]))
            if kind == "bookshelf":
                w, d, h = rng.uniform(0.8, 1.6), rng.uniform(0.3, 0.4), rng.uniform(1.6, 2.2)
            elif kind == "sideboard":
                w, d, h = rng.uniform(1.2, 2.0), rng.uniform(0.4, 0.5), rng.uniform(0.8, 0.9)
            elif kind == "bed":
                w, d, h = 1.6, 2.0, rng.uniform(0.45, 0.55)
            else:
                w, d, h = rng.uniform(0.5, 0.8), rng.uniform(0.5, 0.6), rng.uniform(0.8, 2.2)
            h = min(h, self.height - 0.15)
            for _attempt in range(12):
                wi = int(rng.integers(len(self.walls)))
                wall = self.walls[wi]
                if wall["length"] < w + 2 * WALL_GAP:
                    continue
                if kind == "cabinet":
                    # Into the corner at one end of the wall (a corner of 90 degrees or less).
                    at = WALL_GAP + w / 2 if rng.random() < 0.5 else wall["length"] - WALL_GAP - w / 2
                else:
                    at = rng.uniform(WALL_GAP + w / 2, wall["length"] - WALL_GAP - w / 2)
                center = wall["start"] + at * wall["dir"] + (WALL_GAP + d / 2) * wall["inward"]
                corners = _ccw(meshes.footprint(center, wall["dir"], w, d))
                if not self._free(corners):
                    continue
                self.furniture.append({"kind": kind, "wall": wi, "footprint": corners, "height": float(h),
                                       "center": center, "u": wall["dir"], "width": float(w), "depth": float(d)})
                break

    def add_floor_objects(self, count, keep_clear=None):
        """Loose boxes on the floor (the walk's clutter), away from `keep_clear(points)`."""
        rng = self.rng
        lo, hi = self.poly.min(axis=0), self.poly.max(axis=0)
        for _ in range(count):
            for _attempt in range(20):
                c = rng.uniform(lo + 0.5, hi - 0.5)
                w, d, h = rng.uniform(0.2, 0.6), rng.uniform(0.2, 0.5), rng.uniform(0.15, 0.6)
                a = rng.uniform(0, np.pi)
                corners = _ccw(meshes.footprint(c, (np.cos(a), np.sin(a)), w, d))
                if keep_clear is not None and keep_clear(corners):
                    continue
                if not self._free(corners, margin=0.1):
                    continue
                self.objects.append({"kind": "object", "footprint": corners, "height": float(h), "center": c,
                                     "u": np.array([np.cos(a), np.sin(a)]), "width": float(w), "depth": float(d)})
                break

    # -- meshes ------------------------------------------------------------------------------
    def build_surfaces(self):
        rng = self.rng
        H = self.height
        wall_color = pale(rng)
        out = self.surfaces
        for w in self.walls:
            albedo = np.clip(wall_color + rng.normal(0, 0.03, 3), 0, 1)
            pieces = []
            if self.door is not None and self.door["wall"] == w["index"]:
                a = self.door["center"] - self.door["width"] / 2
                b = self.door["center"] + self.door["width"] / 2
                dh = self.door["height"]
                pieces = [meshes.wall_rect(w["start"], w["dir"], 0, a, 0, H),
                          meshes.wall_rect(w["start"], w["dir"], b, w["length"], 0, H),
                          meshes.wall_rect(w["start"], w["dir"], a, b, dh, H)]
            else:
                pieces = [meshes.wall_rect(w["start"], w["dir"], 0, w["length"], 0, H)]
            verts, tris = [], []
            for v, t in pieces:
                tris += [tuple(i + len(verts) for i in tri) for tri in t]
                verts += v
            out.append(meshes.surface(f"wall{w['index']}", "wall", verts, tris, albedo))
        out.append(meshes.surface("floor", "floor", *meshes.level_polygon(self.poly, 0.0), rng.uniform(0.35, 0.6, 3)))
        out.append(meshes.surface("ceiling", "ceiling", *meshes.level_polygon(self.poly, H), rng.uniform(0.85, 0.95, 3)))
        if self.door is not None:
            self._build_doorway()
        for k, f in enumerate(self.furniture + self.objects):
            v, t = meshes.box(f["center"], f["u"], f["width"], f["depth"], 0.0, f["height"])
            kind = "furniture" if f["kind"] != "object" else "object"
            out.append(meshes.surface(f"{f['kind']}{k}", kind, v, t, rng.uniform(0.2, 0.8, 3)))
        return out

    def _build_doorway(self):
        w = self.walls[self.door["wall"]]
        a = self.door["center"] - self.door["width"] / 2
        b = self.door["center"] + self.door["width"] / 2
        dh = self.door["height"]
        s, u, out_n = w["start"], w["dir"], -w["inward"]
        t = WALL_THICKNESS
        jamb_color = self.rng.uniform(0.6, 0.9, 3)
        verts, tris = [], []

        def add(piece):
            v, tr = piece
            tris.extend(tuple(i + len(verts) for i in tri) for tri in tr)
            verts.extend(v)

        # Jambs, head and threshold: the opening's faces through the wall's thickness.
        for at in (a, b):
            p = s + at * u
            q = p + t * out_n
            add(meshes.quad((p[0], p[1], 0), (q[0], q[1], 0), (q[0], q[1], dh), (p[0], p[1], dh)))
        pa, pb = s + a * u, s + b * u
        qa, qb = pa + t * out_n, pb + t * out_n
        add(meshes.quad((pa[0], pa[1], dh), (pb[0], pb[1], dh), (qb[0], qb[1], dh), (qa[0], qa[1], dh)))
        self.surfaces.append(meshes.surface("doorframe", "doorway", verts, tris, jamb_color))
        self.surfaces.append(meshes.surface("threshold", "doorway",
                                            *meshes.quad((pa[0], pa[1], 0), (pb[0], pb[1], 0), (qb[0], qb[1], 0), (qa[0], qa[1], 0)),
                                            self.rng.uniform(0.35, 0.6, 3)))
        # The space behind: its floor, ceiling and the three walls the camera can see from the
        # room (the wall it shares with the room faces away from every ray through the door).
        bp, bh = self.behind["polygon"], self.behind["height"]
        self.surfaces.append(meshes.surface("behind-floor", "behind", *meshes.level_polygon(bp, 0.0), self.rng.uniform(0.3, 0.6, 3)))
        self.surfaces.append(meshes.surface("behind-ceiling", "behind", *meshes.level_polygon(bp, bh), self.rng.uniform(0.8, 0.95, 3)))
        color = pale(self.rng)
        for i in range(4):
            p, q = bp[i], bp[(i + 1) % 4]
            mid = (p + q) / 2
            # Skip the edge that lies along the room's wall.
            if abs((mid - s) @ out_n - t) < 1e-6:
                continue
            self.surfaces.append(meshes.surface(f"behind-wall{i}", "behind",
                                                *meshes.quad((p[0], p[1], 0), (q[0], q[1], 0), (q[0], q[1], bh), (p[0], p[1], bh)), color))

    # -- where a camera may stand ------------------------------------------------------------
    def standable(self, xy, clearance=0.5):
        """Whether a camera may stand at xy: inside, clear of walls and of furniture."""
        from plans import distance_to_outline
        xy = np.atleast_2d(xy)
        ok = inside_polygon(self.poly, xy) & (distance_to_outline(self.poly, xy) >= clearance)
        for f in self.furniture:
            ok &= ~_inside_quad(f["footprint"], xy, 0.3)
        return ok


def build_room(kind, rng, furniture=None, doorway=None):
    """A room of the given kind with 0-4 pieces of furniture and (by default half the time) a doorway."""
    room = Room(make_plan(kind, rng), rng)
    want_door = rng.random() < 0.5 if doorway is None else doorway
    if want_door:
        room.add_doorway()
    room.add_furniture(int(rng.integers(0, 5)) if furniture is None else furniture)
    room.build_surfaces()
    return room
