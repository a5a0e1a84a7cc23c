"""A behaviour that never returns the frame (issue 15, "Long runs"): periods
below one PSI are refused, and under the hook watchdog of ``ivp play`` /
``ivp run`` a stuck hook is named and disabled while the frame goes on."""

import subprocess
import sys
import time

import pytest

from bbglue.context import CKContext
from behaviors import Behavior, manager_of, register, registry
from behaviors.api import FAILED, HOOK_TIMEOUT_REPEAT, RUNNING, HookTimeout, hook_watchdog

LIMIT = 0.2          # seconds: the watchdog's limit in these tests


@register("test.watchdog.spinner")
class Spinner(Behavior):
    """Loops forever in on_frame from its second frame on, swallowing exceptions."""

    def on_start(self):
        self.frames = 0

    def on_frame(self, dt):
        self.frames += 1
        while self.frames > 1:
            try:
                pass
            except Exception:            # a careless hook: HookTimeout is no Exception
                pass


@register("test.watchdog.stuck_timer")
class StuckTimer(Behavior):
    def on_start(self):
        self.every(0.05, self.spin)

    def spin(self):
        while True:
            pass


@register("test.watchdog.slow")
class Slow(Behavior):
    """Takes 0.6 of the limit in each frame's hook: never over it, though the
    timer set by one frame's hook goes off in the next one's."""

    def on_start(self):
        self.frames = 0

    def on_frame(self, dt):
        self.frames += 1
        end = time.monotonic() + 0.6 * LIMIT
        while time.monotonic() < end:
            pass


@register("test.watchdog.catcher")
class Catcher(Behavior):
    """Catches HookTimeout itself (a BaseException) and goes on: it gets it
    again every HOOK_TIMEOUT_REPEAT seconds, until it gives up after three."""

    def on_start(self):
        self.caught = []

    def on_frame(self, dt):
        while len(self.caught) < 3:
            try:
                while True:
                    pass
            except HookTimeout:
                self.caught.append(time.monotonic())


@register("test.watchdog.counter")
class Counter(Behavior):
    def on_start(self):
        self.frames = 0

    def on_frame(self, dt):
        self.frames += 1


@register("test.watchdog.compiler")
class Compiler(Behavior):
    """Its first frame's hook spends 3 limits in a stand-in of numba's compiler
    (a function of a module named numba...), then 0.5 of a limit of its own."""

    def on_start(self):
        self.frames = 0

    def on_frame(self, dt):
        self.frames += 1
        if self.frames == 1:
            code = "def compile_kernel(end):\n    while time.monotonic() < end:\n        pass\n"
            space = {"__name__": "numba.core.dispatcher", "time": time}
            exec(code, space)
            space["compile_kernel"](time.monotonic() + 3 * LIMIT)
            end = time.monotonic() + 0.5 * LIMIT
            while time.monotonic() < end:
                pass


def make_ctx():
    ctx = CKContext()
    ctx.create_entity("Cube")
    return ctx


@pytest.mark.parametrize("name,hook", [("test.watchdog.spinner", "on_frame"),
                                       ("test.watchdog.stuck_timer", "timer StuckTimer.spin")])
def test_a_stuck_hook_is_named_and_disabled_and_the_frame_goes_on(name, hook):
    ctx = make_ctx()
    stuck = registry.create(ctx, name, "Cube")
    counter = registry.create(ctx, "test.watchdog.counter", "Cube")
    with hook_watchdog(LIMIT):
        for _ in range(6):
            ctx.process_frame(20.0)
    assert stuck.state == FAILED and counter.state == RUNNING
    assert counter.frames == 6                                    # every frame was returned
    err, = manager_of(ctx).errors
    assert (err.behavior, err.entity, err.hook) == (name, "'Cube'", hook)
    assert isinstance(err.error, HookTimeout) and f"within {LIMIT:g} s" in str(err.error)
    assert ctx.physics.env.psi_count > 0
    assert name in ctx.console[0] and hook in ctx.console[0]


def test_a_hook_under_its_limit_is_never_stopped_by_an_earlier_hooks_timer():
    ctx = make_ctx()
    slow = registry.create(ctx, "test.watchdog.slow", "Cube")
    with hook_watchdog(LIMIT):
        for _ in range(4):
            ctx.process_frame(20.0)
    assert slow.state == RUNNING and slow.frames == 4 and not manager_of(ctx).errors


