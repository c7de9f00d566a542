"""T²-Agent's tools and scorers, offline: every action reads real signals of the post.

Tool subset selection (``select_tools``): the base tools (``wikipedia``,
``image_understanding``) plus each candidate tool whose input the post provides:
``web_search`` when the run's retrieval asked a web source, ``entity`` when some asset has
context to identify (EXIF time or GPS, a reverse-search match, a caption of the same media),
``counterfactual`` when some asset has integrity observations (EXIF, JPEG, forensic maps,
C2PA). The actions each subtask may take (the released code's action menu):

- ``text``: ``Wikipedia[<evidence id>]`` reads a supplied or local-corpus text,
  ``Google[<evidence id>]`` a web-retrieved one, with the what / when / where / who rules;
- ``image``: ``Detect[<asset>]`` reads the asset's integrity observations with the
  authenticity rule (needs ``counterfactual`` or ``image_understanding``);
- ``match``: ``VQA[<asset>]`` compares the text read in or described from the asset with the
  claim (what / who rules; needs ``image_understanding``), ``Entity[<asset>]`` the asset's
  time, place and earlier contexts (when / where / who / why rules; needs ``entity``);
- every subtask: ``Finish[<answer>]``, offered once something was observed, for the answer
  the observations lean to (both when they are even).

Scores (ours; the released code asks the model for 1-10): with S and A the support and attack
mass observed along the trajectory and p = ``t2_prior_mass``, ST = (max(S, A) + p/2) /
(S + A + p) — how decisively the observations point one way — and SC(answer) =
(m + p/2) / (S + A + p) with m the mass on the answer's side: a symmetric-prior posterior
mean, 0.5 with nothing observed. Initial subtask weights are uniform over the applicable
subtasks (the released code's fallback prior; ``image`` and ``match`` need a loaded image).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from semv.config import BaselinesConfig, OfflineAgentConfig
from semv.dimensions import ClaimView, is_media_text
from semv.model import Dimension, Evidence, EvidenceKind, Modality
from semv.procedures._cues import (
    Cue,
    asset_of,
    cues,
    is_integrity,
    is_media_context,
    is_world_text,
    mass,
)
from semv.procedures.t2_agent._mcts import FINISH, Candidate, Observation, Step

__all__ = ["ANSWERS", "OfflineToolbox", "select_tools"]

ANSWERS: Mapping[str, tuple[str, str]] = {
    "text": ("TEXT_SUPPORT", "TEXT_REFUTE"),
    "image": ("IMAGE_SUPPORT", "IMAGE_REFUTE"),
    "match": ("MATCH", "MISMATCH"),
}
_TEXT_DIMS = (Dimension.WHAT, Dimension.WHEN, Dimension.WHERE, Dimension.WHO)
_VQA_DIMS = (Dimension.WHAT, Dimension.WHO)
_ENTITY_DIMS = (Dimension.WHEN, Dimension.WHERE, Dimension.WHO, Dimension.WHY)
_REQUIRES: Mapping[str, frozenset[str]] = {
    "Wikipedia": frozenset({"wikipedia"}),
    "Google": frozenset({"web_search"}),
    "Detect": frozenset({"counterfactual", "image_understanding"}),
    "VQA": frozenset({"image_understanding"}),
    "Entity": frozenset({"entity"}),
}


def _is_description(ev: Evidence) -> bool:
    return ev.kind is EvidenceKind.DESCRIPTION


def select_tools(
    cfg: BaselinesConfig, *, web: bool, context: bool, integrity: bool
) -> tuple[str, ...]:
    """The base tools plus the candidate tools the post gives something to work on."""
    usable = {"web_search": web, "entity": context, "counterfactual": integrity}
    chosen = list(cfg.t2_base_tools)
    chosen += [t for t in cfg.t2_candidate_tools if usable.get(t, True) and t not in chosen]
    return tuple(chosen)


class OfflineToolbox:
    """The ``Environment`` of the search over one post's evidence (module doc)."""

    def __init__(
        self,
        views: Mapping[Dimension, ClaimView],
        evidence: Iterable[Evidence],
        *,
        web_ids: Iterable[str],
        images: Sequence[str],
        cfg: BaselinesConfig,
        offline: OfflineAgentConfig,
    ) -> None:
        self.views = views
        self.cfg = cfg
        self.offline = offline
        items = list({e.id: e for e in evidence}.values())
        self.by_id = {e.id: e for e in items}
        web = set(web_ids)
        self.images = tuple(images)
        world = [e for e in items if is_world_text(e)]
        self.text_tools = [
            Candidate("Google" if e.id in web else "Wikipedia", e.id, f"read {e.source}")
            for e in world
        ]
        first = self.images[0] if self.images else None
        self.integrity = {
            a: [e for e in items if is_integrity(e) and asset_of(e) == a] for a in self.images
        }
        self.seen_text = {
            a: [
                e
                for e in items
                if asset_of(e) == a
                and (is_media_text(e) or _is_description(e))
                and e.modality is not Modality.METADATA
            ]
            for a in self.images
        }
        self.context = {
            a: [
                e
                for e in items
                if is_media_context(e) and not is_media_text(e) and (asset_of(e) or first) == a
            ]
            for a in self.images
        }
        self.tools = select_tools(
            cfg,
            web=bool(web),
            context=any(self.context.values()),
            integrity=any(self.integrity.values()),
        )
        self._cache: dict[tuple[str, str], Observation] = {}

    # ---- the Environment protocol ------------------------------------------------------------

    def subtasks(self) -> Mapping[str, float]:
        names = ("text", "image", "match") if self.images else ("text",)
        return {n: 1.0 / len(names) for n in names}

    def _allowed(self, tool: str) -> bool:
        return bool(_REQUIRES[tool] & set(self.tools))

    def _tool_menu(self, subtask: str) -> list[Candidate]:
        if subtask == "text":
            return [c for c in self.text_tools if self._allowed(c.tool)]
        if subtask == "image":
            return [
                Candidate("Detect", a, "inspect the file's integrity")
                for a in self.images
                if self.integrity[a] and self._allowed("Detect")
            ]
        menu = [
            Candidate("VQA", a, "compare what the image shows and reads with the text")
            for a in self.images
            if self.seen_text[a] and self._allowed("VQA")
        ]
        menu += [
            Candidate("Entity", a, "identify the image's time, place and earlier contexts")
            for a in self.images
            if self.context[a] and self._allowed("Entity")
        ]
        return menu

    def candidates(self, subtask: str, trajectory: Sequence[Step]) -> list[Candidate]:
        done = {s.action for s in trajectory}
        tools = [c for c in self._tool_menu(subtask) if c.action not in done]
        positive, negative = ANSWERS[subtask]
        support, attack = self.trajectory_mass(trajectory)
        finishes = []
        if support >= attack:
            finishes.append(Candidate(FINISH, positive, "the observations support it"))
        if attack >= support:
            finishes.append(Candidate(FINISH, negative, "the observations contradict it"))
        return tools + finishes

    def observe(self, subtask: str, candidate: Candidate) -> Observation:
        key = (subtask, candidate.action)
        if key not in self._cache:
            self._cache[key] = self._observe(candidate)
        return self._cache[key]

    async def execute(self, subtask: str, candidate: Candidate) -> Observation:
        return self.observe(subtask, candidate)

    async def score_trajectory(self, subtask: str, trajectory: Sequence[Step]) -> float:
        return self.st(trajectory)

    async def score_confidence(
        self, subtask: str, trajectory: Sequence[Step], answer: str
    ) -> float:
        return self.sc(subtask, trajectory, answer)

    # ---- scores ------------------------------------------------------------------------------

    @staticmethod
    def trajectory_mass(trajectory: Sequence[Step]) -> tuple[float, float]:
        return (
            sum(s.observation.support for s in trajectory),
            sum(s.observation.attack for s in trajectory),
        )

    def st(self, trajectory: Sequence[Step]) -> float:
        s, a = self.trajectory_mass(trajectory)
        p = self.cfg.t2_prior_mass
        return (max(s, a) + p / 2) / (s + a + p)

    def sc(self, subtask: str, trajectory: Sequence[Step], answer: str) -> float:
        s, a = self.trajectory_mass(trajectory)
        p = self.cfg.t2_prior_mass
        mine = s if answer == ANSWERS[subtask][0] else a
        return (mine + p / 2) / (s + a + p)

    # ---- tools -------------------------------------------------------------------------------

    def _observe(self, candidate: Candidate) -> Observation:
        tool, target = candidate.tool, candidate.argument
        found: tuple[Cue, ...]
        if tool in ("Wikipedia", "Google"):
            ev = self.by_id[target]
            found = cues(self.views, [ev], _TEXT_DIMS, self.offline)
            examined: list[Evidence] = [ev]
        elif tool == "Detect":
            examined = self.integrity[target]
            found = cues(self.views, examined, (Dimension.AUTHENTICITY,), self.offline)
        elif tool == "VQA":
            examined = self.seen_text[target]
            found = cues(self.views, examined, _VQA_DIMS, self.offline)
        elif tool == "Entity":
            examined = self.context[target]
            found = cues(self.views, examined, _ENTITY_DIMS, self.offline)
        else:
            return Observation(f"Tool {tool!r} is not available.")
        support, attack = mass(found)
        if not found:
            text = f"{len(examined)} items read; nothing bears on the post's claims."
        else:
            text = " ".join(f"[{c.stance.value}] {c.text}" for c in found)
        cited = tuple(dict.fromkeys(i for c in found for i in c.evidence))
        return Observation(text, support=support, attack=attack, evidence=cited)
