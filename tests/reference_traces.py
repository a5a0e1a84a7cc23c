"""Reference traces of the real IVP engine, the port run on the same setups, and
their comparison (issue 17, "How it proves itself").

A trace (``<build>/<scenario>.json.gz``, described in the README next to the
data) holds a scenario's setup and what two builds of the engine recorded:
per frame and per PSI start every movable body's pose and speeds, and the
events (impacts, contact points created and deleted, freezes and revivals).

This module

* loads a trace (:func:`load_trace`) into a :class:`Run` of samples and events;
* builds the scenario's environment from the setup alone (:func:`build_scenario`)
  and runs it frame by frame, recording the same things (:func:`run_port`);
* compares two runs sample by sample (:func:`sample_errors`), compares their
  events (:func:`event_summary`) and derives the quantities the contact tests
  pin (:func:`derived_quantities`); :func:`compare_scenario` puts it together
  for the port against both builds, with the noise floor (build against build).

It lives with the tests (``benchmarks/fidelity.py`` imports it), never in ``ivp``.

Limits on what a trace file may ask for (a bad file is a :class:`TraceError`
naming it): :data:`MAX_TRACE_BYTES` decompressed, :data:`MAX_FRAMES` frames,
:data:`MAX_BODIES` bodies, :data:`MAX_TRIANGLES` triangles and points per body.
"""

from __future__ import annotations

import gzip
import json
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ivp import (BallTemplate, Environment, ForceController, ObjectListener, ObjectTemplate, SpringTemplate,
                 build_surface, create_spring, rng)
from ivp.collision import Material

DEFAULT_TRACES = Path(__file__).resolve().parent / "data" / "reference_traces"
BUILDS = {"sse": "ivp-valve-sse", "x87": "ivp-valve-x87"}

MAX_TRACE_BYTES = 64 << 20          # decompressed JSON
MAX_FRAMES = 36_000                 # 10 minutes at 60 frames a second
MAX_BODIES = 1_000
MAX_TRIANGLES = 100_000             # triangles (or hull points) of one body

# Thresholds of the derived quantities (issue 17).
SETTLE_SPEED = 0.04                 # m/s: "every speed below 0.04 m/s"
STOP_SPEED = 0.1                    # m/s: a slide has stopped once the speed stays below this
ROLL_MIN_ROT_SPEED = 0.5            # rad/s: a ball in contact turning at least this fast is rolling,
ROLL_SETTLE_PSIS = 5                # once this many PSIs have passed since its last impact (the
                                    # traces' landing slip is gone after 5)
POSITION_FLOOR_MIN = 1e-4           # m: the position tolerance is max(3 x noise floor, this)
FLOOR_FACTOR = 3.0

# Setup entries the builder understands; anything else is an error, not a silent omission.
_SETUP_KEYS = {"scenario", "environment", "bodies", "note", "force_controller", "spring",
               "initial_speed_ws", "initial_speed_method", "initial_rot_speed_cs", "initial_rot_speed_method"}
_SHAPE_BALL = "ball"
_SHAPE_HULL = "convex_hull_pointsoup"
_SHAPE_SOUP = "concave_triangle_soup_one_ledge_per_face"
EVENT_TYPES = ("impact_post", "friction_created", "friction_deleted", "object_frozen", "object_revived")


class TraceError(ValueError):
    """A trace file that cannot be read or whose setup the harness cannot build."""


# --- runs: samples and events ------------------------------------------------------

@dataclass
class BodyState:
    """One movable body at one instant: object position, world speed, core-axes
    rotation speed, the object's movement state (1 moving, 8 not simulated)."""

    pos: tuple
    speed: tuple
    rot_speed: tuple
    state: int


@dataclass
class Sample:
    """Every movable body at a frame end (index = frame) or a PSI start (index = PSI)."""

    index: int
    t: float
    bodies: dict


@dataclass
class Event:
    """An engine event. ``psi`` counts the PSI starts before it (the traces'
    ``psi_count``); ``bodies`` names the body (freezes) or the pair (a, b);
    ``speed`` is an impact's closing speed along its normal."""

    type: str
    t: float
    psi: int
    bodies: tuple
    speed: float | None = None


@dataclass
class Run:
    scenario: str
    source: str
    frames: list
    psis: list
    events: list


@dataclass
class Trace:
    """A loaded trace file: its setup and what the engine recorded."""

    path: Path
    scenario: str
    setup: dict
    run: Run


# --- loading -------------------------------------------------------------------------

