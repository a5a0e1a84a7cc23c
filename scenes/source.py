"""Reading YAML with locations: every mapping and list remembers where it and
its items start, so that an error names file:line:column.

Safe loading only: the loader is a ``yaml.SafeLoader`` subclass that builds
the same plain values ``yaml.safe_load`` does, with mappings as ``Mapping``
(a dict) and lists as ``Sequence`` (a list) carrying their marks. A key given
twice is an error (plain YAML keeps the last one silently).
"""

from __future__ import annotations

from typing import NamedTuple

import yaml


class Where(NamedTuple):
    """A place in a file; line and column count from 1."""

    file: str
    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


class SceneError(ValueError):
    """One or more problems in a scene file, each with its place."""

    def __init__(self, problems):
        self.problems = list(problems)
        super().__init__("\n".join(f"{w}: {m}" if w else m for w, m in self.problems))

    @property
    def where(self) -> Where | None:
        return self.problems[0][0] if self.problems else None


class Report:
    """Collects problems so that a check lists them all, not only the first."""

    def __init__(self):
        self.problems = []

    def add(self, where: Where | None, message: str) -> None:
        if (where, message) not in self.problems:       # repeated copies report once
            self.problems.append((where, message))

    def raise_if_any(self) -> None:
        if self.problems:
            raise SceneError(self.problems)


class Mapping(dict):
    """A YAML mapping with its place, the place of each key and of each value."""

    def __init__(self, where: Where):
        super().__init__()
        self.where = where
        self.key_where = {}
        self.value_where = {}


class Sequence(list):
    """A YAML list with its place and the place of each item."""

    def __init__(self, where: Where):
        super().__init__()
        self.where = where
        self.item_where = []


def located(value, where: Where):
    """Plain data (dicts, lists, scalars) as the located values ``parse_text``
    gives, every place ``where``: for documents made by a program (an import)."""
    if isinstance(value, dict):
        out = Mapping(where)
        for k, v in value.items():
            out[k] = located(v, where)
            out.key_where[k] = out.value_where[k] = where
        return out
    if isinstance(value, (list, tuple)):
        seq = Sequence(where)
        seq.extend(located(v, where) for v in value)
        seq.item_where = [where] * len(seq)
        return seq
    return value


class _Loader(yaml.SafeLoader):
    """SafeLoader whose mappings and lists carry their marks."""


def _where(loader: _Loader, node) -> Where:
    m = node.start_mark
    return Where(loader.scene_file, m.line + 1, m.column + 1)


def _construct_mapping(loader: _Loader, node) -> Mapping:
    loader.flatten_mapping(node)
    out = Mapping(_where(loader, node))
    for k_node, v_node in node.value:
        key = loader.construct_object(k_node, deep=True)
        kw = _where(loader, k_node)
        if not isinstance(key, str):
            raise yaml.MarkedYAMLError(problem=f"a key must be a text, got {key!r} "
                                               "(quote it: YAML reads yes/no/on/off as true/false)",
                                       problem_mark=k_node.start_mark)
        if key in out:
            raise yaml.MarkedYAMLError(problem=f"key {key!r} is given twice (first at line "
                                               f"{out.key_where[key].line})", problem_mark=k_node.start_mark)
        out[key] = loader.construct_object(v_node, deep=True)
        out.key_where[key] = kw
        out.value_where[key] = _where(loader, v_node)
    return out


def _construct_sequence(loader: _Loader, node) -> Sequence:
    out = Sequence(_where(loader, node))
    for item in node.value:
        out.append(loader.construct_object(item, deep=True))
        out.item_where.append(_where(loader, item))
    return out


_Loader.add_constructor("tag:yaml.org,2002:map", _construct_mapping)
_Loader.add_constructor("tag:yaml.org,2002:seq", _construct_sequence)


def parse_text(text: str, file: str):
    """The located document in ``text`` (None for an empty document)."""
    loader = _Loader(text)
    loader.scene_file = file
    try:
        return loader.get_single_data()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = Where(file, mark.line + 1, mark.column + 1) if mark else Where(file, 1, 1)
        what = " ".join(x for x in (exc.context, exc.problem) if x)
        raise SceneError([(where, f"YAML: {what}")]) from None
    except yaml.YAMLError as exc:
        raise SceneError([(Where(file, 1, 1), f"YAML: {exc}")]) from None
    finally:
        loader.dispose()


def parse_file(path: str):
    """The located document in the file at ``path``."""
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except OSError as exc:
        raise SceneError([(None, f"{path}: cannot read the scene file ({exc.strerror})")]) from None
    except UnicodeDecodeError as exc:
        raise SceneError([(Where(path, 1, 1), f"the file is not UTF-8 text ({exc.reason})")]) from None
    return parse_text(text, path)
