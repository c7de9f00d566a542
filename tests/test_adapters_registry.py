"""The adapter registry, format detection and the sealed gold object."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from semv.adapters import (
    Adapter,
    CosmosAdapter,
    GenericAdapter,
    SealedGold,
    adapter_names,
    detect_adapter,
    get_adapter,
)
from semv.errors import AdapterNotFound, GoldAccessError, InputError
from semv.model import RunStatus


def test_names_and_lookup() -> None:
    assert adapter_names() == (
        "5pils-ooc",
        "cosmos",
        "generic",
        "mmfakebench",
        "mv2026",
        "remmd",
        "verite",
    )
    for name in adapter_names():
        adapter = get_adapter(name)
        assert isinstance(adapter, Adapter)
        assert adapter.name == name
    assert get_adapter("generic").contract == "internal"
    assert get_adapter("cosmos").contract == "cosmos"


def test_unknown_adapter_lists_valid_names() -> None:
    with pytest.raises(AdapterNotFound) as info:
        get_adapter("fakeddit")
    assert str(info.value) == (
        "unknown adapter 'fakeddit'; valid adapters: "
        "5pils-ooc, cosmos, generic, mmfakebench, mv2026, remmd, verite"
    )
    assert isinstance(info.value, InputError)


def test_detects_case_folders(tmp_path: Path) -> None:
    (tmp_path / "one").mkdir()
    (tmp_path / "one" / "case.yaml").write_text("claim: c\n", encoding="utf-8")
    assert isinstance(detect_adapter(tmp_path / "one"), GenericAdapter)
    assert isinstance(detect_adapter(tmp_path / "one" / "case.yaml"), GenericAdapter)
    assert isinstance(detect_adapter(tmp_path), GenericAdapter)  # a folder of case folders


def test_detects_cosmos_lines_and_arrays(tmp_path: Path) -> None:
    row = {"img_local_path": "a.jpg", "caption1": "x", "caption2": "y", "context_label": 0}
    lines = tmp_path / "test_data.json"
    lines.write_text(json.dumps(row) + "\n" + json.dumps(row) + "\n", encoding="utf-8")
    assert isinstance(detect_adapter(lines), CosmosAdapter)
    array = tmp_path / "rows.json"
    array.write_text(json.dumps([row], indent=2), encoding="utf-8")
    assert isinstance(detect_adapter(array), CosmosAdapter)
    jsonl = tmp_path / "rows.jsonl"
    jsonl.write_text(json.dumps(row) + "\n", encoding="utf-8")
    assert isinstance(detect_adapter(jsonl), CosmosAdapter)


def test_undetectable_inputs(tmp_path: Path) -> None:
    other = tmp_path / "other.json"
    other.write_text('{"caption": "task 2 row", "genuine": 1}\n', encoding="utf-8")
    with pytest.raises(InputError, match="cannot detect the dataset format"):
        detect_adapter(other)
    with pytest.raises(InputError, match="cannot detect the dataset format; name an adapter"):
        detect_adapter(tmp_path)  # an empty folder
    with pytest.raises(InputError, match="no such file or directory"):
        detect_adapter(tmp_path / "missing")


def test_sealed_gold_reveals_only_after_commit() -> None:
    gold = SealedGold("OOC", "a rationale", source="test_data.json: line 3")
    with pytest.raises(GoldAccessError, match=r"test_data.json: line 3.*while the run is running"):
        gold.reveal(RunStatus.RUNNING)
    with pytest.raises(GoldAccessError):
        gold.reveal(RunStatus.FAILED)
    assert "OOC" not in repr(gold) and "OOC" not in str(gold) and "OOC" not in f"{gold}"
    assert gold.reveal(RunStatus.COMMITTED) == "OOC"
    assert gold.reveal_rationale(RunStatus.COMMITTED) == "a rationale"
    assert not hasattr(gold, "__dict__")


def test_limited_is_lazy_and_stops_at_the_limit() -> None:
    from semv.adapters._base import limited

    pulled: list[int] = []

    def cases() -> Iterator[Any]:
        for n in range(5):
            pulled.append(n)
            yield n

    assert list(limited(cases(), 2)) == [0, 1]
    assert pulled == [0, 1]
    pulled.clear()
    assert list(limited(cases(), 0)) == []
    assert pulled == []
    assert list(limited(cases(), None)) == [0, 1, 2, 3, 4]
