"""How often the argument-to-argument relations (A-QBAF MV2026 §2.5) fire on a data set, and
what they change: every case is verified twice with the offline backend, with relations
(the default) and without (``relations.enabled = false``, every subclaim graph a star), and the
script prints the relations found by kind, the subclaim scores and bands that moved, and the
labels and accuracy of both passes.

Nothing is fitted here: the relations have no parameter tuned on any data set, so the numbers
are a description of the data set (in-sample only in the sense that it is a development set).

    python scripts/relations_effect.py ../shared/data/ookpik-dev/dev_data.json \
        --adapter cosmos --text-only
    python scripts/relations_effect.py examples/lyon-flood --adapter generic
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
from collections import Counter
from pathlib import Path

from rich.console import Console
from rich.table import Table

from semv.adapters import get_adapter
from semv.agents.offline import OfflineAgents
from semv.config import RelationsConfig, Settings
from semv.eval import evaluate
from semv.model import Escalated
from semv.store import Store

console = Console()


def run(path: Path, adapter: str, text_only: bool, limit: int | None) -> None:
    source = get_adapter(adapter)
    loaded = list(source.load(path, text_only=text_only, limit=limit))
    contract = source.contract
    passes = {
        "relations": Settings.shipped(),
        "star": Settings.shipped().model_copy(update={"relations": RelationsConfig(enabled=False)}),
    }
    labels: dict[str, dict[str, str | None]] = {}
    gold: dict[str, str | None] = {}
    scores: dict[str, dict[tuple[str, str], tuple[float, str]]] = {}
    kinds: Counter[str] = Counter()
    with tempfile.TemporaryDirectory() as tmp:
        for name, settings in passes.items():
            store = Store(Path(tmp) / name)
            outcomes = asyncio.run(
                evaluate(
                    loaded,
                    store=store,
                    settings=settings,
                    agents=OfflineAgents(settings),
                    contract=contract,
                    reports_dir=Path(tmp) / f"{name}-reports",
                )
            )
            labels[name] = {o.case_id: o.predicted for o in outcomes}
            scores[name] = {}
            for o in outcomes:
                gold[o.case_id] = o.gold
                if o.run_id is None:
                    continue
                for node in store.run_nodes(o.run_id):
                    if not node.key.startswith("escalate:"):
                        continue
                    final = Escalated.model_validate_json(store.get_blob(node.output_hash))
                    dim = node.key.removeprefix("escalate:")
                    decision = final.solved.decision
                    scores[name][(o.case_id, dim)] = (decision.score, decision.band.value)
                    if name == "relations":
                        kinds.update(r.kind.value for r in final.arguments.relations)
            store.close()
    moved = [k for k, v in scores["relations"].items() if scores["star"].get(k, v)[0] != v[0]]
    banded = [k for k in moved if scores["star"][k][1] != scores["relations"][k][1]]
    cases = {c for c, _ in moved}
    table = Table(title=f"relations on {path.name} ({len(loaded)} cases, offline backend)")
    table.add_column("figure")
    table.add_column("value", justify="right")
    for kind in ("cue-conflict", "metadata-contradiction", "corroboration"):
        table.add_row(f"relations: {kind}", str(kinds[kind]))
    table.add_row("cases with at least one relation", str(len(cases)))
    table.add_row("subclaim scores moved", str(len(moved)))
    table.add_row("subclaim bands changed", str(len(banded)))
    changed = [c for c in labels["star"] if labels["star"][c] != labels["relations"].get(c)]
    table.add_row("case labels changed", str(len(changed)))
    for name in passes:
        known = [c for c in labels[name] if gold.get(c) is not None]
        right = sum(labels[name][c] == gold[c] for c in known)
        value = f"{right}/{len(known)}" if known else "no gold"
        table.add_row(f"accuracy, {name}", value)
    console.print(table)
    for c in changed:
        console.print(f"{c}: {labels['star'][c]} → {labels['relations'][c]} (gold {gold.get(c)})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("path", type=Path)
    parser.add_argument("--adapter", default="generic")
    parser.add_argument("--text-only", action="store_true")
    parser.add_argument("--limit", type=int)
    args = parser.parse_args()
    run(args.path, args.adapter, args.text_only, args.limit)


if __name__ == "__main__":
    main()
