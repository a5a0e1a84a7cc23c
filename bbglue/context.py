"""CKContext: the objects of a level, the managers and the frame loop (DESIGN "One frame").

One frame: time (clamped delta) -> input latch -> message delivery -> behaviours
and behaviour graphs, in the order they were added -> the physics manager's step
with write-back (glue-and-content 1).

A behaviour that raises does not stop the frame: the error is recorded in
``ctx.errors`` and on the console, naming the behaviour (and for a building
block the block, its pin and its target), and the other behaviours and the
physics run on. With ``strict=True`` the first error of a frame is raised again
once the frame is complete.

Repeats are counted, not stored: of the errors of one source (where and the
exception's type) and of identical console lines, the first ``REPEATS_KEPT``
go to ``errors`` / ``console`` and the log; the later ones only add to
``error_count`` and ``repeats``, with one line when the count reaches
``REPEATS_KEPT + 1``, 10, 100, 1000 ... (a block that raises every frame for
an hour keeps a few entries, not 200,000).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from .entity import CK3dEntity, CKGroup, check_vector
from .managers import InputManager, MessageManager, TimeManager
from .physics import PhysicsManager
from .values import did_you_mean
from .vxmath import VxMatrix

log = logging.getLogger("bbglue")

REPEATS_KEPT = 3              # entries kept per source of errors / per identical console line


@dataclass
class FrameError:
    """An error raised by a behaviour, a block or a message callback."""

    frame: int
    where: str
    error: BaseException

    def __str__(self) -> str:
        return f"frame {self.frame}: {self.where}: {type(self.error).__name__}: {self.error}"


class CKContext:
    """Entities by name and id, groups, managers, behaviours and the frame loop."""

    def __init__(self, min_delta_ms: float = 1.0, max_delta_ms: float = 1000.0, strict: bool = False):
        self.strict = strict
        self.time_manager = TimeManager(min_delta_ms, max_delta_ms)
        self.input_manager = InputManager()
        self.message_manager = MessageManager()
        self._objects = {}            # name -> entity or group
        self._by_id = {}
        self._entities = []
        self._next_id = 1
        self._behaviors = []          # (name, behaviour)
        self.console = []
        self.errors = []
        self.error_count = 0          # every error reported, the counted repeats included
        self.repeats = {}             # source key -> how many times it was reported
        self._frame_errors = []       # the exceptions of this frame (strict mode)
        self.physics = PhysicsManager(self)

    # --- objects ---------------------------------------------------------------

    def _new_id(self, name: str) -> int:
        if not isinstance(name, str) or not name:
            raise TypeError(f"context: a name must be a non-empty string, got {name!r}")
        if name in self._objects:
            raise ValueError(f"context: an object named {name!r} already exists")
        i = self._next_id
        self._next_id += 1
        return i

    def create_entity(self, name: str, mesh=None, position=(0.0, 0.0, 0.0), quaternion=None,
                      scale=None, parent=None, color=None, visible: bool = True) -> CK3dEntity:
        """A new 3D entity; pose arguments are in world coordinates."""
        ent = CK3dEntity(self, name, self._new_id(name), mesh)
        if parent is not None:
            ent.set_parent(parent)
        if scale is not None:
            ent.set_scale(scale)
        if quaternion is not None:
            ent.set_quaternion(quaternion)
        ent.set_position(position)
        if color is not None:
            ent.color = check_vector(color, f"entity {name!r}: color", 4)
        ent.visible = bool(visible)
        self._register(ent)
        self._entities.append(ent)
        return ent

    def destroy_entity(self, entity: CK3dEntity) -> None:
        """Unphysicalize, detach the children (keeping their world pose), leave groups."""
        if self._objects.get(entity.name) is not entity:
            raise KeyError(f"context: {entity!r} is not an entity of this context")
        self.physics.destroy_body(entity)
        for child in entity.children:
            child.set_parent(None)
        entity.set_parent(None)
        for obj in self._objects.values():
            if isinstance(obj, CKGroup):
                obj.remove(entity)
        del self._objects[entity.name]
        del self._by_id[entity.id]
        self._entities.remove(entity)

    def create_group(self, name: str, entities=()) -> CKGroup:
        g = CKGroup(self, name, self._new_id(name))
        for e in entities:
            g.add(e)
        self._register(g)
        return g

    def _register(self, obj) -> None:
        self._objects[obj.name] = obj
        self._by_id[obj.id] = obj

    def get(self, name: str):
        """The entity or group named ``name``; KeyError with a did-you-mean."""
        try:
            return self._objects[name]
        except KeyError:
            raise KeyError(f"no object named {name!r} in the context{did_you_mean(name, self._objects)}") from None

    def get_group(self, name: str) -> CKGroup:
        g = self.get(name)
        if not isinstance(g, CKGroup):
            raise KeyError(f"{name!r} is an entity, not a group")
        return g

    def get_by_id(self, ident: int):
        return self._by_id[ident]

    def __contains__(self, name: str) -> bool:
        return name in self._objects

    @property
    def entities(self) -> list:
        """The 3D entities in creation order."""
        return list(self._entities)

    @property
    def groups(self) -> list:
        return [o for o in self._objects.values() if isinstance(o, CKGroup)]

    def entities_with_attribute(self, name: str) -> list:
        return [e for e in self._entities if e.has_attribute(name)]

    # --- behaviours -------------------------------------------------------------------

    def add_behavior(self, behavior, name: str | None = None) -> None:
        """A callable ``behavior(ctx)``, or an object with ``process(ctx)`` (a
        BehaviorGraph), run every frame in the order added."""
        if not (callable(behavior) or hasattr(behavior, "process")):
            raise TypeError(f"context: a behaviour must be callable or have process(ctx), got {behavior!r}")
        self._behaviors.append((name or getattr(behavior, "name", None) or repr(behavior), behavior))

    def behavior_named(self, name: str):
        """The behaviour added under ``name`` (the first), or None (a plain
        loop: the behaviours look their manager up some twenty times a frame)."""
        for n, b in self._behaviors:
            if n == name:
                return b
        return None

    def remove_behavior(self, behavior) -> None:
        self._behaviors = [(n, b) for n, b in self._behaviors if b is not behavior]

    def output_to_console(self, message: str) -> None:
        """CKContext::OutputToConsole: the line goes to ``console`` and the log
        (after ``REPEATS_KEPT`` identical lines, only counted)."""
        if self._count(("console", message), message):
            self._console_line(message)

    def _console_line(self, message: str, error: BaseException | None = None) -> None:
        """A line on the console and in the log (with the traceback of `error`)."""
        self.console.append(message)
        log.warning(message, exc_info=error)

    def _count(self, key, where: str) -> bool:
        """Count one report of ``key``; True while it is still to be kept."""
        n = self.repeats[key] = self.repeats.get(key, 0) + 1
        if n <= REPEATS_KEPT:
            return True
        if n == REPEATS_KEPT + 1 or _power_of_ten(n):
            self._console_line(f"frame {self.time_manager.frame_count}: {where.splitlines()[0]}: "
                               f"{n} times so far; repeats are counted, not stored")
        return False

    def count_error(self, error: BaseException, key, where: str) -> bool:
        """Count an error of the source ``key`` (``where`` says it in the
        repeat line); True while its entries are still to be kept."""
        self.error_count += 1
        self._frame_errors.append(error)
        return self._count(("error", key), where)

    def report_error(self, where: str, error: BaseException) -> None:
        """Record an error of a behaviour or block; the frame goes on."""
        if self.count_error(error, (where, type(error).__name__), where):
            self.store_error(where, error)

    def store_error(self, where: str, error: BaseException) -> None:
        """Keep a counted error in ``errors`` and on the console."""
        fe = FrameError(self.time_manager.frame_count, where, error)
        self.errors.append(fe)
        self._console_line(str(fe), error)

    def _call(self, where: str, fn, *args) -> None:
        try:
            fn(*args)
        except Exception as exc:
            self.report_error(where, exc)

    # --- the frame ------------------------------------------------------------------

    def process_frame(self, frame_ms: float) -> None:
        """One frame of ``frame_ms`` real milliseconds (DESIGN "One frame")."""
        self._frame_errors = []
        delta_ms = self.time_manager.begin_frame(frame_ms)
        self.input_manager.begin_frame()
        for cb, msg in self.message_manager.begin_frame():
            self._call(f"message {msg.name!r} callback {cb!r}", cb, msg)
        for name, b in list(self._behaviors):
            fn = b.process if hasattr(b, "process") else b
            self._call(f"behaviour {name}", fn, self)
        self.physics.step(delta_ms)
        if self.strict and self._frame_errors:
            raise self._frame_errors[0]

    def reset(self) -> None:
        """Back to the state at play for the managers and the physics (entities stay)."""
        self.time_manager.reset()
        self.input_manager.reset()
        self.message_manager.reset()
        self.physics.restart()


def _power_of_ten(n: int) -> bool:
    while n % 10 == 0:
        n //= 10
    return n == 1


__all__ = ["CKContext", "FrameError", "VxMatrix"]
