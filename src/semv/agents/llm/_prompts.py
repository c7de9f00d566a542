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
from functools import cache
from importlib import resources
from typing import Any

import jinja2
from pydantic import BaseModel

__all__ = [
    "PROMPT_NAMES",
    "prompt_version",
    "prompts_digest",
    "render",
    "render_from",
    "system_prompt",
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


def untrusted(kind: str, ident: str, text: str) -> str:
    """Quote ``text`` as data: defuse delimiters inside it, then wrap it."""
    safe = _DELIMITER.sub(lambda m: f"[{m.group(1)}untrusted", text)
    attr = _DELIMITER.sub("[untrusted", ident).replace('"', "'")
    return f'<untrusted kind="{kind}" id="{attr}">\n{safe}\n</untrusted>'


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
    return env


def render(name: str, **values: Any) -> str:
    return _environment().get_template(f"{name}.j2").render(**values).strip()


def render_from(package: str, name: str, **values: Any) -> tuple[str, str]:
    """A procedure's own template ``<package>/prompts/<name>.j2`` (same delimiting of
    untrusted text): the rendered text and its prompt version."""
    text = _environment(package).get_template(f"{name}.j2").render(**values).strip()
    return text, prompt_version(name, package)


def compact_schema(node: Any) -> Any:
    """The JSON schema without titles and descriptions: same constraints, fewer tokens."""
    if isinstance(node, dict):
        return {
            k: compact_schema(v)
            for k, v in node.items()
            if not (k in ("title", "description") and isinstance(v, str))
        }
    if isinstance(node, list):
        return [compact_schema(v) for v in node]
    return node


def system_prompt(role: str, duty: str, model: type[BaseModel]) -> str:
    schema = json.dumps(
        compact_schema(model.model_json_schema()), separators=(",", ":"), sort_keys=True
    )
    return render("system", role=role, duty=duty, schema=schema)
