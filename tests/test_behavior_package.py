"""docs/behaviors.md's third-party package, installed for real: its files are
written from the doc's code blocks, built into a wheel (name, version,
dependencies and entry points read from its pyproject.toml), installed by pip
(offline, into a temporary target), and a scene names its behaviour, which the
registry finds through the ``ivp.behaviors`` entry point group."""

import base64
import hashlib
import importlib
import importlib.metadata
import math
import os
import re
import subprocess
import sys
import tomllib
import zipfile

import pytest

import scenes
from behaviors import registry

DOC = os.path.join(os.path.dirname(__file__), "..", "docs", "behaviors.md")
SECTION = open(DOC, encoding="utf-8").read().split("### A third-party package, complete")[1].split("\n## ")[0]
FILES = dict(re.findall(r"`([\w./]+)`:\n\n```\w*\n(.*?)```", SECTION, re.S))


def write_project(root):
    """The package directory as the doc's tree shows it."""
    for rel, text in FILES.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return tomllib.loads(FILES["pyproject.toml"])


def record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def build_wheel(root, project: dict, out):
    """A pure-Python wheel (PEP 427) of the project's packages and metadata."""
    meta = project["project"]
    dist = f"{meta['name']}-{meta['version']}.dist-info"
    files = {str(f.relative_to(root)): f.read_bytes() for f in sorted(root.glob("*/**/*.py"))}
    files[f"{dist}/METADATA"] = "".join(
        [f"Metadata-Version: 2.1\nName: {meta['name']}\nVersion: {meta['version']}\n"]
        + [f"Requires-Dist: {d}\n" for d in meta.get("dependencies", [])]).encode()
    files[f"{dist}/WHEEL"] = b"Wheel-Version: 1.0\nGenerator: tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    files[f"{dist}/entry_points.txt"] = "".join(
        f"[{group}]\n" + "".join(f"{k} = {v}\n" for k, v in eps.items()) + "\n"
        for group, eps in meta.get("entry-points", {}).items()).encode()
    record = "".join(record_line(n, d) + "\n" for n, d in files.items()) + f"{dist}/RECORD,,\n"
    path = out / f"{meta['name']}-{meta['version']}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as z:
        for n, d in files.items():
            z.writestr(n, d)
        z.writestr(f"{dist}/RECORD", record)
    return path


@pytest.fixture
def installed(tmp_path, monkeypatch):
    """The doc's package pip-installed into a target directory on sys.path."""
    project = write_project(tmp_path / "blinky")
    wheel = build_wheel(tmp_path / "blinky", project, tmp_path)
    target = tmp_path / "site"
    done = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", "--no-cache-dir",
                           "--disable-pip-version-check", "--quiet", "--target", str(target), str(wheel)],
                          capture_output=True, text=True, env={**os.environ, "PIP_NO_INPUT": "1"}, timeout=60)
    assert done.returncode == 0, done.stderr
    monkeypatch.syspath_prepend(str(target))
    monkeypatch.setattr(registry, "_registry", dict(registry._registry))
    modules = set(project["project"]["entry-points"]["ivp.behaviors"].values())
    packages = {m.split(":")[0].split(".")[0] for m in modules}
    yield project, target, packages
    for p in packages:
        sys.modules.pop(p, None)
    importlib.invalidate_caches()


def test_the_doc_gives_the_whole_package():
    assert set(FILES) == {"pyproject.toml", "blinky/__init__.py"}
    tree = re.search(r"```\n(blinky/\n.*?)```", SECTION, re.S).group(1).split()
    assert tree == ["blinky/", "pyproject.toml", "blinky/__init__.py"]


def test_the_doc_package_installs_and_a_scene_names_its_behaviour(installed, tmp_path):
    """Spinner turns its entity about Y at ``speed`` degrees per second: 10
    frames of 100 ms at 45 turn the entity's Z axis to (sin 45, 0, cos 45)."""
    project, target, packages = installed
    meta = project["project"]
    for dep in meta["dependencies"]:                   # the doc depends on this project's distribution
        importlib.metadata.distribution(re.match(r"[\w.-]+", dep).group(0))
    dist = importlib.metadata.distribution(meta["name"])
    assert dist.read_text("INSTALLER").strip() == "pip" and os.path.samefile(dist.locate_file(""), target)
    assert "blinky.spinner" in registry.names()
    assert not packages & set(sys.modules)              # imported only when the name is looked up
    scene_file = tmp_path / "spin.yaml"
    scene_file.write_text("version: 1\nentities:\n  - {name: cube, mesh: {box: [1, 1, 1]}}\n"
                          "behaviours:\n  - {type: blinky.spinner, entity: cube, params: {speed: 45}}\n")
    scene = scenes.load(str(scene_file))
    (spinner,) = scene.behaviours
    assert type(spinner).__module__ == "blinky" and spinner.name == "blinky.spinner"
    for _ in range(10):
        scene.ctx.process_frame(100.0)
    s = math.sin(math.radians(45.0))
    assert scene.entity("cube").get_orientation()[0] == pytest.approx((s, 0.0, s), abs=1e-6)
    assert scene.ctx.errors == []
