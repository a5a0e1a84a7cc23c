"""The autopilot's search gives up at a place (docs/levels.md "Autopilot";
autopilot ``Pilot._place_failures``): its tries there are bounded even
where each try gets past the last one's failure and the steering's tries
start over."""

from types import SimpleNamespace

from behaviors.ballance import autopilot


def _pilot(monkeypatch, restored):
    """A Pilot in sector 3 with only what ``_fail`` reads."""
    monkeypatch.setattr(autopilot, "player_of", lambda ctx: SimpleNamespace(kind="wood"))
    pilot = autopilot.Pilot.__new__(autopilot.Pilot)
    pilot.__dict__.update(
        ctx=SimpleNamespace(entities=[]), log=None, level=SimpleNamespace(sector=3), tries={}, sector_tries={},
        places=[], pushing=None, keys=[frozenset()] * 2016, best=(3, 80.0, 1900), restored_at=0,
        grounded_at=1990, kept=[(f, None, 0, 3) for f in (0, 1680, 1800, 1920)], rollbacks=0, stalls=[],
        routes={}, variant=autopilot.VARIANTS[0], restore=restored.append)
    return pilot


def test_two_steerings_failing_by_turns_at_one_place_give_up_after_max_tries(monkeypatch):
    """Level 12's sector 3: the ball died at its T-board at x 516 and x 522
    by turns, each try past the other's place (its tries popped, as ``run``
    does once the ball is past), so only the sector's 60 rollbacks ended
    it. The two deaths, 6 apart, are one place: MAX_TRIES (24) rollbacks
    there, and the 25th death gives up."""
    restored = []
    pilot = _pilot(monkeypatch, restored)
    why, deaths = "", 0
    while not why and deaths < autopilot.MAX_SECTOR_TRIES + 1:
        x = (516.0, 522.0)[deaths % 2]
        why = pilot._fail("died", SimpleNamespace(get_position=lambda: (x, -48.4, -319.5)))
        deaths += 1
        pilot.tries.pop(3, None)                 # the next try got past this failure
    assert why.endswith(f"after {autopilot.MAX_TRIES} tries at this place with every steering")
    assert deaths == autopilot.MAX_TRIES + 1 and pilot.rollbacks == autopilot.MAX_TRIES
    assert len(pilot.places) == 1


def test_failures_apart_are_places_of_their_own(monkeypatch):
    """Deaths 20 apart (twice PLACE) are two places, each counted alone."""
    monkeypatch.setattr(autopilot, "player_of", lambda ctx: SimpleNamespace(kind="wood"))
    pilot = autopilot.Pilot.__new__(autopilot.Pilot)
    pilot.places = []
    assert [pilot._place_failures(3, (x, 0.0, 0.0)) for x in (0.0, 20.0, 5.0, 20.0, 0.0)] == [1, 1, 2, 2, 3]
    assert pilot._place_failures(4, (0.0, 0.0, 0.0)) == 1


def test_the_sector_bound_says_it_is_the_sectors(monkeypatch):
    """Deaths each far from the last (no place reaches MAX_TRIES): the
    sector's MAX_SECTOR_TRIES rollbacks end it, and the reason names the
    sector's count, not a place's."""
    pilot = _pilot(monkeypatch, [])
    why, deaths = "", 0
    while not why and deaths < autopilot.MAX_SECTOR_TRIES + 1:
        x = 100.0 * deaths
        why = pilot._fail("died", SimpleNamespace(get_position=lambda: (x, -48.4, -319.5)))
        deaths += 1
        pilot.tries.pop(3, None)
    assert why.endswith(f"after {autopilot.MAX_SECTOR_TRIES} tries in this sector with every steering")
    assert deaths == autopilot.MAX_SECTOR_TRIES + 1
