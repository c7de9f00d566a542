"""Hinted texts are parsed in one spaCy batch, with exactly the annotations of a parse alone."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from semv.nlp import parsing

TEXTS = [
    "Flooding in Lyon, France on 12 March 2024, said the mayor.",
    "Headache treatments in 1890s known as vibration therapy",
    "A man appears to be striking the container with a sledgehammer as two nurses look on.",
    "President Joe Biden speaks at the White House in Washington on Tuesday.",
    "Protesters gather outside the parliament in Kyiv, Ukraine.",
]


def _annotations(doc: Any) -> list[Any]:
    tokens = [
        (t.text, t.tag_, t.pos_, t.dep_, t.head.i, t.lemma_, t.ent_iob_, t.ent_type_) for t in doc
    ]
    return [tokens, [(e.start, e.end, e.label_) for e in doc.ents], doc.tensor.tolist()]


@pytest.fixture
def empty_cache() -> Iterator[None]:
    saved_docs, saved_hints = dict(parsing._DOCS), dict(parsing._HINTS)
    parsing._DOCS.clear()
    parsing._HINTS.clear()
    yield
    parsing._DOCS.clear()
    parsing._DOCS.update(saved_docs)
    parsing._HINTS.clear()
    parsing._HINTS.update(saved_hints)


@pytest.mark.usefixtures("empty_cache")
def test_hinted_texts_are_parsed_in_one_batch_with_the_same_annotations(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    nlp = parsing._nlp()
    alone = {text: _annotations(nlp(text)) for text in TEXTS}
    batches: list[int] = []
    real_pipe = nlp.pipe

    def counting_pipe(texts: list[str], **kwargs: Any) -> Any:
        batches.append(len(texts))
        return real_pipe(texts, **kwargs)

    monkeypatch.setattr(nlp, "pipe", counting_pipe)
    parsing.hint(TEXTS[1:])
    first = parsing.parse(TEXTS[0])
    assert batches == [len(TEXTS)]  # the miss took every hinted text with it
    assert not parsing._HINTS
    docs = [first] + [parsing.parse(text) for text in TEXTS[1:]]
    assert batches == [len(TEXTS)]  # the hinted texts came from the cache
    for text, doc in zip(TEXTS, docs, strict=True):
        assert doc.text == text
        assert _annotations(doc) == alone[text]


@pytest.mark.usefixtures("empty_cache")
def test_without_hints_a_text_is_parsed_alone_and_cached() -> None:
    doc = parsing.parse(TEXTS[0])
    assert parsing.parse(TEXTS[0]) is doc
    assert list(parsing._DOCS) == [TEXTS[0]]


def test_the_tokenizer_is_the_packages_own() -> None:
    """``EXCLUDE`` leaves the package's tokenizer out: the one the pipeline is created with
    must be byte for byte the package's (rules, special cases, patterns), and tokenize alike."""
    import spacy

    nlp = parsing._nlp()
    assert "tokenizer" in parsing.EXCLUDE
    packaged = spacy.load(parsing.SPACY_MODEL, exclude=["senter"])
    # the vocab (strings seen so far) is the pipeline's, not the tokenizer's
    assert nlp.tokenizer.to_bytes(exclude=["vocab"]) == packaged.tokenizer.to_bytes(
        exclude=["vocab"]
    )
    for text in TEXTS:
        assert _annotations(nlp(text)) == _annotations(packaged(text))
