"""`semv learn` and `semv memory ...` end to end on OOKPIK rows (real data, real store)."""

from __future__ import annotations

import json
from pathlib import Path

from semv.memory import MemoryStore
from semv.store import Store
from tests.conftest import shared_data
from tests.test_cli import semv


def test_learn_freeze_transfer_export(tmp_path: Path) -> None:
    data = str(shared_data("ookpik-dev", "dev_data.json"))
    d = str(tmp_path / "store")
    common = ("--adapter", "cosmos", "--text-only", "--data-dir", d)
    code, out, _ = semv("learn", data, *common, "--limit", "6", "--json")
    assert code == 0, out
    doc = json.loads(out)
    assert doc["cases"] == 6 and set(doc["table7"]) >= {"grounding_pass", "promotion", "merge"}
    code, frozen, _ = semv("memory", "freeze", "--data-dir", d)
    assert code == 0 and len(frozen.strip()) == 64
    code, digest, _ = semv("memory", "hash", "--data-dir", d)
    assert digest.strip() == frozen.strip()
    # frozen: a learning run and an import are rejected, and the rejection is traced
    # (user conditions: exit 2 with the next step named)
    code, _, err = semv("learn", data, *common, "--limit", "1")
    assert code == 2 and "I_freeze" in err and "semv memory thaw" in err
    export = tmp_path / "mem.json"
    assert semv("memory", "export", str(export), "--data-dir", d)[0] == 0
    code, _, err = semv("memory", "import", str(export), "--data-dir", d)
    assert code == 2 and "frozen" in err and "run `semv memory thaw`" in err
    code, out, _ = semv("memory", "transfer", data, *common, "--limit", "3", "--json")
    assert code == 0, out
    (row,) = json.loads(out)
    assert row["n"] == 3 and row["snapshot_identical"] and row["snapshot"] == frozen.strip()
    code, out, _ = semv("memory", "show", "--all", "--trace", "50", "--json", "--data-dir", d)
    shown = json.loads(out)
    assert shown["frozen"] == frozen.strip()
    assert [e["kind"] for e in shown["trace"] if e["kind"] == "rejected"] == ["rejected"] * 2
    ms = MemoryStore(Store(Path(d)))
    assert ms.long_term_hash() == frozen.strip()
    pending = ms.candidates("verified", "under-review")
    assert len(shown["candidates"]) == len(pending)
    code, out, _ = semv("memory", "show", "--all", "--data-dir", d)
    assert code == 0 and all(c.id in out for c, *_ in pending)
    code, _, err = semv("memory", "thaw", "--data-dir", d)
    assert code == 0 and "thawed" in err and frozen.strip()[:16] in err
    assert semv("memory", "import", str(export), "--data-dir", d)[0] == 0


def test_memory_commands_say_what_they_did_on_an_empty_bank(tmp_path: Path) -> None:
    d = str(tmp_path / "store")
    code, _, err = semv("memory", "thaw", "--data-dir", d)
    assert code == 0 and "was not frozen" in err
    export = tmp_path / "mem.json"
    code, _, err = semv("memory", "export", str(export), "--data-dir", d)
    assert code == 0 and "exported 0 records" in err and "no records" in err
    assert "semv learn" in err
    code, _, err = semv("memory", "show", "--all", "--data-dir", d)
    assert code == 0 and "has no records" in err
    assert semv("memory", "freeze", "--data-dir", d)[0] == 0
    data = str(shared_data("ookpik-dev", "dev_data.json"))
    code, _, err = semv(
        "memory", "transfer", data, "--adapter", "cosmos", "--text-only", "--limit", "1",
        "--data-dir", d,
    )  # fmt: skip
    assert code == 0 and "holds no long-term records" in err


def test_learn_refuses_the_evaluation_part(tmp_path: Path) -> None:
    data = str(shared_data("ookpik-dev", "dev_data.json"))
    code, _, err = semv("learn", data, "--part", "eval", "--data-dir", str(tmp_path / "s"))
    assert code == 2 and "Eq. 26" in err


def test_learn_from_several_datasets_in_a_recorded_order(tmp_path: Path) -> None:
    ookpik = str(shared_data("ookpik-dev", "dev_data.json"))
    fivepils = str(shared_data("5pils-ooc-dev"))
    d = str(tmp_path / "store")
    code, out, _ = semv(
        "learn",
        fivepils,
        ookpik,
        "--adapter",
        "5pils-ooc",
        "--adapter",
        "cosmos",
        "--text-only",
        "--part",
        "all",
        "--limit",
        "2",
        "--json",
        "--data-dir",
        d,
    )
    assert code == 0, out
    doc = json.loads(out)
    assert [(o["source"]["adapter"], o["cases"]) for o in doc["order"]] == [
        ("5pils-ooc", 2),
        ("cosmos", 2),
    ]
    started = MemoryStore(Store(Path(d))).events("learn.started")
    assert [(e["payload"]["adapter"], e["payload"]["first"]) for e in started] == [
        ("5pils-ooc", "dev:0"),
        ("cosmos", "dev_data:1"),  # OOKPIK ids are line numbers
    ]


def test_learn_refuses_mismatched_adapters(tmp_path: Path) -> None:
    data = str(shared_data("ookpik-dev", "dev_data.json"))
    args = ("learn", data, data, data, "--adapter", "cosmos", "--adapter", "cosmos")
    code, _, err = semv(*args, "--data-dir", str(tmp_path / "s"))
    assert code == 2 and "3 datasets but 2 --adapter" in err