def trace_path(traces_dir, build: str, scenario: str) -> Path:
    """``traces_dir/<build dir>/<scenario>.json.gz``; build is ``sse`` or ``x87``."""
    if build not in BUILDS:
        raise TraceError(f"unknown build {build!r} (expected one of {', '.join(BUILDS)})")
    return Path(traces_dir) / BUILDS[build] / f"{scenario}.json.gz"


def scenarios_in(traces_dir) -> list:
    """The scenarios with a trace of every build in traces_dir, sorted."""
    names = None
    for d in BUILDS.values():
        found = {p.name[:-len(".json.gz")] for p in (Path(traces_dir) / d).glob("*.json.gz")}
        names = found if names is None else names & found
    return sorted(names or ())


def read_json_gz(path) -> dict:
    """The JSON object of a gzip file, at most MAX_TRACE_BYTES decompressed."""
    path = Path(path)
    try:
        with gzip.open(path, "rb") as f:
            raw = f.read(MAX_TRACE_BYTES + 1)
    except OSError as exc:
        raise TraceError(f"{path}: cannot read the gzip file ({exc})") from exc
    if len(raw) > MAX_TRACE_BYTES:
        raise TraceError(f"{path}: more than {MAX_TRACE_BYTES} bytes of JSON (MAX_TRACE_BYTES)")
    try:
        data = json.loads(raw)
    except ValueError as exc:
        raise TraceError(f"{path}: not JSON ({exc})") from exc
    if not isinstance(data, dict):
        raise TraceError(f"{path}: the JSON is not an object")
    return data


def load_trace(path) -> Trace:
    """Read a trace file (full or trimmed) into its setup and a Run."""
    path = Path(path)
    data = read_json_gz(path)
    where = str(path)
    setup = _need(data, "setup", where, dict)
    scenario = _need(setup, "scenario", f"{where}: setup", str)
    env = _need(setup, "environment", f"{where}: setup", dict)
    n_frames = _need(env, "n_frames", f"{where}: setup.environment", int)
    if not 0 <= n_frames <= MAX_FRAMES:
        raise TraceError(f"{where}: n_frames {n_frames} is outside 0..{MAX_FRAMES} (MAX_FRAMES)")
    if len(_need(setup, "bodies", f"{where}: setup", list)) > MAX_BODIES:
        raise TraceError(f"{where}: more than {MAX_BODIES} bodies (MAX_BODIES)")
    frames = [_sample(r, "frame", f"{where}: frames[{i}]")
              for i, r in enumerate(_need(data, "frames", where, list))]
    psis = [_sample(r, "psi", f"{where}: psis[{i}]") for i, r in enumerate(_need(data, "psis", where, list))]
    events = [_trace_event(e, f"{where}: events[{i}]") for i, e in enumerate(_need(data, "events", where, list))]
    return Trace(path, scenario, setup, Run(scenario, path.parent.name, frames, psis, events))


def _need(d, key, where, kind=None):
    if not isinstance(d, dict) or key not in d:
        raise TraceError(f"{where}: missing {key!r}")
    v = d[key]
    if kind is int and isinstance(v, bool):
        raise TraceError(f"{where}: {key!r} must be an integer, got {v!r}")
    if kind is float:
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            raise TraceError(f"{where}: {key!r} must be a finite number, got {v!r}")
        return float(v)
    if kind is not None and not isinstance(v, kind):
        raise TraceError(f"{where}: {key!r} must be {kind.__name__}, got {type(v).__name__}")
    return v


def _vec(d, key, where, n=3) -> tuple:
    v = _need(d, key, where, list)
    if len(v) != n or not all(isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)
                              for x in v):
        raise TraceError(f"{where}: {key!r} must be {n} finite numbers, got {v!r}")
    return tuple(float(x) for x in v)


def _sample(rec, index_key, where) -> Sample:
    bodies = {}
    for j, b in enumerate(_need(rec, "bodies", where, list)):
        w = f"{where}.bodies[{j}]"
        bodies[_need(b, "body", w, str)] = BodyState(_vec(b, "pos", w), _vec(b, "speed", w),
                                                     _vec(b, "rot_speed_cs", w),
                                                     _need(b, "movement_state", w, int))
    return Sample(_need(rec, index_key, where, int), _need(rec, "t", where, float), bodies)


