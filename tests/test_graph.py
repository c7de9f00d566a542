"""Stage graph: validation, fingerprints, reuse, early cut-off, rejected invariant violations."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from pydantic import BaseModel

from semv.config import Settings
from semv.errors import InvariantViolation
from semv.graph import Executor, Input, NodeSpec, StageContext, StageDef, validate_graph
from semv.model import (
    Evidence,
    MediaEvidence,
    Modality,
    ProducerKind,
    Provenance,
    SourceType,
    TraceKind,
)
from semv.store import Store
from tests.scripted_agents import ScriptedAgents


class Num(BaseModel):
    value: int


class Pair(BaseModel):
    left: Num
    right: Num


CALLS: list[str] = []


async def make_pair(ctx: StageContext, *, seed: Num) -> Pair:
    CALLS.append(ctx.node)
    two = seed.value % 100
    return Pair(left=Num(value=two // 10), right=Num(value=two % 10))


async def double(ctx: StageContext, *, x: Num) -> Num:
    CALLS.append(ctx.node)
    return Num(value=2 * x.value)


async def total(ctx: StageContext, *, parts: list[Num]) -> Num:
    CALLS.append(ctx.node)
    return Num(value=sum(p.value for p in parts))


PAIR = StageDef("pair", "1", make_pair, Pair)
DOUBLE = StageDef("double", "1", double, Num)
TOTAL = StageDef("total", "1", total, Num)


def graph() -> list[NodeSpec]:
    return [
        NodeSpec("pair", PAIR, (Input("seed", "seed"),)),
        NodeSpec("double:left", DOUBLE, (Input("x", "pair", ("left",)),)),
        NodeSpec("double:right", DOUBLE, (Input("x", "pair", ("right",)),)),
        NodeSpec("total", TOTAL, (Input("parts", ("double:left", "double:right")),)),
    ]


def run(store: Store, seed: int, settings: Settings | None = None) -> dict[str, bool]:
    run_id = store.create_run(case_id="t", adapter="test", settings_hash="s", agents="a")
    ex = Executor(store, settings or Settings(), ScriptedAgents(), run_id=run_id)
    nodes = asyncio.run(ex.run(graph(), {"seed": Num(value=seed)}))
    assert isinstance(nodes["total"].value, Num)
    two = seed % 100
    assert nodes["total"].value.value == 2 * (two // 10 + two % 10)
    return {k: n.reused for k, n in nodes.items()}


def test_identical_second_run_executes_zero_stages(data_dir: Path) -> None:
    store = Store(data_dir)
    CALLS.clear()
    first = run(store, 34)
    assert not any(first.values()) and len(CALLS) == 4
    CALLS.clear()
    second = run(store, 34)
    assert all(second.values()) and CALLS == []


def test_a_rerun_reads_its_cached_outputs_in_one_query(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = Store(data_dir)
    run(store, 34)
    lookups: list[str] = []
    single = store.cached_blob
    monkeypatch.setattr(store, "cached_blob", lambda fp: lookups.append(fp) or single(fp))
    assert all(run(store, 34).values())
    assert lookups == []  # every node found among the previous run's fingerprints
    # another case's run has no previous run: each node is looked up on its own
    run_id = store.create_run(case_id="other", adapter="test", settings_hash="s", agents="a")
    assert store.prefetch_cached(run_id) == {}
    ex = Executor(store, Settings(), ScriptedAgents(), run_id=run_id)
    nodes = asyncio.run(ex.run(graph(), {"seed": Num(value=34)}))
    assert all(n.reused for n in nodes.values()) and len(lookups) == 4


def test_change_recomputes_only_the_affected_projection(data_dir: Path) -> None:
    store = Store(data_dir)
    run(store, 34)
    CALLS.clear()
    reused = run(store, 35)  # only the right digit changes
    assert reused == {"pair": False, "double:left": True, "double:right": False, "total": False}
    assert sorted(CALLS) == ["double:right", "pair", "total"]


def test_early_cutoff_when_output_is_unchanged(data_dir: Path) -> None:
    store = Store(data_dir)
    run(store, 34)
    CALLS.clear()
    # 134 → the same pair (3, 4): pair reruns (its input changed) but its output hash is
    # unchanged, so the whole downstream cone is reused.
    reused = run(store, 134)
    assert reused == {"pair": False, "double:left": True, "double:right": True, "total": True}
    assert CALLS == ["pair"]


def test_config_read_by_a_stage_enters_its_fingerprint(data_dir: Path) -> None:
    reading = StageDef("double", "1", double, Num, reads=("decision",))
    store = Store(data_dir)

    def once(settings: Settings) -> bool:
        run_id = store.create_run(case_id="t", adapter="t", settings_hash="s", agents="a")
        ex = Executor(store, settings, ScriptedAgents(), run_id=run_id)
        spec = NodeSpec("d", reading, (Input("x", "seed"),))
        return asyncio.run(ex.run([spec], {"seed": Num(value=1)}))["d"].reused

    assert once(Settings()) is False
    assert once(Settings()) is True
    changed = Settings(decision={"supported": 0.72})  # type: ignore[arg-type]
    assert once(changed) is False


def test_stages_sharing_a_name_keep_their_own_fingerprints(data_dir: Path) -> None:
    # Two stage definitions may share a name (recall: with and without memory; one per
    # procedure). Each node's fingerprint is built from its own definition's version,
    # config and code, never from the first definition of that name seen in the run.
    v1 = StageDef("double", "1", double, Num)
    v2 = StageDef("double", "2", double, Num, reads=("decision",))
    store = Store(data_dir)

    def fingerprints(first: StageDef, second: StageDef) -> dict[str, str]:
        run_id = store.create_run(case_id="t", adapter="t", settings_hash="s", agents="a")
        ex = Executor(store, Settings(), ScriptedAgents(), run_id=run_id)
        specs = [
            NodeSpec("a", first, (Input("x", "seed"),)),
            NodeSpec("b", second, (Input("x", "seed"),)),
        ]
        nodes = asyncio.run(ex.run(specs, {"seed": Num(value=1)}))
        return {k: n.fingerprint for k, n in nodes.items()}

    mixed = fingerprints(v1, v2)
    assert mixed["a"] != mixed["b"]
    assert fingerprints(v2, v2)["b"] == mixed["b"]
    assert fingerprints(v1, v1)["a"] == mixed["a"]


def test_graph_is_checked_before_it_runs() -> None:
    with pytest.raises(ValueError, match="undeclared inputs"):
        validate_graph([NodeSpec("d", DOUBLE, (Input("x", "missing"),))], {})
    with pytest.raises(ValueError, match="takes"):
        validate_graph([NodeSpec("d", DOUBLE, (Input("y", "seed"),))], {"seed": Num(value=1)})
    cyclic = [
        NodeSpec("a", DOUBLE, (Input("x", "b"),)),
        NodeSpec("b", DOUBLE, (Input("x", "a"),)),
    ]
    with pytest.raises(ValueError, match="cycle"):
        validate_graph(cyclic, {})


async def no_provenance(ctx: StageContext, *, seed: Num) -> MediaEvidence:
    item = Evidence(
        id="ev:exif:asset:1",
        source="exiftool",
        source_type=SourceType.METADATA,
        modality=Modality.METADATA,
        content="DateTimeOriginal 2019:06:01",
        reliability=0.9,
        provenance=None,
    )
    return MediaEvidence(asset_id="asset:1", evidence=(item,))


async def duplicate_ids(ctx: StageContext, *, seed: Num) -> MediaEvidence:
    prov = Provenance(producer=ProducerKind.TOOL, agent="exiftool")
    item = Evidence(
        id="ev:exif:asset:1",
        source="exiftool",
        source_type=SourceType.METADATA,
        modality=Modality.METADATA,
        content="x",
        reliability=0.9,
        provenance=prov,
    )
    return MediaEvidence(asset_id="asset:1", evidence=(item, item))


@pytest.mark.parametrize(("fn", "invariant"), [(no_provenance, "I_prov"), (duplicate_ids, "I_id")])
def test_invariant_violation_is_rejected_and_traced(
    data_dir: Path, fn: object, invariant: str
) -> None:
    stage = StageDef("media", "1", fn, MediaEvidence)  # type: ignore[arg-type]
    store = Store(data_dir)
    run_id = store.create_run(case_id="t", adapter="t", settings_hash="s", agents="a")
    ex = Executor(store, Settings(), ScriptedAgents(), run_id=run_id)
    with pytest.raises(InvariantViolation) as caught:
        asyncio.run(
            ex.run(
                [NodeSpec("media:asset:1", stage, (Input("seed", "seed"),))], {"seed": Num(value=1)}
            )
        )
    assert caught.value.invariant == invariant
    events = store.trace(run_id)
    rejected = [e for e in events if e.kind is TraceKind.NODE_REJECTED]
    assert len(rejected) == 1 and rejected[0].node == "media:asset:1"
    assert rejected[0].payload["violations"][0]["invariant"] == invariant
    assert store.run_nodes(run_id) == []  # nothing committed
    assert store.cached_output(rejected[0].payload["fingerprint"]) is None


def test_agent_identity_and_code_enter_fingerprints(tmp_path: Path) -> None:
    from semv._code import source_hash
    from semv.agents.offline import OfflineAgents
    from semv.graph import fingerprint

    agent_stage = StageDef("double", "1", double, Num, uses_agents=True)
    spec = NodeSpec("d", agent_stage, (Input("x", "seed"),))
    tuned = Settings(offline={"context_attack": 0.5})  # type: ignore[arg-type]
    a, b = OfflineAgents(Settings()), OfflineAgents(tuned)
    assert a.identity != b.identity  # a backend threshold is part of its identity
    assert fingerprint(spec, {"x": "h"}, Settings(), a) != fingerprint(spec, {"x": "h"}, tuned, b)
    plain = NodeSpec("d", DOUBLE, (Input("x", "seed"),))
    assert fingerprint(plain, {"x": "h"}, Settings(), a) == fingerprint(
        plain, {"x": "h"}, tuned, b
    )  # a stage that neither reads `offline` nor calls agents is unaffected
    assert source_hash("semv.reasoning") != source_hash("semv.report")


def test_a_code_hash_does_not_import_the_package_it_hashes() -> None:
    """``source_hash`` finds the files as an import would, without running the package (a
    memory-off run hashes ``semv.retrieval`` and never uses it), and hashes the same bytes."""
    import subprocess
    import sys

    code = (
        "import sys\nfrom semv._code import source_hash\n"
        "found = source_hash('semv.retrieval'), source_hash('semv.stages.recall')\n"
        "print('semv.retrieval' in sys.modules)\n"
        "import semv.retrieval, semv.stages.recall, inspect, hashlib\nfrom pathlib import Path\n"
        "p = Path(inspect.getsourcefile(semv.stages.recall))\n"
        "d = hashlib.sha256(p.name.encode() + b'\\0' + p.read_bytes()).hexdigest()\n"
        "source_hash.cache_clear()\n"
        "print(found == (source_hash('semv.retrieval'), d))"
    )
    src = Path(__file__).resolve().parents[1] / "src"
    run = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(src)},
    )
    assert run.stdout.split() == ["False", "True"]


def test_independent_nodes_run_concurrently(data_dir: Path) -> None:
    """Two independent nodes that each wait for the other would deadlock if run in turn."""
    started: dict[str, asyncio.Event] = {}

    async def meet(ctx: StageContext, *, x: Num) -> Num:
        me, other = ("a", "b") if ctx.node == "meet:a" else ("b", "a")
        started.setdefault(me, asyncio.Event()).set()
        await asyncio.wait_for(started.setdefault(other, asyncio.Event()).wait(), timeout=5)
        return Num(value=x.value)

    stage = StageDef("meet", "1", meet, Num)
    specs = [NodeSpec(f"meet:{k}", stage, (Input("x", "seed"),), {"k": k}) for k in "ab"]
    store = Store(data_dir)
    run_id = store.create_run(case_id="t", adapter="t", settings_hash="s", agents="a")
    ex = Executor(store, Settings(), ScriptedAgents(), run_id=run_id)
    nodes = asyncio.run(ex.run(specs, {"seed": Num(value=3)}))
    assert {k: n.value.value for k, n in nodes.items()} == {"meet:a": 3, "meet:b": 3}  # type: ignore[attr-defined]


def test_an_installed_or_upgraded_tool_recomputes_the_stage() -> None:
    from semv.graph import fingerprint

    agents = ScriptedAgents()

    def with_tool(version: str) -> NodeSpec:
        stage = StageDef("media", "1", double, Num, tools=lambda: version)
        return NodeSpec("media:asset:1", stage, (Input("x", "seed"),))

    missing = fingerprint(with_tool("exiftool missing"), {"x": "h"}, Settings(), agents)
    installed = fingerprint(with_tool("exiftool 12.57"), {"x": "h"}, Settings(), agents)
    upgraded = fingerprint(with_tool("exiftool 13.25"), {"x": "h"}, Settings(), agents)
    assert len({missing, installed, upgraded}) == 3


async def explode(ctx: StageContext, *, x: Num) -> Num:
    raise RuntimeError("boom")


def test_reused_nodes_before_a_failure_are_recorded_and_the_trace_verifies(
    data_dir: Path,
) -> None:
    from semv.errors import StageError
    from semv.model import RunStatus

    store = Store(data_dir)
    run(store, 34)  # warm the cache: every node below but the failing one is reused
    run_id = store.create_run(case_id="t", adapter="test", settings_hash="s", agents="a")
    store.append_event(run_id, TraceKind.RUN_STARTED)
    specs = [
        *graph(),
        NodeSpec("fail", StageDef("explode", "1", explode, Num), (Input("x", "total"),)),
    ]
    ex = Executor(store, Settings(), ScriptedAgents(), run_id=run_id)
    with pytest.raises(StageError):
        asyncio.run(ex.run(specs, {"seed": Num(value=34)}))
    store.append_event(run_id, TraceKind.RUN_FAILED)
    store.finish_run(run_id, RunStatus.FAILED)
    kinds = [(e.kind, e.node) for e in store.trace(run_id)]
    reused = {n for k, n in kinds if k is TraceKind.NODE_REUSED}
    assert reused == {"pair", "double:left", "double:right", "total"}
    assert kinds.index((TraceKind.NODE_FAILED, "fail")) == 5  # after the four reused nodes
    assert {n.key for n in store.run_nodes(run_id)} == reused
    assert store.verify_trace(run_id).ok


def test_stage_parts_kept_across_runs_but_outside_state_read_each_run(data_dir: Path) -> None:
    asked = {"tools": 0, "external": 0}
    index = {"generation": "g1"}

    def tools() -> str:
        asked["tools"] += 1
        return "tool 1"

    def external(_settings: Settings) -> str:
        asked["external"] += 1
        return index["generation"]

    stage = StageDef("double", "1", double, Num, tools=tools, external=external)
    store = Store(data_dir)

    def once() -> bool:
        run_id = store.create_run(case_id="t", adapter="t", settings_hash="s", agents="a")
        ex = Executor(store, Settings(), ScriptedAgents(), run_id=run_id, settings_key="k")
        spec = NodeSpec("d", stage, (Input("x", "seed"),))
        return asyncio.run(ex.run([spec], {"seed": Num(value=1)}))["d"].reused

    assert once() is False and once() is True
    assert asked == {"tools": 1, "external": 2}
    index["generation"] = "g2"  # the index changed between runs: the node is recomputed
    assert once() is False
