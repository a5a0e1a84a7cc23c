"""Building blocks: inputs, outputs, input parameters (pins), settings, locals and
output parameters (glue-and-content 2 and 4).

Pins are CK values: float and vector pins hold f32 (spec 1.3), entity pins a
CK3dEntity or None, mesh pins a bbglue.Mesh or None. The Python keyword of a pin
is the snake_case of its name ("Force Value" -> ``force_value``). A wrong type or
an unknown pin is a TypeError naming the block, the pin and the target.
"""

from __future__ import annotations

import re

from ivp import limits

from .. import values
from ..entity import CK3dEntity
from ..meshes import Mesh
from ..physics import Command

DONE = "done"                                  # CKBR_OK
ACTIVATE_NEXT_FRAME = "activate next frame"    # CKBR_ACTIVATENEXTFRAME

BOOL, INT, FLOAT, VECTOR, STRING, ENTITY, MESH = "bool", "int", "float", "vector", "string", "3d entity", "mesh"
NEVER, IF_LIVE, ALWAYS = "never", "if live", "always"     # HandleBlock.REMADE_BY_RESET


def snake(name: str) -> str:
    """'Force Value' -> 'force_value', 'Speed (0-1)' -> 'speed_0_1'."""
    return re.sub(r"[^0-9a-z]+", "_", name.lower()).strip("_")


class Pin:
    """A named, typed parameter with its default (``py`` overrides the keyword)."""

    __slots__ = ("name", "kind", "default", "py")

    def __init__(self, name: str, kind: str, default=None, py: str | None = None):
        self.name = name
        self.kind = kind
        self.default = default
        self.py = py or snake(name)


_KINDS = {
    BOOL: values.Flag(ints=True, expected="TRUE/FALSE"),
    INT: values.Real(integer=True, expected="an integer"),
    FLOAT: values.Real(single=True),
    VECTOR: values.Vector(3, values.Real(single=True), expected="a vector of 3 numbers"),
    STRING: values.Text(expected="a string"),
    ENTITY: values.Instance(CK3dEntity, "a 3D entity or None"),
    MESH: values.Instance(Mesh, "a bbglue.Mesh or None"),
}


def _coerce(kind: str, value, where: str):
    """Convert a value to the CK type of a pin (f32 for floats and vectors) by
    the value kinds of ``bbglue.values``; the error names ``where``."""
    return values.checked(_KINDS[kind], value, where)


