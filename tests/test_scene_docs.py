"""docs/scenes.md: every YAML example loads, and every key of the format is documented."""

import os
import re

import pytest

import scenes
from scenes import format as fmt
from scenes.schema import Kinded, Record, Tagged

DOC = os.path.join(os.path.dirname(__file__), "..", "docs", "scenes.md")
TEXT = open(DOC, encoding="utf-8").read()
EXAMPLES = re.findall(r"```yaml\n(.*?)```", TEXT, re.S)
TETRAHEDRON = "v 0 0 0\nv 1 0 0\nv 0 0 1\nv 0 1 0\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n"


def test_there_is_an_example_per_section():
    assert len(EXAMPLES) >= 12


@pytest.mark.parametrize("n", range(len(EXAMPLES)))
def test_example_loads(tmp_path, n):
    (tmp_path / "rock.obj").write_text(TETRAHEDRON)
    path = tmp_path / f"example{n}.yaml"
    path.write_text(EXAMPLES[n])
    scene = scenes.load(str(path))
    assert scene.ctx.entities


def records(schema, seen):
    """Every Record reachable from a schema."""
    if id(schema) in seen:
        return
    seen.add(id(schema))
    if isinstance(schema, Record):
        yield schema
        for f in schema.fields.values():
            yield from records(f.schema, seen)
    for attr in ("item", "value", "schema"):
        if hasattr(schema, attr) and not isinstance(getattr(schema, attr), (str, int, float)):
            yield from records(getattr(schema, attr), seen)
    for sub in getattr(schema, "alternatives", ()):
        yield from records(sub, seen)
    if isinstance(schema, (Tagged, Kinded)):
        for sub in schema.variants.values():
            yield from records(sub, seen)


def test_every_key_is_documented():
    seen = set()
    keys = {k for s in (fmt.DOCUMENT, fmt.ENTITY, fmt.PREFAB) for r in records(s, seen) for k in r.fields}
    missing = sorted(k for k in keys if f"`{k}`" not in TEXT and f"{k}:" not in TEXT)
    assert not missing
    assert {"euler_deg", "joint_referential", "two_pos_instead_of_dir", "shift_mass_center"} <= keys
