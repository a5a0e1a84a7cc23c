"""The physics manager: one IVP world per context (glue-and-content 1; ivp spec 4.3, 10.5, 11).

It owns the environment (recreated on reset and by Clean Physics World), the
registry entity -> body, the collision-surface cache, the deferred command queue
of the building blocks, the frame step and the write-back of awake bodies.

Entities are never read back after Physicalize: moving a physicalized entity by
script is overwritten while it is awake and invisible to the physics. To
teleport: Unphysicalize, move, Physicalize (docs/ck-api.md). Scripting calls
(physicalize, joints, forces, the reset of bodies with their joints) are in
``bbglue.blocks.scripting``, above the manager: it never imports the blocks.
"""

from __future__ import annotations

import functools
import logging
import warnings
from dataclasses import dataclass, field

import numpy as np

import ivp
from ivp.fp import DELTA_PSI_TIME
from ivp.real_object import object_poses

from .entity import set_world_matrices

log = logging.getLogger("bbglue.physics")

DEFAULT_GRAVITY = (0.0, -9.81, 0.0)
DEFAULT_TIME_FACTOR = 1.0
TIME_FACTOR_SCALE = 0.001          # ms -> s (glue-and-content 1, step 2)


@dataclass
class PhysicsRecord:
    """The registry entry of a physicalized entity: its body, the Physicalize
    settings and pins it was made with, and the handle blocks that created an
    object on it (creation order), which ``blocks.reset_bodies`` uses."""

    entity: object
    body: object                            # ivp RealObject
    friction: float
    elasticity: float
    material: object = None
    continuous_contact: object = None       # a PhysicsContinuousContact listener, if any
    settings: dict = field(default_factory=dict)    # Physicalize settings, by CK name
    pins: dict = field(default_factory=dict)        # Physicalize input pins, by CK name
    blocks: list = field(default_factory=list)      # HandleBlocks that made an object on the body


@dataclass
class Command:
    """A deferred building-block command (glue-and-content 1, "Deferred commands").

    ``step(command)`` (a bound method of the block: a snapshot keeps it, where it
    could not keep a closure) returns True when done, False when it must be
    retried next frame. ``warned`` holds the CK ids of the entities it warned about.
    """

    block: object
    step: object
    warned: set = field(default_factory=set)

    def run(self) -> bool:
        return self.step(self)


class _GlueObjectListener(ivp.ObjectListener):
    """Spec 10.5: keeps the write-back vector of the manager."""

    def __init__(self, manager: "PhysicsManager"):
        self.manager = manager

    def event_object_revived(self, obj) -> None:
        """0x10008030: append, no duplicate check."""
        self.manager.write_back_objects.append(obj)

    def event_object_frozen(self, obj) -> None:
        """0x10007fd0: remove the last entry that is obj; when there is none, the
        original still removes element 0 (unreachable: only revived objects freeze)."""
        v = self.manager.write_back_objects
        for i in range(len(v) - 1, -1, -1):
            if v[i] is obj:
                del v[i]
                return
        if v:
            del v[0]

    def event_object_deleted(self, obj) -> None:
        """0x10007f20: a movable body leaves the vector; its continuous-contact handler goes."""
        m = self.manager
        if not obj.core.physical_unmoveable:
            m.write_back_objects[:] = [o for o in m.write_back_objects if o is not obj]
        rec = m.record_of(obj.client_data)
        if rec is not None and rec.body is obj and rec.continuous_contact is not None:
            rec.continuous_contact.destroy_handler(m)
            rec.continuous_contact = None


