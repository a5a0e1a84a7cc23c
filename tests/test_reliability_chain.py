"""A long hinge chain (issue 15, "Long runs"; docs/ivp.md "Long hinge chains"):
a 50-plank bridge under the per-joint solver sags and its hinges open, but
its state stays finite, it gains no energy, and no hinge comes apart by a
plank's length."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

from hinge_chain import PLANK_LENGTH, measure  # noqa: E402


def test_a_50_plank_chain_gives_no_nan_and_does_not_explode():
    r = measure(50, seconds=5.0)
    assert r["finite"]
    released = r["energy_start"] - r["energy_end"]           # potential given up by the sag, > 0
    assert released > 0.0
    # nothing feeds energy in (gravity is conservative, damping takes it out):
    # it never rises above the start by more than 0.1 % of what the sag released
    assert r["energy_max"] - r["energy_start"] <= 1e-3 * released
    assert r["largest_gap"] < PLANK_LENGTH                    # the chain keeps its order of links