class BuildingBlock:
    """A building block; subclasses declare NAME, INPUTS, OUTPUTS, SETTINGS,
    ``pins()`` (which may depend on the settings), OUT_PINS and ``execute``."""

    NAME = "Building Block"
    INPUTS = ("In",)
    OUTPUTS = ("Out",)
    SETTINGS: tuple = ()
    PINS: tuple = ()
    OUT_PINS: tuple = ()
    LIMITS: dict = {}       # pin or setting name -> (low, high): names of ivp.limits constants, or None

    def __init__(self, target=None, context=None, **values):
        self.target = _coerce(ENTITY, target, f"{self.NAME}: target") if target is not None else None
        self.context = context if context is not None else getattr(target, "context", None)
        self.settings = {}
        for pin in self.SETTINGS:
            self.settings[pin.name] = _coerce(pin.kind, pin.default, self._where(pin)) \
                if pin.default is not None else None
        by_py = {p.py: p for p in self.SETTINGS}
        for key in [k for k in values if k in by_py]:
            self.set_setting(by_py[key].name, values.pop(key))
        self.params = {}
        self._sync_params()
        for key, value in values.items():
            self.set_pin(key, value)
        self.outputs = {p.name: None for p in self.OUT_PINS}
        self.locals = {}
        self.handle = None
        self.active_inputs = set()
        self.fired_outputs = []

    # --- description ------------------------------------------------------------

    def describe(self) -> str:
        tgt = f" on {self.target.name!r}" if self.target is not None else ""
        return f"{self.NAME}{tgt}"

    def _where(self, pin: Pin) -> str:
        return f"{self.describe()}: pin {pin.name!r}"

    def __repr__(self) -> str:
        return f"<{self.describe()}>"

    # --- parameters ---------------------------------------------------------------

    def pins(self) -> tuple:
        """The input parameters, given the current settings."""
        return self.PINS

    def _find(self, pins, key: str, what: str) -> Pin:
        for p in pins:
            if key == p.name or key == p.py:
                return p
        names = [p.py for p in pins]
        hint = self.unknown_pin_hint(key) if what == "pin" else ""
        raise TypeError(f"{self.describe()}: unknown {what} {key!r}{values.did_you_mean(snake(key), names)} "
                        f"(it has {', '.join(names) or 'none'}{hint})")

    def unknown_pin_hint(self, key: str) -> str:
        """What follows the pins in an unknown pin's error: the settings, which
        are keywords too."""
        return "; settings: " + ", ".join(p.py for p in self.SETTINGS) if self.SETTINGS else ""

    def set_pin(self, key: str, value) -> None:
        """Set an input parameter by CK name or snake_case keyword."""
        pin = self._find(self.pins(), key, "pin")
        where = self._where(pin)
        self.params[pin.name] = self._limited(pin, _coerce(pin.kind, value, where), where)

    def pin(self, name: str):
        return self.params[name]

    def _limited(self, pin: Pin, value, where: str):
        """``value`` if within the block's LIMITS for the pin (its name without a
        trailing number: "ball radius 2" -> "ball radius"); a ValueError naming
        the pin and the ivp limit otherwise (docs/ck-api.md, "Limits")."""
        bounds = self.LIMITS.get(pin.name.rstrip("0123456789 "))
        if bounds is not None and value is not None:
            limits.check(where, value, *bounds, size=len(value) if isinstance(value, tuple) else None)
        return value

    def set_setting(self, key: str, value) -> None:
        pin = self._find(self.SETTINGS, key, "setting")
        if value is None:
            raise TypeError(f"{self.describe()}: setting {pin.name!r} cannot be None")
        where = f"{self.describe()}: setting {pin.name!r}"
        self.settings[pin.name] = self._limited(pin, _coerce(pin.kind, value, where), where)
        if hasattr(self, "params"):
            self._sync_params()

    def _sync_params(self) -> None:
        """Pins of the current settings: new ones at their default, values kept."""
        old = self.params
        self.params = {}
        for pin in self.pins():
            if pin.name in old:
                self.params[pin.name] = old[pin.name]
            else:
                self.params[pin.name] = _coerce(pin.kind, pin.default, self._where(pin)) \
                    if pin.default is not None else None

    # --- inputs and outputs ---------------------------------------------------------

    def activate_input(self, name: str) -> None:
        if name not in self.INPUTS:
            raise ValueError(f"{self.describe()}: no input {name!r} (inputs: {', '.join(self.INPUTS)})")
        self.active_inputs.add(name)

    def is_input_active(self, name: str) -> bool:
        return name in self.active_inputs

    def activate_output(self, name: str) -> None:
        if name not in self.OUTPUTS:
            raise ValueError(f"{self.describe()}: no output {name!r} (outputs: {', '.join(self.OUTPUTS)})")
        self.fired_outputs.append(name)

    def take_outputs(self) -> list:
        out, self.fired_outputs = self.fired_outputs, []
        return out

    def execute(self, ctx) -> str:
        """The behaviour function: reads the active inputs, returns DONE or
        ACTIVATE_NEXT_FRAME."""
        raise NotImplementedError

    def trigger(self, input_name: str | None = None) -> list:
        """Activate an input (default: the first) and execute at once, outside a
        graph; returns the outputs fired."""
        self.activate_input(input_name or self.INPUTS[0])
        self.run(self.context)
        return self.take_outputs()

    def run(self, ctx) -> str:
        """Execute with the active inputs, which are consumed."""
        if ctx is None:
            raise ValueError(f"{self.describe()}: no context (give a target or context=)")
        self.context = ctx
        try:
            return self.execute(ctx)
        finally:
            self.active_inputs.clear()

    # --- handles (glue-and-content 1, "Deferred commands") ----------------------------

    def set_handle(self, handle) -> None:
        """Keep the created object; the records of its bodies list the block
        (blocks.reset_bodies)."""
        self.handle = handle
        self.context.physics.handle_blocks.add(self)
        self.context.physics.keep_block(self)

    def handle_entities(self) -> tuple:
        """The entities whose bodies the block's object acts on."""
        return (self.target,)

    def body_destroyed(self, body) -> None:
        """A body the block made its object on was destroyed; nothing by default."""

    def forget_handle(self) -> None:
        """A behaviour reset (or a new world): the handle goes, the object is not deleted."""
        self.handle = None
        if self.context is not None:
            self.context.physics.handle_blocks.discard(self)

    def reset(self) -> None:
        """Behaviour reset: handle, pending command, locals and active inputs cleared."""
        cmd = self.locals.get("command")
        if cmd is not None and self.context is not None:
            self.context.physics.cancel(cmd)
        self.forget_handle()
        self.locals.clear()
        self.active_inputs.clear()


