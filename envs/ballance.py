"""A Ballance level as a Gymnasium environment (docs/training.md).

One world per environment: the scene is loaded once and its state before the
first frame is kept as a flat table (ivp.snapshot); every reset builds a fresh
copy of it, so an episode never sees what an earlier one left behind. The
meshes, which nothing changes after loading, are shared by the copies (as
the viewer's history does), not copied. A step
holds the action's keys for ``frame_skip`` frames of 1/60 s, as a player's
keyboard would (the scene's own time factor and frame smoothing apply).

The engine's random numbers come from one process-wide generator (ivp.rng);
an environment keeps its own seed for it and puts it in place around its
frames, so several environments in one process do not disturb one another.
"""

from __future__ import annotations

import math

import gymnasium as gym
import numpy as np
from gymnasium import spaces

import scenes
from bbglue.meshes import Mesh
from behaviors.ballance import camera_of, player_of
from behaviors.ballance.floors import FloorHeights, entity_triangles
from behaviors.ballance.level import DEAD, FINISHED, GAME_OVER, PLAYING, level_behavior
from behaviors.ballance.values import KIND_NAMES, NAV_DIRECTIONS, RAISE_KEY, TURN_MODIFIER
from ivp import rng, umath
from ivp.limits import MAX_POSITION
from ivp.snapshot import build, flatten


FRAME_MS = 1000.0 / 60.0

# MultiBinary actions: one entry per key a player has (Up, Down, Right, Left, LShift, Space).
KEYS = (*NAV_DIRECTIONS, TURN_MODIFIER, RAISE_KEY)

# Discrete actions: the key sets worth pressing (the camera turns are Shift + an arrow).
DISCRETE_ACTIONS = (
    (), ("Up",), ("Down",), ("Left",), ("Right",),
    ("Up", "Left"), ("Up", "Right"), ("Down", "Left"), ("Down", "Right"),
    (TURN_MODIFIER, "Left"), (TURN_MODIFIER, "Right"), (RAISE_KEY,),
)

DEFAULT_FLOOR_GROUPS = ("Phys_Floors", "Phys_FloorRails")
FLOOR_CELL = 2.0        # metres: the ring (radius 4) gathers the triangles of 10 m squares, not 16 m (8 m cells)


def observation_layout(ring_rays: int) -> dict:
    """name -> slice of the flat observation vector."""
    sizes = (("position", 3), ("velocity", 3), ("angular_velocity", 3), ("kind", len(KIND_NAMES)),
             ("camera", 2), ("sector", 1), ("to_goal", 3), ("floor", ring_rays + 1))
    out, i = {}, 0
    for name, n in sizes:
        out[name] = slice(i, i + n)
        i += n
    return out


def default_reward(info: dict) -> float:
    """Metres of progress toward the next checkpoint (or the finish), +20 per
    checkpoint, +100 at the finish, -25 for a death."""
    return (info["progress"] + 20.0 * info["checkpoints"] + 100.0 * info["finished"]
            - 25.0 * info["died"])


def _positive(name: str, value, kind=float):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0 or not math.isfinite(value):
        raise ValueError(f"BallanceEnv: {name} must be a positive number, got {value!r}")
    if kind is int and int(value) != value:
        raise ValueError(f"BallanceEnv: {name} must be a whole number, got {value!r}")
    return kind(value)


def _load(scene, level, game_dir):
    if (scene is None) == (level is None):
        raise ValueError("BallanceEnv: give either scene (a scene file or bundled name) or level (with game_dir), "
                         f"got scene={scene!r}, level={level!r}")
    if scene is not None:
        return scenes.load(scene)
    if game_dir is None:
        raise ValueError(f"BallanceEnv: level={level!r} needs game_dir, your Ballance folder")
    if isinstance(level, bool) or not isinstance(level, int) or not 1 <= level <= 99:
        raise ValueError(f"BallanceEnv: level must be a level number 1 to 99, got {level!r}")
    from scenes.virtools import game_level
    return scenes.load(game_level(game_dir, level))


def _floor_entities(ctx, floor_groups) -> list:
    """The members of the groups named (a level may lack some of them)."""
    if isinstance(floor_groups, str) or not all(isinstance(g, str) for g in floor_groups):
        raise ValueError(f"BallanceEnv: floor_groups must be a list of group names, got {floor_groups!r}")
    out = []
    for name in floor_groups:
        if name in ctx:
            try:
                out += ctx.get_group(name).entities
            except KeyError as exc:
                raise ValueError(f"BallanceEnv: floor_groups: {exc.args[0]}") from None
    return out


