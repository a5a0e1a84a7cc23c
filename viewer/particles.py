"""Flames as simple particles and blob shadows (issue 42; docs/viewer.md
"Effects"): what the behaviours ask for (``behaviors.hooks.emitters``,
``blob_shadows``) as camera-facing or flat textured quads. No OpenGL here:
``textures.SpriteBatch`` draws the quads.

A flame emitter gives off a particle every 20 ms of the behaviour clock (the
game's cadence); each rises, spreads, shrinks and fades over its life and is
drawn added to what is behind it (source alpha, one). Life, speed, size and
colours are the viewer's (not in the spec). Particles are made with a
random generator seeded by the emitter's name, so a run draws the same
flames every time; an emitter no longer offered lets its particles burn out.

A blob shadow is a dark disc laid flat where a ray straight down from the
caster first meets one of its receivers, within its maximum height.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass

import numpy as np

from .picking import pick

EMIT_PERIOD_S = 0.02            # one particle per 20 ms (the game's cadence)


@dataclass(frozen=True)
class FlameLook:
    """A flame particle's life (s), rise speed (m/s), spread (m/s and m at
    birth), size (half-width, m, at birth and death) and colour (r g b a, at
    birth and death), for an emitter of size 1."""

    life: tuple = (0.5, 0.9)
    rise: tuple = (4.0, 7.0)
    spread: float = 0.6
    jitter: float = 0.3
    size: tuple = (1.5, 0.4)
    colour: tuple = ((1.0, 1.0, 1.0, 1.0), (1.0, 0.6, 0.4, 0.0))


FLAME = FlameLook()


class _Flame:
    """One emitter's particles: position (n, 3), velocity (n, 3), age, life, size."""

    def __init__(self, name: str):
        self.rng = np.random.default_rng(zlib.crc32(name.encode()))
        self.pos = np.zeros((0, 3))
        self.vel = np.zeros((0, 3))
        self.age = np.zeros(0)
        self.life = np.zeros(0)
        self.scale = np.zeros(0)
        self.due = 0.0                  # seconds until the next particle

    def step(self, dt: float, emitter, look: FlameLook) -> None:
        """Age and move the particles by ``dt``; make the emitter's new ones."""
        self.age += dt
        self.pos += self.vel * dt
        keep = self.age < self.life
        self.pos, self.vel, self.age, self.life, self.scale = (
            a[keep] for a in (self.pos, self.vel, self.age, self.life, self.scale))
        if emitter is None:
            return
        self.due -= dt
        n = 0
        while self.due <= 0.0:
            self.due += EMIT_PERIOD_S
            n += 1
        if n:
            s = emitter.size
            r = self.rng
            spread = r.uniform(-1.0, 1.0, (n, 3)) * look.spread * s
            spread[:, 1] = r.uniform(*look.rise, n) * s
            start = np.asarray(emitter.position, np.float64) + r.uniform(-1.0, 1.0, (n, 3)) * look.jitter * s
            start[:, 1] = emitter.position[1]
            self.pos = np.concatenate([self.pos, start])
            self.vel = np.concatenate([self.vel, spread])
            self.age = np.concatenate([self.age, np.zeros(n)])
            self.life = np.concatenate([self.life, r.uniform(*look.life, n)])
            self.scale = np.concatenate([self.scale, np.full(n, s)])


class Flames:
    """The flames of every emitter, stepped on the behaviour clock."""

    def __init__(self, look: FlameLook = FLAME):
        self.look = look
        self.systems: dict[str, _Flame] = {}
        self.clock = None

    def update(self, now_s: float, emitters) -> None:
        """To the behaviour clock ``now_s`` (seconds) with this frame's emitters
        (kind "flame"), in steps of at most 20 ms over at most a particle's
        longest life (older particles would be gone). The first update, and
        one whose clock went back (a restart), start afresh with the flames
        burning as if lit that long ago."""
        longest = self.look.life[1]
        if self.clock is None or now_s < self.clock:
            self.systems = {}
            dt = longest
        else:
            dt = min(now_s - self.clock, longest)
        self.clock = now_s
        by_name = {e.name: e for e in emitters if e.kind == "flame"}
        for name in by_name:
            self.systems.setdefault(name, _Flame(name))
        steps = int(np.ceil(dt / EMIT_PERIOD_S - 1e-9))
        for name, system in list(self.systems.items()):
            for _ in range(steps):
                system.step(dt / steps, by_name.get(name), self.look)
            if name not in by_name and not len(system.age):
                del self.systems[name]

    def sprites(self):
        """(centres (n, 3), half-sizes (n,), colours (n, 4)) of the particles now."""
        look = self.look
        systems = [s for s in self.systems.values() if len(s.age)]
        if not systems:
            return np.zeros((0, 3)), np.zeros(0), np.zeros((0, 4))
        pos = np.concatenate([s.pos for s in systems])
        t = np.concatenate([s.age / s.life for s in systems])
        scale = np.concatenate([s.scale for s in systems])
        size = (look.size[0] + (look.size[1] - look.size[0]) * t) * scale
        c0, c1 = (np.asarray(c, np.float64) for c in look.colour)
        return pos, size, c0 + (c1 - c0) * t[:, None]


def shadow_spot(shadow, spheres: dict | None = None):
    """Where a BlobShadow falls: (the point on the first receiver straight
    below its position, within its max_height), or None; ``spheres`` keeps
    the receivers' bounding spheres between calls (picking.pick)."""
    hit = pick(shadow.receivers, shadow.position, np.array([0.0, -1.0, 0.0]), spheres)
    if hit is None or shadow.position[1] - hit[1][1] > shadow.max_height:
        return None
    return hit[1]


def billboards(centres, half_sizes, colours, camera_world) -> np.ndarray:
    """Camera-facing quads, (n, 4, 9) float32: x y z u v r g b a per corner."""
    m = np.asarray(camera_world, np.float64)
    return _quads(centres, half_sizes, colours, m[0, :3], m[1, :3])


def flat_quads(centres, half_sizes, colours) -> np.ndarray:
    """Quads lying in the world's XZ plane, (n, 4, 9) float32 as `billboards`."""
    return _quads(centres, half_sizes, colours, np.array([1.0, 0.0, 0.0]), np.array([0.0, 0.0, 1.0]))


def _quads(centres, half_sizes, colours, right, up) -> np.ndarray:
    n = len(centres)
    out = np.empty((n, 4, 9), np.float32)
    for k, (sr, su, u, v) in enumerate(((-1, -1, 0, 1), (1, -1, 1, 1), (1, 1, 1, 0), (-1, 1, 0, 0))):
        out[:, k, :3] = np.asarray(centres) + np.asarray(half_sizes)[:, None] * (sr * right + su * up)
        out[:, k, 3:5] = (u, v)
        out[:, k, 5:] = colours
    return out