def _trace_event(e, where) -> Event:
    kind = _need(e, "type", where, str)
    if kind not in EVENT_TYPES:
        raise TraceError(f"{where}: unknown event type {kind!r}")
    names = (_need(e, "body", where, str),) if kind.startswith("object_") else \
        (_need(e, "a", where, str), _need(e, "b", where, str))
    speed = None
    if kind == "impact_post":
        v = _vec(e, "rel_speed", where)
        n = _vec(e, "surf_normal", where)
        speed = abs(v[0] * n[0] + v[1] * n[1] + v[2] * n[2])
    return Event(kind, _need(e, "t", where, float), _need(e, "psi_count", where, int), names, speed)


# --- building a scenario ---------------------------------------------------------------

@dataclass
class Scenario:
    """A built scenario: the environment, its bodies by name, the movable ones."""

    env: Environment
    bodies: dict
    movable: list = field(default_factory=list)


def build_scenario(trace: Trace, valve_countdown: bool = True) -> Scenario:
    """The scenario's environment from the trace's setup alone: gravity, PSI
    length, every body as passed to the engine (shape, pose, parameters, fixed,
    start frozen, collision), then springs, force controllers and start speeds.
    Resets the process-global RNG (the engine starts from seed 1)."""
    setup = trace.setup
    where = f"{trace.path}: setup"
    unknown = sorted(set(setup) - _SETUP_KEYS)
    if unknown:
        raise TraceError(f"{where}: entries {unknown} are not understood by the harness")
    envd = _need(setup, "environment", where, dict)
    rng.reset()
    env = Environment(gravity=_vec(envd, "gravity", f"{where}.environment"),
                      delta_psi_time=_need(envd, "delta_PSI_time_set", f"{where}.environment", float),
                      valve_sleep_countdown=valve_countdown)
    sc = Scenario(env, {})
    for i, b in enumerate(_need(setup, "bodies", where, list)):
        obj = _create_body(env, b, f"{where}.bodies[{i}]")
        if obj.name in sc.bodies:
            raise TraceError(f"{where}.bodies[{i}]: a second body named {obj.name!r}")
        sc.bodies[obj.name] = obj
        if not obj.core.physical_unmoveable:
            sc.movable.append(obj)
    if "spring" in setup:
        _create_spring(env, sc, setup["spring"], f"{where}.spring")
    if "force_controller" in setup:
        w = f"{where}.force_controller"
        fc = setup["force_controller"]
        obj = _target(sc, fc, w)
        ctrl = ForceController(obj.core, _vec(fc, "point_cs", w), _vec(fc, "impulse_ws_per_psi", w))
        env.sim_unit_manager.add_controller_to_core(ctrl, obj.core)
    if "initial_speed_ws" in setup:
        _target(sc, setup, where).async_add_speed_object_ws(_vec(setup, "initial_speed_ws", where))
    if "initial_rot_speed_cs" in setup:
        _target(sc, setup, where).async_add_rot_speed_object_cs(_vec(setup, "initial_rot_speed_cs", where))
    return sc


def _target(sc: Scenario, d, where):
    """The body an entry names (``body``), or the scenario's only movable body."""
    if "body" in d:
        name = _need(d, "body", where, str)
        if name not in sc.bodies:
            raise TraceError(f"{where}: no body named {name!r}")
        return sc.bodies[name]
    if len(sc.movable) != 1:
        raise TraceError(f"{where}: names no body and the scenario has {len(sc.movable)} movable bodies")
    return sc.movable[0]


def _create_body(env, b, where):
    name = _need(b, "name", where, str)
    p = _need(b, "params", where, dict)
    wp = f"{where}.params"
    fields = dict(
        name=name, mass=_need(p, "mass_passed", wp, float),
        material=Material(_need(p, "friction_passed", wp, float), _need(p, "elasticity_passed", wp, float)),
        speed_damp_factor=_need(p, "linear_damping_passed", wp, float),
        rot_speed_damp_factor=(_need(p, "rot_damping_passed_xyz", wp, float),) * 3,
        physical_unmoveable=_need(p, "fixed", wp, bool),
        collision_enabled=_need(p, "collision_enabled", wp, bool),
        rot_inertia_is_factor=_need(p, "rot_inertia_is_factor", wp, bool),
        rot_inertia=_vec(p, "rot_inertia_factor", wp),
        nocoll_group=_need(p, "nocoll_group", wp, str))
    pos = _vec(b, "position_passed", where)
    q = _vec(b, "quat_xyzw_passed", where, 4)        # ivp's quaternions are (x, y, z, w) too
    shape = _need(b, "shape", where)
    try:
        if shape == _SHAPE_BALL:
            obj = env.create_ball(BallTemplate(radius=_need(b, "radius_passed", where, float), **fields), pos, q)
        else:
            obj = env.create_polygon(_surface(shape, name, f"{where}.shape"), ObjectTemplate(**fields), pos, q)
    except ValueError as exc:
        raise TraceError(f"{where}: the port refuses body {name!r}: {exc}") from exc
    if not _need(p, "start_frozen", wp, bool):
        obj.wake()
    return obj


