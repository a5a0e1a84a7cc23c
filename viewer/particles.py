"""Flames as particles and blob shadows (issue 42; docs/viewer.md
"Effects"): what the behaviours ask for (``behaviors.hooks.emitters``,
``blob_shadows``) as camera-facing or flat textured quads. No OpenGL here:
``textures.SpriteBatch`` draws the quads.

A flame emitter works as the game's Point Particle System with the settings
of its prefab (scenes.virtools.particles.ParticleLook; virtools-nmo.md 5.5):
every emission delay it gives off the emission's number of particles (while
fewer than the maximum live), each leaving along the emitter's axis (up, as
the flame prefabs' frames point) turned by up to the yaw and pitch variance,
at its speed, living its lifespan, its size and colour going linearly from
the initial to the ending ones; each setting varied uniformly by up to its
variance. An emitter without settings (no prefab read) uses FLAME, scaled
by the emitter's size. Particles are made with a random generator seeded by
the emitter's name, so a run draws the same flames every time; an emitter
no longer offered lets its particles burn out.

A blob shadow is a dark disc laid flat where a ray straight down from the
caster first meets one of its receivers, within its maximum height.
"""

from __future__ import annotations

import zlib

import numpy as np

from scenes.virtools.particles import ParticleLook

from .picking import pick

FLAME = ParticleLook(spread=(0.05, 0.05), initial_colour=(1.0, 1.0, 1.0, 1.0))   # without the game's settings


class _Flame:
    """One emitter's particles: position (n, 3), velocity (n, 3), age, life (s),
    and sizes (full widths) at birth and at death."""

    def __init__(self, name: str):
        self.rng = np.random.default_rng(zlib.crc32(name.encode()))
        self.pos = np.zeros((0, 3))
        self.vel = np.zeros((0, 3))
        self.age = np.zeros(0)
        self.life = np.zeros(0)
        self.sizes = np.zeros((0, 2))
        self.due = 0.0                  # seconds until the next emission

    def step(self, dt: float, emitter, look: ParticleLook, scale: float) -> None:
        """Make the emitter's particles due now, then age and move all by ``dt`` seconds."""
        if emitter is not None:
            self._emit(emitter, look, scale)
            self.due -= dt
        self.age += dt
        self.pos += self.vel * dt
        keep = self.age < self.life
        self.pos, self.vel, self.age, self.life, self.sizes = (
            a[keep] for a in (self.pos, self.vel, self.age, self.life, self.sizes))

    def _emit(self, emitter, look: ParticleLook, scale: float) -> None:
        n = 0
        r = self.rng
        while self.due <= 0.0:
            self.due += look.emission_delay * 0.001
            n += max(0, int(r.integers(look.emission[0] - look.emission[1], look.emission[0] + look.emission[1] + 1)))
        n = min(n, max(0, look.maximum - len(self.age)))
        if not n:
            return

        def varied(pair):
            return pair[0] + r.uniform(-1.0, 1.0, n) * pair[1]

        yaw, pitch = (r.uniform(-1.0, 1.0, n) * a for a in look.spread)
        speed = varied(look.speed) * 1000.0 * scale             # units per ms -> per s
        direction = np.column_stack([np.sin(yaw) * np.cos(pitch), np.cos(yaw) * np.cos(pitch), np.sin(pitch)])
        self.pos = np.concatenate([self.pos, np.tile(np.asarray(emitter.position, np.float64), (n, 1))])
        self.vel = np.concatenate([self.vel, direction * speed[:, None]])
        self.age = np.concatenate([self.age, np.zeros(n)])
        self.life = np.concatenate([self.life, np.maximum(varied(look.lifespan), 1.0) * 0.001])
        self.sizes = np.concatenate([self.sizes, np.column_stack([varied(look.initial_size),
                                                                  varied(look.ending_size)]) * scale])


def longest_life(look: ParticleLook) -> float:
    """The longest a particle of ``look`` lives, seconds."""
    return (look.lifespan[0] + look.lifespan[1]) * 0.001


class Flames:
    """The flames of every emitter, stepped on the behaviour clock; ``looks``
    the emitters' settings by name (the scene's, scenes.virtools.particles)."""

    def __init__(self, looks: dict | None = None):
        self.looks = dict(looks or {})
        self.systems: dict[str, _Flame] = {}
        self.colours: dict[str, tuple] = {}
        self.clock = None

    def look_of(self, name: str) -> ParticleLook:
        return self.looks.get(name, FLAME)

    def update(self, now_s: float, emitters) -> None:
        """To the behaviour clock ``now_s`` (seconds) with this frame's emitters
        (kind "flame"), in steps of at most one emission delay over at most a
        particle's longest life (older particles would be gone). The first
        update, and one whose clock went back (a restart), start afresh with
        the flames burning as if lit that long ago."""
        by_name = {e.name: e for e in emitters if e.kind == "flame"}
        longest = max((longest_life(self.look_of(n)) for n in set(by_name) | set(self.systems)), default=0.0)
        if self.clock is None or now_s < self.clock:
            self.systems = {}
            dt = longest
        else:
            dt = min(now_s - self.clock, longest)
        self.clock = now_s
        for name in by_name:
            if name not in self.systems:            # a new _Flame seeds a generator: 0.1 ms
                self.systems[name] = _Flame(name)
        for name, system in list(self.systems.items()):
            look = self.look_of(name)
            emitter = by_name.get(name)
            scale = 1.0 if name in self.looks or emitter is None else emitter.size
            steps = int(np.ceil(dt / (look.emission_delay * 0.001) - 1e-9))
            for _ in range(steps):
                system.step(dt / steps, emitter, look, scale)
            if name not in by_name and not len(system.age):
                del self.systems[name]

    def sprites(self) -> dict:
        """{blend factors (3.5 numbers): (centres (n, 3), half-sizes (n,), colours (n, 4))} of the particles now."""
        parts = {}
        for name, s in self.systems.items():
            if not len(s.age):
                continue
            look = self.look_of(name)
            t = s.age / s.life
            c0, c1 = (np.asarray(c, np.float64) for c in (look.initial_colour, look.ending_colour))
            half = 0.5 * (s.sizes[:, 0] + (s.sizes[:, 1] - s.sizes[:, 0]) * t)
            parts.setdefault(tuple(look.blend), []).append((s.pos, half, c0 + (c1 - c0) * t[:, None]))
        return {blend: tuple(np.concatenate(a) for a in zip(*p)) for blend, p in parts.items()}


