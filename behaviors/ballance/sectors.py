"""Which sector is live: the scripts of a sector's objects run only while it is
the current one (glue-and-content 3, the level's sectors; see level.py).

The ``ballance.level`` behaviour answers; an entity in no sector group, or a
scene without a level, is always live.
"""

from __future__ import annotations

from ..api import manager_of

LEVEL = "ballance.level"


def level_of(ctx):
    """The context's running ``ballance.level`` behaviour, or None."""
    m = manager_of(ctx, create=False)
    found = m.find(LEVEL) if m is not None else []
    return found[0] if found else None


def sector_active(ctx, entity) -> bool:
    """Is ``entity``'s sector the current one (True outside every sector)?"""
    level = level_of(ctx)
    return level is None or level.is_active(entity)