def _surface(shape, name, where):
    kind = _need(shape, "type", where, str)
    if kind == _SHAPE_HULL:
        pts = _points(_need(shape, "points_object_space", where, list), where)
        return build_surface(name, convex_point_sets=[pts])
    if kind == _SHAPE_SOUP:
        tris = _points(_need(shape, "triangles_object_space", where, list), where, per=3)
        return build_surface(name, concave_meshes=[(tris.reshape(-1, 3), np.arange(len(tris) * 3).reshape(-1, 3))])
    raise TraceError(f"{where}: shape type {kind!r} is not understood by the harness")


def _points(values, where, per=None) -> np.ndarray:
    if len(values) > MAX_TRIANGLES:
        raise TraceError(f"{where}: more than {MAX_TRIANGLES} entries (MAX_TRIANGLES)")
    try:
        a = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TraceError(f"{where}: not an array of numbers ({exc})") from exc
    want = (len(values), 3) if per is None else (len(values), per, 3)
    if a.shape != want or not np.all(np.isfinite(a)):
        raise TraceError(f"{where}: expected finite numbers of shape {want}, got {a.shape}")
    return a


def _create_spring(env, sc: Scenario, s, where) -> None:
    names = [_need(s, k, where, str) for k in ("anchor0_object", "anchor1_object")]
    for n in names:
        if n not in sc.bodies:
            raise TraceError(f"{where}: no body named {n!r}")
    tmpl = SpringTemplate(sc.bodies[names[0]], _vec(s, "anchor0_ws", where),
                          sc.bodies[names[1]], _vec(s, "anchor1_ws", where),
                          length=_need(s, "spring_len", where, float),
                          constant=_need(s, "spring_constant", where, float),
                          damp_lin=_need(s, "spring_damp", where, float),
                          damp_rel=_need(s, "rel_pos_damp", where, float),
                          relative=_need(s, "spring_values_are_relative", where, bool))
    if _need(s, "spring_force_only_on_stretch", where, bool):
        raise TraceError(f"{where}: springs that only pull are not understood by the harness")
    create_spring(env, tmpl)


# --- running the port --------------------------------------------------------------------

class _Recorder(ObjectListener):
    """PSI starts, and the port's collision and object events, in the traces' form."""

    def __init__(self, sc: Scenario):
        self.sc = sc
        self.psis = []
        self.events = []
        env = sc.env
        env.add_listener_psi(self.psi_start)
        env.add_listener_object(self)
        if env.collision is not None:
            env.collision.add_listener_collision(self)
            env.collision.add_listener_contact(self)

    def sample(self, index: int) -> Sample:
        env = self.sc.env
        t = env.current_time
        bodies = {}
        for obj in self.sc.movable:
            core = obj.core
            bodies[obj.name] = BodyState(tuple(obj.get_m_world_f_object_AT(t)[1]), tuple(core.speed),
                                         tuple(core.rot_speed), int(obj.object_state))
        return Sample(index, t, bodies)

    def psi_start(self, env) -> None:
        self.psis.append(self.sample(len(self.psis)))

    def _event(self, kind, ev, speed=None) -> None:
        names = tuple(getattr(getattr(ev, k), "name", "?") for k in ("obj0", "obj1"))
        t = getattr(ev, "time", None)
        self.events.append(Event(kind, self.sc.env.current_time if t is None else float(t),
                                 len(self.psis), names, speed))

    def event_post_collision(self, ev) -> None:
        self._event("impact_post", ev, closing_speed(ev))

    def event_friction_created(self, ev) -> None:
        self._event("friction_created", ev)

    def event_friction_deleted(self, ev) -> None:
        self._event("friction_deleted", ev)

    def _object_event(self, kind, obj) -> None:
        self.events.append(Event(kind, self.sc.env.current_time, len(self.psis), (obj.name,)))

    def event_object_frozen(self, obj) -> None:
        self._object_event("object_frozen", obj)

    def event_object_revived(self, obj) -> None:
        self._object_event("object_revived", obj)


def closing_speed(ev) -> float | None:
    """An impact event's speed along its normal: the event's relative velocity
    vector projected on its normal where it has both, else its scalar speed."""
    v = next((getattr(ev, k) for k in ("rel_speed", "relative_velocity", "speed") if hasattr(ev, k)), None)
    if v is None:
        return None
    if isinstance(v, (int, float)):
        return abs(float(v))
    n = getattr(ev, "normal_ws", None)
    v = tuple(float(x) for x in v)
    if n is None:
        return math.sqrt(sum(x * x for x in v))
    return abs(sum(a * float(b) for a, b in zip(v, n)))


