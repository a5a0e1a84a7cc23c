"""Reading YAML with locations: every mapping and list remembers where it and
its items start, so that an error names file:line:column.

Safe loading only: the loader is a ``yaml.SafeLoader`` subclass that builds
the same plain values ``yaml.safe_load`` does, with mappings as ``Mapping``
(a dict) and lists as ``Sequence`` (a list) carrying their marks. A key given
twice is an error (plain YAML keeps the last one silently).
"""

from __future__ import annotations

import fnmatch
import os
from typing import NamedTuple

import yaml

from . import limits


class Where(NamedTuple):
    """A place in a file; line and column count from 1."""

    file: str
    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


PROBLEMS_SHOWN = 50         # a scene error's message lists this many problems and counts the rest


class SceneError(ValueError):
    """One or more problems in a scene file, each with its place; the message
    lists the first PROBLEMS_SHOWN of them and counts the rest."""

    def __init__(self, problems):
        self.problems = list(problems)
        shown = [f"{w}: {m}" if w else m for w, m in self.problems[:PROBLEMS_SHOWN]]
        more = len(self.problems) - len(shown)
        if more:
            shown.append(f"... and {more} more problem{'s' if more > 1 else ''} "
                         f"(the first {PROBLEMS_SHOWN} are listed)")
        super().__init__("\n".join(shown))

    @property
    def where(self) -> Where | None:
        return self.problems[0][0] if self.problems else None


class Report:
    """Collects problems so that a check lists them all, not only the first.
    ``unread`` holds the names (patterns with * and ?) of what failed its own
    check and was left out: a reference to one is not reported again."""

    def __init__(self):
        self.problems = []
        self._seen = set()
        self.unread = set()

    def was_unread(self, name: str) -> bool:
        """``name`` may be one that was left out after its own problem."""
        return any(fnmatch.fnmatchcase(name, pattern) for pattern in self.unread)

    def add(self, where: Where | None, message: str) -> None:
        if (where, message) not in self._seen:       # repeated copies report once
            self._seen.add((where, message))
            self.problems.append((where, message))

    def extend(self, problems) -> None:
        for where, message in problems:
            self.add(where, message)

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
    """SafeLoader whose mappings and lists carry their marks, that refuses
    nesting deeper than MAX_NESTING (the composer recurses per level) and a
    document of more than MAX_NODES values once its aliases are expanded."""

    def __init__(self, text: str, file: str):
        self.scene_file = file
        self.depth = 0
        super().__init__(text)

    def compose_node(self, parent, index):
        if self.depth >= limits.MAX_NESTING:
            raise yaml.MarkedYAMLError(problem=f"nesting of {limits.over('MAX_NESTING', 'levels')}",
                                       problem_mark=self.peek_event().start_mark)
        self.depth += 1
        try:
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1

    def get_single_data(self):
        node = self.get_single_node()
        if node is None:
            return None
        _expanded_size(node)
        return self.construct_document(node)


def _children(node) -> list:
    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    return node.value if isinstance(node, yaml.SequenceNode) else []


def _expanded_size(root) -> int:
    """The number of values under ``root`` with every alias expanded, each
    node's size counted once (so an alias bomb costs its distinct nodes only);
    a MarkedYAMLError over MAX_NODES, or for an alias inside its own anchor."""
    size = {}
    stack = [(root, False)]
    while stack:
        node, leaving = stack.pop()
        if leaving:
            size[id(node)] = 1 + sum(size[id(k)] for k in _children(node))
            if size[id(node)] > limits.MAX_NODES:
                raise yaml.MarkedYAMLError(problem="the document holds, once its aliases are expanded, "
                                                   f"{limits.over('MAX_NODES', 'values')}", problem_mark=node.start_mark)
        elif id(node) not in size:
            size[id(node)] = None               # open: met again below itself, it contains itself
            stack.append((node, True))
            stack.extend((k, False) for k in _children(node))
        elif size[id(node)] is None:
            raise yaml.MarkedYAMLError(problem="an alias refers to the collection it is in",
                                       problem_mark=node.start_mark)
    return size[id(root)]


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
    try:
        loader = _Loader(text, file)
    except yaml.reader.ReaderError as exc:       # a character YAML does not allow, found before parsing
        raise SceneError([(_text_where(text, file, exc.position),
                           f"YAML: character U+{exc.character:04X} is not allowed (a control or "
                           "non-printable character)")]) from None
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


def _text_where(text: str, file: str, position: int) -> Where:
    line = text.count("\n", 0, position) + 1
    return Where(file, line, position - (text.rfind("\n", 0, position) + 1) + 1)


def parse_file(path: str):
    """The located document in the file at ``path``."""
    try:
        if os.path.getsize(path) > limits.MAX_FILE_BYTES:
            raise SceneError([(Where(path, 1, 1), f"the file has {os.path.getsize(path)} bytes, "
                                                  f"{limits.over('MAX_FILE_BYTES')}")])
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except OSError as exc:
        raise SceneError([(None, f"{path}: cannot read the scene file ({exc.strerror})")]) from None
    except UnicodeDecodeError as exc:
        raise SceneError([(Where(path, 1, 1), f"the file is not UTF-8 text ({exc.reason})")]) from None
    return parse_text(text, path)