class PhysicsManager:
    """One per context (glue-and-content 1)."""

    def __init__(self, context):
        self.context = context
        self.gravity = DEFAULT_GRAVITY
        self.time_factor = DEFAULT_TIME_FACTOR
        self.smoothed_ms = 0.0
        self.smoothing = True         # False: each frame's time goes straight to simulate
        self.psi_length = DELTA_PSI_TIME
        self.sim_dt = 0.0
        self.surfaces = {}
        self.commands = []
        self.timers = []              # objects with update(manager), after simulate (step 5)
        self.handle_blocks = set()    # blocks holding an IVP handle in this world
        self.frame_psis = 0
        self._create_world()

    # --- the world ------------------------------------------------------------

    def _create_world(self) -> None:
        self.env = ivp.Environment(gravity=self.gravity, delta_psi_time=self.psi_length)
        self.registry = {}
        self.write_back_objects = []
        self.deferred_deletes = []
        self.simulating = False
        self.env.add_listener_object(_GlueObjectListener(self))

    def clean_world(self) -> None:
        """Set Physics Globals' Clean Physics World: destroy the world and create a
        new one with the current globals. Blocks forget their handles; queued
        commands stay queued; the surface cache stays."""
        for blk in list(self.handle_blocks):
            blk.forget_handle()
        self.handle_blocks.clear()
        self.timers = []
        self._create_world()

    def reset(self) -> None:
        """Physics Reset: a clean world and an empty command queue (globals kept)."""
        self.commands = []
        self.clean_world()

    def restart(self) -> None:
        """A context reset: back to the state at play (globals, smoothing, cache)."""
        self.gravity = DEFAULT_GRAVITY
        self.time_factor = DEFAULT_TIME_FACTOR
        self.smoothed_ms = 0.0
        self.sim_dt = 0.0
        self.surfaces = {}
        self.reset()

    def set_psi_length(self, seconds: float) -> None:
        """The PSI length of this world and every world created after it (a new
        world, as IVP fixes delta_PSI_time at creation; spec 1.6)."""
        ivp.limits.check("physics manager: the PSI length", seconds, "MIN_PSI_LENGTH", "MAX_PSI_LENGTH")
        self.psi_length = float(seconds)
        self.clean_world()

    def set_globals(self, gravity, time_factor: float) -> None:
        """Set Physics Globals' Set Values."""
        ivp.limits.check("physics globals: gravity", gravity, high="MAX_GRAVITY", size=3)
        g = tuple(float(c) for c in gravity)
        ivp.limits.check("physics globals: the time factor", time_factor, "MIN_TIME_FACTOR", "MAX_TIME_FACTOR")
        self.env.set_gravity(g)
        self.gravity = g
        self.time_factor = float(time_factor)

    def delete_collision_surfaces(self) -> None:
        """DeleteCollisionSurfaces: empty the surface cache."""
        self.surfaces = {}

    # --- registry -----------------------------------------------------------------

    def record_of(self, entity) -> PhysicsRecord | None:
        return self.registry.get(entity.id) if entity is not None else None

    def body_of(self, entity):
        """The ivp RealObject of a physicalized entity, or None."""
        rec = self.record_of(entity)
        return rec.body if rec is not None else None

    def is_physicalized(self, entity) -> bool:
        return entity.id in self.registry

    def register(self, record: PhysicsRecord) -> None:
        """The registry is keyed by the entity's CK id, which a copy of the
        context keeps (an id() would not)."""
        self.registry[record.entity.id] = record

    def destroy_body(self, entity) -> bool:
        """Unphysicalize: destroy the body and forget the entity; the blocks
        that made an object on it are told (``body_destroyed``). While the
        world simulates (a listener callback), the delete waits for step 5."""
        rec = self.registry.get(entity.id)
        if rec is None:
            return False
        if self.simulating:
            if rec not in self.deferred_deletes:
                self.deferred_deletes.append(rec)
            return True
        self.env.delete_object(rec.body)          # the listener still finds the record
        del self.registry[entity.id]
        for blk in list(rec.blocks):
            blk.body_destroyed(rec.body)
        return True

    def keep_block(self, block) -> None:
        """A handle block created its object: the records of its bodies list it."""
        for e in block.handle_entities():
            rec = self.record_of(e)
            if rec is not None and block not in rec.blocks:
                rec.blocks.append(block)

    def drop_block(self, block) -> None:
        """The block leaves the records of its bodies (HandleBlock.dispose)."""
        for e in block.handle_entities():
            rec = self.record_of(e)
            if rec is not None and block in rec.blocks:
                rec.blocks.remove(block)

    def body_for(self, entity, command: Command):
        """The body of an entity a command needs; warns "You must Physicalize
        <name> !!!" once per command and entity when it has none."""
        rec = self.record_of(entity)
        if rec is not None:
            return rec.body
        if entity.id not in command.warned:
            command.warned.add(entity.id)
            self.context.output_to_console(f"You must Physicalize {entity.name} !!!")
        return None

    # --- deferred commands ------------------------------------------------------------

    def queue(self, command: Command) -> bool:
        """Run a command at once; keep it queued when it cannot run yet."""
        if self._run_command(command):
            return True
        self.commands.append(command)
        return False

    def cancel(self, command: Command) -> None:
        if command in self.commands:
            self.commands.remove(command)

    def _run_command(self, command: Command) -> bool:
        try:
            return bool(command.run())
        except Exception as exc:   # a bad command is reported and dropped
            self.context.report_error(command.block.describe(), exc)
            return True

    def retry_commands(self) -> None:
        """Step 3: retry every queued command, in queue order."""
        pending, self.commands = self.commands, []
        for cmd in pending:
            if not self._run_command(cmd):
                self.commands.append(cmd)

    # --- surfaces -----------------------------------------------------------------

    def surface(self, name: str, build):
        """The cached collision surface ``name``, or ``build()`` cached under it
        (the first scale wins; surfaces-and-contacts 1)."""
        s = self.surfaces.get(name)
        if s is None:
            s = build()
            self.surfaces[name] = s
        return s

    # --- the frame ----------------------------------------------------------------------

    def step(self, frame_ms: float) -> None:
        """Glue-and-content 1, the frame step (after the behaviours of the frame)."""
        if self.smoothing:
            self.smoothed_ms = (frame_ms + 3.0 * self.smoothed_ms) / 4.0
        else:
            self.smoothed_ms = frame_ms
        dt = self.smoothed_ms * TIME_FACTOR_SCALE * self.time_factor
        self.sim_dt = dt
        self.retry_commands()
        env = self.env
        before = env.psi_count
        self.simulating = True
        try:
            env.simulate(dt)
        finally:
            self.simulating = False
        self.frame_psis = env.psi_count - before
        for t in list(self.timers):
            t.update(self)
        while self.deferred_deletes:
            rec = self.deferred_deletes.pop(0)
            if self.registry.get(rec.entity.id) is rec:
                self.destroy_body(rec.entity)
        self.write_back()

    def write_back(self) -> None:
        """Spec 4.3 (0x10006ec0) for every awake movable body: the pose at
        env.current_time, transposed into the entity's world matrix (f32).

        The poses of all bodies come from one pass (ivp.real_object.object_poses),
        their matrices are rounded to f32 in one numpy array and handed to the
        entities together (set_world_matrices)."""
        objs = self.write_back_objects
        if not objs:
            return
        R, V = object_poses(objs, self.env.current_time)
        M = np.zeros((len(objs), 4, 4))
        for i in range(3):
            M[:, i, :3] = R[:, i::3]        # row i: column i of R (the transpose)
        M[:, 3, :3] = V
        M[:, 3, 3] = 1.0
        set_world_matrices([obj.client_data for obj in objs], M.astype(np.float32))

    # --- the scripting calls' old home (deprecated) -----------------------------------

    def __getattr__(self, name: str):
        """``ctx.physics.physicalize(e, ...)`` and the other scripting calls
        moved to ``bbglue.blocks`` (``blocks.physicalize(ctx, e, ...)``); the old
        spelling works for one release, with a DeprecationWarning."""
        fn = DEPRECATED_SCRIPTING.get(name) if not name.startswith("_") else None
        if fn is None:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        warnings.warn(f"ctx.physics.{name}(...) is deprecated: use bbglue.blocks.{name}(ctx, ...)",
                      DeprecationWarning, stacklevel=2)
        return functools.partial(fn, self.context)


# name -> function(ctx, ...): filled by bbglue.blocks.scripting, which bbglue imports
DEPRECATED_SCRIPTING = {}
