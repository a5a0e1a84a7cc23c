"""IVP_Environment: objects, the PSI, listeners and globals (spec 1.6, 6.1, 10.1, 10.5, 11).

The public API a glue layer drives::

    env = Environment(gravity=(0, -20, 0))
    ball = env.create_ball(BallTemplate(name="ball", mass=1.9, radius=2), position=(0, 5, 0))
    ball.wake()
    env.simulate(1 / 60)                 # every PSI with T_k < target (spec 11)
    R, vv = ball.get_m_world_f_object_AT(env.current_time)

A collision system plugs in through ``env.collision`` (an object with the hooks
``object_created``, ``object_deleted``, ``object_frozen``, ``object_revived``,
``revive_partners``, ``begin_psi``, ``update_after_controllers`` and
``after_integration``). Every environment installs ``ivp.collision``'s
system unless made with ``collision=False``; then bodies pass through each other.
"""

from __future__ import annotations

import math

import numpy as np

from . import rng
from .limits import MAX_SIMULATE_TIME, SIMULATE_SLICE, advance, check, check_kind, simulate_in_slices, warn_mass_ratio
from .anomaly import AnomalyLimits, AnomalyManager
from .collision import CollisionSystem
from .controllers.gravity import GravityController
from .core import Core
from .step.unit_pass import ENABLED as LANE_ENABLED, Lane, integrate
from .step.kernels import countdown_k
from .freeze import revive_cores_psi
from .fp import DELTA_PSI_TIME, FREEZE_CHECK_TIME_F, f32, inv_dt
from .real_object import OBJECT_BALL, OBJECT_POLYGON, BallTemplate, ObjectTemplate, RealObject, kept_mass
from .sim_unit import SimUnit, SimUnitManager
from .snapshot import deep_copy
from .state.bodies import BodyTable
from .state.contacts import ContactTable
from .states import STATE_BETWEEN_PSIS, STATE_HULLS, STATE_PSI_START
from .surface import BALL_SURFACE, CompactSurface
from .time_manager import TimeManager



class ObjectListener:
    """Spec 10.5: receives {env, obj} when an object is revived, frozen or deleted."""

    def event_object_revived(self, obj) -> None:
        pass

    def event_object_frozen(self, obj) -> None:
        pass

    def event_object_deleted(self, obj) -> None:
        pass


