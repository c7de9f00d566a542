"""The response cache: model answers in the store, keyed by (model, prompt version, messages,
parameters).

It uses the store's own content-addressed tables: the answer is a blob (sha256 of its bytes)
and the request key maps to it in the fingerprint cache under the stage name ``llm:<role>``.
A failed request (server unreachable after retries) is remembered under a separate key: a
normal run ignores it and asks the server again; ``--replay`` reproduces the failure (and the
same offline fallback) instead of calling anyone.
"""

from __future__ import annotations

import json
from typing import Any

from semv.store import Store, canonical_json, sha256_text

__all__ = ["ResponseCache", "request_key"]


def request_key(*, model: str, prompt_version: str, messages: Any, params: Any) -> str:
    return sha256_text(
        canonical_json(
            {"model": model, "prompt": prompt_version, "messages": messages, "params": params}
        )
    )


class ResponseCache:
    def __init__(self, store: Store) -> None:
        self.store = store

    def get(self, key: str) -> str | None:
        digest = self.store.cached_output(key)
        if digest is None:
            return None
        payload = json.loads(self.store.get_blob(digest))
        return str(payload["content"])

    def put(self, key: str, role: str, content: str) -> None:
        text = canonical_json({"content": content})
        self.store.remember(key, f"llm:{role}", sha256_text(text), text.encode("utf-8"))

    def get_failure(self, key: str) -> str | None:
        digest = self.store.cached_output(sha256_text("failure:" + key))
        if digest is None:
            return None
        return str(json.loads(self.store.get_blob(digest))["failure"])

    def put_failure(self, key: str, role: str, problem: str) -> None:
        text = canonical_json({"failure": problem})
        self.store.remember(
            sha256_text("failure:" + key), f"llm:{role}", sha256_text(text), text.encode("utf-8")
        )

    def has(self, key: str) -> bool:
        """An answer or a recorded failure for ``key`` (what ``--replay`` can reproduce)."""
        return self.get(key) is not None or self.get_failure(key) is not None
