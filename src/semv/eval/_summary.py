"""Markdown summaries in the layout of each dataset's paper table."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

__all__ = ["summary_markdown"]


def _pct(value: Any, digits: int = 2) -> str:
    return "–" if value is None else f"{100 * float(value):.{digits}f}"


def _num(value: Any, digits: int = 3) -> str:
    return "–" if value is None else f"{float(value):.{digits}f}"


def _p(value: Any) -> str:
    return "–" if value is None else f"{float(value):.3f}"


def _footer(m: Mapping[str, Any]) -> list[str]:
    lines = ["", f"Cases: {m.get('cases', m.get('n', 0))}, scored {m.get('n', 0)}"]
    if m.get("failed"):
        lines[-1] += f", failed {m['failed']}"
    if m.get("unlabelled"):
        lines[-1] += f", without gold {m['unlabelled']}"
    if m.get("skipped"):
        reasons = ", ".join(f"{k}: {v}" for k, v in m["skipped"].items())
        lines[-1] += f", skipped ({reasons})"
    lines[-1] += "."
    return lines


def _binary(m: Mapping[str, Any], method: str) -> list[str]:
    lo, hi = m["accuracy_ci95"]
    base = m.get("baseline") or {}
    out = [
        "| Method | Acc.↑ | Prec.↑ | Rec.↑ | F1↑ | ECE↓ | Brier↓ | 95% CI | p |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    if base:
        out.append(
            f"| {base['name']} (reported) | {_pct(base['accuracy'])} | – | – | – | – | – | – | – |"
        )
    out.append(
        f"| {method} | {_pct(m['accuracy'])} | {_pct(m['precision'])} | {_pct(m['recall'])} | "
        f"{_pct(m['f1'])} | {_num(m['ece'])} | {_num(m['brier'])} | "
        f"[{100 * lo:.1f}, {100 * hi:.1f}] | {_p(base.get('p_value'))} |"
    )
    c = m["confusion"]
    out += [
        "",
        f"Positive class: {m.get('positive', 'OOC')}. Confusion: TP {c['tp']}, FP {c['fp']}, "
        f"TN {c['tn']}, FN {c['fn']}. Balanced accuracy {_pct(m['balanced_accuracy'])}, "
        f"AUROC {_num(m.get('auroc'))}."
        + (
            f" p: unpaired two-proportion z-test against the reported baseline (n = {base['n']})."
            if base
            else ""
        ),
    ]
    if m.get("ece_calibrated") is not None:
        out += [
            "",
            f"Calibrated p(OOC) (logistic calibration fitted on its declared training split, "
            f"beside Eq. 20): ECE {_num(m['ece_calibrated'])} (Eq. 20: {_num(m['ece'])}), "
            f"Brier {_num(m['brier_calibrated'])} (Eq. 20: {_num(m['brier'])}).",
        ]
    return out


def _cosmos(m: Mapping[str, Any], method: str) -> list[str]:
    return ["## COSMOS (SEMV Table 4 layout)", "", *_binary(m, method)]


def _verite(m: Mapping[str, Any], method: str) -> list[str]:
    out = ["## VERITE", "", *_binary(m, method), ""]
    out += [
        "| Pair | Accuracy |",
        "|---|---|",
        f"| true vs. miscaptioned | {_pct(m.get('accuracy_true_vs_miscaptioned'))} |",
        f"| true vs. out-of-context | {_pct(m.get('accuracy_true_vs_out-of-context'))} |",
    ]
    return out


def _remmd(m: Mapping[str, Any], method: str) -> list[str]:
    l1, l2 = m["level1"], m["level2"]
    out = [
        "## ReMMDBench (ReMMD Table 4 layout)",
        "",
        "| Method | L1 Acc.↑ | L1 P↑ | L1 R↑ | L1 F1↑ | L2 P↑ | L2 R↑ | L2 F1↑ | Hamming↓ | "
        "Exact match↑ |",
        "|---|---|---|---|---|---|---|---|---|---|",
        f"| {method} | {_pct(l1['accuracy'])} | {_pct(l1['macro_precision'])} | "
        f"{_pct(l1['macro_recall'])} | {_pct(l1['macro_f1'])} | {_pct(l2['macro_precision'])} | "
        f"{_pct(l2['macro_recall'])} | {_pct(l2['macro_f1'])} | {_pct(l2['hamming_loss'])} | "
        f"{_pct(l2['subset_accuracy'])} |",
        "",
        "```",
        "=== LEVEL-1 (5-way single-label) ===",
        f"  Accuracy           : {_pct(l1['accuracy']):>6}%",
    ]
    for kind in ("macro", "micro", "weighted"):
        out.append(
            f"  {kind.capitalize():<8} P/R/F1    : {_pct(l1[kind + '_precision']):>6}% / "
            f"{_pct(l1[kind + '_recall']):>6}% / {_pct(l1[kind + '_f1']):>6}%"
        )
    out.append("  Per-class:")
    for label, s in l1["per_class"].items():
        out.append(
            f"    {label:<14} P={_pct(s['precision']):>6}  R={_pct(s['recall']):>6}  "
            f"F1={_pct(s['f1']):>6}  n={s['support']}"
        )
    out += ["", "=== LEVEL-2 (multi-label 8-way) ==="]
    for kind in ("macro", "micro", "weighted", "samples"):
        out.append(
            f"  {kind.capitalize():<8} P/R/F1    : {_pct(l2[kind + '_precision']):>6}% / "
            f"{_pct(l2[kind + '_recall']):>6}% / {_pct(l2[kind + '_f1']):>6}%"
        )
    out += [
        f"  Hamming Loss       : {_pct(l2['hamming_loss']):>6}%",
        f"  Subset Accuracy    : {_pct(l2['subset_accuracy']):>6}% (exact-match across all 8 "
        "labels)",
        "  Per-class:",
    ]
    for label, s in l2["per_class"].items():
        out.append(
            f"    {label:<33} P={_pct(s['precision']):>6}  R={_pct(s['recall']):>6}  "
            f"F1={_pct(s['f1']):>6}  n={s['support']} (pred+={s['pred_positives']}, "
            f"TP={s['true_positives']} FP={s['false_positives']} FN={s['false_negatives']})"
        )
    out.append("```")
    if m.get("abstained"):
        out += ["", f"Abstentions (no L1 label, scored as errors): {m['abstained']}."]
    return out


def _mmfakebench(m: Mapping[str, Any], method: str) -> list[str]:
    four = m["four_class"]
    return [
        "## MMFakeBench",
        "",
        "| Method | Binary Acc.↑ | Binary P↑ | Binary R↑ | Binary F1↑ | 4-class Acc.↑ | "
        "4-class macro F1↑ |",
        "|---|---|---|---|---|---|---|",
        f"| {method} | {_pct(m['accuracy'])} | {_pct(m['precision'])} | {_pct(m['recall'])} | "
        f"{_pct(m['f1'])} | {_pct(four['accuracy'])} | {_pct(four['macro_f1'])} |",
        "",
        f"Fake is the positive class; AUROC {_num(m.get('auroc'))}, ECE {_num(m['ece'])}; "
        f"abstentions {m.get('abstained', 0)}.",
    ]


def _mv2026(m: Mapping[str, Any], method: str) -> list[str]:
    n = m["n"]
    wall = m.get("median_seconds")
    return [
        "## MV2026 held-out cases (SEMV Table 6 layout)",
        "",
        "| SEMV | Acc.↑ | Abst.↓ | URL F1↑ | Temp.↑ | Conf.↓ | Cov.↑ | Wall↓ | Tok.↓ | Calls↓ |",
        "|---|---|---|---|---|---|---|---|---|---|",
        f"| {method} | {m['correct']}/{n} | {m['abstained']}/{n} | {m['url_f1']:.1f} | "
        f"{m['recovered']}/{n} | {m['confused']}/{n} | {m['coverage']:.1f} | "
        f"{'–' if wall is None else f'{wall / 60:.1f}'} | – | – |",
        "",
        f"Acc. {m['accuracy']:.1f}%, Abst. {m['abstention']:.1f}% (Eq. 33); URL F1 (Eq. 34); "
        f"Temp. {m['temporal']:.1f}%, Conf. {m['time_confusion']:.1f}% (Eq. 35); Cov. over the "
        "14 required fields (Eq. 36); Wall = median minutes per case. The offline backend makes "
        "no LLM calls, so tokens and calls are not applicable.",
    ]


def _generic(m: Mapping[str, Any], method: str) -> list[str]:
    return [
        "## Internal labels",
        "",
        "| Method | Acc.↑ | Abst.↓ | Macro F1↑ | ECE↓ |",
        "|---|---|---|---|---|",
        f"| {method} | {_pct(m['accuracy'])} | {_pct(m['abstention'])} | "
        f"{_pct(m.get('macro_f1'))} | {_num(m['ece'])} |",
        "",
        "Abstentions count as errors (Eq. 33); macro F1 over the labels that occur in the gold "
        "or the predictions.",
    ]


_RENDER: Final[dict[str, Callable[[Mapping[str, Any], str], list[str]]]] = {
    "cosmos": _cosmos,
    "verite": _verite,
    "5pils-ooc": _cosmos,
    "remmd": _remmd,
    "mmfakebench": _mmfakebench,
    "mv2026": _mv2026,
    "generic": _generic,
}


def summary_markdown(task: str, metrics: Mapping[str, Any], *, method: str = "semv") -> str:
    """The summary of ``metrics`` for ``task`` as Markdown (ends with a newline)."""
    lines = _RENDER[task](metrics, method)
    return "\n".join([*lines, *_footer(metrics), ""])
