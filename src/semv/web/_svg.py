"""Draw one subclaim's argument graph Q_k (Eq. 15) as inline SVG, server-side.

The claim node sits on top with its base score β_k, its propagated score ψ_k (Eq. 17) and its
band (Eq. 18); each argument is a box below it (supports left, attacks right) showing w_a
(Eq. 14) and, when clash resolution changed it, the weight τ the QBAF used; an edge's width
follows that weight. Arguments outside the QBAF (inadmissible, weight 0) are drawn dashed
without an edge. The argument-to-argument relations (A-QBAF MV2026 §2.5: cue conflict,
metadata contradiction, corroboration) are arcs below the boxes, arrowed at the argument they
act on (at both ends when mutual) and labelled with the relation id; a box whose strength they
changed shows its final strength σ. Every text is escaped: argument texts come from evidence and
may hold markup.
"""

from __future__ import annotations

from markupsafe import Markup, escape

from semv.web._views import ArgNode, ArgumentGraph, RelationEdge

__all__ = ["graph_svg"]

_BOX_W = 132
_BOX_H = 58
_GAP = 14
_CLAIM_W = 250
_CLAIM_H = 62
_TOP = 8
_ROW = 150
_COLORS = {"sup": "#1b7f3b", "att": "#b3261e", "mix": "#7a5c00", "neu": "#5f6368"}
_ARC_ROW = 30
"""Vertical room per relation arc below the argument row."""


def _fmt(x: float) -> str:
    return f"{x:.2f}"


def _arg_box(a: ArgNode, x: float, y: float) -> str:
    color = _COLORS.get(a.stance, "#5f6368")
    dashed = ' stroke-dasharray="5 4"' if a.weight is None else ""
    label = a.id.split(":", 2)[-1]
    weight = (
        "not in QBAF"
        if a.weight is None
        else (f"τ={_fmt(a.weight)}" if abs(a.weight - a.strength) > 1e-9 else "")
    )
    flags = "".join(
        f
        for f, on in (
            (" ✓accepted", a.accepted),
            (" unverified", not a.verified),
            (" human", a.origin.startswith("human")),
        )
        if on
    )
    if a.weight is not None and a.final is not None and abs(a.final - a.weight) > 1e-9:
        flags = f" σ={_fmt(a.final)}{flags}"  # its strength after the relations
    return (
        f'<g class="arg arg-{escape(a.stance)}" data-arg="{escape(a.id)}">'
        f"<title>{escape(a.id)}: {escape(a.text)}</title>"
        f'<rect x="{x:.1f}" y="{y:.1f}" width="{_BOX_W}" height="{_BOX_H}" rx="6" '
        f'fill="#fff" stroke="{color}" stroke-width="2"{dashed}/>'
        f'<text x="{x + 8:.1f}" y="{y + 17:.1f}" font-weight="bold" fill="{color}">'
        f"{escape(label)}</text>"
        f'<text x="{x + 8:.1f}" y="{y + 33:.1f}">w={_fmt(a.strength)} {escape(weight)}</text>'
        f'<text x="{x + 8:.1f}" y="{y + 49:.1f}" class="flags">{escape(flags.strip())}</text>'
        "</g>"
    )


def _markers() -> str:
    return (
        "<defs>"
        + "".join(
            f'<marker id="rel-{k}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
            f'markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" '
            f'fill="{c}"/></marker>'
            for k, c in _COLORS.items()
            if k in ("sup", "att")
        )
        + "</defs>"
    )


def _relation_arc(r: RelationEdge, x1: float, x2: float, y: float, depth: float) -> str:
    color = _COLORS.get(r.stance, "#5f6368")
    ends = f'marker-end="url(#rel-{escape(r.stance)})"'
    if r.mutual:
        ends += f' marker-start="url(#rel-{escape(r.stance)})"'
    mx = (x1 + x2) / 2
    dash = ' stroke-dasharray="6 3"' if r.stance == "att" else ""
    return (
        f'<g class="relation relation-{escape(r.kind)}" data-relation="{escape(r.id)}">'
        f"<title>{escape(r.id)} ({escape(r.kind)}): {escape(r.src)} "
        f"{'supports' if r.stance == 'sup' else 'attacks'} {escape(r.dst)}"
        f"{' and back' if r.mutual else ''}: {escape(r.fact)}</title>"
        f'<path d="M{x1:.1f},{y:.1f} Q{mx:.1f},{y + 2 * depth:.1f} {x2:.1f},{y:.1f}" '
        f'fill="none" stroke="{color}" stroke-width="2"{dash} {ends}/>'
        f'<text x="{mx:.1f}" y="{y + depth + 14:.1f}" fill="{color}" text-anchor="middle" '
        f'class="relation-label">{escape(r.id.split(":", 2)[-1])}</text></g>'
    )