class Environment:
    """Spec 1.6: the world, its clock and its managers."""

    def __init__(self, gravity=(0.0, -9.81, 0.0), delta_psi_time: float = DELTA_PSI_TIME,
                 collision: bool = True, valve_sleep_countdown: bool = False):
        check("environment: gravity", gravity, high="MAX_GRAVITY", size=3)
        check("environment: the PSI length", delta_psi_time, "MIN_PSI_LENGTH", "MAX_PSI_LENGTH")
        self.gravity_controller = GravityController(gravity)
        self.sim_unit_manager = SimUnitManager(self)
        self.anomaly_limits = AnomalyLimits()
        self.anomaly_manager = AnomalyManager()
        self.freeze_check_time = FREEZE_CHECK_TIME_F
        self.delta_PSI_time = float(delta_psi_time)
        self.inv_delta_PSI_time = 1.0 / self.delta_PSI_time
        self.psi_listeners = []
        self.core_revive_list = []
        self.current_time = 0.0
        self.time_of_next_psi = self.delta_PSI_time
        self.time_of_last_psi = 0.0
        self.sleep_countdown_value = 10
        # ivp-contacts 6.1 / 8.1: Ballance's DLL skips the countdown for units
        # with a core faster than 1 m/s (dynamics 6.3, the default); the Valve
        # build of the reference traces counts down for every unit.
        self.valve_sleep_countdown = bool(valve_sleep_countdown)
        self.state = STATE_BETWEEN_PSIS
        self.object_listeners = []
        self.objects = []
        self.collision = None
        self.psi_count = 0
        self.movable_mass_range = None          # (lightest, heaviest) movable mass created (limits.warn_mass_ratio)
        self.time_manager = TimeManager()
        self.bodies = BodyTable()               # every core's dynamic state (ivp.state.bodies)
        self.contacts = ContactTable()          # every friction contact point's fields (ivp.state.contacts)
        self.lane = Lane(self) if LANE_ENABLED else None
        if collision:
            self.collision = CollisionSystem(self)

    @property
    def controller_manager(self) -> SimUnitManager:
        """The controller manager is the sim-unit manager (env +0x08)."""
        return self.sim_unit_manager

    # --- globals ------------------------------------------------------------------

    def set_gravity(self, g) -> None:
        check("environment: gravity", g, high="MAX_GRAVITY", size=3)
        self.gravity_controller.set_gravity(g)

    @property
    def gravity(self):
        return self.gravity_controller.gravity

    def movable_motion(self):
        """The movable objects' cores in object order as arrays: mass (n,),
        rot_inertia, speed, rot_speed and pos_world_f_core_last_psi (n, 3) each.
        The cores' rows are read at once (a per-frame measure of a thousand
        bodies needs no property per field)."""
        cores = [o.core for o in self.objects if not o.core.physical_unmoveable]
        n = len(cores)
        mass = np.array([c.mass for c in cores], dtype=np.float64)
        inertia = np.array([c.rot_inertia for c in cores], dtype=np.float64).reshape(n, 3)
        M = self.bodies.motion_values(np.array([c.row for c in cores], dtype=np.int64))
        return mass, inertia, M[:, 0:3], M[:, 3:6], M[:, 6:9]

    # --- objects (2.1, 2.2) ---------------------------------------------------------

    def create_ball(self, tmpl: BallTemplate, position, quaternion=None) -> RealObject:
        """A ball (spec 2.1, 0x10030010): extra_radius = template extra + radius."""
        check_kind("create_ball: tmpl", tmpl, BallTemplate)
        check(f"ball {tmpl.name!r}: radius", tmpl.radius, "MIN_BALL_RADIUS", "MAX_BALL_RADIUS")
        return self._create(OBJECT_BALL, tmpl, BALL_SURFACE, position, quaternion)

    def create_polygon(self, surface, tmpl: ObjectTemplate, position, quaternion=None) -> RealObject:
        """A polygon object on a compact surface (spec 2.1, 0x1002fd00)."""
        check_kind("create_polygon: tmpl", tmpl, ObjectTemplate)
        check_kind(f"polygon {tmpl.name!r}: surface", surface, CompactSurface)
        return self._create(OBJECT_POLYGON, tmpl, surface, position, quaternion)

    def _create(self, kind, tmpl, surface, position, quaternion) -> RealObject:
        _validate_template(tmpl, position, quaternion)
        if not tmpl.physical_unmoveable:
            warn_mass_ratio(self, tmpl.name, kept_mass(tmpl.mass))
        q = (0.0, 0.0, 0.0, 1.0) if quaternion is None else tuple(float(x) for x in quaternion)
        pos = tuple(float(x) for x in position)
        obj = RealObject(self, kind, tmpl, surface)
        if kind == OBJECT_BALL:
            obj.ball_radius = float(tmpl.radius)
            obj.extra_radius = f32(tmpl.extra_radius + obj.ball_radius)
        core = Core(self, q, pos, tmpl.physical_unmoveable, tmpl.enable_piling_optimization)
        self._init_core_unit(core, obj)
        obj.core = core
        obj.init_object_core(tmpl)
        self.objects.append(obj)
        if self.collision is not None:
            self.collision.object_created(obj)
        return obj

    def _init_core_unit(self, core: Core, obj: RealObject) -> None:
        """0x1000d2f0: the core's own frozen sim unit, with gravity attached."""
        core.objects.append(obj)
        su = SimUnit()
        su.cores.append(core)
        core.sim_unit_of_core = su
        self.sim_unit_manager.add_controller_to_core(self.gravity_controller, core)
        core.controllers_of_core = []           # the ctor clears the core's list (2.2)
        self.sim_unit_manager.add_sim_unit(su)

    def delete_object(self, obj: RealObject) -> None:
        """Destroy an object: deleted listeners, its controllers, its core."""
        check_kind("delete_object: obj", obj, RealObject)
        if obj.deleted:
            return
        self._fire(obj, "event_object_deleted")
        if self.collision is not None:
            self.collision.object_deleted(obj)
        core = obj.core
        if self.lane is not None:
            self.lane.drop()
        for ctrl in list(core.controllers_of_core):
            ctrl.core_is_going_to_be_deleted_event(core)
        if core.is_in_wakeup_vec:
            self.core_revive_list.remove(core)
            core.is_in_wakeup_vec = False
        self.sim_unit_manager.remove_core(core)
        self.objects.remove(obj)
        obj.deleted = True
        self.bodies.remove(core.row)

    # --- listeners (10.5) -----------------------------------------------------------

    def add_listener_object(self, listener: ObjectListener, obj: RealObject | None = None) -> None:
        """A global object listener, or one for a single object."""
        (self.object_listeners if obj is None else obj.listeners).append(listener)

    def remove_listener_object(self, listener: ObjectListener, obj: RealObject | None = None) -> None:
        (self.object_listeners if obj is None else obj.listeners).remove(listener)

    def add_listener_psi(self, listener) -> None:
        """A callable fired with the environment at the start of every PSI (6.1)."""
        if not callable(listener):
            raise ValueError(f"add_listener_psi: listener {listener!r} must be callable")
        self.psi_listeners.append(listener)

    def remove_listener_psi(self, listener) -> None:
        self.psi_listeners.remove(listener)

    def _fire(self, obj, method: str) -> None:
        for lst in (obj.listeners, self.object_listeners):
            for i in range(len(lst) - 1, -1, -1):
                getattr(lst[i], method)(obj)

    def fire_object_revived(self, obj) -> None:
        self._fire(obj, "event_object_revived")

    def fire_object_frozen(self, obj) -> None:
        self._fire(obj, "event_object_frozen")

    # --- time (10.1, 11) -----------------------------------------------------------

    def set_current_time(self, t: float) -> None:
        """0x100138f0."""
        self.current_time = t

    def sleep_countdown(self) -> bool:
        """Spec 10.1 (0x10013610): True for the unit that must be sleep-tested
        (step.kernels.countdown_k on the count-down and the RNG's seed)."""
        fired, self.sleep_countdown_value, seed = countdown_k(self.sleep_countdown_value, rng.get_seed())
        rng.set_seed(seed)
        return bool(fired)

    def simulate(self, dt: float) -> None:
        """Spec 11.2 (0x100138c0): run to current_time + dt (at most
        MAX_SIMULATE_TIME seconds in one call)."""
        check("environment: simulate's time step", dt)
        if dt < 0.0:
            raise ValueError(f"environment: simulate({dt!r}) needs a finite time step >= 0")
        self.simulate_until(self.current_time + dt)

    def simulate_until(self, target: float) -> None:
        """Spec 11.2 (0x1002ef70): every PSI with T_k < target (strict), then
        current_time = target; at most MAX_SIMULATE_TIME seconds ahead."""
        check("environment: the target time", target)
        if target - self.current_time > MAX_SIMULATE_TIME:
            raise ValueError(f"environment: target time {target!r} is {target - self.current_time:g} s ahead, "
                             f"above {MAX_SIMULATE_TIME:g} (limit MAX_SIMULATE_TIME, docs/ivp.md)")
        if target - self.current_time > SIMULATE_SLICE:
            simulate_in_slices(self, target)            # progress and Ctrl-C between slices
        else:
            advance(self, target)

    def simulate_psi(self) -> None:
        """Spec 6.1 (0x10013cb0): revive, PSI listeners, controllers, integration."""
        self.state = STATE_PSI_START
        if self.core_revive_list:
            revive_cores_psi(self)
        col = self.collision
        if col is not None:
            col.begin_psi()
        lst = self.psi_listeners
        for i in range(len(lst) - 1, -1, -1):
            lst[i](self)
        cores = []
        self.sim_unit_manager.simulate_sim_units(self, cores)
        delta = self.delta_PSI_time
        integrate(self, cores, delta, inv_dt(delta))
        self.state = STATE_HULLS
        if col is not None:
            col.after_integration(cores)
        self.state = STATE_BETWEEN_PSIS
        self.psi_count += 1

    # --- snapshots ----------------------------------------------------------------

    def snapshot(self) -> "Snapshot":
        """An exact copy of the world and the process-global RNG seed (a flat
        copy: any depth of linked state, ivp.snapshot)."""
        return Snapshot(deep_copy(self), rng.get_seed())


