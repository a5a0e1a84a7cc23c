"""A HUD in the game's manner (issue 42; docs/viewer.md "HUD"): the score and
the spare lives as balls at the top right, the level and the sector at the
bottom left, from the HUD fields the behaviours offer (``behaviors.hooks``);
the debug HUD stays on its key (H). ``game_hud_text`` has no pyglet.
"""

from __future__ import annotations

BALL = "\u25cf"             # a spare life


def game_hud_text(fields: dict) -> tuple[str, str] | None:
    """(top right, bottom left) for a level's fields (score, lives, level,
    sector, final when counted), or None when the fields have no score."""
    score = fields.get("score")
    if score is None:
        return None
    final = fields.get("final")
    top = f"{final if final is not None else score}" + ("  total" if final is not None else "")
    lives = fields.get("lives")
    if lives:
        top += "   " + " ".join(BALL * int(lives))
    bottom = "   ".join(f"{name} {fields[key]}" for key, name in (("level", "Level"), ("sector", "Sector"))
                        if fields.get(key) is not None)
    return top, bottom


class GameHud:
    """The two labels of `game_hud_text`, large, with a dark outline
    (a copy drawn one pixel off)."""

    def __init__(self):
        import pyglet
        self.batch = pyglet.graphics.Batch()
        back = pyglet.graphics.Group(order=0)
        front = pyglet.graphics.Group(order=1)
        self.labels = {}
        for where, (ax, ay) in (("top", ("right", "top")), ("bottom", ("left", "bottom"))):
            self.labels[where] = [pyglet.text.Label("", font_name="DejaVu Sans", font_size=22, weight="bold",
                                                    color=colour, anchor_x=ax, anchor_y=ay,
                                                    batch=self.batch, group=group)
                                  for colour, group in (((0, 0, 0, 200), back), ((255, 236, 190, 255), front))]
        self.rects = []             # (x, y, w, h) of the lines of the last draw, y up

    def draw(self, width: int, height: int, fields: dict, margin: int = 14) -> None:
        self.rects = []
        text = game_hud_text(fields)
        if text is None:
            return
        for (where, (x, y)), line in zip((("top", (width - margin, height - margin)), ("bottom", (margin, margin))),
                                         text):
            for k, label in enumerate(self.labels[where]):
                if label.text != line:              # a new text is laid out again
                    label.text = line
                label.x, label.y = x + (2 if k == 0 else 0), y - (2 if k == 0 else 0)
            w, h = label.content_width + 2, label.content_height + 2
            self.rects.append((x - w + 2, y - h, w, h) if where == "top" else (x, y - 2, w, h))
        self.batch.draw()
