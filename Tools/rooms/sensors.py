"""Depth sensors, rendered with Open3D's RaycastingScene: a Kinect-like structured-light camera and
a phone LiDAR. Depth is ray-cast from the TRUE pose; the sensor model then spoils it.

Rays are built here from the pinhole model with a direction of z = 1 in the camera frame, so the
ray parameter of a hit is the depth along the optical axis (what a depth image stores).
"""
import numpy as np
import open3d as o3d

SENSORS = ("kinect", "phone")


def sensor_spec(name):
    if name == "kinect":
        # 640x480 with the ROS OpenNI default calibration (TUM's and Open3D's PrimeSense default).
        return {"name": "kinect", "width": 640, "height": 480, "fx": 525.0, "fy": 525.0, "cx": 319.5, "cy": 239.5,
                "min": 0.4, "max": 6.0}
    if name == "phone":
        # A 1920x1440 color camera with fx ~ 1450, its calibration scaled to the 256x192 depth map
        # (pixel centres: c' = (c + 0.5) * s - 0.5).
        s = 256 / 1920
        return {"name": "phone", "width": 256, "height": 192, "fx": 1450.0 * s, "fy": 1450.0 * s,
                "cx": (959.5 + 0.5) * s - 0.5, "cy": (719.5 + 0.5) * s - 0.5, "min": 0.25, "max": 5.0}
    raise ValueError(f"unknown sensor {name!r} (one of {', '.join(SENSORS)})")


def intrinsic_matrix(spec):
    return np.array([[spec["fx"], 0, spec["cx"]], [0, spec["fy"], spec["cy"]], [0, 0, 1.0]])


class Renderer:
    """One RaycastingScene per room; every surface is its own geometry so a hit names it."""

    def __init__(self, surfaces, spec):
        self.scene = o3d.t.geometry.RaycastingScene()
        self.surfaces = surfaces
        self.spec = spec
        ids = []
        for s in surfaces:
            mesh = o3d.t.geometry.TriangleMesh()
            mesh.vertex.positions = o3d.core.Tensor(s["vertices"].astype(np.float32))
            mesh.triangle.indices = o3d.core.Tensor(s["triangles"].astype(np.int32))
            ids.append(self.scene.add_triangles(mesh))
        # Geometry id -> surface index (ids are handed out in order, but do not rely on it).
        self.surface_of = np.full(max(ids) + 2, -1, dtype=np.int64)
        for i, gid in enumerate(ids):
            self.surface_of[gid] = i
        w, h = spec["width"], spec["height"]
        u, v = np.meshgrid(np.arange(w, dtype=np.float64), np.arange(h, dtype=np.float64))
        self.dirs_cam = np.stack([(u - spec["cx"]) / spec["fx"], (v - spec["cy"]) / spec["fy"], np.ones_like(u)], axis=-1).reshape(-1, 3).astype(np.float32)
        self.albedo = np.array([s["albedo"] for s in surfaces] + [[0, 0, 0]], dtype=np.float32)

    def cast(self, cam_to_room):
        """Depth (h, w) along the optical axis (inf = nothing hit), surface index per pixel (-1 =
        none), the hit normals (for shading) and the ray directions. float32 throughout: a
        millimetre at 6 m is far above its resolution, and it halves the time of a frame."""
        R = cam_to_room[:3, :3].astype(np.float32)
        rays = np.empty((self.dirs_cam.shape[0], 6), dtype=np.float32)
        rays[:, :3] = cam_to_room[:3, 3]
        np.matmul(self.dirs_cam, R.T, out=rays[:, 3:])
        ans = self.scene.cast_rays(o3d.core.Tensor.from_numpy(rays))
        depth = ans["t_hit"].numpy()
        gid = ans["geometry_ids"].numpy()
        hit = np.isfinite(depth)
        surf = np.where(hit, self.surface_of[np.where(hit, gid, 0)], -1)
        normals = ans["primitive_normals"].numpy()
        h, w = self.spec["height"], self.spec["width"]
        return depth.reshape(h, w), surf.reshape(h, w), normals.reshape(h, w, 3), rays[:, 3:].reshape(h, w, 3)

    def shade(self, surf, normals, dirs, light):
        """Lambert shading of each surface's albedo under a fixed light plus a little ambient and
        headlight, as 8-bit sRGB-ish values; pixels that hit nothing are black."""
        view = dirs / np.sqrt(np.sum(dirs * dirs, axis=-1, keepdims=True))
        lam = np.abs(normals @ light.astype(np.float32))
        head = np.abs(np.sum(normals * view, axis=-1))
        k = 0.25 + 0.5 * lam + 0.25 * head
        rgb = self.albedo[surf] * k[..., None]
        rgb[surf < 0] = 0
        return np.clip(rgb * 255 + 0.5, 0, 255).astype(np.uint8)


def _blur3(depth_m):
    """3x3 binomial blur over valid pixels only (weights renormalised), as phone depth smoothing
    does; it still mixes near and far depths at an edge, which leaves the flying pixels real
    phone depth has."""
    valid = depth_m > 0
    k = np.array([1.0, 2.0, 1.0])
    num = np.where(valid, depth_m, 0.0)
    den = valid.astype(np.float64)
    for axis in (0, 1):
        pn = np.pad(num, [(1, 1) if a == axis else (0, 0) for a in (0, 1)])
        pd = np.pad(den, [(1, 1) if a == axis else (0, 0) for a in (0, 1)])
        if axis == 0:
            num = k[0] * pn[:-2] + k[1] * pn[1:-1] + k[2] * pn[2:]
            den = k[0] * pd[:-2] + k[1] * pd[1:-1] + k[2] * pd[2:]
        else:
            num = k[0] * pn[:, :-2] + k[1] * pn[:, 1:-1] + k[2] * pn[:, 2:]
            den = k[0] * pd[:, :-2] + k[1] * pd[:, 1:-1] + k[2] * pd[:, 2:]
    out = np.where(valid & (den > 0), num / np.maximum(den, 1e-9), 0.0)
    return out


def spoil(depth, spec, rng, noise=True):
    """True depth (metres, inf = no hit) -> the sensor's 16-bit millimetres (0 = invalid)."""
    depth = depth.astype(np.float64)
    z = np.where(np.isfinite(depth), depth, 0.0)
    if spec["name"] == "kinect":
        # Structured light: sigma grows with the square of range, 1.5 mm at 1 m.
        if noise:
            z = z + rng.normal(size=z.shape) * 0.0015 * z * z
    else:
        # Phone LiDAR: white noise of 2.7 cm, which the 3x3 smoothing brings to about 1 cm
        # (a binomial 3x3 kernel keeps 0.375 of the sigma) and makes spatially correlated.
        if noise:
            z = np.where(z > 0, z + rng.normal(size=z.shape) * 0.027, 0.0)
        z = _blur3(z)
    mm = np.round(z * 1000.0)
    valid = (z >= spec["min"]) & (z <= spec["max"]) & (depth > 0)
    return np.where(valid, mm, 0).astype(np.uint16)
