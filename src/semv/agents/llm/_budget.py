"""The token budget of the LLM path: count a request's prompt tokens before it is
sent, know how many it may have, and shrink an evidence prompt in a declared order until it
fits (never cutting an item in the middle).

**Counting.** With the server's own tokenizer when it exposes one (``LlmClient.count_tokens``:
llama-cpp-python, llama.cpp, vLLM); otherwise the documented estimate
``ceil(UTF-8 bytes / llm.chars_per_token)``. Either way each message adds
``MESSAGE_OVERHEAD`` tokens for the chat template's role markers (ChatML: ``<|im_start|>role\\n``
… ``<|im_end|>\\n``) and the reply is primed with ``REPLY_OVERHEAD``; an attached image counts
``IMAGE_TOKENS`` (a vision encoder's typical patch count; the text tokenizer cannot see it).

**Limits.** A request's prompt may use at most the least of: ``llm.call_prompt_tokens``; the
model's context (from the server: llama.cpp ``/props``, vLLM ``/v1/models``; else
``llm.context_tokens``) minus the completion's ``max_tokens`` and ``MARGIN``; and what is left
of the case's ``llm.case_prompt_tokens``.

**Shrinking** (``EvidencePrompt.variants``), in this declared order, first fit wins:

1. every item as built (texts as excerpts of ``llm.evidence_chars``);
2. every long text as an excerpt of ``llm.excerpt_min_chars`` (whole sentences);
3. the lowest-ranked item left out, then the next, ... (``pinned`` items, e.g. the evidence
   an argument under verification cites, are never left out);
4. nothing fits: the request is not sent and the role falls back (its problem says why).

What a sent prompt left out is recorded as a ``PromptTrim`` in the run's ledger, and the report
lists it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from semv.agents.llm._client import LlmClient
from semv.agents.llm._evidence import PromptItem, prompt_item
from semv.config import LlmConfig
from semv.model import Evidence, PromptTrim

__all__ = [
    "IMAGE_TOKENS",
    "MARGIN",
    "MESSAGE_OVERHEAD",
    "REPLY_OVERHEAD",
    "EvidencePrompt",
    "TokenBudget",
    "Variant",
    "estimate_tokens",
]

MESSAGE_OVERHEAD = 5
REPLY_OVERHEAD = 3
IMAGE_TOKENS = 1024
MARGIN = 16
"""Tokens kept free between prompt + completion and the context's end (template drift)."""


def estimate_tokens(text: str, chars_per_token: float) -> int:
    """The documented estimate: UTF-8 bytes / ``chars_per_token``, rounded up."""
    return math.ceil(len(text.encode("utf-8")) / chars_per_token)


def _texts(messages: Sequence[dict[str, Any]]) -> tuple[list[str], int]:
    """The text parts of the messages and the number of images among them."""
    texts: list[str] = []
    images = 0
    for message in messages:
        content = message.get("content")
        if isinstance(content, str):
            texts.append(content)
        elif isinstance(content, list):
            for part in content:
                if isinstance(part, dict) and part.get("type") == "image_url":
                    images += 1
                elif isinstance(part, dict):
                    texts.append(str(part.get("text", "")))
    return texts, images


class TokenBudget:
    """Counts prompts and gives each request its limit (see the module docstring)."""

    def __init__(self, config: LlmConfig, client: LlmClient) -> None:
        self.config = config
        self.client = client

    async def count(self, url: str, model: str, messages: Sequence[dict[str, Any]]) -> int:
        texts, images = _texts(messages)
        total = len(messages) * MESSAGE_OVERHEAD + REPLY_OVERHEAD + images * IMAGE_TOKENS
        for text in texts:
            counted = await self.client.count_tokens(url, model, text)
            total += (
                counted
                if counted is not None
                else estimate_tokens(text, self.config.chars_per_token)
            )
        return total

    async def context(self, url: str, model: str) -> int | None:
        said = await self.client.context_window(url, model)
        return said if said is not None else self.config.context_tokens

    async def call_limit(self, url: str, model: str, max_tokens: int) -> tuple[int | None, str]:
        """The most prompt tokens one request may have, and where the limit comes from."""
        limits: list[tuple[int, str]] = []
        if self.config.call_prompt_tokens is not None:
            limits.append((self.config.call_prompt_tokens, "llm.call_prompt_tokens"))
        context = await self.context(url, model)
        if context is not None:
            room = context - max_tokens - MARGIN
            limits.append((room, f"context {context} - completion {max_tokens} - margin"))
        if not limits:
            return None, "no limit"
        return min(limits)


@dataclass(frozen=True)
class Variant:
    """One rendering of an evidence prompt and what it leaves out."""

    user: str
    shown: tuple[PromptItem, ...]
    dropped: tuple[str, ...]
    step: str

    def trim(self, role: str, subject: str, beyond_k: Sequence[str]) -> PromptTrim | None:
        excerpts = tuple(o for i in self.shown if (o := i.offsets) is not None)
        dropped = (*beyond_k, *self.dropped)
        if not dropped and not excerpts:
            return None
        reasons = []
        if beyond_k:
            reasons.append("beyond llm.evidence_per_role")
        if self.dropped or self.step != "as built":
            reasons.append(f"token budget ({self.step})")
        if excerpts and not reasons:
            reasons.append("long texts shown as excerpts")
        return PromptTrim(
            role=role,
            subject=subject,
            reason="; ".join(reasons),
            dropped=tuple(dict.fromkeys(dropped)),
            excerpts=excerpts,
        )


@dataclass(frozen=True)
class EvidencePrompt:
    """A user prompt rendered from ranked evidence (``render`` takes the ``{"id", "text"}``
    items), shrinkable in the declared order. ``pinned``: ids never left out. ``beyond_k``:
    fitting items the selection already left out (recorded with the trim)."""

    render: Callable[[list[dict[str, str]]], str]
    evidence: tuple[Evidence, ...]
    chars: int
    min_chars: int
    query: str
    subject: str
    pinned: frozenset[str] = frozenset()
    beyond_k: tuple[str, ...] = ()

    def variants(self) -> Iterator[Variant]:
        full = tuple(prompt_item(e, self.chars, self.query) for e in self.evidence)
        yield Variant(self.render([i.as_dict() for i in full]), full, (), "as built")
        short = tuple(prompt_item(e, self.min_chars, self.query) for e in self.evidence)
        if short != full:
            yield Variant(self.render([i.as_dict() for i in short]), short, (), "shorter excerpts")
        kept = list(short)
        dropped: list[str] = []
        for item in reversed(short):
            if item.id in self.pinned:
                continue
            kept.remove(item)
            dropped.append(item.id)
            yield Variant(
                self.render([i.as_dict() for i in kept]),
                tuple(kept),
                tuple(dropped),
                f"{len(dropped)} lowest-ranked left out",
            )
