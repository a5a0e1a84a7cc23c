"""The interactive pyglet window: frame loop, cameras, HUD, help, overlays, picking.

Call `display.configure` before importing this module.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import pyglet
from pyglet.math import Mat4
from pyglet.window import key, mouse

from behaviors import hooks
from scenes.headless import declared_keys, error_text

from . import camera, hud, labels, measures, overlays, png
from .drawlist import gather
from .game_hud import GameHud
from .gameplay import scene_camera, scene_look
from .history import HISTORY_S
from .labels import overlaps
from .perturb import Twist
from .picking import pick
from .plots import PlotPanel, Samples
from .renderer import Offscreen, Renderer
from .session import FrameRate
from .textures import Effects
from .video import FfmpegVideo, WallClockVideo

RELOAD_CHECK_S = 0.5
FLY_SPEED = 40.0            # world units per second for the free camera's WASD
MAX_FPS = 60.0              # the frame cap: pyglet's event loop draws (and so ticks) at most this often
DEFAULT_SAMPLES = 4         # multisampling on a GPU; none on a software renderer
SOFTWARE_RENDERERS = ("llvmpipe", "softpipe", "swrast", "software", "swiftshader", "gdi generic")
HUD_ERROR_LINES = 40        # the error panel shows the traceback's last lines
VIDEO_FPS = 30.0            # the in-viewer video's frames per second of wall time
RECORDING = "run.jsonl"     # where the record key writes when `ivp play --record` named no file
SCRUB_S = 0.5               # seconds of frame time a history key moves by
TWIST_PER_PIXEL = 0.01      # radians a ctrl + right drag turns the target by, per pixel


@dataclass(frozen=True)
class Control:
    keys: tuple             # pyglet symbols; the first one free of the game is used
    label: str
    action: str


# MuJoCo's viewer where it fits: Space pauses, Right steps, Backspace resets.
CONTROLS = (
    Control((key.SPACE, key.P), "pause / resume (no frame runs; the time factor stays)", "pause"),
    Control((key.RIGHT, key.PERIOD), "one PSI step (pauses); in the history's past: forward one PSI", "step"),
    Control((key.LEFT, key.COMMA), "back one PSI in the history (inside a frame too)", "back"),
    Control((key.BRACKETLEFT, key.BRACKETRIGHT), f"history: back / forward {SCRUB_S:g} s (pauses)", "scrub"),
    Control((key.END,), "history: back to the latest state", "latest"),
    Control((key.MINUS,), "slow motion (time factor / 2)", "slower"),
    Control((key.EQUAL, key.PLUS), "fast forward (time factor x 2)", "faster"),
    Control((key.BACKSPACE,), "restart the scene", "restart"),
    Control((key.F5,), "reload the scene file (also automatic on change)", "reload"),
    Control((key.C,), "scene camera / free camera", "camera"),
    Control((key.F,), "free camera: frame the selection or the scene", "frame"),
    Control((key.T,), "camera tracks the selected body on / off (orbit and zoom about it)", "track"),
    Control((key._1,), "overlay: contact points and normals", "contacts"),
    Control((key._2,), "overlay: sleeping bodies tinted", "sleeping"),
    Control((key._3,), "overlay: bounding spheres", "spheres"),
    Control((key._4,), "overlay: joint anchors and axes", "joints"),
    Control((key._5,), "overlay: force arrows", "forces"),
    Control((key._6,), "overlay: contact forces, arrows N x scale long", "contact_forces"),
    Control((key._7,), "overlay: mass centres and inertia boxes", "mass"),
    Control((key._8,), "labels: body names; the selected body's mass and speed", "labels"),
    Control((key._9,), "contact force scale: the next of 0.003 .. 0.3 m per N", "force_scale"),
    Control((key.H,), "heads-up display on / off", "hud"),
    Control((key.F3,), "plots: the selected body's speed, height, energy; PSIs, sim and draw ms", "plots"),
    Control((key.F2,), "the failed reload or the last behaviour error in full", "error"),
    Control((key.F9,), "record from the start (run.jsonl) / stop", "record"),
    Control((key.F7,), "the autopilot drives the ball / the ball back (the game's keys take it back too)",
            "autopilot"),
    Control((key.F12,), "screenshot (viewer-NNN.png)", "screenshot"),
    Control((key.F6,), "save the whole state (viewer-NNN.snapshot, for ivp play --snapshot)", "save"),
    Control((key.F8,), "video on / off (viewer-NNN.mp4 with ffmpeg, else PNG frames)", "video"),
    Control((key.F11,), "fullscreen on / off", "fullscreen"),
    Control((key.F10,), "vsync on / off", "vsync"),
    Control((key.F1,), "this help", "help"),
    Control((key.ESCAPE,), "quit", "quit"),
)

MOUSE_HELP = (
    "left click: select a body (its state in the panel)",
    "ctrl + left drag from a body: pull it with a spring (an impulse every frame, or single step)",
    "ctrl + right drag from a body: turn it with an angular spring (paused: with each single step)",
    "left drag: orbit   right drag: pan   wheel: zoom (free camera)",
    "W A S D Q E: fly the free camera",
)

# Names the behaviours read from the input manager.
KEY_NAMES = {key.UP: "Up", key.DOWN: "Down", key.LEFT: "Left", key.RIGHT: "Right",
             key.SPACE: "Space", key.LSHIFT: "LShift", key.RSHIFT: "RShift",
             key.LCTRL: "LCtrl", key.RCTRL: "RCtrl", key.RETURN: "Return", key.ESCAPE: "Escape"}


def key_name(symbol: int) -> str:
    name = KEY_NAMES.get(symbol)
    if name is None:
        name = key.symbol_string(symbol).lstrip("_")
        name = name if len(name) == 1 else name.capitalize()
    return name


def bindings(owned) -> dict[int, str]:
    """Symbol -> viewer action, leaving the keys the scene's gameplay owns to it."""
    out = {}
    for c in CONTROLS:
        for k in c.keys:
            if key_name(k) not in owned:
                out[k] = c.action
    return out