class HandleBlock(BuildingBlock):
    """A block whose first input queues a deferred command that creates an IVP
    object (its handle) and whose second input destroys it (glue-and-content 1).

    Create is a no-op while the handle is set or the command is queued; Destroy
    cancels a queued command or deletes the handle's object.
    """

    INPUTS = ("Create", "Destroy")
    OUTPUTS = ("Out1", "Out2")
    CREATED = "Out1"          # the output fired by the first input (None: none)
    DESTROYED = "Out2"
    # What blocks.reset_bodies does with the block when it resets one of
    # its bodies: NEVER drops the handle (a force: its script creates it again),
    # IF_LIVE queues Create again when the object existed (a listener), ALWAYS
    # also after Destroy (joints and springs: a broken hinge comes back).
    REMADE_BY_RESET = NEVER

    def execute(self, ctx) -> str:
        if self.is_input_active(self.INPUTS[1]):
            self.destroy_now(ctx)
            if self.DESTROYED:
                self.activate_output(self.DESTROYED)
        if self.is_input_active(self.INPUTS[0]):
            self.queue_create(ctx)
            if self.CREATED:
                self.activate_output(self.CREATED)
        return DONE

    def queue_create(self, ctx) -> None:
        """The first input's command, queued (glue-and-content 1, "Deferred
        commands"); a no-op while the handle is set or the command is queued."""
        if self.handle is None and "command" not in self.locals:
            self.locals["command"] = cmd = Command(self, self._attempt)
            ctx.physics.queue(cmd)

    def _attempt(self, cmd) -> bool:
        done = self.create_handle(self.context.physics, cmd)
        if done:
            self.locals.pop("command", None)
        return done

    def destroy_now(self, ctx) -> None:
        cmd = self.locals.pop("command", None)
        if cmd is not None:
            ctx.physics.cancel(cmd)
        if self.handle is not None:
            self.delete_handle(ctx.physics, self.handle)
            self.forget_handle()

    def create(self) -> list:
        """Direct use: activate the first input now."""
        return self.trigger(self.INPUTS[0])

    def destroy(self) -> list:
        """Direct use: activate the second input now."""
        return self.trigger(self.INPUTS[1])

    def dispose(self) -> list:
        """Destroy, and leave the records of its bodies: a later reset of them
        does not create the object again (for a block its owner is done with:
        a behaviour that stops or is reset)."""
        out = self.destroy()
        self.context.physics.drop_block(self)
        return out

    def create_handle(self, mgr, cmd) -> bool:
        """Create the object and ``set_handle`` it; False to be retried next frame."""
        raise NotImplementedError

    def delete_handle(self, mgr, handle) -> None:
        handle.delete()
