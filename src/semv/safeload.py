"""Bounded parsing of untrusted JSON and YAML: nesting depth and size are limited.

Every loader of user input (case files, review batches, evidence files, memory imports,
dataset files, API bodies) parses through here, so a document nested a thousand levels deep
or a multi-gigabyte file becomes an ``InputError`` naming the file (exit 2, HTTP 400) instead
of a ``RecursionError`` traceback or an exhausted machine. Not from the papers: the limits
are operational (``Settings.limits`` holds the configurable ones).
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any, Final

from semv.errors import InputError

__all__ = [
    "MAX_DEPTH",
    "MAX_DOCUMENT_BYTES",
    "check_depth",
    "loads_json",
    "loads_yaml",
    "read_text_bounded",
]

MAX_DEPTH: Final = 64
"""Deepest nesting of arrays/objects accepted in any input document (no semv format needs
more than ~8 levels)."""
MAX_DOCUMENT_BYTES: Final = 64 * 1024 * 1024
"""Largest single input document (case file, review batch, memory export) read at all."""


def check_depth(value: Any, where: str, max_depth: int = MAX_DEPTH) -> None:
    """Raise ``InputError`` when ``value`` nests lists/dicts deeper than ``max_depth``.

    Iterative, so it cannot itself run out of stack; a container reached twice (YAML aliases)
    is visited once, so alias bombs cost linear time."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    seen: set[int] = set()
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list | tuple):
            if id(item) in seen:
                continue
            seen.add(id(item))
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list | tuple):
            children = item
        else:
            continue
        if depth > max_depth:
            raise InputError(f"{where}: nested more than {max_depth} levels deep")
        stack.extend((child, depth + 1) for child in children)


def loads_json(text: str | bytes, where: str, max_depth: int = MAX_DEPTH) -> Any:
    """``json.loads`` with a depth bound; ``json.JSONDecodeError`` still propagates so that
    callers word syntax errors as before."""
    try:
        value = json.loads(text)
    except RecursionError as exc:
        raise InputError(f"{where}: nested more than {max_depth} levels deep") from exc
    check_depth(value, where, max_depth)
    return value


def loads_yaml(text: str, where: str, max_depth: int = MAX_DEPTH) -> Any:
    """``yaml.safe_load`` with a depth bound, refusing a mapping that repeats a key (YAML
    would keep the last one silently); ``yaml.YAMLError`` still propagates. Parsed by libyaml
    when PyYAML has it (a 10 MB document: ~0.3 s instead of ~15 s and 180 MB)."""
    try:
        import yaml  # only YAML files need it (~15 ms of every start otherwise)

        value = yaml.load(text, Loader=_unique_key_loader())
    except RecursionError as exc:
        raise InputError(f"{where}: nested more than {max_depth} levels deep") from exc
    check_depth(value, where, max_depth)
    return value


@functools.cache
def _unique_key_loader() -> type:
    """A safe YAML loader (libyaml's when available) that refuses duplicate mapping keys."""
    import yaml

    base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

    class UniqueKeyLoader(base):  # type: ignore[valid-type,misc]
        def construct_mapping(self, node: Any, deep: bool = False) -> Any:
            if isinstance(node, yaml.MappingNode):
                seen: set[Any] = set()
                for key_node, _ in node.value:
                    if key_node.tag == "tag:yaml.org,2002:merge":
                        continue  # "<<: *base" merges keys an explicit key may override
                    key = self.construct_object(key_node, deep=True)
                    try:
                        repeated = key in seen
                    except TypeError:
                        continue  # an unhashable key: the base constructor words it
                    if repeated:
                        raise yaml.constructor.ConstructorError(
                            "while constructing a mapping",
                            node.start_mark,
                            f"duplicate key {key!r} (YAML would keep only the last value)",
                            key_node.start_mark,
                        )
                    seen.add(key)
            return super().construct_mapping(node, deep=deep)

    return UniqueKeyLoader


def read_text_bounded(path: Path, max_bytes: int = MAX_DOCUMENT_BYTES) -> str:
    """The UTF-8 text of ``path``; ``InputError`` when it is larger than ``max_bytes``.
    ``OSError`` and ``UnicodeDecodeError`` propagate for the caller to word."""
    size = path.stat().st_size
    if size > max_bytes:
        raise InputError(f"{path}: {size} bytes is larger than the limit of {max_bytes} bytes")
    with path.open("rb") as handle:
        data = handle.read(max_bytes + 1)
    if len(data) > max_bytes:  # grew while reading, or a special file
        raise InputError(f"{path}: larger than the limit of {max_bytes} bytes")
    return data.decode("utf-8")
