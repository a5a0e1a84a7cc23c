"""Narrow phase by closest features (surfaces-and-contacts 4, 6.3).

Every function returns candidates: a feature pair (``anchor`` on the moving
side: the ball, a vertex, an edge pair; ``support``: the face, triangle or
piece it meets), the contact point midway between the surfaces, the unit
normal from obj0 towards obj1 and the gap (surface distance, radii
subtracted). Candidates beyond the asked range are not returned.
"""

from __future__ import annotations

import math

from .geometry import REGION_FACE, closest_on_triangle, segment_params

MAX_PENETRATION = 0.25       # deeper vertex-in-face or edge-edge overlaps are not features
INSIDE_TOL = 0.01            # a projected vertex this far outside a face still counts as on it
                             # (so equal faces stacked edge to edge keep their corner features)
EDGE_INTERIOR = 1e-3         # edge-edge features need both closest points inside their edges


class Cand:
    """A candidate contact: features, point, normal (obj0 -> obj1), gap."""

    __slots__ = ("anchor", "support", "point", "normal", "gap", "edge")

    def __init__(self, anchor, support, point, normal, gap, edge=None):
        self.anchor = anchor
        self.support = support
        self.point = point
        self.normal = normal
        self.gap = gap
        self.edge = edge            # the support face's first edge (spec 4's first tangent)


def ball_ball(c0, r0, c1, r1, rng):
    """Ball-ball: normal along the centre line."""
    dx = c1[0] - c0[0]
    dy = c1[1] - c0[1]
    dz = c1[2] - c0[2]
    d = math.sqrt(dx * dx + dy * dy + dz * dz)
    gap = d - r0 - r1
    if gap >= rng:
        return None
    if d < 1e-12:
        nx, ny, nz = 0.0, 1.0, 0.0
    else:
        nx, ny, nz = dx / d, dy / d, dz / d
    k = r0 + gap * 0.5
    return Cand("ball", "ball", (c0[0] + nx * k, c0[1] + ny * k, c0[2] + nz * k), (nx, ny, nz), gap)


def ball_triangle(c, r, a, b, cc, n, rng, support, side_ref=None):
    """Ball-triangle (spec 4): the face normal while the centre projects inside
    the triangle, the direction from the edge or vertex otherwise.

    ``n`` is the triangle's unit normal; the face is two-sided, the side the
    centre is on, or the side ``side_ref`` (the centre at the PSI start) is
    on, so a small fast ball that crossed the plane within the PSI is caught.
    """
    px, py, pz = c
    s = n[0] * (px - a[0]) + n[1] * (py - a[1]) + n[2] * (pz - a[2])
    if side_ref is not None:
        above = n[0] * (side_ref[0] - a[0]) + n[1] * (side_ref[1] - a[1]) + n[2] * (side_ref[2] - a[2]) >= 0.0
        if (s if above else -s) - r >= rng:
            return None
    else:
        above = s >= 0.0
        if s - r >= rng or -s - r >= rng:
            return None
    q, region = closest_on_triangle(px, py, pz, a, b, cc)
    if region == REGION_FACE:
        if above:
            ox, oy, oz = n
            gap = s - r
        else:
            ox, oy, oz = -n[0], -n[1], -n[2]
            gap = -s - r
    else:
        dx = px - q[0]
        dy = py - q[1]
        dz = pz - q[2]
        d = math.sqrt(dx * dx + dy * dy + dz * dz)
        gap = d - r
        if gap >= rng:
            return None
        if d < 1e-12:
            ox, oy, oz = n if s >= 0.0 else (-n[0], -n[1], -n[2])
        else:
            ox, oy, oz = dx / d, dy / d, dz / d
    h = gap * 0.5
    return Cand("ball", support, (q[0] + ox * h, q[1] + oy * h, q[2] + oz * h), (-ox, -oy, -oz), gap,
                (b[0] - a[0], b[1] - a[1], b[2] - a[2]))