def help_lines(owned) -> list[str]:
    lines = ["Controls (F1 closes)"]
    for c in CONTROLS:
        names = [key_name(k) for k in c.keys if key_name(k) not in owned]
        lines.append(f"{' / '.join(names):>12}  {c.label}")
    lines.extend(MOUSE_HELP)
    if owned:
        lines.append("the scene's gameplay owns: " + " ".join(sorted(owned)))
    return lines


def scene_bounds(ctx) -> tuple[np.ndarray, float]:
    """A sphere around every visible entity's position (free camera framing)."""
    pts = [e.get_world_matrix().as_array()[3, :3] for e in ctx.entities if e.visible and e.mesh is not None]
    if not pts:
        return np.zeros(3), 10.0
    pts = np.asarray(pts, dtype=np.float64)
    lo, hi = pts.min(axis=0), pts.max(axis=0)
    return (lo + hi) / 2.0, max(float(np.linalg.norm(hi - lo)) / 2.0, 10.0)


class View:
    """What the viewer draws: camera choice, overlays, selection, HUD; shared by
    the window and the headless render."""

    def __init__(self, session, scene_camera=scene_camera):
        self.session = session
        self.scene_camera = scene_camera     # session -> camera world matrix (VxMatrix layout), or None
        self.orbit = camera.OrbitCamera()
        self.use_scene_camera = True
        self.overlays = {"contacts": False, "sleeping": False, "spheres": False,
                         "joints": False, "forces": False, "contact_forces": False, "mass": False,
                         "labels": False}
        self.contact_scale = 3      # index into measures.CONTACT_SCALES: 0.1 m per N
        self.effects = Effects()            # the behaviours' flames and blob shadows
        self.track = False          # the free camera follows the selected body
        self.frame_scene()

    def frame_scene(self) -> None:
        sel = self.session.selected
        if sel is not None:
            self.orbit.frame(sel.get_world_matrix().as_array()[3, :3], 8.0)
        else:
            self.orbit.frame(*scene_bounds(self.session.ctx))

    def camera_world(self) -> np.ndarray:
        sel = self.session.selected
        if self.track and sel is not None:      # the free camera, aimed at the selection as it moves
            self.orbit.target = np.asarray(sel.get_world_matrix().as_array()[3, :3], dtype=np.float64)
            return self.orbit.world_matrix()
        if self.use_scene_camera:
            m = self.scene_camera(self.session)
            if m is not None:
                return np.asarray(m, dtype=np.float64)
        return self.orbit.world_matrix()

    def colour_of(self, entity):
        c = entity.color
        if entity is self.session.selected:
            return overlays.tint(c, overlays.SELECTED_TINT, 0.5)
        if self.overlays["sleeping"] and self.session.is_sleeping(entity):
            return overlays.tint(c, overlays.ASLEEP_TINT)
        return c

    def lines(self):
        s = self.session
        lines = overlays.Lines()
        env = s.env
        t = env.current_time
        on = self.overlays
        if on["spheres"]:
            overlays.bounding_spheres(lines, s.bodies(), t)
        if on["joints"] or on["forces"]:
            ctrls = overlays.controllers(env)
            if on["joints"]:
                overlays.joint_marks(lines, ctrls, t)
            if on["forces"]:
                overlays.force_arrows(lines, ctrls, t)
        if on["contacts"] and env.collision is not None:
            overlays.contact_marks(lines, env.collision.contacts())
        if on["contact_forces"] and env.collision is not None:
            measures.contact_forces(lines, env.collision.contacts(), measures.CONTACT_SCALES[self.contact_scale])
        if on["mass"]:
            measures.mass_marks(lines, s.bodies(), t)
        if s.drag is not None:
            s.drag.marks(lines, overlays.DRAG)
        return lines.arrays()

    def draw(self, renderer: Renderer, size) -> None:
        renderer.sky, renderer.lens, renderer.lighting = scene_look(self.session)
        renderer.use_sky(getattr(self.session.scene, "sky_box", None))
        groups = gather(self.session.ctx.entities, renderer.mesh_keys, self.colour_of,
                        getattr(self.session.scene, "looks", None))
        segments, colours = self.lines()
        self.effects.update(self.session)
        renderer.draw(groups, self.camera_world(), size, segments, colours, self.effects)


