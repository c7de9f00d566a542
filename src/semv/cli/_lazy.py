"""A Typer group whose commands are imported when one is invoked (or help lists them), so that
``semv --version`` loads no command module and ``semv verify`` loads only its own."""

from __future__ import annotations

import importlib
import inspect
import re
from collections.abc import Callable, Mapping
from typing import Any, ClassVar, TypeVar

import typer
from typer._click.core import Command, Context  # the click Typer builds its commands with
from typer.core import TyperCommand, TyperGroup, TyperOption

__all__ = ["LazyGroup", "hide_flag_types", "tidy_help", "usage"]

_F = TypeVar("_F", bound=Callable[..., Any])
_LITERAL = re.compile(r"``([^`]+)``")
_USAGE_ATTRIBUTE = "semv_usage"


def usage(pieces: str) -> Callable[[_F], _F]:
    """Give a command's usage line its arguments as written (``CASE | --resume RUN``), where
    Typer would show an argument that is required unless an option is given as optional."""

    def mark(command: _F) -> _F:
        setattr(command, _USAGE_ATTRIBUTE, pieces)
        return command

    return mark


def _plain(text: str) -> str:
    """Help as a terminal shows it: reStructuredText literals (double backticks) as `x`."""
    return _LITERAL.sub(r"`\1`", text)


def _reflowed(paragraph: str) -> str:
    """A paragraph's lines joined, unless it is laid out on purpose: click's ``\\b`` marker,
    a list, or indented lines."""
    lines = paragraph.splitlines()
    if paragraph.startswith("\b") or any(
        line.startswith((" ", "-", "*", "•")) for line in lines[1:]
    ):
        return paragraph
    return " ".join(paragraph.split())


def tidy_help(command: Command) -> Command:
    """Docstrings wrap at the source's width; help re-wraps them at the terminal's. The short
    help of a command (its line in the parent's list) becomes its first paragraph on one line,
    literals lose their double backticks; groups are tidied down to their last command."""
    if command.help:
        shown, _, hidden = inspect.cleandoc(_plain(command.help)).partition("\f")
        paragraphs = [_reflowed(p) for p in shown.strip().split("\n\n")]
        command.help = "\n\n".join(paragraphs) + (f"\f{hidden}" if hidden else "")
        command.short_help = command.short_help or paragraphs[0]
    if isinstance(command, TyperGroup):
        for child in command.commands.values():
            tidy_help(child)
    return command


def hide_flag_types() -> None:
    """Help shows no ``<bool>`` type next to a switch (``--json``, ``--replay``): a switch
    takes no value. Types of options that take one (``<path>``, ``<int>``) stay."""
    shown = TyperOption.display_type_rich
    if getattr(shown, "_semv_flags_hidden", False):
        return

    def display_type_rich(self: TyperOption, ctx: Any) -> str | None:
        return None if self.is_flag else shown(self, ctx)

    display_type_rich._semv_flags_hidden = True  # type: ignore[attr-defined]
    TyperOption.display_type_rich = display_type_rich  # type: ignore[method-assign]


hide_flag_types()


def _resolve(target: str) -> Any:
    module, _, attr = target.partition(":")
    return getattr(importlib.import_module(module), attr)


class LazyGroup(TyperGroup):
    """``TyperGroup`` plus ``lazy``: command name → ``"module:attr"``, where ``attr`` is a
    command function or a ``typer.Typer`` group. Listed after the eager commands, in order."""

    lazy: ClassVar[Mapping[str, str]] = {}

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._loaded: dict[str, Any] = {}

    def list_commands(self, ctx: Any) -> list[str]:
        return [*super().list_commands(ctx), *(n for n in self.lazy if n not in self.commands)]

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        found = super().get_command(ctx, cmd_name)
        if found is not None or cmd_name not in self.lazy:
            return found
        if cmd_name not in self._loaded:
            self._loaded[cmd_name] = _load(cmd_name, _resolve(self.lazy[cmd_name]))
        return self._loaded[cmd_name]


def _load(name: str, obj: Any) -> Any:
    if isinstance(obj, typer.Typer):
        group = typer.main.get_group(obj)
        group.name = name
        return tidy_help(group)
    single = typer.Typer(add_completion=False)
    pieces = getattr(obj, _USAGE_ATTRIBUTE, None)
    single.command(name, cls=_with_usage(pieces) if pieces else None)(obj)
    return tidy_help(typer.main.get_command(single))


def _with_usage(pieces: str) -> type[TyperCommand]:
    class WithUsage(TyperCommand):
        def collect_usage_pieces(self, ctx: Context) -> list[str]:
            options = self.options_metavar
            return [options, pieces] if options else [pieces]

    return WithUsage
