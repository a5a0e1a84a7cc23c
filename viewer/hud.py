"""The text of the heads-up display and of the selection panel (no pyglet here)."""

from __future__ import annotations

import math

from ivp import MT_CALM, MT_MOVING, MT_NOT_SIM, MT_SLOW
from scenes.headless import error_line

from .gameplay import game_line

STATE_NAMES = {MT_MOVING: "moving", MT_SLOW: "slow", MT_CALM: "calm", MT_NOT_SIM: "asleep"}
LINE_CHARS = 100            # a longer HUD line is cut (the error's full text: F2 and the log)


def _cut(line: str) -> str:
    return line if len(line) <= LINE_CHARS else line[:LINE_CHARS - 3] + "..."


def _vec(v) -> str:
    return "(" + ", ".join(f"{x:8.3f}" for x in v) + ")"


def status_lines(session, fps: float = 0.0, draw_ms: float = 0.0, notes=()) -> list[str]:
    """Simulated time, time factor, PSIs this frame, frame rate, awake / total
    bodies, the gameplay, the history's position in the past, recording, the window's `notes` and the last error, one line each."""
    env = session.env
    tf = session.physics.time_factor
    state = ("PAUSED, " if session.paused else "") + f"time factor {tf:g}"
    awake, total = session.awake_count()
    lines = [
        f"t {env.current_time:9.3f} s   {state}   speed x{session.speed:g}",
        f"PSIs this frame {session.frame_psis:2d}   total {env.psi_count}",
        (f"{fps:5.1f} fps   " if fps > 0.0 else "") + f"sim {session.sim_ms:5.1f} ms   draw {draw_ms:5.1f} ms",
        f"bodies awake {awake} / {total}",
    ]
    game = game_line(session.ctx)
    if game:
        lines.append(game)
    h = session.history
    if h is not None and h.cursor < h.end:
        lines.append(f"HISTORY -{h.seconds_back():.2f} s ({h.end - h.cursor} steps back): "
                     f"] forward, End latest, P resumes here (dropping the later steps)")
        if h.inner:
            lines.append(f"HISTORY inside a frame: after {h.inner} of its {h.psis_of(h.cursor)} PSIs "
                         f"(P finishes it, then resumes)")
    lines.extend(autopilot_lines(session))
    if session.recorder is not None:
        lines.append(f"REC {session.recorder.path}: {session.recorder.count} frames")
    elif session.message:
        lines.append(session.message)
    lines.extend(notes)
    if session.error:
        lines.append(f"reload failed (F2): {session.error.splitlines()[0]}")
    errors = session.ctx.errors
    if errors:
        lines.append(f"errors {session.ctx.error_count} (F2): {error_line(errors[-1])}")
    return [_cut(line) for line in lines]


def autopilot_lines(session) -> list[str]:
    """The autopilot's line while it drives (what it does), or how its last drive ended."""
    if session.autopilot is not None:
        return [_cut(session.autopilot.status())]
    return [_cut(session.autopilot_said)] if session.autopilot_said else []


def unit_line(manager, unit) -> str:
    """Which list of the sim-unit manager holds the unit, its cores and controllers."""
    where, units = ("active", manager.active) if unit in manager.active else ("frozen", manager.frozen)
    index = next((i for i, u in enumerate(units) if u is unit), -1)
    controllers = ", ".join(type(e.controller).__name__ for e in unit.entries) or "none"
    return f"sim unit {where} #{index}: {len(unit.cores)} core(s); {controllers}"


def selection_lines(session, entity) -> list[str]:
    """Position, velocity, angular velocity, awake or asleep, sim unit, material."""
    lines = [entity.name]
    body = session.body_of(entity)
    pos = entity.get_world_matrix().as_array()[3, :3]
    lines.append(f"position {_vec(pos)}")
    if body is None:
        lines.append("not physicalized")
        return lines
    core = body.core
    if core.physical_unmoveable:
        lines.append("fixed")
    else:
        speed = math.sqrt(sum(v * v for v in core.speed))
        lines.append(f"velocity {_vec(core.speed)}  |v| {speed:.3f}")
        lines.append(f"ang. vel {_vec(core.rot_speed)}")
        lines.append(f"state    {STATE_NAMES.get(core.movement_state, core.movement_state)}")
        lines.append(f"mass     {core.mass:g}")
    unit = core.sim_unit_of_core
    if unit is not None:
        lines.append(unit_line(session.env.sim_unit_manager, unit))
    rec = session.physics.record_of(entity)
    if rec is not None:
        material = f"friction {rec.friction:g}  elasticity {rec.elasticity:g}"
        if body.nocoll_group:
            material += f"  group {body.nocoll_group!r}"
        lines.append(material)
    return lines
