"""A Typer group whose commands are imported when one is invoked (or help lists them), so that
``semv --version`` loads no command module and ``semv verify`` loads only its own."""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any, ClassVar

import typer
from typer.core import TyperGroup, TyperOption

__all__ = ["LazyGroup", "hide_flag_types"]


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
        return group
    single = typer.Typer(add_completion=False)
    single.command(name)(obj)
    return typer.main.get_command(single)
