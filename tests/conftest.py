"""Shared test setup: every test starts from the RNG seed of a fresh process."""

import pytest

from ivp import rng


@pytest.fixture(autouse=True)
def _fresh_rng():
    rng.reset()
    yield
