"""Repeated errors are counted, not stored (issue 15, "Long runs"): a source
that raises every frame keeps REPEATS_KEPT entries in ctx.errors, the console
and the log, plus one line at the 4th, 10th, 100th, 1000th and 10000th report."""

import logging

import pytest

from bbglue.context import REPEATS_KEPT, CKContext
from behaviors import Behavior, manager_of, register

FRAMES = 10_000
# the repeat lines: at REPEATS_KEPT + 1 = 4, then at 10, 100, 1000 and 10000
REPEAT_LINES = 5


@register("test.reliability.fails_at_start")
class FailsAtStart(Behavior):
    def on_start(self):
        raise RuntimeError("never starts")


@pytest.fixture
def log_lines():
    lines = []

    class Keep(logging.Handler):
        def emit(self, record):
            lines.append(record.getMessage())

    handler = Keep()
    logger = logging.getLogger("bbglue")
    logger.addHandler(handler)
    yield lines
    logger.removeHandler(handler)


def run(ctx, n=FRAMES):
    for _ in range(n):
        ctx.process_frame(1.0)


def test_a_callable_raising_every_frame_keeps_a_bounded_record(log_lines):
    ctx = CKContext()
    ctx.add_behavior(lambda c: 1 / 0, name="divider")
    run(ctx)
    assert ctx.error_count == FRAMES
    assert len(ctx.errors) == REPEATS_KEPT
    assert [e.frame for e in ctx.errors] == [1, 2, 3]
    assert len(ctx.console) == REPEATS_KEPT + REPEAT_LINES
    assert len(log_lines) == len(ctx.console)
    assert ctx.console[-1].startswith(f"frame {FRAMES}: behaviour divider: {FRAMES} times so far")


def test_a_behaviour_made_again_every_frame_that_fails_is_counted():
    ctx = CKContext()
    manager = manager_of(ctx)
    ctx.add_behavior(lambda c: manager.attach(FailsAtStart(c)), name="maker")
    run(ctx)
    # each frame's new behaviour starts in the next frame, so FRAMES - 1 failures
    assert ctx.error_count == FRAMES - 1
    assert len(manager.errors) == REPEATS_KEPT and len(ctx.errors) == REPEATS_KEPT
    assert all(e.hook == "on_start" for e in manager.errors)
    assert len(ctx.console) == REPEATS_KEPT + REPEAT_LINES - 1       # no 10000th failure
    assert "in on_start: 1000 times so far" in ctx.console[-1]
    assert [b.state for b in manager.behaviors] == ["pending"]              # the failed ones are gone


def test_identical_console_lines_are_counted_and_distinct_sources_kept_apart():
    ctx = CKContext()
    ctx.add_behavior(lambda c: c.output_to_console("You must Physicalize ball !!!"), name="say")
    ctx.add_behavior(lambda c: [][0], name="indexer")
    ctx.add_behavior(lambda c: {}["k"], name="looker")
    run(ctx, 100)
    assert ctx.error_count == 200
    assert sorted({e.where for e in ctx.errors}) == ["behaviour indexer", "behaviour looker"]
    assert len(ctx.errors) == 2 * REPEATS_KEPT
    said = [line for line in ctx.console if "You must Physicalize ball" in line]
    # 3 kept, then "... 4 times so far", "... 10 ...", "... 100 ..."
    assert len(said) == REPEATS_KEPT + 3 and said[-1].endswith("100 times so far; repeats are counted, not stored")


def test_strict_mode_still_raises_a_counted_repeat():
    ctx = CKContext(strict=True)
    ctx.add_behavior(lambda c: 1 / 0, name="divider")
    for _ in range(REPEATS_KEPT + 2):
        with pytest.raises(ZeroDivisionError):
            ctx.process_frame(1.0)
    assert ctx.error_count == REPEATS_KEPT + 2 and len(ctx.errors) == REPEATS_KEPT
