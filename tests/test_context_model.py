"""The caption-context model of the ``why`` rule: signals, the parameter file, the fit.

No test asserts a figure the model was fitted to: the shipped file is checked for its
provenance and shape, the fitting code on synthetic data, and the rule with constant models."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from semv.agents import ArgueInput, DecomposeInput
from semv.agents.offline import OfflineAgents
from semv.config import Settings
from semv.dimensions import ClaimView, decompose_case
from semv.dimensions._context import (
    FEATURES,
    ContextModel,
    context_model,
    context_probability,
    context_signals,
)
from semv.logistic import fit_logistic, fit_platt, platt
from semv.model import (
    Case,
    Dimension,
    Evidence,
    MemoryView,
    Modality,
    ProducerKind,
    Provenance,
    SourceType,
    Stance,
)


def view(claim: str) -> ClaimView:
    c = Case(id="case:1", claim=claim)
    sub = decompose_case(c).subclaims[Dimension.WHY.value]
    return ClaimView(subclaim=sub, claim_text=claim)


def signals(claim: str, text: str) -> dict[str, float]:
    return context_signals(view(claim), text, Settings().offline).as_dict()


def test_shipped_model_declares_its_training_set_and_command() -> None:
    model = context_model(Settings().offline)
    assert len(model.coef) == len(FEATURES)
    for key in ("training_set", "training_sha256", "command", "rows", "l2"):
        assert key in model.provenance, key
    assert "make fit" in str(model.provenance["command"])
    assert 0.0 < model.threshold < 1.0


def test_signals_read_entities_places_years_and_numbers() -> None:
    same = signals(
        "Angela Merkel speaks in Berlin in 2015.", "Angela Merkel gives a speech in Berlin."
    )
    assert same["shared_entities"] > 0 and same["place_agrees"] == 1.0
    other = signals(
        "Angela Merkel speaks in Berlin in 2015.",
        "Protesters march in Santiago, Chile on 11 September 1998 carrying 300 flags.",
    )
    assert other["shared_entities"] == 0.0 and other["text_entities_unmatched"] > 0
    assert other["place_conflicts"] == 1.0 and other["year_conflicts"] == 1.0
    assert same["similarity"] > other["similarity"]
    quoted = signals("A storm hits Miami.", 'Officials said "the storm was not this one".')
    assert quoted["reported_speech"] == 1.0


def test_bad_model_files_are_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="do not match"):
        ContextModel.from_json({"features": ["x"], "coef": [1.0], "intercept": 0.0}, "m.json")
    with pytest.raises(ValueError, match="not a context model"):
        ContextModel.from_json({"features": list(FEATURES)}, "m.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    cfg = Settings(offline={"context_model": str(bad)}).offline  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"bad\.json"):
        context_model(cfg)


def constant(tmp_path: Path, attack: bool) -> Settings:
    path = tmp_path / f"m-{attack}.json"
    path.write_text(
        json.dumps(
            {
                "features": list(FEATURES),
                "coef": [0.0] * len(FEATURES),
                "intercept": 20.0 if attack else -20.0,
                "training_set": "test",
            }
        )
    )
    return Settings(offline={"context_model": str(path)})  # type: ignore[arg-type]


async def test_the_rule_attacks_exactly_when_the_model_says_so(tmp_path: Path) -> None:
    claim = "Crowds celebrate the championship in the city centre."
    caption = Evidence(
        id="ev:sup:1",
        source="dataset",
        source_type=SourceType.PRIOR_CAPTION,
        modality=Modality.TEXT,
        content="A delivery truck is stuck on a snowy mountain road.",
        reliability=0.7,
        provenance=Provenance(producer=ProducerKind.DATASET, agent="test"),
    )
    c = Case(id="case:1", claim=claim)
    out = {}
    for attack in (True, False):
        agents = OfflineAgents(constant(tmp_path, attack))
        sub = (await agents.decompose(DecomposeInput(case=c, evidence=()))).subclaims["why"]
        out[attack] = await agents.argue(
            ArgueInput(
                case=c, subclaim=sub, evidence=(caption,), memory=MemoryView(subclaim=sub.id)
            )
        )
    assert [d.stance for d in out[True].drafts] == [Stance.ATTACK]
    assert "caption-context model" in out[True].drafts[0].text
    assert Stance.ATTACK not in [d.stance for d in out[False].drafts]
    # the parameter file is part of the backend's identity (and so of every fingerprint)
    assert OfflineAgents(constant(tmp_path, True)).identity != OfflineAgents(Settings()).identity


def test_logistic_fit_recovers_a_synthetic_direction() -> None:
    rng = random.Random(3)
    rows = [(rng.random(), rng.random()) for _ in range(400)]
    labels = [2.0 * a - 1.0 + 0.1 * rng.gauss(0, 1) > 0.0 for a, _ in rows]
    model = fit_logistic(rows, labels, l2=0.1)
    assert model.coef[0] > 3.0 and abs(model.coef[1]) < 1.0
    pred = [p >= 0.5 for p in model.predict(rows)]
    assert sum(p == y for p, y in zip(pred, labels, strict=True)) / len(rows) > 0.9
    with pytest.raises(ValueError, match="both classes"):
        fit_logistic(rows, [True] * len(rows))


def test_platt_scaling_calibrates_an_overconfident_score() -> None:
    rng = random.Random(5)
    scores = [rng.random() for _ in range(2000)]
    labels = [rng.random() < 0.25 + 0.5 * s for s in scores]  # true p = 0.25 + 0.5 s
    a, b = fit_platt(scores, labels)
    assert abs(platt(0.5, a, b) - 0.5) < 0.05
    assert 0.15 < platt(0.0, a, b) < 0.35 and 0.65 < platt(1.0, a, b) < 0.85


def _caption(i: int, text: str) -> Evidence:
    return Evidence(
        id=f"ev:sup:{i}",
        source="dataset",
        source_type=SourceType.PRIOR_CAPTION,
        modality=Modality.TEXT,
        content=text,
        reliability=0.7,
        provenance=Provenance(producer=ProducerKind.DATASET, agent="test"),
    )


async def _argue_why(claim: str, captions: tuple[Evidence, ...]) -> list[tuple[Stance, str]]:
    agents = OfflineAgents(Settings())
    c = Case(id="case:1", claim=claim)
    sub = (await agents.decompose(DecomposeInput(case=c, evidence=()))).subclaims["why"]
    out = await agents.argue(
        ArgueInput(case=c, subclaim=sub, evidence=captions, memory=MemoryView(subclaim=sub.id))
    )
    return [(d.stance, d.evidence[0]) for d in out.drafts]


async def test_captions_of_the_same_media_are_read_as_one_body() -> None:
    """Several captions of one media (a reverse search's) are not several independent tests of
    the claim: the one closest to the claimed context speaks for them all."""
    claim = "Crowds celebrate the championship in the Milan city centre."
    unrelated = (
        _caption(1, "A delivery truck is stuck on a snowy mountain road."),
        _caption(2, "Photos of the week: storms, elections and a royal visit."),
    )
    restating = _caption(3, "Crowds celebrate the championship title in the Milan city centre.")
    cfg = Settings().offline
    p = {
        ev.id: context_probability(
            view(claim), ev.content, context_signals(view(claim), ev.content, cfg), cfg
        )[0]
        for ev in (*unrelated, restating)
    }
    assert p["ev:sup:1"] >= 0.5 and p["ev:sup:2"] >= 0.5 and p["ev:sup:3"] < 0.5
    # each unrelated caption alone attacks
    for ev in unrelated:
        assert [s for s, _ in await _argue_why(claim, (ev,))] == [Stance.ATTACK]
    # two unrelated captions: one attack, by the closer of the two
    both = await _argue_why(claim, unrelated)
    closer = min(unrelated, key=lambda e: (p[e.id], e.id)).id
    assert both == [(Stance.ATTACK, closer)]
    # a caption that restates the claimed context: no caption attacks
    found = await _argue_why(claim, (*unrelated, restating))
    assert Stance.ATTACK not in [s for s, _ in found]
    assert all(ev == "ev:sup:3" for _, ev in found)
