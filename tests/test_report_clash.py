"""The clash judge's sentence names the side its win rate favours."""

from __future__ import annotations

import pytest

from semv.model import Qbaf
from semv.report import render_report
from tests.test_report import _context, _html_section, _md_section


@pytest.mark.parametrize(
    ("rate", "sentence"),
    [
        (0.321, "Clash judge: the attack wins (support win rate 0.321;"),
        (0.8, "Clash judge: the support wins (support win rate 0.800;"),
        (0.5, "Clash judge: neither side wins (support win rate 0.500;"),
    ],
)
def test_clash_sentence_names_the_winning_side(rate: float, sentence: str) -> None:
    ctx = _context()
    when = ctx.qbafs["when"]
    assert when.clash is not None
    clash = when.clash.model_copy(update={"judge_win_rate": rate, "judge_reason": "dated copy"})
    qbafs: dict[str, Qbaf] = {**ctx.qbafs, "when": when.model_copy(update={"clash": clash})}
    rendered = render_report(ctx.model_copy(update={"qbafs": qbafs}))
    md = _md_section(rendered.markdown, "## When")
    html = _html_section(rendered.html, "when")
    assert sentence in md
    assert sentence in html
    assert "wins with rate" not in md + html