def test_a_hook_that_catches_the_timeout_gets_it_again_every_repeat():
    ctx = make_ctx()
    b = registry.create(ctx, "test.watchdog.catcher", "Cube")
    t0 = time.monotonic()
    with hook_watchdog(LIMIT):
        ctx.process_frame(20.0)
    first, second, third = b.caught
    assert LIMIT <= first - t0 < LIMIT + 0.5
    assert HOOK_TIMEOUT_REPEAT * 0.9 <= second - first < HOOK_TIMEOUT_REPEAT + 0.2
    assert HOOK_TIMEOUT_REPEAT * 0.9 <= third - second < HOOK_TIMEOUT_REPEAT + 0.2
    assert b.state == RUNNING                   # it returned in the end


def test_no_timer_runs_between_the_frames_hooks():
    import signal
    ctx = make_ctx()
    registry.create(ctx, "test.watchdog.counter", "Cube")
    with hook_watchdog(LIMIT):
        ctx.process_frame(20.0)
        assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


def test_the_watchdog_leaves_no_timer_behind():
    import signal
    with hook_watchdog(LIMIT):
        ctx = make_ctx()
        registry.create(ctx, "test.watchdog.counter", "Cube")
        ctx.process_frame(20.0)
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    assert signal.getsignal(signal.SIGALRM) is signal.SIG_DFL


@pytest.mark.parametrize("period", [1e-300, 0.001])
def test_every_refuses_a_period_below_one_psi(period):
    ctx = make_ctx()
    b = registry.create(ctx, "test.watchdog.counter", "Cube")
    ctx.process_frame(20.0)
    with pytest.raises(ValueError, match=r"every\(.*shorter than one PSI \(0\.0151515"):
        b.every(period, b.on_start)
    t = b.every(ctx.physics.psi_length, b.on_start)            # one PSI is allowed
    assert not t.done


def test_ivp_run_names_and_stops_a_stuck_behaviour(tmp_path):
    plugin = tmp_path / "stuck.py"
    plugin.write_text(
        "from behaviors import Behavior, register\n"
        "@register('test.cli.stuck')\n"
        "class Stuck(Behavior):\n"
        "    def on_frame(self, dt):\n"
        "        while True:\n"
        "            pass\n")
    scene = tmp_path / "s.yaml"
    scene.write_text("version: 1\nscene: {length: 0.5}\nbehaviours:\n  - {type: test.cli.stuck}\n")
    out = subprocess.run([sys.executable, "-m", "viewer.cli", "run", str(scene), "--behaviors", str(plugin),
                          "--hook-time-limit", "0.3", "--quiet"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "behaviour 'test.cli.stuck' on the scene, in on_frame: HookTimeout" in out.stderr
    assert "30 frames" in out.stdout                             # 0.5 s at 60 frames/s: the run went on


def test_time_a_hook_spends_compiling_a_kernel_is_not_counted_against_it():
    # a fresh install compiles the engine's kernels at their first call, inside
    # whichever hook calls them first (the sample level's on_frame took 100 s)
    from ivp import jit
    ctx = make_ctx()
    b = registry.create(ctx, "test.watchdog.compiler", "Cube")
    with hook_watchdog(LIMIT, busy=jit.compiling):
        for _ in range(3):
            ctx.process_frame(20.0)
    assert b.state == RUNNING and b.frames == 3 and not manager_of(ctx).errors
    # without being told, the same hook is stopped
    ctx = make_ctx()
    b = registry.create(ctx, "test.watchdog.compiler", "Cube")
    with hook_watchdog(LIMIT):
        ctx.process_frame(20.0)
    assert b.state == FAILED


def test_a_hook_that_loops_after_compiling_is_still_stopped():
    from ivp import jit
    ctx = make_ctx()
    stuck = registry.create(ctx, "test.watchdog.spinner", "Cube")
    with hook_watchdog(LIMIT, busy=jit.compiling):
        for _ in range(3):
            ctx.process_frame(20.0)
    assert stuck.state == FAILED


def test_compiling_is_a_frame_of_numba_on_the_stack():
    import sys as _sys
    from ivp import jit
    assert not jit.compiling(_sys._getframe())
    space = {"__name__": "numba.core.compiler", "sys": _sys}
    exec("def inner(f):\n    return f()\n", space)
    assert space["inner"](lambda: jit.compiling(_sys._getframe()))
    assert not jit.compiling(None)
