"""One registry of datasets for the evaluation, and one of procedures for contest: every place
that differs by dataset or procedure asks its entry instead of testing the name."""

from __future__ import annotations

from pathlib import Path

import pytest

from semv.adapters import LoadedCase, adapter_names
from semv.contest._procedures import claims_view, procedure_contest
from semv.contest._review import ReviewState
from semv.errors import AdapterNotFound
from semv.eval import dataset_names, dataset_path, get_dataset, get_task
from semv.eval._stability import headline
from semv.model import Asset, Case, MediaKind
from semv.procedures import procedure_names


def test_every_adapter_has_one_dataset_entry() -> None:
    assert dataset_names() == adapter_names()
    for name in dataset_names():
        entry = get_dataset(name)
        assert entry.adapter.name == name and get_task(name).name in (name, "internal")


@pytest.mark.parametrize(
    "ask",
    [get_dataset, get_task, lambda name: dataset_path(name, Path("."), None)],
)
def test_an_unknown_dataset_is_one_error_listing_the_known_names(ask: object) -> None:
    assert callable(ask)
    with pytest.raises(AdapterNotFound) as caught:
        ask("fakeddit")
    assert str(caught.value) == (
        "unknown dataset 'fakeddit'; known datasets: "
        "5pils-ooc, cosmos, generic, mmfakebench, mv2026, remmd, verite"
    )


def test_bootstrap_clusters_by_image_only_where_cases_share_images() -> None:
    case = Case(
        id="row-7",
        claim="x",
        adapter="verite",
        media=(Asset(id="asset:0", path="/d/img/a.jpg", kind=MediaKind.IMAGE, loaded=False),),
    )
    loaded = LoadedCase(case=case)
    assert get_dataset("verite").cluster(loaded) == "/d/img/a.jpg"
    assert get_dataset("5pils-ooc").cluster(loaded) == "/d/img/a.jpg"
    assert get_dataset("cosmos").cluster(loaded) == "row-7"
    assert get_dataset("verite").cluster(LoadedCase(case=Case(id="t", claim="x"))) == "t"


def test_the_stability_headline_follows_the_dataset() -> None:
    remmd = {"level1": {"accuracy": 0.61}, "level2": {"macro_f1": 0.42}}
    assert headline("remmd", remmd) == {"accuracy": 0.61, "l2_macro_f1": 0.42}
    mv = {"accuracy": 55.0, "correct": 11, "url_f1": 0.3}
    assert headline("mv2026", mv) == {"accuracy": 0.55, "correct": 11.0, "url_f1": 0.3}
    assert headline("cosmos", {"accuracy": 0.8, "f1": 0.7}) == {"accuracy": 0.8}


def test_only_mv2026_takes_judge_scores() -> None:
    assert [n for n in dataset_names() if get_dataset(n).judge_scores] == ["mv2026"]


def test_cosmos_keeps_its_own_split_layout(tmp_path: Path) -> None:
    (tmp_path / "val.json").write_text("[]")
    (tmp_path / "val_data.json").write_text("[]")
    (tmp_path / "test.json").write_text("[]")
    assert dataset_path("cosmos", tmp_path, "val") == tmp_path / "val_data.json"
    assert dataset_path("remmd", tmp_path, "test") == tmp_path / "test.json"


def test_contest_reads_remmd_runs_by_points_and_every_other_procedure_by_claims() -> None:
    remmd = procedure_contest("remmd")
    assert remmd.view is not claims_view and remmd.rejections is not None
    review = ReviewState()
    assert remmd.rejections(review, {"p1"}) == {}
    for name in procedure_names():
        if name != "remmd":
            entry = procedure_contest(name)
            assert entry.view is claims_view and entry.rejections is None


def test_only_remmd_compares_procedures_in_its_table() -> None:
    assert [n for n in dataset_names() if get_dataset(n).compares_procedures] == ["remmd"]
