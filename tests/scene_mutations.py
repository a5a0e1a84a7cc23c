"""Seeded mutations of scene files for the scene fuzz test (tests/test_scene_limits.py):
hostile numbers, wrong kinds, deleted and doubled lines, control characters,
deep nesting, alias bombs, huge repeats and mesh segments."""

import random
import re

NUMBER = re.compile(r"(?<![\w.#])-?\d+(\.\d+)?(e[+-]?\d+)?(?![\w.])")
SCALAR = re.compile(r"(?<=: )[^\s{}\[\],]+")

HOSTILE_NUMBERS = ["1.0e+308", "-1.0e+308", ".nan", ".inf", "-.inf", "0", "-1", "1.0e+30", "1000000000",
                   "18446744073709551616", "1.0e-300", "9.2e+18", "3.5e+38", "1.0e-30"]
WRONG_KINDS = ["[1, 2]", "{a: 1}", "null", "x", "true", "[]", "{}", "{type: [1]}", "[[1, [2, {b: 3}]]]"]
BOMB = ("&a0 [x, x, x, x, x, x, x, x, x, x]", "&a{n} [*a{m}, *a{m}, *a{m}, *a{m}, *a{m}, *a{m}, *a{m}, *a{m}]")


def _replace_one(rng, text, pattern, choices):
    found = list(pattern.finditer(text))
    if not found:
        return text
    m = rng.choice(found)
    return text[:m.start()] + rng.choice(choices) + text[m.end():]


def _lines(rng, text, op):
    lines = text.split("\n")
    i = rng.randrange(len(lines))
    if op == "delete":
        del lines[i]
    else:
        lines.insert(i, lines[i])
    return "\n".join(lines)


def _bomb(levels: int) -> str:
    """A list whose aliases expand to 10 * 8 ** (levels - 1) items."""
    parts = [BOMB[0]] + [BOMB[1].format(n=n, m=n - 1) for n in range(1, levels)]
    out = parts[0]
    for p in parts[1:]:
        out = f"[{out}, {p}]"
    return out


def mutate(text: str, rng: random.Random) -> str:
    """One random mutation of a scene file's text."""
    kind = rng.randrange(12)
    if kind == 0:
        return _replace_one(rng, text, NUMBER, HOSTILE_NUMBERS)
    if kind == 1:
        return _replace_one(rng, text, SCALAR, WRONG_KINDS)
    if kind == 2:
        return _lines(rng, text, "delete")
    if kind == 3:
        return _lines(rng, text, "double")
    if kind == 4:
        i = rng.randrange(len(text) + 1)
        return text[:i] + rng.choice(["\x00", "\x07", "\x1b", "\ufffe", "\x7f"]) + text[i:]
    if kind == 5:
        n = rng.choice([70, 500, 5000])
        return _replace_one(rng, text, SCALAR, ["[" * n + "]" * n, "{a: " * n + "1" + "}" * n])
    if kind == 6:
        return _replace_one(rng, text, SCALAR, [_bomb(rng.choice([3, 6, 8]))])
    if kind == 7:
        count = rng.choice(["1000000", "20000", "[1000, 1000, 1000]", "[200, 200, 1]"])
        key = "count" if not count.startswith("[") else "grid"
        return text.replace("{name: ", f"{{repeat: {{{key}: {count}}}, name: ", 1)
    if kind == 8:
        return re.sub(r"segments: \d+", f"segments: {rng.choice(['1000000000', '100000', '2'])}", text, count=1) \
            if "segments:" in text else _replace_one(rng, text, NUMBER, HOSTILE_NUMBERS)
    if kind == 9:
        i = rng.randrange(len(text) + 1)
        return text[:i] + text[i + rng.randint(1, 5):]
    if kind == 10:
        i = rng.randrange(len(text) + 1)
        return text[:i] + rng.choice(["{", "}", "[", "]", ":", "&x ", "*x", "- ", "  ", "\t", "'", '"']) + text[i:]
    return _replace_one(rng, _replace_one(rng, text, NUMBER, HOSTILE_NUMBERS), SCALAR, WRONG_KINDS)
