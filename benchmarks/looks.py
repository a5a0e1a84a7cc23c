"""How the original levels look in the viewer (issue 42): PNGs to look at, and
the list of what still differs from the game in docs/levels.md.

    python benchmarks/looks.py --game DIR [--out DIR] [--size 800x600] [--levels 1 2 ...]

Renders, as `ivp render --game DIR N --at 2.5` does (headless EGL, software GL
here), the start of each level 2.5 s in, the new ball's birth half done
(level_NN_start.png, the game's camera rig; the ball is played at 4 s),
and three named views of level 02: its start, the modules halfway along the
course (level_02_modules.png, looking at the middle module of the level) and
its first checkpoint (level_02_checkpoint.png). Run it from the checkout
with PYTHONPATH=. to draw with this checkout's viewer. Prints the files
written; asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import re

EYE_OFFSET = (18.0, 22.0, -28.0)       # a named view's eye from the point it looks at


def named_views(game: str) -> dict:
    """Level 02's points of interest: name -> (eye, target)."""
    import scenes
    from scenes.virtools import game_level
    ctx = scenes.load(game_level(game, 2)).ctx
    views = {}
    modules = sorted((e for e in ctx.entities if re.fullmatch(r"P_Modul_\d+_\d+\w*", e.name)), key=lambda e: e.name)
    if modules:
        views["modules"] = modules[len(modules) // 2].get_position()
    if "PC_TwoFlames_01" in ctx:
        views["checkpoint"] = ctx.get("PC_TwoFlames_01").get_position()
    return {name: (tuple(p[i] + EYE_OFFSET[i] for i in range(3)), p) for name, p in views.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", required=True, help="the Ballance folder")
    ap.add_argument("--out", default="looks", help="the folder for the PNGs (default: ./looks)")
    ap.add_argument("--size", default="800x600")
    ap.add_argument("--levels", type=int, nargs="*", default=list(range(1, 13)))
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    from viewer.cli import main as ivp

    def render(number: int, name: str, *extra) -> None:
        out = os.path.join(args.out, f"level_{number:02d}_{name}.png")
        code = ivp(["render", "--game", args.game, str(number), "--at", "2.5", "--size", args.size, "--hud",
                    "-o", out, "--headless", *extra])
        print(out if code == 0 else f"{out}: ivp render failed ({code})", flush=True)

    for n in args.levels:
        render(n, "start")
    if 2 in args.levels:
        for name, (eye, target) in named_views(args.game).items():
            render(2, name, "--eye", *map(str, eye), "--look", *map(str, target))


if __name__ == "__main__":
    main()