def graph_svg(g: ArgumentGraph) -> Markup:
    """The SVG element for ``g`` (safe to embed: every text is escaped)."""
    args = sorted(g.arguments, key=lambda a: {"sup": 0, "mix": 1, "neu": 2}.get(a.stance, 3))
    n = max(1, len(args))
    width = max(_CLAIM_W + 2 * _GAP, n * (_BOX_W + _GAP) + _GAP)
    height = _TOP + _ROW + _BOX_H + 12 + _ARC_ROW * len(g.relations)
    cx = width / 2
    claim_x = cx - _CLAIM_W / 2
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="qbaf" role="img" '
        f'viewBox="0 0 {width:.0f} {height:.0f}" width="{width:.0f}" height="{height:.0f}" '
        f'aria-label="argument graph of {escape(g.subclaim)}" font-size="12" '
        f'font-family="sans-serif">'
    ]
    if g.relations:
        parts.append(_markers())
    arg_y = _TOP + _ROW
    for i, a in enumerate(args):
        x = _GAP + i * (_BOX_W + _GAP)
        if a.weight is None:
            continue
        color = _COLORS.get(a.stance, "#5f6368")
        x1, y1 = x + _BOX_W / 2, arg_y
        x2, y2 = cx, _TOP + _CLAIM_H
        stroke = 1.0 + 5.0 * a.weight
        mx, my = (x1 + x2) / 2, (y1 + y2) / 2
        sign = "+" if a.stance == "sup" else ("−" if a.stance == "att" else "")
        parts.append(
            f'<g class="edge edge-{escape(a.stance)}">'
            f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" '
            f'stroke="{color}" stroke-width="{stroke:.2f}" stroke-opacity="0.75"/>'
            f'<text x="{mx:.1f}" y="{my:.1f}" fill="{color}" text-anchor="middle" '
            f'class="edge-label">{sign}{_fmt(a.weight)}</text></g>'
        )
    parts.append(
        f'<g class="claim band-{escape(g.band)}"><title>{escape(g.statement)}</title>'
        f'<rect x="{claim_x:.1f}" y="{_TOP}" width="{_CLAIM_W}" height="{_CLAIM_H}" rx="8" '
        f'fill="#eef3fb" stroke="#1a4d8f" stroke-width="2"/>'
        f'<text x="{cx:.1f}" y="{_TOP + 18}" text-anchor="middle" font-weight="bold">'
        f"{escape(g.subclaim)}</text>"
        f'<text x="{cx:.1f}" y="{_TOP + 35}" text-anchor="middle">β={_fmt(g.base)} → '
        f"ψ={_fmt(g.score)}</text>"
        f'<text x="{cx:.1f}" y="{_TOP + 52}" text-anchor="middle" class="band">'
        f"{escape(g.band)} (S={_fmt(g.support_total)}, A={_fmt(g.attack_total)})</text></g>"
    )
    for i, a in enumerate(args):
        parts.append(_arg_box(a, _GAP + i * (_BOX_W + _GAP), arg_y))
    centre = {a.id: _GAP + i * (_BOX_W + _GAP) + _BOX_W / 2 for i, a in enumerate(args)}
    for n, r in enumerate(g.relations):
        if r.src in centre and r.dst in centre:
            depth = _ARC_ROW * (n + 1) / 2 + 6
            parts.append(_relation_arc(r, centre[r.src], centre[r.dst], arg_y + _BOX_H, depth))
    if not g.arguments:
        parts.append(
            f'<text x="{cx:.1f}" y="{arg_y + 20}" text-anchor="middle">no arguments</text>'
        )
    parts.append("</svg>")
    return Markup("".join(parts))
