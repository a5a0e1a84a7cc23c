"""Choosing pyglet's window system before any of its GL modules load.

pyglet opens a display as soon as ``pyglet.gl`` is imported, so the choice
between an X display and headless EGL has to be made first: every viewer module
that needs GL calls `configure` before importing ``pyglet.gl``.
"""

from __future__ import annotations

import os
import sys


def has_display() -> bool:
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def configure(headless: bool | None = None, gl_checks: bool = False) -> bool:
    """Select headless EGL (True) or the desktop display (False); None picks
    headless exactly when no display is set. Returns the mode in use.
    ``gl_checks``: pyglet's glGetError after every GL call (an error raised
    at the call that made it), off for drawing speed (about 340 calls in a
    frame of level 02); the tests turn it on."""
    import pyglet

    if headless is None:
        headless = not has_display()
    if "pyglet.gl" in sys.modules:
        if bool(pyglet.options["headless"]) != headless:
            raise RuntimeError("viewer: pyglet's GL is already loaded "
                               f"with headless={pyglet.options['headless']}; cannot switch")
        return headless
    pyglet.options["headless"] = headless
    pyglet.options["shadow_window"] = False
    pyglet.options["debug_gl"] = gl_checks
    return headless