class Snapshot:
    """A saved world: ``restore()`` returns a fresh copy and resets the RNG seed."""

    def __init__(self, env: Environment, seed: int):
        self._env = env
        self.seed = seed

    def restore(self) -> Environment:
        rng.set_seed(self.seed)
        return deep_copy(self._env)


def _validate_template(tmpl: ObjectTemplate, position, quaternion) -> None:
    name = tmpl.name
    check(f"object {name!r}: position", position, high="MAX_POSITION", size=3)
    if quaternion is not None:
        check(f"object {name!r}: rotation", quaternion, size=4)
        q = tuple(quaternion)
        if sum(x * x for x in q) <= 1e-19:
            raise ValueError(f"object {name!r}: rotation {q} must be a finite, non-zero quaternion")
    m = tmpl.mass
    if not isinstance(m, (int, float)) or not math.isfinite(m) or m <= 0.0:
        raise ValueError(f"object {name!r}: mass {m!r} must be a positive number")
    check(f"object {name!r}: mass", m, high="MAX_MASS")
    check(f"object {name!r}: speed damping", tmpl.speed_damp_factor, "MIN_DAMP", "MAX_DAMP")
    check(f"object {name!r}: rotation damping", tmpl.rot_speed_damp_factor, "MIN_DAMP", "MAX_DAMP", size=3)
    check(f"object {name!r}: rotation inertia", tmpl.rot_inertia, "MIN_ROT_INERTIA", "MAX_ROT_INERTIA", size=3)
    check(f"object {name!r}: inertia check", tmpl.auto_check_rot_inertia, "MIN_INERTIA_CHECK", "MAX_INERTIA_CHECK")
    check(f"object {name!r}: extra radius", tmpl.extra_radius, "MIN_EXTRA_RADIUS", "MAX_EXTRA_RADIUS")
    if tmpl.mass_center_override is not None:
        check(f"object {name!r}: mass centre", tmpl.mass_center_override, high="MAX_SHIFT", size=3)