def shadow_spot(shadow, spheres: dict | None = None):
    """Where a BlobShadow falls: (the point on the first receiver straight
    below its position, within its max_height), or None; ``spheres`` keeps
    the receivers' bounding spheres between calls (picking.pick)."""
    hit = pick(shadow.receivers, shadow.position, np.array([0.0, -1.0, 0.0]), spheres)
    if hit is None or shadow.position[1] - hit[1][1] > shadow.max_height:
        return None
    return hit[1]


# A new ball's birth: the game's Balls.nmo lightning sphere (its mesh, its
# 1.5 s scale curve and its flicker and fade curves are not read): a sphere
# of BIRTH_RADIUS growing from nothing over BIRTH_GROW_S, its texture
# turning once a second and taking the next of the game's three images
# each drawn frame, added to what is behind it, fading out over the last
# BIRTH_FADE_S of its 3 s (the sizes and curves are the viewer's).
BIRTH_RADIUS = 3.0
BIRTH_GROW_S = 1.5
BIRTH_FADE_S = 1.5
BIRTH_LIFE_S = 3.0


def birth_sphere(centre, age: float, rings: int = 8, segments: int = 16) -> np.ndarray:
    """The birth's sphere ``age`` seconds after it began, as quads ((n, 4, 9)
    as `billboards`), its texture wrapped once around it."""
    radius = BIRTH_RADIUS * min(1.0, age / BIRTH_GROW_S)
    alpha = float(np.clip((BIRTH_LIFE_S - age) / BIRTH_FADE_S, 0.0, 1.0))
    lat = np.linspace(-0.5 * np.pi, 0.5 * np.pi, rings + 1)
    lon = np.linspace(0.0, 2.0 * np.pi, segments + 1)
    out = np.empty((rings, segments, 4, 9), np.float32)
    for k, (di, dj) in enumerate(((0, 0), (0, 1), (1, 1), (1, 0))):
        a, b = lat[di:di + rings][:, None], lon[dj:dj + segments][None, :]
        out[:, :, k, 0] = centre[0] + radius * np.cos(a) * np.cos(b)
        out[:, :, k, 1] = centre[1] + radius * np.sin(a) + 0.0 * b
        out[:, :, k, 2] = centre[2] + radius * np.cos(a) * np.sin(b)
        out[:, :, k, 3] = b / (2.0 * np.pi) + age                      # turning once a second
        out[:, :, k, 4] = 0.5 - a / np.pi + 0.0 * b
        out[:, :, k, 5:] = (1.0, 1.0, 1.0, alpha)
    return out.reshape(-1, 4, 9)


FULL = (0.0, 1.0, 0.0, 1.0)     # a sprite's whole image: u0, u1, v0, v1


def sprite_crop(alpha: np.ndarray) -> tuple:
    """The part of a sprite's image (u0, u1, v0, v1; v = 0 at its top) that
    has a visible pixel: the quads drawn cover only it (less to blend)."""
    ys, xs = np.nonzero(alpha > 0)
    if not len(xs):
        return FULL
    h, w = alpha.shape
    return xs.min() / w, (xs.max() + 1) / w, ys.min() / h, (ys.max() + 1) / h


def billboards(centres, half_sizes, colours, camera_world, crop=FULL) -> np.ndarray:
    """Camera-facing quads, (n, 4, 9) float32: x y z u v r g b a per corner;
    the sprite's ``crop`` of each (sprite_crop), where the whole would be."""
    m = np.asarray(camera_world, np.float64)
    return _quads(centres, half_sizes, colours, m[0, :3], m[1, :3], crop)


def flat_quads(centres, half_sizes, colours, crop=FULL) -> np.ndarray:
    """Quads lying in the world's XZ plane, (n, 4, 9) float32 as `billboards`."""
    return _quads(centres, half_sizes, colours, np.array([1.0, 0.0, 0.0]), np.array([0.0, 0.0, 1.0]), crop)


def _quads(centres, half_sizes, colours, right, up, crop) -> np.ndarray:
    """A corner at image point (u, v) lies at centre + half x ((2u - 1) right + (1 - 2v) up)."""
    u0, u1, v0, v1 = crop
    n = len(centres)
    out = np.empty((n, 4, 9), np.float32)
    for k, (u, v) in enumerate(((u0, v1), (u1, v1), (u1, v0), (u0, v0))):
        out[:, k, :3] = np.asarray(centres) + np.asarray(half_sizes)[:, None] * ((2 * u - 1) * right + (1 - 2 * v) * up)
        out[:, k, 3:5] = (u, v)
        out[:, k, 5:] = colours
    return out