def ball_hull(c, r, piece, rng, support):
    """Ball against a closed convex piece: the closest point of its front faces,
    or the least penetrated face when the centre is inside."""
    px, py, pz = c
    best_h = -math.inf
    best = None
    for p in piece.planes:
        h = p[0] * px + p[1] * py + p[2] * pz - p[3]
        if h > best_h:
            best_h = h
            best = p
    if best_h - r >= rng:
        return None
    if best_h <= 0.0:
        ox, oy, oz = best[0], best[1], best[2]
        gap = best_h - r
        q = (px - ox * best_h, py - oy * best_h, pz - oz * best_h)
    else:
        V = piece.verts
        dmin = math.inf
        q = None
        for i, j, k in piece.tris:
            t, _ = closest_on_triangle(px, py, pz, V[i], V[j], V[k])
            d2 = (px - t[0]) ** 2 + (py - t[1]) ** 2 + (pz - t[2]) ** 2
            if d2 < dmin:
                dmin = d2
                q = t
        d = math.sqrt(dmin)
        gap = d - r
        if gap >= rng:
            return None
        if d < 1e-12:
            ox, oy, oz = best[0], best[1], best[2]
        else:
            ox, oy, oz = (px - q[0]) / d, (py - q[1]) / d, (pz - q[2]) / d
    h = gap * 0.5
    return Cand("ball", support, (q[0] + ox * h, q[1] + oy * h, q[2] + oz * h), (-ox, -oy, -oz), gap)


def ball_piece(c, r, piece, rng, support, side_ref=None):
    if piece.two_sided:
        a, b, cc = piece.verts
        p = piece.planes[0]
        return ball_triangle(c, r, a, b, cc, (p[0], p[1], p[2]), rng, support, side_ref)
    return ball_hull(c, r, piece, rng, support)


def _planes_facing(piece, point):
    """The piece's outward planes; a two-sided triangle shows the side facing ``point``."""
    if not piece.two_sided:
        return piece.planes
    p = piece.planes[0]
    if p[0] * point[0] + p[1] * point[1] + p[2] * point[2] - p[3] >= 0.0:
        return piece.planes
    return [(-p[0], -p[1], -p[2], -p[3])]


def _separated(verts, planes, rng) -> bool:
    """A face plane with every vertex of the other piece beyond rng: no feature is near."""
    for p in planes:
        nx, ny, nz, d = p
        for v in verts:
            if nx * v[0] + ny * v[1] + nz * v[2] - d < rng:
                break
        else:
            return True
    return False


def _vertices_on_faces(verts, vkeys, planes, sides, rng, flip, out, support_key):
    """Vertex-face features: each vertex against the nearest plane of the other
    piece, kept when its projection lies on that face."""
    for v, vk in zip(verts, vkeys):
        vx, vy, vz = v
        best_h = -math.inf
        best_j = -1
        for j, p in enumerate(planes):
            h = p[0] * vx + p[1] * vy + p[2] * vz - p[3]
            if h > best_h:
                best_h = h
                best_j = j
        if best_h >= rng or best_h < -MAX_PENETRATION:
            continue
        p = planes[best_j]
        qx = vx - p[0] * best_h
        qy = vy - p[1] * best_h
        qz = vz - p[2] * best_h
        for s in sides:
            if s[0] * qx + s[1] * qy + s[2] * qz - s[3] > INSIDE_TOL:
                break
        else:
            hh = best_h * 0.5
            point = (vx - p[0] * hh, vy - p[1] * hh, vz - p[2] * hh)
            # p points from the face towards the vertex
            normal = (p[0], p[1], p[2]) if flip else (-p[0], -p[1], -p[2])
            out.append(Cand(vk, support_key(best_j), point, normal, best_h))


def _edge_ball(V, e):
    """Midpoint and half length of edge e: a sphere holding it."""
    p = V[e[0]]
    q = V[e[1]]
    return ((p[0] + q[0]) * 0.5, (p[1] + q[1]) * 0.5, (p[2] + q[2]) * 0.5,
            0.5 * math.sqrt((q[0] - p[0]) ** 2 + (q[1] - p[1]) ** 2 + (q[2] - p[2]) ** 2))