def is_software_renderer(name: str) -> bool:
    """Whether the GL_RENDERER string names a CPU rasterizer (Mesa's llvmpipe ...)."""
    return any(s in name.lower() for s in SOFTWARE_RENDERERS)


def gl_renderer_name() -> str:
    """GL_RENDERER of the platform's default context, read from a hidden window."""
    probe = pyglet.window.Window(16, 16, visible=False)
    try:
        return pyglet.gl.gl_info.get_renderer()
    finally:
        probe.close()


def choose_samples(samples: int | None, renderer: str) -> tuple[int, str]:
    """(multisampling, a HUD note): `samples` as asked, or by default none on a
    software renderer (it draws several times faster without) and 4 on a GPU."""
    if samples is not None:
        return samples, ""
    if is_software_renderer(renderer):
        return 0, f"software GL ({renderer.split(' (')[0]}): no multisampling (--samples N to force)"
    return DEFAULT_SAMPLES, ""


class TextPanel:
    """A block of monospaced lines at a corner of the window, on a dark
    backing: a label per line, laid out again only when its line changes
    (pyglet's layout of a label is a frame's largest cost in the HUD)."""

    def __init__(self, anchor_x: str, anchor_y: str, font_size: int = 11):
        self.anchor_x, self.anchor_y = anchor_x, anchor_y
        self.font_size = font_size
        self.batch = pyglet.graphics.Batch()
        self.labels = []
        probe = pyglet.text.Label("0" * 10, font_name="DejaVu Sans Mono", font_size=font_size)
        self.cell = probe.content_width / 10.0      # monospaced: a line's width is its length in cells
        self.backing = pyglet.shapes.Rectangle(0, 0, 1, 1, color=(0, 0, 0, 140), batch=self.batch)
        self.backing.group = pyglet.graphics.Group(order=-1)

    def _set(self, lines, wrap: int) -> None:
        """A label per line (an empty line a space, so it keeps its height),
        wrapped at ``wrap`` pixels, only what changed laid out again; a line
        that fits (with a cell to spare) is laid out as one line, which
        pyglet does in two thirds of the time."""
        while len(self.labels) > len(lines):
            self.labels.pop().delete()
        while len(self.labels) < len(lines):
            self.labels.append(pyglet.text.Label("", font_name="DejaVu Sans Mono", font_size=self.font_size,
                                                 width=wrap, color=(255, 255, 255, 255),
                                                 batch=self.batch, anchor_x="left", anchor_y="top"))
        for label, line in zip(self.labels, lines):
            text = line or " "
            wraps = (len(text) + 1) * self.cell > wrap
            if label.multiline != wraps or (wraps and label.width != wrap):
                label.width = wrap
                label.multiline = wraps
            if label.text != text:
                label.text = text

    def layout(self, lines, width: int, height: int, top: int | None = None, margin: int = 8):
        """Set the text and place it by the anchors (below `top` when given);
        returns the backing's rectangle (x, y, w, h), y up from the bottom."""
        self._set(lines, max(width - 2 * margin - 8, 1))    # wraps only what the window cannot hold
        w = max((label.content_width for label in self.labels), default=0)
        h = sum(label.content_height for label in self.labels)
        x = margin if self.anchor_x == "left" else (width - w - margin if self.anchor_x == "right"
                                                     else (width - w) // 2)
        y = height - margin if self.anchor_y == "top" else (height + h) // 2
        if top is not None:
            y = top - margin
        at = y
        for label in self.labels:
            label.x, label.y = x, at
            at -= label.content_height
        self.backing.x, self.backing.y = x - 4, y - h - 4
        self.backing.width, self.backing.height = w + 8, h + 8
        return (x - 4, y - h - 4, w + 8, h + 8)

    def draw(self) -> None:
        self.batch.draw()


class LabelLayer:
    """The labels overlay's text (viewer/labels.py): a pool of pyglet labels
    on dark backings, in the HUD's font at 9 points."""

    FONT_SIZE = 9

    def __init__(self):
        self.batch = pyglet.graphics.Batch()
        self.texts, self.backings = [], []
        probe = pyglet.text.Label("0" * 10, font_name="DejaVu Sans Mono", font_size=self.FONT_SIZE)
        self.cell = (probe.content_width / 10.0, probe.content_height)

    def draw(self, placed) -> None:
        while len(self.texts) < len(placed):
            backing = pyglet.shapes.Rectangle(0, 0, 1, 1, color=(0, 0, 0, 140), batch=self.batch,
                                              group=pyglet.graphics.Group(order=0))
            self.backings.append(backing)
            self.texts.append(pyglet.text.Label("", font_name="DejaVu Sans Mono", font_size=self.FONT_SIZE,
                                                multiline=True, width=2000, color=(255, 255, 200, 255),
                                                anchor_x="left", anchor_y="top", batch=self.batch,
                                                group=pyglet.graphics.Group(order=1)))
        for i, (text, backing) in enumerate(zip(self.texts, self.backings)):
            shown = i < len(placed)
            text.visible = backing.visible = shown
            if shown:
                x, y, w, h = placed[i].rect
                if text.text != placed[i].text:         # a new text is laid out again
                    text.text = placed[i].text
                text.x, text.y = x + labels.PAD, y + h - labels.PAD
                backing.x, backing.y, backing.width, backing.height = x, y, w, h
        self.batch.draw()


class Overlay2D:
    """HUD, selection panel and a centred panel (help or the last error, in
    place of the selection, in a smaller font), drawn over the 3D image; the
    selection and the centred panel move below the HUD when they would overlap. `rects` holds the panels' rectangles
    of the last draw."""

    def __init__(self):
        self.status = TextPanel("left", "top")
        self.selection = TextPanel("right", "top")
        self.centre = TextPanel("center", "center", font_size=9)     # the help's 40 lines fit below the HUD at 768
        self.game = GameHud()           # the game's manner: score, lives, level, sector
        self.labels = None              # the LabelLayer, made when labels first show
        self.rects = {}

    def draw(self, window, view: View, size, status_lines, centre_lines=(), blocked=(),
             lens: camera.Lens = camera.BALLANCE_LENS) -> None:
        """The panels, and the labels (when on) clear of them and of the
        `blocked` rectangles; rects["labels"] lists the labels' rectangles."""
        width, height = size
        window.projection = Mat4.orthogonal_projection(0, width, 0, height, -255, 255)
        pyglet.gl.glViewport(0, 0, width, height)
        s = view.session
        self.rects = {}
        self.game.draw(width, height, hooks.hud_fields(s.ctx))
        if status_lines:
            self.rects["status"] = self.status.layout(status_lines, width, height)
            self.status.draw()
            if s.selected is not None and not centre_lines:
                lines = hud.selection_lines(s, s.selected)
                rect = self.selection.layout(lines, width, height)
                if overlaps(rect, self.rects["status"]):
                    rect = self.selection.layout(lines, width, height, top=self.rects["status"][1])
                self.rects["selection"] = rect
                self.selection.draw()
        if centre_lines:
            rect = self.rects["centre"] = self.centre.layout(centre_lines, width, height)
            if "status" in self.rects and overlaps(rect, self.rects["status"]):
                self.rects["centre"] = self.centre.layout(centre_lines, width, height, top=self.rects["status"][1])
            self.centre.draw()
        if view.overlays["labels"]:
            if self.labels is None:
                self.labels = LabelLayer()
            placed = labels.place(labels.labelled(s), view.camera_world(), lens, size, self.labels.cell,
                                  [*self.rects.values(), *self.game.rects, *blocked])
            self.rects["labels"] = [p.rect for p in placed]
            self.labels.draw(placed)


def render_image(window, view: View, renderer: Renderer, target: Offscreen,
                 overlay: Overlay2D | None = None, status: bool = True) -> np.ndarray:
    """One frame into an offscreen buffer, as (h, w, 3) uint8; the `overlay`'s
    panels and labels over it, with the HUD's status lines when `status`."""
    size = (target.width, target.height)
    target.bind()
    view.draw(renderer, size)
    if overlay is not None:
        overlay.draw(window, view, size, hud.status_lines(view.session) if status else (), lens=renderer.lens)
    return target.read()


class ViewerWindow(pyglet.window.Window):
    """The `ivp play` window. Run it with ``pyglet.app.run(1 / MAX_FPS)``: each
    time the event loop draws the window, `draw` first runs one frame of the
    session for the wall time since the last drawn frame (vsync, when the
    display has it, slows both together)."""

    def __init__(self, session, width: int = 1024, height: int = 768,
                 samples: int | None = None, vsync: bool = True, record: str | None = None, sound=None,
                 history_s: float = HISTORY_S, **kwargs):
        """`samples`: multisampling (None: chosen by `choose_samples`);
        `record`: a recording file to write from the first frame; `sound`: a
        sound.SoundOutput playing the behaviours' sounds; `history_s`: seconds
        of history kept (0: none, viewer/history.py)."""
        samples, note = choose_samples(samples, gl_renderer_name() if samples is None else "")
        self.notes = [note] if note else []
        config = pyglet.gl.Config(double_buffer=True, depth_size=24, sample_buffers=int(samples > 0),
                                  samples=samples, major_version=3, minor_version=3)
        try:
            super().__init__(width, height, caption=f"ivp - {session.title}", resizable=True,
                             config=config, vsync=vsync, **kwargs)
        except pyglet.window.NoSuchConfigException:
            self.notes.append(f"no GL config with {samples}x multisampling: none")
            samples = 0
            super().__init__(width, height, caption=f"ivp - {session.title}", resizable=True,
                             vsync=vsync, **kwargs)
        self.samples = samples
        self.record_path = record or RECORDING
        self.session = session
        self.sound = sound
        if sound is not None:
            self.notes.extend(sound.notices)
        if history_s > 0.0:
            session.keep_history(history_s)
        self.scene_view = View(session)
        self._keys_of = None            # the context the key bindings were made for
        self.renderer = Renderer()
        self.overlay = Overlay2D()
        self.show_hud = None        # the debug HUD; None: by the scene (off on a game level: its HUD shows)
        self.plot_samples = Samples()
        self.plots = None           # the PlotPanel while F3 shows it
        self.centre = None          # "help" or "error": the centred panel shown
        self.rate = FrameRate()
        self.draw_ms = 0.0
        self.shots = 0
        self._held = set()
        self._drag_depth = 0.0      # camera depth of the point a ctrl-drag holds
        self._fly = set()
        self._last_frame = None     # wall time of the last drawn frame
        self.video = None           # a WallClockVideo while F8 records one
        self._target = None         # the Offscreen of `image`, remade when the size changes
        pyglet.clock.schedule_interval(self.check_reload, RELOAD_CHECK_S)
        if record:
            session.start_recording(record)

    # --- frame loop ----------------------------------------------------------

    @property
    def fps(self) -> float:
        """Frames drawn per second of wall time."""
        return self.rate.fps

    def draw(self, dt: float) -> None:
        """One frame as the event loop draws it: the session advances by the
        wall time since the last drawn frame, then the window is drawn (and
        into the video, if one is being made)."""
        now = time.perf_counter()
        self.tick(now - self._last_frame if self._last_frame is not None else 1.0 / MAX_FPS)
        self._last_frame = now
        self.rate.frame(now)
        super().draw(dt)
        if self.video is not None:
            self.video.frame(now, self.image)

    def image(self) -> np.ndarray:
        """What the window shows now (scene, HUD and panels), drawn again
        offscreen (the same on any GL, whatever the window's buffers), as
        (h, w, 3) uint8."""
        size = self.get_framebuffer_size()
        if self._target is None or (self._target.width, self._target.height) != size:
            self._target = Offscreen(*size)
        self._target.bind()
        self.on_draw()
        return self._target.read()

    def tick(self, dt: float) -> None:
        self.session.keys = frozenset(key_name(k) for k in self._held)
        ran = self.session.tick(dt) > 0.0
        if self.sound is not None:
            self.sound.frame(self.session.ctx, ran)
        self.plot_samples.sample(self.session, self.draw_ms)
        self.fly(dt)

    def check_reload(self, dt: float) -> None:
        self.session.reload_if_changed()

    def fly(self, dt: float) -> None:
        axes = {key.D: (1, 0, 0), key.A: (-1, 0, 0), key.E: (0, 1, 0), key.Q: (0, -1, 0),
                key.W: (0, 0, 1), key.S: (0, 0, -1)}
        move = sum((np.array(axes[k]) for k in self._fly if k in axes), np.zeros(3))
        if move.any():
            self.scene_view.use_scene_camera = False
            self.scene_view.orbit.move(*(move * FLY_SPEED * dt))

    def on_resize(self, width, height):
        """Keep pyglet's 2D projection for the HUD only; the 3D lens is the renderer's."""
        return pyglet.event.EVENT_HANDLED

    def on_draw(self):
        size = self.get_framebuffer_size()
        t0 = time.perf_counter()
        self.scene_view.draw(self.renderer, size)
        self.draw_ms = (time.perf_counter() - t0) * 1000.0
        status = (hud.status_lines(self.session, self.fps, self.draw_ms, self.notes) if self.hud_shown()
                  else hud.autopilot_lines(self.session))
        blocked = [self.plots.rect()] if self.plots is not None else []
        self.overlay.draw(self, self.scene_view, size, status, self.centre_lines(), blocked, self.renderer.lens)
        if self.plots is not None:
            self.plots.draw(self.plot_samples)

    def hud_shown(self) -> bool:
        """Whether the debug HUD shows: as H set it, else unless the scene is an
        imported level (scenes.virtools), whose game HUD shows."""
        if self.show_hud is None:
            return getattr(self.session.scene, "level", None) is None
        return self.show_hud

    def centre_lines(self) -> list[str]:
        if self.centre == "help":
            return help_lines(self.owned_keys)
        if self.centre != "error":
            return []
        if self.session.error:
            return ["The reload failed; the scene before it runs on (F2 closes; also on stderr)",
                    *self.session.error.splitlines()[:HUD_ERROR_LINES]]
        errors = self.session.ctx.errors
        if errors:
            return ["The last error (F2 closes; every error is also in the log)",
                    *error_text(errors[-1]).splitlines()[-HUD_ERROR_LINES:]]
        return []

    # --- keys ------------------------------------------------------------------------

    @property
    def owned_keys(self) -> frozenset:
        """The keys the scene's behaviours read (remade after a restart or reload)."""
        ctx = self.session.ctx
        if self._keys_of is not ctx:
            self._keys_of = ctx
            self._owned = declared_keys(ctx)
            self.bindings = bindings(self._owned)
        return self._owned

    def on_key_press(self, symbol, modifiers):
        owned = self.owned_keys
        action = self.bindings.get(symbol)
        if action is None:
            if key_name(symbol) in owned:
                self.session.stop_autopilot("your keys")
            if symbol in (key.W, key.A, key.S, key.D, key.Q, key.E) and key_name(symbol) not in owned:
                self._fly.add(symbol)
            self._held.add(symbol)
            return pyglet.event.EVENT_HANDLED
        self.do(action, symbol)
        return pyglet.event.EVENT_HANDLED

    def on_key_release(self, symbol, modifiers):
        self._held.discard(symbol)
        self._fly.discard(symbol)
        return pyglet.event.EVENT_HANDLED

    def do(self, action: str, symbol: int = 0) -> None:
        s, v = self.session, self.scene_view
        if action == "pause":
            s.toggle_pause()
        elif action == "step":
            s.step()
        elif action == "back":
            s.step_back()
        elif action == "scrub":
            s.scrub(-SCRUB_S if symbol == key.BRACKETLEFT else SCRUB_S)
        elif action == "latest" and s.history is not None:
            s.go_to(s.history.end)
        elif action in ("slower", "faster"):
            s.change_speed(-1 if action == "slower" else 1)
        elif action in ("restart", "reload"):
            s.restart()
        elif action == "camera":
            v.use_scene_camera = not v.use_scene_camera
        elif action == "frame":
            v.use_scene_camera = False
            v.frame_scene()
        elif action == "track":
            v.track = not v.track
            s.message = "the camera tracks the selected body" if v.track else "camera tracking off"
        elif action in v.overlays:
            v.overlays[action] = not v.overlays[action]
        elif action == "force_scale":
            v.contact_scale = (v.contact_scale + 1) % len(measures.CONTACT_SCALES)
            s.message = f"contact forces: {measures.CONTACT_SCALES[v.contact_scale]:g} m per N"
        elif action == "hud":
            self.show_hud = not self.hud_shown()
        elif action == "plots":
            self.plots = PlotPanel() if self.plots is None else None
        elif action in ("help", "error"):
            self.centre = None if self.centre == action else action
        elif action == "record":
            s.toggle_recording(self.record_path)
        elif action == "autopilot":
            s.toggle_autopilot()
        elif action == "screenshot":
            s.message = f"screenshot {self.screenshot()}"
        elif action == "save":
            self.shots += 1
            s.save_state(f"viewer-{self.shots:03d}.snapshot")
        elif action == "video":
            self.toggle_video()
        elif action == "fullscreen":
            self.set_fullscreen(not self.fullscreen)
        elif action == "vsync":
            self.set_vsync(not self.vsync)
            s.message = f"vsync {'on' if self.vsync else 'off'}"
        elif action == "quit":
            self.close()

    def on_close(self):
        if self.video is not None:          # the encoder finishes the file
            self.toggle_video()
        return super().on_close()

    def toggle_video(self) -> None:
        """Start a video of the window (viewer-NNN.mp4 through ffmpeg, or PNG
        frames beside it without ffmpeg) or end it; the HUD says which."""
        s = self.session
        if self.video is not None:
            video, self.video = self.video, None
            s.message = video.close()
            return
        self.shots += 1
        path = f"viewer-{self.shots:03d}.mp4"
        self.video = WallClockVideo(path, *self.get_framebuffer_size(), VIDEO_FPS, time.perf_counter())
        sink = self.video.sink
        s.message = (f"video: ffmpeg into {sink.path}" if isinstance(sink, FfmpegVideo)
                     else f"video: no ffmpeg here, PNG frames into {sink.path}/ (ffmpeg makes an .mp4)")

    def screenshot(self) -> str:
        """What the window shows now (scene, HUD and panels) as viewer-NNN.png."""
        img = self.image()
        self.shots += 1
        path = png.write(f"viewer-{self.shots:03d}.png", img)
        return str(path)

    # --- mouse ------------------------------------------------------------------------

    def ray(self, x: float, y: float):
        w, h = self.get_size()
        return self.renderer.lens.pixel_ray(self.scene_view.camera_world(), w / h, 2.0 * x / w - 1.0, 2.0 * y / h - 1.0)

    def on_mouse_press(self, x, y, button, modifiers):
        twist = button == mouse.RIGHT and modifiers & key.MOD_CTRL
        if button != mouse.LEFT and not twist:
            return
        hit = pick(self.session.ctx.entities, *self.ray(x, y))
        if hit is None:
            return
        entity, point = hit
        if twist:
            self.session.start_twist(entity)
        elif modifiers & key.MOD_CTRL:
            if self.session.start_drag(entity, point):
                self._drag_depth = self.depth_of(point)
        else:
            self.session.selected = entity if entity is not self.session.selected else None

    def on_mouse_release(self, x, y, button, modifiers):
        if button in (mouse.LEFT, mouse.RIGHT):
            self.session.end_drag()

    def depth_of(self, point) -> float:
        """Distance of a world point in front of the camera, along its view axis."""
        m = self.scene_view.camera_world()
        return float((np.asarray(point) - m[3, :3]) @ m[2, :3])

    def on_mouse_drag(self, x, y, dx, dy, buttons, modifiers):
        drag = self.session.drag
        if isinstance(drag, Twist):     # turned about the camera's up and right axes
            m = self.scene_view.camera_world()
            drag.turn(m[1, :3], -dx * TWIST_PER_PIXEL)
            drag.turn(m[0, :3], dy * TWIST_PER_PIXEL)
            return
        if drag is not None:        # the target: under the mouse, at the grab's depth
            origin, direction = self.ray(x, y)
            along = direction @ self.scene_view.camera_world()[2, :3]
            drag.target = origin + direction * (self._drag_depth / along)
            return
        v = self.scene_view
        if buttons & mouse.LEFT:
            v.use_scene_camera = False
            v.orbit.rotate(dx * 0.01, -dy * 0.01)
        elif buttons & (mouse.RIGHT | mouse.MIDDLE):
            v.use_scene_camera = False
            k = v.orbit.distance * 0.002
            v.orbit.move(-dx * k, -dy * k, 0.0)

    def on_mouse_scroll(self, x, y, scroll_x, scroll_y):
        self.scene_view.use_scene_camera = False
        self.scene_view.orbit.zoom(0.9 ** scroll_y)
