"""Reading YAML/JSON input documents and wording their problems for ``InputError``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from semv.errors import InputError
from semv.safeload import loads_json, loads_yaml, read_text_bounded

__all__ = [
    "describe_validation_error",
    "field_path",
    "parse_json",
    "read_document",
    "read_json",
    "read_text",
]


def read_document(file: Path) -> Any:
    """Parse ``file`` as YAML (``.yaml``/``.yml``) or JSON (anything else).

    Raises ``InputError`` naming the file and, for syntax errors, the line.
    """
    text = read_text(file, bounded=True)
    if file.suffix.lower() in (".yaml", ".yml"):
        return _parse_yaml(file, text)
    return parse_json(text, file)


def read_json(file: Path) -> Any:
    """Parse the JSON file ``file`` (a dataset file: no size bound), depth-bounded.

    Raises ``InputError`` naming the file: missing, unreadable, not UTF-8, or invalid JSON
    (with the line).
    """
    if not file.exists():
        raise InputError(f"{file}: missing")
    return parse_json(read_text(file), file)


def read_text(file: Path, *, bounded: bool = False) -> str:
    """The UTF-8 text of ``file`` (``bounded``: at most ``semv.safeload``'s document limit, for a
    case document). Raises ``InputError`` naming the file when it cannot be read or is not
    UTF-8 (or, bounded, is larger than the limit)."""
    try:
        return read_text_bounded(file) if bounded else file.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{file}: not UTF-8 text: {exc}") from exc
    except OSError as exc:
        raise InputError(f"{file}: cannot read: {exc.strerror or exc}") from exc


def parse_json(text: str, file: Path) -> Any:
    """``text`` (read from ``file``) as JSON, depth-bounded; a syntax error is an
    ``InputError`` naming the file and the line."""
    try:
        return loads_json(text, str(file))
    except json.JSONDecodeError as exc:
        raise InputError(f"{file}: invalid JSON at line {exc.lineno}: {exc.msg}") from exc


def _parse_yaml(file: Path, text: str) -> Any:
    import yaml  # only YAML documents need it (~15 ms of every start otherwise)

    try:
        return loads_yaml(text, str(file))
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f" at line {mark.line + 1}" if mark is not None else ""
        problem = exc.problem or exc.context or "syntax error"
        raise InputError(f"{file}: invalid YAML{where}: {problem}") from exc
    except yaml.YAMLError as exc:
        raise InputError(f"{file}: invalid YAML: {exc}") from exc


def field_path(loc: tuple[int | str, ...]) -> str:
    """Render a pydantic error location as ``media[0].path``."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else part
    return out or "(document)"


def describe_validation_error(exc: ValidationError) -> str:
    """All problems of ``exc``, each as ``field: problem``, joined by ``"; "``."""
    problems = []
    for error in exc.errors(include_url=False):
        kind = error["type"]
        if kind == "missing":
            message = "field required"
        elif kind == "extra_forbidden":
            message = "unknown field"
        else:
            message = str(error["msg"])
            message = message.removeprefix("Value error, ")
            message = message[:1].lower() + message[1:]
        problems.append(f"{field_path(tuple(error['loc']))}: {message}")
    return "; ".join(problems)
