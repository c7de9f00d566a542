"""Cross-lingual ReMMD (ReMMD §3): a French or Vietnamese post's English bridge query
retrieves an English source from the local corpus (SQLite FTS5), the multilingual embedding
links it into the point's R_j, and the judge reads it; the rationale is in the post's
language."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from semv.agents.offline import OfflineAgents
from semv.config import Settings
from semv.model import Case, Context
from semv.pipeline import run_case
from semv.procedures.remmd._models import EvidenceBank, PointStates
from semv.retrieval import Document, LocalCorpus, open_retrieval
from semv.store import Store

SOURCE = Document(
    text="A fire destroyed a large warehouse in London on 12 March 2024, the London Fire "
    "Brigade said. Firefighters worked through the night to stop the blaze spreading.",
    url="https://news.example.org/2024/03/12/london-warehouse-fire",
    title="Warehouse destroyed by fire in London",
    publisher="Example News",
    published="2024-03-12",
    source_type="news",
)
DISTRACTORS = [
    Document(
        "Heavy rain flooded the quays of Lyon in June 2019.",
        url="https://news.example.org/lyon-2019",
        published="2019-06-02",
        source_type="news",
    ),
    Document(
        "Bitcoin fell sharply on Tuesday as traders sold.",
        url="https://markets.example.org/btc",
        published="2024-03-05",
        source_type="news",
    ),
]


@pytest.mark.parametrize(
    ("language", "post", "phrase", "original_finds_it"),
    [
        (
            "vi",
            "Ngày 12 tháng 3 năm 2024, một đám cháy đã thiêu rụi một nhà kho lớn ở Luân Đôn, "
            "theo cơ quan cứu hỏa.",
            "điểm trung tâm",
            None,
        ),
        (
            "fr",
            "Un incendie a détruit un grand entrepôt à Londres, selon les pompiers.",
            "points centraux",
            False,
        ),
    ],
)
def test_a_bridge_query_retrieves_an_english_source(
    data_dir: Path, language: str, post: str, phrase: str, original_finds_it: bool | None
) -> None:
    store = Store(data_dir)
    LocalCorpus(store.url).ingest([SOURCE, *DISTRACTORS])
    settings = Settings()
    retrieval = open_retrieval(settings, store_url=store.url, corpus=True)
    case = Case(id=f"fire-{language}", claim=post, context=Context(language=language))
    outcome = asyncio.run(
        run_case(
            case,
            store=store,
            settings=settings,
            agents=OfflineAgents(settings),
            contract="remmd",
            retrieval=retrieval,
            procedure="remmd",
        )
    )
    retrieval.close()
    bank = outcome.nodes["bank"].value
    assert isinstance(bank, EvidenceBank)
    record = next(r for r in bank.records if r.item.url == SOURCE.url)
    assert record.origin == "retrieval" and record.evidence_type == "news_snippet"
    bridge_calls = [c for c in bank.calls if c.bridge and record.evidence_id in c.hits]
    assert bridge_calls, [c.model_dump() for c in bank.calls]
    assert "London" in bridge_calls[0].query  # the English place name, not the exonym
    if original_finds_it is False:
        original = [c for c in bank.calls if not c.bridge]
        assert original and all(record.evidence_id not in c.hits for c in original)
    lead = bank.matches["a1"]
    assert record.evidence_id in {m.evidence_id for m in lead}
    assert next(m.score for m in lead if m.evidence_id == record.evidence_id) >= (
        settings.remmd.link_min_cosine
    )
    states = outcome.nodes["judge"].value
    assert isinstance(states, PointStates)
    first = next(f for f in states.findings if f.point == "a1")
    assert (first.status.value, first.evidence_id) == ("supported", record.evidence_id)
    result = outcome.result
    assert result.veracity == "True"
    assert result.rationale is not None and phrase in result.rationale
    assert any(e.url == SOURCE.url for e in result.evidence)


def test_a_vietnamese_date_before_a_comma_is_read_whole() -> None:
    # the shared finder reads the bare year of "... năm 2024," (a year may end a clause);
    # the Vietnamese reading of the same span is more precise and replaces it, so the day
    # and month are not left over as quantities ("12 tháng")
    from semv.procedures.remmd._text import quantities, sentence_dates

    text = "Ngày 12 tháng 3 năm 2024, một đám cháy đã xảy ra."
    dates = sentence_dates(text, "vi")
    assert [(d.year, d.month, d.day) for d in dates] == [(2024, 3, 12)]
    assert quantities(text, dates) == ()
    # a bare year elsewhere in the sentence is kept beside the full date
    both = sentence_dates("Năm 2024, ngày 12 tháng 3 năm 2023 có cháy.", "vi")
    assert [(d.year, d.month, d.day) for d in both] == [(2024, None, None), (2023, 3, 12)]
