"""Spec 10.1: the DLL's process-global LCG (0x1002fcd0), seed 1, never reseeded.

It is shared by every environment in the process, as in the original. The seed
can be read and set so that a replay or a snapshot restores it exactly.
"""

from __future__ import annotations

from .fp import RNG_SCALE_F

INITIAL_SEED = 1
_seed = INITIAL_SEED


def rng() -> float:
    """seed = seed * 75 (u32 wrap); return (seed & 0xffff) * 2^-16."""
    global _seed
    _seed = (_seed * 75) & 0xFFFFFFFF
    return (_seed & 0xFFFF) * RNG_SCALE_F


def get_seed() -> int:
    return _seed


def set_seed(seed: int) -> None:
    global _seed
    _seed = int(seed) & 0xFFFFFFFF


def reset() -> None:
    """Back to the seed a fresh process starts with (for replays and tests)."""
    set_seed(INITIAL_SEED)
