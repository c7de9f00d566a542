"""Versioned prompt templates (``prompts/*.j2``) and the delimiting of untrusted content.

Each template starts with ``{#- version: N -#}``; a prompt's version is ``<name>@N:<sha256 of the
template file>``, so editing a template without bumping N still changes the response-cache key
and the backend identity. Untrusted text (claims, captions, pages, OCR) is wrapped in
``<untrusted kind=... id=...>`` blocks; any delimiter inside it is defused first, so quoted
content can never close its block and speak as the instruction.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from functools import cache
from importlib import resources
from typing import Any

import jinja2
from pydantic import BaseModel

__all__ = [
    "PROMPT_NAMES",
    "bounded_schema",
    "prompt_version",
    "prompts_digest",
    "render",
    "render_from",
    "schema_sketch",
    "system_prompt",
    "untrusted",
    "untrusted_items",
]

PROMPT_NAMES = (
    "system",
    "decompose",
    "plan",
    "argue",
    "verify",
    "judge_clash",
    "describe",
    "reflect",
)
_VERSION = re.compile(r"\{#-?\s*version:\s*(\d+)\s*-?#\}")
_DELIMITER = re.compile(r"<(/?)\s*untrusted", re.IGNORECASE)


_PACKAGE = "semv.agents.llm"


def _source(name: str, package: str = _PACKAGE) -> str:
    return (resources.files(package) / "prompts" / f"{name}.j2").read_text("utf-8")


@cache
def prompt_version(name: str, package: str = _PACKAGE) -> str:
    """``<name>@N:<sha256[:12]>`` of ``<package>/prompts/<name>.j2``."""
    text = _source(name, package)
    match = _VERSION.match(text)
    if match is None:
        raise ValueError(f"prompts/{name}.j2: first line must be '{{#- version: N -#}}'")
    return f"{name}@{match.group(1)}:{hashlib.sha256(text.encode()).hexdigest()[:12]}"


@cache
def prompts_digest() -> str:
    return hashlib.sha256("\n".join(prompt_version(n) for n in PROMPT_NAMES).encode()).hexdigest()


def _defuse(text: str) -> str:
    return _DELIMITER.sub(lambda m: f"[{m.group(1)}untrusted", text)


def untrusted(kind: str, ident: str, text: str) -> str:
    """Quote ``text`` as data: defuse delimiters inside it, then wrap it."""
    attr = _DELIMITER.sub("[untrusted", ident).replace('"', "'")
    return f'<untrusted kind="{kind}" id="{attr}">\n{_defuse(text)}\n</untrusted>'


def untrusted_items(kind: str, items: list[dict[str, str]]) -> str:
    """Several items quoted as data in one block, one line each: ``[id] text``. Each text is
    defused and folded onto its line (no line break inside), so an item can neither close
    the block nor start a line that poses as another item. One block instead of one per
    item saves ~13 tokens an item."""
    lines = []
    for item in items:
        ident = " ".join(_defuse(item["id"]).replace("]", ")").split())
        lines.append(f"[{ident}] {' '.join(_defuse(item['text']).split())}")
    return f'<untrusted kind="{kind}">\n' + "\n".join(lines) + "\n</untrusted>"


@cache
def _environment(package: str = _PACKAGE) -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FunctionLoader(lambda n: _source(n.removesuffix(".j2"), package)),
        autoescape=False,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=False,
        trim_blocks=False,
    )
    env.globals["untrusted"] = untrusted
    env.globals["untrusted_items"] = untrusted_items
    return env


def render(name: str, **values: Any) -> str:
    return _environment().get_template(f"{name}.j2").render(**values).strip()


def render_from(package: str, name: str, **values: Any) -> tuple[str, str]:
    """A procedure's own template ``<package>/prompts/<name>.j2`` (same delimiting of
    untrusted text): the rendered text and its prompt version."""
    text = _environment(package).get_template(f"{name}.j2").render(**values).strip()
    return text, prompt_version(name, package)


def _resolve(node: Any, defs: dict[str, Any]) -> Any:
    ref = node.get("$ref") if isinstance(node, dict) else None
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        return defs.get(ref.removeprefix("#/$defs/"), {})
    return node


def bounded_schema(
    schema: dict[str, Any], bounds: dict[str, int], lengths: Mapping[str, int] | None = None
) -> dict[str, Any]:
    """``schema`` with ``maxItems`` on the array properties named in ``bounds`` and
    ``maxLength`` on the string properties (or a list's string items) named in ``lengths``:
    the schema sent to the server. Validation keeps the unbounded model and cuts lists
    itself; a bound the model's own schema states is kept."""
    lengths = lengths or {}

    def longest(node: dict[str, Any], chars: int) -> dict[str, Any]:
        if node.get("type") == "string" and "maxLength" not in node:
            return {**node, "maxLength": chars}
        return node

    def walk(node: Any) -> Any:
        if isinstance(node, dict):
            out = {k: walk(v) for k, v in node.items()}
            props = out.get("properties")
            if isinstance(props, dict):
                for name, prop in props.items():
                    if not isinstance(prop, dict):
                        continue
                    if name in bounds and prop.get("type") == "array" and "maxItems" not in prop:
                        prop = {**prop, "maxItems": bounds[name]}
                    if name in lengths:
                        items = prop.get("items")
                        if prop.get("type") == "array" and isinstance(items, dict):
                            prop = {**prop, "items": longest(items, lengths[name])}
                        else:
                            prop = longest(prop, lengths[name])
                    props[name] = prop
            return out
        if isinstance(node, list):
            return [walk(v) for v in node]
        return node

    bounded: dict[str, Any] = walk(schema)
    return bounded


def schema_sketch(schema: dict[str, Any]) -> str:
    """The answer's shape in one line (``{"arguments": [{"text": string, ...}, ...]}``):
    what the model must know of the schema, at a fifth of its JSON's tokens. The full schema
    still constrains decoding where the server takes ``response_format``, and validates."""
    defs: dict[str, Any] = schema.get("$defs", {})

    def sketch(node: Any) -> str:
        node = _resolve(node, defs)
        if not isinstance(node, dict):
            return "any"
        if "enum" in node:
            return "|".join(json.dumps(v) for v in node["enum"])
        if "const" in node:
            return json.dumps(node["const"])
        options = node.get("anyOf") or node.get("oneOf")
        if options:
            return "|".join(sketch(o) for o in options)
        kind = node.get("type")
        if kind == "object" or "properties" in node:
            props = node.get("properties", {})
            return "{" + ", ".join(f'"{k}": {sketch(v)}' for k, v in props.items()) + "}"
        if kind == "array":
            return f"[{sketch(node.get('items', {}))}, ...]"
        if kind in ("number", "integer") and ("minimum" in node or "maximum" in node):
            return f"{kind} {node.get('minimum', '')}..{node.get('maximum', '')}"
        if kind == "boolean":
            return "true|false"
        return str(kind or "any")

    return sketch(schema)


def system_prompt(role: str, duty: str, model: type[BaseModel]) -> str:
    return render("system", role=role, duty=duty, shape=schema_sketch(model.model_json_schema()))