def _edge_edge(A, B, akey, bkey, rng, out):
    """Edge-edge features: interior closest points, the edges' common normal
    separating the two pieces (valid closest features of convex pieces)."""
    VA = A.verts
    VB = B.verts
    bcx, bcy, bcz = B.center
    reach = B.radius + rng
    eb_balls = [_edge_ball(VB, eb) for eb in B.edges]
    for ea in A.edges:
        p1 = VA[ea[0]]
        q1 = VA[ea[1]]
        ax, ay, az, half = _edge_ball(VA, ea)
        if (ax - bcx) ** 2 + (ay - bcy) ** 2 + (az - bcz) ** 2 > (reach + half) ** 2:
            continue
        for eb, (bx, by, bz, bhalf) in zip(B.edges, eb_balls):
            if (ax - bx) ** 2 + (ay - by) ** 2 + (az - bz) ** 2 > (half + bhalf + rng) ** 2:
                continue
            p2 = VB[eb[0]]
            q2 = VB[eb[1]]
            st = segment_params(p1, q1, p2, q2)
            if st is None:
                continue
            s, t = st
            if not (EDGE_INTERIOR < s < 1.0 - EDGE_INTERIOR and EDGE_INTERIOR < t < 1.0 - EDGE_INTERIOR):
                continue
            d1 = (q1[0] - p1[0], q1[1] - p1[1], q1[2] - p1[2])
            d2 = (q2[0] - p2[0], q2[1] - p2[1], q2[2] - p2[2])
            nx = d1[1] * d2[2] - d1[2] * d2[1]
            ny = d1[2] * d2[0] - d1[0] * d2[2]
            nz = d1[0] * d2[1] - d1[1] * d2[0]
            k = 1.0 / math.sqrt(nx * nx + ny * ny + nz * nz)
            nx *= k
            ny *= k
            nz *= k
            pa = (p1[0] + d1[0] * s, p1[1] + d1[1] * s, p1[2] + d1[2] * s)
            pb = (p2[0] + d2[0] * t, p2[1] + d2[1] * t, p2[2] + d2[2] * t)
            ac = A.center
            if nx * (bcx - ac[0]) + ny * (bcy - ac[1]) + nz * (bcz - ac[2]) < 0.0:
                nx, ny, nz = -nx, -ny, -nz          # from A towards B
            ha = nx * pa[0] + ny * pa[1] + nz * pa[2]
            if max(nx * v[0] + ny * v[1] + nz * v[2] for v in VA) > ha + INSIDE_TOL:
                continue
            hb = nx * pb[0] + ny * pb[1] + nz * pb[2]
            if min(nx * v[0] + ny * v[1] + nz * v[2] for v in VB) < hb - INSIDE_TOL:
                continue
            gap = hb - ha
            if gap >= rng or gap < -MAX_PENETRATION:
                continue
            point = ((pa[0] + pb[0]) * 0.5, (pa[1] + pb[1]) * 0.5, (pa[2] + pb[2]) * 0.5)
            out.append(Cand(("e", akey(ea), bkey(eb)), ("ee",), point, (nx, ny, nz), gap))


def piece_piece(A, B, akey, bkey, rng):
    """Convex-convex and convex-triangle features (spec 6.3): A's vertices on
    B's faces, B's vertices on A's faces, and crossing edges when fewer than
    three vertex features hold the pair.

    ``akey``/``bkey`` map a vertex index (or an edge's index pair) of A/B to
    its feature key; faces are keyed ``("f", piece key, plane index)``.
    """
    out = []
    pb = _planes_facing(B, A.center)
    pa = _planes_facing(A, B.center)
    if _separated(A.verts, pb, rng) or _separated(B.verts, pa, rng):
        return out
    _vertices_on_faces(A.verts, [("v", akey(i)) for i in range(len(A.verts))], pb,
                       B.sides if B.two_sided else pb, rng, False, out,
                       lambda j: ("f", bkey(None), j))
    _vertices_on_faces(B.verts, [("w", bkey(i)) for i in range(len(B.verts))], pa,
                       A.sides if A.two_sided else pa, rng, True, out,
                       lambda j: ("f", akey(None), j))
    if len(out) < 3:
        _edge_edge(A, B, akey, bkey, rng, out)
    return out
