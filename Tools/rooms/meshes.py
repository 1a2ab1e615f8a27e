"""Triangle meshes of room surfaces: quads, boxes and floor polygons, each tagged with what it is.

A surface is a dict(name, kind, vertices (n,3), triangles (m,3), albedo (3,)). The kind lets the
ray caster tell, per pixel, whether a wall, the floor, furniture or the corridor behind a door was
hit (for the ground truth's visibility) and the color model pick its albedo.
"""
import numpy as np


def surface(name, kind, vertices, triangles, albedo):
    return {"name": name, "kind": kind, "vertices": np.asarray(vertices, dtype=np.float64),
            "triangles": np.asarray(triangles, dtype=np.int32), "albedo": np.asarray(albedo, dtype=float)}


def quad(p0, p1, p2, p3):
    """Four corners in order around the quad: two triangles. Faces are seen from both sides by
    the ray caster, so winding does not matter."""
    return [p0, p1, p2, p3], [(0, 1, 2), (0, 2, 3)]


def wall_rect(start, direction, u0, u1, z0, z1, offset=None):
    """A vertical rectangle along a floor line: u (metres along `direction` from `start`) and z."""
    s = np.asarray(start, float) if offset is None else np.asarray(start, float) + offset
    d = np.asarray(direction, float)
    a, b = s + u0 * d, s + u1 * d
    return quad((a[0], a[1], z0), (b[0], b[1], z0), (b[0], b[1], z1), (a[0], a[1], z1))


def box(center, u, width, depth, z0, z1):
    """A closed box standing on the floor: `width` along the level unit vector u, `depth` across it."""
    c = np.asarray(center, float)
    u = np.asarray(u, float)
    v = np.array([-u[1], u[0]])
    corners = [c + su * width / 2 * u + sv * depth / 2 * v for su, sv in ((-1, -1), (1, -1), (1, 1), (-1, 1))]
    verts = [(p[0], p[1], z0) for p in corners] + [(p[0], p[1], z1) for p in corners]
    tris = [(0, 1, 2), (0, 2, 3), (4, 5, 6), (4, 6, 7)]
    for i in range(4):
        j = (i + 1) % 4
        tris += [(i, j, j + 4), (i, j + 4, i + 4)]
    return verts, tris


def footprint(center, u, width, depth):
    """The box's four floor corners, for overlap tests."""
    c = np.asarray(center, float)
    u = np.asarray(u, float)
    v = np.array([-u[1], u[0]])
    return np.array([c + su * width / 2 * u + sv * depth / 2 * v for su, sv in ((-1, -1), (1, -1), (1, 1), (-1, 1))])


def triangulate_polygon(poly):
    """Ear clipping of a simple counter-clockwise polygon; fine for the handful of corners here."""
    idx = list(range(len(poly)))
    tris = []

    def cross(o, a, b):
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    guard = 0
    while len(idx) > 3 and guard < 1000:
        guard += 1
        for k in range(len(idx)):
            i0, i1, i2 = idx[k - 1], idx[k], idx[(k + 1) % len(idx)]
            a, b, c = poly[i0], poly[i1], poly[i2]
            if cross(a, b, c) <= 1e-12:
                continue  # reflex or flat corner: not an ear
            if any(cross(a, b, poly[j]) >= 0 and cross(b, c, poly[j]) >= 0 and cross(c, a, poly[j]) >= 0
                   for j in idx if j not in (i0, i1, i2)):
                continue
            tris.append((i0, i1, i2))
            idx.pop(k)
            break
    tris.append(tuple(idx))
    return tris


def level_polygon(poly, z):
    verts = [(p[0], p[1], z) for p in poly]
    return verts, triangulate_polygon(poly)