class BallanceEnv(gym.Env):
    """A Ballance level (a scene with the ``ballance.level`` behaviour); the
    spaces, reward and options are in docs/training.md."""

    metadata = {"render_modes": ["rgb_array"], "render_fps": 60}

    def __init__(self, scene: str | None = None, level: int | None = None, game_dir: str | None = None,
                 frame_skip: int = 1, time_limit: float = 300.0, actions: str = "multibinary",
                 reward_fn=None, terminate_on_death: bool = True, ring_rays: int = 8, ring_radius: float = 4.0,
                 ring_rise: float = 4.0, ring_depth: float = 30.0, floor_groups=DEFAULT_FLOOR_GROUPS,
                 render_mode: str | None = None, render_size=(320, 240), render_headless: bool | None = None):
        self.frame_skip = _positive("frame_skip", frame_skip, int)
        self.max_frames = math.ceil(_positive("time_limit", time_limit) * 60.0 - 1e-9)
        if actions not in ("multibinary", "discrete"):
            raise ValueError(f"BallanceEnv: actions must be 'multibinary' or 'discrete', got {actions!r}")
        if reward_fn is not None and not callable(reward_fn):
            raise ValueError(f"BallanceEnv: reward_fn must be callable (info -> float), got {reward_fn!r}")
        if render_mode not in (None, "rgb_array"):
            raise ValueError(f"BallanceEnv: render_mode must be None or 'rgb_array', got {render_mode!r}")
        self.ring_rays = _positive("ring_rays", ring_rays, int)
        self.ring_radius = _positive("ring_radius", ring_radius)
        self.ring_rise = _positive("ring_rise", ring_rise)
        self.ring_depth = _positive("ring_depth", ring_depth)
        self.render_size = (_positive("render_size[0]", render_size[0], int),
                            _positive("render_size[1]", render_size[1], int))
        self.reward_fn = reward_fn or default_reward
        self.terminate_on_death = bool(terminate_on_death)
        self.render_mode = render_mode
        self.render_headless = render_headless
        self.metadata = {**self.metadata, "render_fps": 60.0 / self.frame_skip}

        self.scene = _load(scene, level, game_dir)
        ctx = self.scene.ctx
        if level_behavior(ctx) is None:
            raise ValueError(f"BallanceEnv: scene {self.scene.name!r} has no ballance.level behaviour")
        self._table = flatten(ctx, share=(Mesh,))  # the world before its first frame
        self._births = {}                          # (sector, kind) -> the world when its ball is played
        ctx.process_frame(FRAME_MS)                # the level finds its sectors (on_start)
        self.sector_count = level_behavior(ctx).sector_count
        self.goals = self._goals(level_behavior(ctx))
        self.floors = FloorHeights(entity_triangles(_floor_entities(ctx, floor_groups)), FLOOR_CELL)
        self.layout = observation_layout(self.ring_rays)
        a = 2.0 * math.pi * np.arange(self.ring_rays) / self.ring_rays
        ring = np.stack([np.sin(a), np.cos(a)], axis=1) * self.ring_radius           # (x, z) at heading 0
        self._ring = np.hstack([np.vstack([(0.0, 0.0), ring]), np.ones((self.ring_rays + 1, 1))])  # the centre first

        self.observation_space = self._observation_space()
        self.discrete = actions == "discrete"
        self.action_space = (spaces.Discrete(len(DISCRETE_ACTIONS)) if self.discrete
                             else spaces.MultiBinary(len(KEYS)))
        self.ctx = None
        self._capture = None

    def _observation_space(self) -> spaces.Box:
        """Kinds 0 or 1, the camera's sine and cosine, the sector 1..count, the
        floor from -ring_depth to ring_rise; the rest within the engine's world
        (MAX_POSITION; a vector between two places of it, twice that)."""
        L = self.layout
        low, high = np.full(L["floor"].stop, -2.0 * MAX_POSITION), np.full(L["floor"].stop, 2.0 * MAX_POSITION)
        for name, lo, hi in (("kind", 0.0, 1.0), ("camera", -1.0, 1.0), ("sector", 1.0, self.sector_count),
                             ("floor", -self.ring_depth, self.ring_rise)):
            low[L[name]], high[L[name]] = lo, hi
        return spaces.Box(low.astype(np.float32), high.astype(np.float32), dtype=np.float32)

    # --- the episode -------------------------------------------------------------------

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        options = dict(options or {})
        sector = options.pop("sector", 1)
        kind = options.pop("kind", None)
        if options:
            raise ValueError(f"BallanceEnv.reset: unknown options {sorted(options)} (known: sector, kind)")
        if isinstance(sector, bool) or not isinstance(sector, (int, np.integer)) \
                or not 1 <= sector <= self.sector_count:
            raise ValueError(f"BallanceEnv.reset: options['sector'] must be 1 to {self.sector_count}, got {sector!r}")
        if kind is not None and kind not in KIND_NAMES:
            raise ValueError(f"BallanceEnv.reset: options['kind'] must be one of {KIND_NAMES}, got {kind!r}")
        self.engine_seed = 2 * int(self.np_random.integers(0, 2 ** 31)) + 1      # odd: seed * 75 never wears it down to 0
        self.ctx = build(self._birth(int(sector), kind))
        self.level, self.player, self.camera = level_behavior(self.ctx), player_of(self.ctx), camera_of(self.ctx)
        self._rng_seed = self.engine_seed
        self.frames = 0                            # the time limit counts the agent's frames
        p = self._ball_position()
        self._goal_distance = self._distance(p, self.level.sector)
        return self._observation(p), self._info(0.0, 0, False, False, self._goal_distance)

    def _birth(self, sector: int, kind) -> list:
        """The world when the level gives the first ball of ``sector`` (as
        ``kind``): the level put at the sector before its first frame, then the
        frames run until the ball is played (one on the bundled scenes; the
        game's 4 s birth, 242 frames, on an imported level), from the engine's
        initial seed. Played once per sector and kind and kept as a flat table:
        every episode starting there begins from the same bits."""
        key = (sector, kind)
        table = self._births.get(key)
        if table is None:
            self.ctx = build(self._table)
            self.level = level_behavior(self.ctx)
            self.level.sector = sector             # before the first frame: the ball starts at its reset point
            if kind is not None:
                self.level.start_kind = kind
            self._rng_seed = rng.INITIAL_SEED
            self.frames = 0
            self._run_frames(frozenset(), 1)
            birth = math.ceil((self.level.start_delay + self.level.birth_delay) * 60.0) + 6  # each delay ends on a frame
            while self.level.flow != PLAYING and self.frames < birth:
                self._run_frames(frozenset(), 1)
            table = self._births[key] = flatten(self.ctx, share=(Mesh,))
        return table

    def step(self, action):
        if self.ctx is None:
            raise RuntimeError("BallanceEnv: call reset() before step()")
        keys = self._keys(action)
        level = self.level
        start_flow, start_sector = level.flow, level.sector
        died = self._run_frames(keys, self.frame_skip)
        checkpoints = level.sector - start_sector
        finished = level.flow == FINISHED
        p = self._ball_position()
        d_start, d_now = self._goal_distance, self._distance(p, start_sector)     # to the goal the step began with
        progress = 0.0
        if start_flow == PLAYING and not died and d_start is not None and d_now is not None:
            progress = d_start - d_now
        distance = self._distance(p, level.sector)
        self._goal_distance = distance if level.flow == PLAYING else None
        info = self._info(progress, checkpoints, finished, died, distance)
        terminated = finished or level.flow == GAME_OVER or (died and self.terminate_on_death)
        truncated = not terminated and self.frames >= self.max_frames
        return self._observation(p), float(self.reward_fn(info)), terminated, truncated, info

    def _keys(self, action) -> frozenset:
        if self.discrete:
            return frozenset(DISCRETE_ACTIONS[int(action)])
        a = np.asarray(action)
        if a.shape != (len(KEYS),):
            raise ValueError(f"BallanceEnv.step: action must be {len(KEYS)} flags {KEYS}, got {action!r}")
        return frozenset(k for k, on in zip(KEYS, a) if on)

    def _run_frames(self, keys: frozenset, n: int) -> bool:
        """Up to ``n`` frames with ``keys`` held; stops at the end of the level
        (or at a death that ends the episode). Returns whether the ball died."""
        saved = rng.get_seed()
        rng.set_seed(self._rng_seed)
        died = False
        try:
            self.ctx.input_manager.set_keys(keys)
            for _ in range(n):
                before = self.level.flow
                self.ctx.process_frame(FRAME_MS)
                self.frames += 1
                flow = self.level.flow
                died |= before == PLAYING and flow in (DEAD, GAME_OVER)
                if flow in (FINISHED, GAME_OVER) or (died and self.terminate_on_death):
                    break
        finally:
            self._rng_seed = rng.get_seed()
            rng.set_seed(saved)
        return died

    # --- what the agent sees ----------------------------------------------------------------

    def _goals(self, level) -> list:
        """Each sector's goal (at sector - 1): its checkpoint's sphere centre, or
        the finish after the last checkpoint (None without one). They do not move."""
        cps = level.checkpoint_entities
        finish = None if level.finish is None else level.finish.get_position()
        return [level.checkpoint_centre(cps[k - 1]) if k <= len(cps) else finish
                for k in range(1, self.sector_count + 1)]

    def _ball_position(self):
        e = self.player.entity_in_play if self.player is not None else None
        return None if e is None else e.get_position()

    def _distance(self, p, sector: int):
        goal = self.goals[sector - 1]
        return None if goal is None or p is None else math.dist(goal, p)

    def _observation(self, p) -> np.ndarray:
        """The flat vector of observation_layout, for the ball at ``p`` (None: no ball in play)."""
        level, player = self.level, self.player
        ball = player.ball if player is not None else None
        body = self.ctx.physics.body_of(ball) if ball is not None else None
        v = w = (0.0, 0.0, 0.0)
        if body is not None:
            core = body.core
            v, w = core.speed, umath.rot_mul_v(core.m_world_f_core_last_psi[0], core.rot_speed)    # world axes
        kind = [0.0] * len(KIND_NAMES)
        if p is None:
            p = level.reset_point(level.sector).get_position()
        else:
            kind[KIND_NAMES.index(player.kind)] = 1.0
        yaw = math.radians(self.camera.yaw) if self.camera is not None else 0.0
        goal = self.goals[level.sector - 1]
        to_goal = (0.0, 0.0, 0.0) if goal is None else (goal[0] - p[0], goal[1] - p[1], goal[2] - p[2])
        head = (*p, *v, *w, *kind, math.sin(yaw), math.cos(yaw), level.sector, *to_goal)
        return np.concatenate([head, self._floor(p, yaw)]).astype(np.float32)

    def _floor(self, p, yaw: float) -> np.ndarray:
        """Floor heights relative to the ball: under it, then on the ring from
        straight ahead (the camera's heading) turning toward the right;
        -ring_depth where there is none."""
        c, s = math.cos(yaw), math.sin(yaw)
        turn = np.array([(c, 0.0, -s), (s, 0.0, c), (p[0], p[1] + self.ring_rise, p[2])])   # (x, z, 1) rows
        h = self.floors.below(self._ring @ turn) - p[1]
        h[~(h >= -self.ring_depth)] = -self.ring_depth                          # NaN (no floor) too
        return h

    def _info(self, progress: float, checkpoints: int, finished: bool, died: bool, d) -> dict:
        level = self.level
        return {"progress": float(progress), "checkpoints": int(checkpoints), "finished": bool(finished),
                "died": bool(died), "sector": level.sector, "state": level.flow, "lives": level.lives,
                "score": level.points, "distance": float("nan") if d is None else d, "frames": self.frames,
                "engine_seed": self.engine_seed}

    # --- pictures ----------------------------------------------------------------------------

    def render(self):
        """The viewer's picture of the current frame, (h, w, 3) uint8, None
        without render_mode='rgb_array'. It draws with OpenGL: headless EGL when
        render_headless is True (or None and no display is set), else the display."""
        if self.render_mode != "rgb_array" or self.ctx is None:
            return None
        if self._capture is None:
            from viewer import display
            display.configure(self.render_headless)
            from viewer.capture import Capture
            from viewer.session import Session
            self._capture = Capture(Session(self._view), self.render_size)
        elif self._capture.session.ctx is not self.ctx:
            self._capture.session.restart()          # a reset made a new world
        return self._capture.image()

    def _view(self):
        """What the viewer's session shows: the current world with the scene's looks."""
        return _View(self.scene, self.ctx)

    def close(self):
        if self._capture is not None:
            self._capture.close()
            self._capture = None


class _View:
    """The scene as loaded (name, settings, looks, sky) around the current context."""

    def __init__(self, scene, ctx):
        self.ctx = ctx
        self.name = scene.name
        self.settings = scene.settings
        self.looks = getattr(scene, "looks", None)
        self.sky_box = getattr(scene, "sky_box", None)
