"""Where the camera stands and looks: stations with a pan of yaws and pitches, the walk's path,
and the pose drift a tracker adds to the recorded poses.

Poses are camera-to-room 4x4 matrices with OpenCV camera axes (x right, y down, z forward) in the
z-up room frame.
"""
import numpy as np


def look(position, yaw, pitch, roll=0.0):
    """Camera-to-room pose looking along yaw (from the room's x axis, counter-clockwise seen from
    above) and pitch (up positive), turned by roll about the optical axis."""
    f = np.array([np.cos(pitch) * np.cos(yaw), np.cos(pitch) * np.sin(yaw), np.sin(pitch)])
    right = np.cross(f, [0.0, 0.0, 1.0])
    right /= np.linalg.norm(right)
    down = np.cross(f, right)
    # Roll: turn right and down about the optical axis.
    cr, sr = np.cos(roll), np.sin(roll)
    r2, d2 = cr * right + sr * down, -sr * right + cr * down
    T = np.eye(4)
    T[:3, 0], T[:3, 1], T[:3, 2], T[:3, 3] = r2, d2, f, position
    return T


def pick_stations(room, count, rng):
    """One station per part of the plan first (an L's or T's arms), then anywhere: together they
    see every wall of these plans. A part too crowded by furniture takes a station anywhere."""
    parts = list(room.plan["parts"])
    order = [parts[i % len(parts)] for i in range(count)]
    stations = []
    lo, hi = room.poly.min(axis=0), room.poly.max(axis=0)
    for part in order:
        x0, y0, x1, y1 = part
        for box in ((x0, y0, x1, y1), (lo[0], lo[1], hi[0], hi[1])):
            cand = np.column_stack([rng.uniform(box[0], box[2], 200), rng.uniform(box[1], box[3], 200)])
            ok = room.standable(cand)
            # Stations of one room keep apart, so that they add views.
            for s in stations:
                ok &= np.linalg.norm(cand - s[:2], axis=1) > 0.8
            if ok.any():
                xy = cand[np.argmax(ok)]
                stations.append(np.array([xy[0], xy[1], rng.uniform(1.2, 1.7)]))
                break
    if not stations:
        raise RuntimeError("no place to stand in this room")
    return stations


def station_pan(station, rng, yaws=None, pitches=None):
    """A pan at one station: 10-14 yaws all round, at 2-3 pitches between -30 and +20 degrees,
    each frame with a little roll and jitter, as a hand-held pan has."""
    n_yaw = int(rng.integers(10, 15)) if yaws is None else yaws
    levels = [-25.0, 0.0, 15.0] if (pitches or int(rng.integers(2, 4))) == 3 else [-20.0, 10.0]
    start = rng.uniform(0, 2 * np.pi)
    poses = []
    for p in levels:
        for k in range(n_yaw):
            yaw = start + 2 * np.pi * k / n_yaw + rng.normal(0, np.radians(3))
            pitch = np.radians(np.clip(p + rng.normal(0, 3), -30, 20))
            roll = rng.normal(0, np.radians(2))
            pos = station + rng.normal(0, 0.01, 3)
            poses.append(look(pos, yaw, pitch, roll))
    return poses


def walk_path(room, frames, rng):
    """A walk round the room at 1.2-1.5 m inside its walls: the camera looks ahead and to the
    outside in turn (toward the walls and furniture), bobbing in pitch between -30 and +10 degrees."""
    lo, hi = room.poly.min(axis=0), room.poly.max(axis=0)
    inset = rng.uniform(1.2, 1.5)
    a, b = lo + inset, hi - inset
    corners = np.array([[a[0], a[1]], [b[0], a[1]], [b[0], b[1]], [a[0], b[1]]])
    seg = np.linalg.norm(np.roll(corners, -1, axis=0) - corners, axis=1)
    total = seg.sum()
    start = rng.uniform(0, total)
    height = rng.uniform(1.3, 1.5)
    poses = []
    for k in range(frames):
        s = (start + total * 1.05 * k / frames) % total
        i = int(np.searchsorted(np.cumsum(seg), s, side="right"))
        i = min(i, 3)
        s0 = s - (np.cumsum(seg)[i - 1] if i else 0.0)
        p0, p1 = corners[i], corners[(i + 1) % 4]
        d = (p1 - p0) / seg[i]
        xy = p0 + s0 * d
        heading = np.arctan2(d[1], d[0])
        # Counter-clockwise walk: the outside is to the right (yaw - 90 degrees).
        yaw = heading - np.radians(45) + np.radians(50) * np.sin(2 * np.pi * k / 23.0)
        pitch = np.radians(-10 + 18 * np.sin(2 * np.pi * k / 17.0) + rng.normal(0, 2))
        roll = rng.normal(0, np.radians(2))
        pos = np.array([xy[0], xy[1], height + 0.02 * np.sin(2 * np.pi * k / 9.0)]) + rng.normal(0, 0.005, 3)
        poses.append(look(pos, yaw, pitch, roll))
    return poses


def _small_rotation(axis_angle):
    theta = np.linalg.norm(axis_angle)
    if theta < 1e-15:
        return np.eye(3)
    k = axis_angle / theta
    K = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    return np.eye(3) + np.sin(theta) * K + (1 - np.cos(theta)) * K @ K


def drift(poses, rng, degrees_per_frame, mm_per_frame):
    """Recorded poses that drift from the true ones by a random walk: each frame adds a rotation
    of about `degrees_per_frame` (about a random axis) and a step of about `mm_per_frame`, applied
    in the world frame, so the error accumulates as a tracker's does. The first frame is exact
    (it defines the world)."""
    D = np.eye(4)
    out = [poses[0].copy()]
    sig_r = np.radians(degrees_per_frame) / np.sqrt(3)
    sig_t = mm_per_frame / 1000.0 / np.sqrt(3)
    for T in poses[1:]:
        step = np.eye(4)
        step[:3, :3] = _small_rotation(rng.normal(0, sig_r, 3))
        step[:3, 3] = rng.normal(0, sig_t, 3)
        D = step @ D
        # The drift turns about the camera's position, not the room's origin, so its rotation
        # does not also throw the camera metres away in a large room.
        c = T[:3, 3]
        Tc = np.eye(4); Tc[:3, 3] = c
        Tci = np.eye(4); Tci[:3, 3] = -c
        out.append(Tc @ np.block([[D[:3, :3], D[:3, 3:4]], [np.zeros((1, 3)), np.ones((1, 1))]]) @ Tci @ T)
    return out
