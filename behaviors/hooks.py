"""What a game offers the generic layers: a camera, HUD fields and an outcome
(docs/behaviors.md, "Hooks for the viewer and the CLI").

Any behaviour may define these methods; the viewer and ``ivp run`` ask the
running behaviours of a context in attachment order, without knowing which
game supplied them:

- ``camera_matrix()``: a camera world matrix (4 x 4, VxMatrix row layout, the
  camera looking along its Z), or None while it has none;
- ``hud_fields()``: a dict of name -> value for the HUD's game line (None values
  are not shown), or None;
- ``outcome()``: one line saying how the run ended, or None;
- ``emitters()``: the particle emitters (``api.Emitter``) to draw now;
- ``blob_shadows()``: the round shadows (``api.BlobShadow``) to draw now.

Sounds are not asked for: any behaviour emits them with ``Behavior.sound``
and ``sound_events`` hands out those of the last frame.
"""

from __future__ import annotations

from .api import RUNNING, BlobShadow, Emitter, SoundEvent, manager_of


def _offers(ctx, method: str):
    m = manager_of(ctx, create=False)
    for b in (m.behaviors if m is not None else ()):
        fn = getattr(b, method, None)
        if b.state == RUNNING and fn is not None:
            yield fn()


def camera_matrix(ctx):
    """The first camera a running behaviour offers, or None."""
    return next((m for m in _offers(ctx, "camera_matrix") if m is not None), None)


def hud_fields(ctx) -> dict:
    """The HUD fields of every running behaviour that offers some, merged in order."""
    out = {}
    for fields in _offers(ctx, "hud_fields"):
        out.update(fields or {})
    return out


def outcome(ctx) -> str:
    """The outcome lines of the running behaviours ('' when none offers one)."""
    return "; ".join(o for o in _offers(ctx, "outcome") if o)


def emitters(ctx) -> list[Emitter]:
    """The emitters of every running behaviour that offers some, in order."""
    return [e for found in _offers(ctx, "emitters") for e in (found or ())]


def blob_shadows(ctx) -> list[BlobShadow]:
    """The blob shadows of every running behaviour that offers some, in order."""
    return [b for found in _offers(ctx, "blob_shadows") for b in (found or ())]


def sound_events(ctx) -> list[SoundEvent]:
    """The SoundEvents the behaviours emitted during the last frame, in order."""
    m = manager_of(ctx, create=False)
    return list(m.sounds) if m is not None else []