def run_port(trace: Trace, progress=None, valve_countdown: bool = True) -> Run:
    """Build the scenario and run it frame by frame with simulate(frame_dt),
    recording frames, PSI starts and events. ``progress(frame, n_frames)`` is
    called after every frame. ``valve_countdown``: count the sleep countdown
    down for fast units too, as the traces' Valve build does (ivp-contacts
    8.1); False runs Ballance's DLL rule, whose freeze times differ."""
    sc = build_scenario(trace, valve_countdown)
    envd = trace.setup["environment"]
    where = f"{trace.path}: setup.environment"
    dt = _need(envd, "frame_dt", where, float)
    n = _need(envd, "n_frames", where, int)
    rec = _Recorder(sc)
    frames = [rec.sample(0)]
    for i in range(1, n + 1):
        sc.env.simulate(dt)
        frames.append(rec.sample(i))
        if progress is not None:
            progress(i, n)
    return Run(trace.scenario, "port", frames, rec.psis, rec.events)


# --- comparison -----------------------------------------------------------------------------

def _dist(a, b) -> float:
    return math.sqrt((a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2 + (a[2] - b[2]) ** 2)


def sample_errors(a: list, b: list, pos_limit: float = POSITION_FLOOR_MIN) -> dict:
    """Max position / speed / rotation-speed distance over the samples of equal
    index and the bodies both have; where and when the position error is largest,
    the first time it exceeds ``pos_limit``, and how many body samples differ in
    movement state. ``compared`` counts the samples of equal index."""
    out = {"pos": 0.0, "speed": 0.0, "rot_speed": 0.0, "worst_t": None, "worst_body": None,
           "first_over_t": None, "state_mismatches": 0, "compared": 0}
    by_index = {s.index: s for s in b}
    for sa in a:
        sb = by_index.get(sa.index)
        if sb is None:
            continue
        out["compared"] += 1
        for name, x in sa.bodies.items():
            y = sb.bodies.get(name)
            if y is None:
                continue
            d = _dist(x.pos, y.pos)
            if d > out["pos"]:
                out.update(pos=d, worst_t=sa.t, worst_body=name)
            if d > pos_limit and out["first_over_t"] is None:
                out["first_over_t"] = sa.t
            out["speed"] = max(out["speed"], _dist(x.speed, y.speed))
            out["rot_speed"] = max(out["rot_speed"], _dist(x.rot_speed, y.rot_speed))
            out["state_mismatches"] += x.state != y.state
    return out


def event_summary(run: Run) -> dict:
    """Counts and times of each event type; impacts' closing speeds; the last
    freeze, and whether every body that ever froze is frozen at the end."""
    out = {}
    for kind in EVENT_TYPES:
        evs = [e for e in run.events if e.type == kind]
        out[kind] = {"count": len(evs), "times": [e.t for e in evs]}
    out["impact_post"]["speeds"] = [e.speed for e in run.events if e.type == "impact_post"]
    frozen = {}
    for e in run.events:
        if e.type in ("object_frozen", "object_revived"):
            frozen[e.bodies[0]] = e.t if e.type == "object_frozen" else None
    out["frozen_at"] = max(frozen.values()) if frozen and None not in frozen.values() else None
    return out


def event_time_errors(a: dict, b: dict) -> dict:
    """Per event type: the largest time difference of the i-th events of a and b
    (over the events both have)."""
    return {k: max((abs(x - y) for x, y in zip(a[k]["times"], b[k]["times"])), default=None)
            for k in EVENT_TYPES}


def body_facts(setup) -> dict:
    """Per body name: (mass, rotation inertia, ball radius or None) from the
    trace's derived_after_creation (the engine's own values)."""
    out = {}
    for b in setup["bodies"]:
        d = b["derived_after_creation"]
        out[b["name"]] = (float(d["core_mass"]), tuple(d["core_rot_inertia"]),
                          float(b["radius_passed"]) if b["shape"] == _SHAPE_BALL else None)
    return out


def kinetic_energy(sample: Sample, facts) -> float:
    """Sum of m v^2 / 2 + w.I.w / 2 (core axes, diagonal inertia)."""
    e = 0.0
    for name, s in sample.bodies.items():
        m, inertia, _ = facts[name]
        e += 0.5 * m * sum(x * x for x in s.speed)
        e += 0.5 * sum(i * w * w for i, w in zip(inertia, s.rot_speed))
    return e


def potential_energy(sample: Sample, facts, gravity) -> float:
    return -sum(facts[n][0] * sum(g * p for g, p in zip(gravity, s.pos)) for n, s in sample.bodies.items())


def energy_gain(psis: list, facts, gravity) -> dict:
    """Largest rise between consecutive PSI starts of the kinetic energy and of
    kinetic plus gravity energy, and when (the later PSI's time)."""
    out = {"kinetic": 0.0, "kinetic_t": None, "mechanical": 0.0, "mechanical_t": None}
    prev = None
    for s in psis:
        k = kinetic_energy(s, facts)
        m = k + potential_energy(s, facts, gravity)
        if prev is not None:
            if k - prev[0] > out["kinetic"]:
                out.update(kinetic=k - prev[0], kinetic_t=s.t)
            if m - prev[1] > out["mechanical"]:
                out.update(mechanical=m - prev[1], mechanical_t=s.t)
        prev = (k, m)
    return out


def stays_below(samples: list, limit: float, names=None) -> float | None:
    """The time of the first sample from which every (named) body's speed stays
    below limit; None if the last sample is not below."""
    t = None
    for s in samples:
        ok = all(math.sqrt(sum(x * x for x in b.speed)) < limit
                 for n, b in s.bodies.items() if names is None or n in names)
        if not ok:
            t = None
        elif t is None:
            t = s.t
    return t


def rolling_ratios(run: Run, facts) -> dict:
    """Per ball: |v| / |w| at the PSI starts where it rolls: it has a contact
    point, turns faster than ROLL_MIN_ROT_SPEED, and its last impact is at least
    ROLL_SETTLE_PSIS PSIs back (2 = its radius when it rolls on a fixed floor
    without slipping)."""
    out = {}
    balls = {n for n, f in facts.items() if f[2] is not None}
    live = {}
    last_impact = {}
    events = sorted(run.events, key=lambda e: e.psi)
    k = 0
    for s in run.psis:
        while k < len(events) and events[k].psi <= s.index:
            e = events[k]
            d = {"friction_created": 1, "friction_deleted": -1}.get(e.type, 0)
            for n in e.bodies:
                live[n] = live.get(n, 0) + d
                if e.type == "impact_post":
                    last_impact[n] = e.psi
            k += 1
        for n in balls:
            b = s.bodies.get(n)
            if b is None or live.get(n, 0) <= 0 or s.index < last_impact.get(n, -ROLL_SETTLE_PSIS) + ROLL_SETTLE_PSIS:
                continue
            w = math.sqrt(sum(x * x for x in b.rot_speed))
            if w > ROLL_MIN_ROT_SPEED:
                out.setdefault(n, []).append(math.sqrt(sum(x * x for x in b.speed)) / w)
    return out


def fixed_triangles(setup) -> np.ndarray:
    """(k, 3, 3) world triangles of every fixed collidable soup or hull body."""
    from ivp import umath
    tris = []
    for b in setup["bodies"]:
        p = b["params"]
        if not p["fixed"] or not p["collision_enabled"] or b["shape"] == _SHAPE_BALL:
            continue
        R = np.array(umath.quat_to_matrix(tuple(b["quat_xyzw_passed"]))).reshape(3, 3)
        t = np.asarray(b["position_passed"], dtype=np.float64)
        shape = b["shape"]
        if shape["type"] == _SHAPE_SOUP:
            local = np.asarray(shape["triangles_object_space"], dtype=np.float64)
        else:
            surf = build_surface(b["name"], convex_point_sets=[shape["points_object_space"]])
            local = surf.oriented_triangles()
        tris.append(local @ R.T + t)
    return np.concatenate(tris) if tris else np.zeros((0, 3, 3))


def point_triangle_distance(p, tris: np.ndarray) -> float:
    """Smallest distance from point p to the triangles (k, 3, 3)."""
    if len(tris) == 0:
        return math.inf
    p = np.asarray(p, dtype=np.float64)
    a, b, c = tris[:, 0], tris[:, 1], tris[:, 2]
    n = np.cross(b - a, c - a)
    nn = np.einsum("ij,ij->i", n, n)
    # inside the prism over the face: the plane distance
    d = np.einsum("ij,ij->i", p - a, n) / np.sqrt(nn)
    q = p - d[:, None] * n / np.sqrt(nn)[:, None]
    inside = np.ones(len(tris), dtype=bool)
    for u, v in ((a, b), (b, c), (c, a)):
        inside &= np.einsum("ij,ij->i", np.cross(v - u, q - u), n) >= 0.0
    best = np.where(inside, np.abs(d), np.inf)
    for u, v in ((a, b), (b, c), (c, a)):          # else the nearest edge point
        e = v - u
        s = np.clip(np.einsum("ij,ij->i", p - u, e) / np.einsum("ij,ij->i", e, e), 0.0, 1.0)
        best = np.minimum(best, np.linalg.norm(u + s[:, None] * e - p, axis=1))
    return float(best.min())


def first_apex(samples: list, name: str, after_t: float) -> float | None:
    """The body's centre height at its first highest point after time after_t."""
    ys = [(s.t, s.bodies[name].pos[1]) for s in samples if name in s.bodies and s.t > after_t]
    for (_, y0), (_, y1), (_, y2) in zip(ys, ys[1:], ys[2:]):
        if y1 > y0 and y1 >= y2:
            return y1
    return None


def derived_quantities(run: Run, setup) -> dict:
    """The quantities the contact tests pin, for any run of the scenario:
    rolling v/|w| per ball, each resting ball's gap to the fixed geometry at the
    end, the first bounce apex, a pushed-off body's slide (distance along its
    start speed, stop time), the settle time (every speed below SETTLE_SPEED
    from then on), the largest energy gain between PSIs, the freeze time."""
    facts = body_facts(setup)
    gravity = tuple(setup["environment"]["gravity"])
    ev = event_summary(run)
    out = {"energy_gain": energy_gain(run.psis, facts, gravity),
           "settle_t": stays_below(run.psis, SETTLE_SPEED),
           "frozen_at": ev["frozen_at"]}
    out["rolling"] = {n: {"median": float(np.median(r)), "min": min(r), "max": max(r), "n": len(r)}
                      for n, r in rolling_ratios(run, facts).items()}
    tris = fixed_triangles(setup)
    last = run.frames[-1] if run.frames else None
    gaps, apex = {}, {}
    for n, (_, _, radius) in facts.items():
        if radius is None or last is None or n not in last.bodies:
            continue
        b = last.bodies[n]
        if math.sqrt(sum(x * x for x in b.speed)) < SETTLE_SPEED and len(tris):
            gaps[n] = point_triangle_distance(b.pos, tris) - radius
        impacts = [e.t for e in run.events if e.type == "impact_post" and n in e.bodies]
        if impacts:
            apex[n] = first_apex(run.psis, n, impacts[0])
    out["rest_gap"] = gaps
    out["first_apex"] = apex
    if "initial_speed_ws" in setup and run.frames and len(run.frames[0].bodies) == 1:
        v0 = np.asarray(setup["initial_speed_ws"], dtype=np.float64)
        u = v0 / np.linalg.norm(v0)
        name = next(iter(run.frames[0].bodies))
        p0 = np.asarray(run.frames[0].bodies[name].pos)
        p1 = np.asarray(run.frames[-1].bodies[name].pos)
        out["slide"] = {"body": name, "distance": float((p1 - p0) @ u),
                        "stop_t": stays_below(run.frames, STOP_SPEED, {name})}
    return out


@dataclass
class Comparison:
    """A scenario's port run against the builds' traces."""

    scenario: str
    traces: dict            # build -> Trace
    port: Run
    errors: dict            # build -> {"psis": sample_errors, "frames": sample_errors}
    floor: dict             # {"psis": ..., "frames": ...}: build against build (if both are there)
    events: dict            # "port" / build -> event_summary
    event_dt: dict          # build -> event_time_errors(port, build); "floor" -> between builds
    derived: dict           # "port" / build -> derived_quantities

    def tolerance(self) -> float:
        """The issue's position tolerance at PSI starts: max(3 x floor, 1e-4 m)."""
        f = self.floor.get("psis", {}).get("pos", 0.0)
        return max(FLOOR_FACTOR * f, POSITION_FLOOR_MIN)


def compare_scenario(traces: dict, port: Run) -> Comparison:
    """Compare a port run with the traces (build -> Trace) of its scenario."""
    first = next(iter(traces.values()))
    setup = first.setup
    errors = {k: {"psis": sample_errors(port.psis, t.run.psis), "frames": sample_errors(port.frames, t.run.frames)}
              for k, t in traces.items()}
    floor = {}
    if len(traces) == 2:
        a, b = (t.run for t in traces.values())
        floor = {"psis": sample_errors(a.psis, b.psis), "frames": sample_errors(a.frames, b.frames)}
    events = {"port": event_summary(port)}
    events.update({k: event_summary(t.run) for k, t in traces.items()})
    event_dt = {k: event_time_errors(events["port"], events[k]) for k in traces}
    if len(traces) == 2:
        ka, kb = traces
        event_dt["floor"] = event_time_errors(events[ka], events[kb])
    derived = {"port": derived_quantities(port, setup)}
    derived.update({k: derived_quantities(t.run, setup) for k, t in traces.items()})
    return Comparison(first.scenario, traces, port, errors, floor, events, event_dt, derived)


def load_scenario(traces_dir, scenario: str, builds=tuple(BUILDS)) -> dict:
    """build -> Trace for the scenario (every build asked for must be there)."""
    out = {}
    for b in builds:
        p = trace_path(traces_dir, b, scenario)
        if not p.is_file():
            raise TraceError(f"{p}: no trace of scenario {scenario!r} for build {b}")
        out[b] = load_trace(p)
    return out


# --- creation values ------------------------------------------------------------------------------

CREATION_REL_TOL = 3e-7             # about 2 f32 ulps

def creation_values(obj) -> dict:
    """The port's values of a created body, under the traces' derived_after_creation names."""
    c = obj.core
    R, shift = obj.get_m_core_f_object()
    return {"core_mass": c.mass, "core_inv_mass": c.inv_mass, "core_rot_inertia": c.rot_inertia,
            "core_inv_rot_inertia": c.inv_rot_inertia, "rot_inertias_are_equal": c.rot_inertias_are_equal,
            "upper_limit_radius": c.upper_limit_radius, "max_surface_deviation": c.max_surface_deviation,
            "core_speed_damp_factor": c.speed_damp_factor, "core_rot_speed_damp_factor": c.rot_speed_damp_factor,
            "extra_radius": obj.extra_radius, "m_core_f_object_rot_rows": R, "m_core_f_object_shift": shift,
            "movement_state_at_creation_end": obj.object_state}


def creation_differences(trace: Trace, sc: Scenario) -> list:
    """(body, field, port value, engine value) for every derived_after_creation
    value the port's built scenario does not match within CREATION_REL_TOL."""
    out = []
    for b in trace.setup["bodies"]:
        port = creation_values(sc.bodies[b["name"]])
        for k, want in b["derived_after_creation"].items():
            have = port.get(k)
            a = list(have) if isinstance(have, tuple) else [have]
            e = want if isinstance(want, list) else [want]
            if len(a) != len(e) or not all(_close(x, y) for x, y in zip(a, e)):
                out.append((b["name"], k, have, want))
    return out


def _close(x, y) -> bool:
    if isinstance(x, bool) or isinstance(y, bool) or x is None:
        return x == y
    return abs(x - y) <= CREATION_REL_TOL * max(abs(x), abs(y))


# --- trimming --------------------------------------------------------------------------------------

_SAMPLE_FIELDS = ("body", "pos", "speed", "rot_speed_cs", "movement_state")
_EVENT_FIELDS = ("type", "t", "psi_count", "body", "a", "b", "surf_normal", "contact_point_ws", "rel_speed")


def trim_trace(data: dict) -> dict:
    """A trace with only what this module reads (the setup, meta and freeze
    summary whole; per sample index, time and the fields of _SAMPLE_FIELDS;
    per event the fields of _EVENT_FIELDS)."""
    def samples(key, index):
        return [{index: r[index], "t": r["t"],
                 "bodies": [{k: b[k] for k in _SAMPLE_FIELDS} for b in r["bodies"]]} for r in data[key]]
    out = {k: data[k] for k in ("meta", "setup", "psi_count_total", "freeze_summary") if k in data}
    out["frames"] = samples("frames", "frame")
    out["psis"] = samples("psis", "psi")
    out["events"] = [{k: e[k] for k in _EVENT_FIELDS if k in e} for e in data["events"]]
    return out


def write_trimmed(src_dir, dst_dir, scenarios=None) -> list:
    """Trim every build's trace of the scenarios (all of src_dir's by default)
    into dst_dir with the same layout; returns the files written."""
    written = []
    for sc in scenarios or scenarios_in(src_dir):
        for b in BUILDS:
            data = read_json_gz(trace_path(src_dir, b, sc))
            dst = trace_path(dst_dir, b, sc)
            dst.parent.mkdir(parents=True, exist_ok=True)
            with gzip.GzipFile(dst, "wb", mtime=0) as f:
                f.write(json.dumps(trim_trace(data), separators=(",", ":")).encode())
            written.append(dst)
    return written
