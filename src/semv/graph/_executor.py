"""The incremental executor: evaluates nodes in dependency order, concurrently where
independent, reusing every node whose fingerprint is already known (DESIGN §3).

fingerprint(node) = H(stage name, stage version, a hash of the stage's source code (and of the
modules it declares), the config sections it reads, its static params, the agent backend's
identity (for agent stages), and for each input the content hash of the (projected) input
value). Hashing the input *values* rather than the input nodes' own
fingerprints gives early cut-off: a recomputed node whose output did not change leaves its
whole downstream cone reused.
"""

from __future__ import annotations

import asyncio
import functools
import graphlib
import inspect
import json
import logging
import time
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from semv._code import code_fingerprint
from semv.agents import Agents
from semv.config import Settings
from semv.errors import InvariantViolation, SemvError, StageError
from semv.graph._invariants import check_node
from semv.graph._spec import NodeSpec, StageContext, StageDef, project
from semv.model import TraceKind
from semv.store import (
    NodeRecord,
    Store,
    canonical_json,
    content_hash,
    sha256_text,
    utc_now,
)
from semv.usage import bind_node

logger = logging.getLogger(__name__)

__all__ = [
    "Executor",
    "NodeOutcome",
    "fingerprint",
    "source_inputs",
    "stage_parts",
    "validate_graph",
]

ProgressFn = Callable[[str, bool], None]


@dataclass(frozen=True)
class NodeOutcome:
    key: str
    stage: str
    fingerprint: str
    output_hash: str
    value: BaseModel
    reused: bool
    seconds: float


def validate_graph(specs: Sequence[NodeSpec], sources: Mapping[str, BaseModel]) -> list[str]:
    """Check the graph before it runs; return the keys in a topological order.

    Unique keys, every dependency declared, no cycles, and every stage's parameters match
    its bound inputs exactly.
    """
    keys = [s.key for s in specs]
    if len(set(keys)) != len(keys):
        dupes = sorted({k for k in keys if keys.count(k) > 1})
        raise ValueError(f"duplicate node keys: {dupes}")
    known = set(keys) | set(sources)
    sorter: graphlib.TopologicalSorter[str] = graphlib.TopologicalSorter()
    for spec in specs:
        missing = [d for d in spec.dependencies if d not in known]
        if missing:
            raise ValueError(f"{spec.key}: undeclared inputs {missing}")
        params = _keyword_params(spec.stage.fn)
        bound = [i.name for i in spec.inputs]
        if params != sorted(bound):
            raise ValueError(f"{spec.key}: stage {spec.stage.name} takes {params}, bound {bound}")
        sorter.add(spec.key, *[d for d in spec.dependencies if d not in sources])
    try:
        return list(sorter.static_order())
    except graphlib.CycleError as exc:
        raise ValueError(f"stage graph has a cycle: {exc.args[1]}") from exc


@functools.cache
def _keyword_params(fn: Callable[..., Any]) -> list[str]:
    """The sorted keyword-only parameter names of a stage function (read once a process:
    ``inspect.signature`` cost a tenth of a warm run's graph check)."""
    return sorted(
        p.name
        for p in inspect.signature(fn).parameters.values()
        if p.kind is inspect.Parameter.KEYWORD_ONLY
    )


def source_inputs(specs: Sequence[NodeSpec], settings: Settings) -> dict[str, dict[str, Any]]:
    """Per node, the state outside the graph its fingerprint summarises: the stage's
    ``external`` text (the reverse-image index generation) and the ``sources`` param (the
    identities of the evidence sources, with the corpus digest). A run records these so that a
    revision can evaluate against the parent's sources instead of the current ones (Module E:
    ``fingerprint(..., pin=...)``)."""
    found: dict[str, dict[str, Any]] = {}
    for spec in specs:
        entry: dict[str, Any] = {}
        if spec.stage.external is not None:
            entry["external"] = spec.stage.external(settings)
        if "sources" in spec.params:
            entry["sources"] = spec.params["sources"]
        if entry:
            found[spec.key] = entry
    return found


def stage_parts(
    stage: StageDef, settings: Settings, agents: Agents, *, external: bool = True
) -> dict[str, str]:
    """The parts of a fingerprint's body that depend on the stage alone, not on the node:
    body key → the canonical JSON of its value. The same for every node of one stage in one
    run, so the executor computes them once per stage (tool versions, the config sections'
    values, the backend's identity are not cheap). ``external=False`` leaves out the state
    outside the graph (``StageDef.external``), which the caller reads itself."""
    body: dict[str, Any] = {
        "stage": stage.name,
        "version": stage.version,
        "code": code_fingerprint((stage.fn.__module__, "semv.model", *stage.code)),
        "config": settings.section_values(*stage.reads),
    }
    if stage.tools is not None:
        body["tools"] = stage.tools()
    if external and stage.external is not None:
        body["external"] = stage.external(settings)
    if stage.uses_agents:
        body["agents"] = agents.identity
    return {k: canonical_json(v) for k, v in body.items()}


def fingerprint(
    spec: NodeSpec,
    input_hashes: Mapping[str, Any],
    settings: Settings,
    agents: Agents,
    *,
    pin: Mapping[str, Any] | None = None,
    parts: Mapping[str, str] | None = None,
) -> str:
    """The node's fingerprint: sha256 of the canonical JSON of {stage, version, code, config,
    params, inputs[, tools][, external][, agents]}. ``pin`` (an entry of ``source_inputs``
    recorded by another run) replaces the current state of the sources outside the graph with
    that run's. ``parts`` is ``stage_parts`` of the node's stage, when the caller has it."""
    params = dict(spec.params)
    if pin and "sources" in pin and "sources" in params:
        params["sources"] = pin["sources"]
    body = dict(parts if parts is not None else stage_parts(spec.stage, settings, agents))
    body["params"] = canonical_json(params)
    body["inputs"] = _hashes_json(input_hashes)
    if pin and "external" in pin and "external" in body:
        body["external"] = canonical_json(pin["external"])
    # the canonical JSON of the body, from its values' canonical JSON: sorted keys, no spaces
    text = "{" + ",".join(f"{_json_str(k)}:{body[k]}" for k in sorted(body)) + "}"
    return sha256_text(text)


_json_str = json.JSONEncoder(ensure_ascii=False).encode
"""A string's JSON as ``canonical_json`` writes it."""


def _hashes_json(input_hashes: Mapping[str, Any]) -> str:
    """``canonical_json`` of the input hashes (a name → a hash or a list of hashes): plain
    strings, so ``json.dumps`` alone writes the same text without pydantic's walk first."""
    try:
        return json.dumps(
            dict(input_hashes), sort_keys=True, separators=(",", ":"), ensure_ascii=False
        )
    except TypeError:  # not plain JSON values: the general path
        return canonical_json(dict(input_hashes))


_SHARED_PARTS: dict[tuple[StageDef, str, str], dict[str, str]] = {}
"""``stage_parts`` (without ``external``) by (stage, settings key, backend identity), kept for
the process across runs: an evaluation's runs share their settings and backend, and
recomputing the config sections' JSON and the tool versions for every stage of every run was
a twentieth of a warm pass. The source hashes and tool versions in them are per process
already (``semv._code``, ``semv.stages.media.tool_versions``)."""
_SHARED_PARTS_LIMIT = 4096


class Executor:
    """Runs one case's graph for one run, recording nodes and trace events in the store."""

    def __init__(
        self,
        store: Store,
        settings: Settings,
        agents: Agents,
        *,
        run_id: str,
        max_concurrency: int = 4,
        progress: ProgressFn | None = None,
        force: Collection[str] = (),
        reuse: Mapping[str, tuple[str, str]] | None = None,
        cache: bool = True,
        resources: Mapping[str, Any] | None = None,
        pinned: Mapping[str, Mapping[str, Any]] | None = None,
        settings_key: str | None = None,
    ) -> None:
        """``force`` names nodes that execute even when their fingerprint is cached (a
        revision policy's recomputation set, Module E). ``reuse`` maps node key →
        (fingerprint, output hash) of a parent run: a node whose fingerprint equals the
        parent's reuses the *parent's* value before the global cache is consulted, so a
        revision preserves exactly the state it revises. ``cache=False`` consults only
        ``reuse``: a revision then executes exactly the nodes whose inputs changed.
        ``resources`` are live objects stages may use (evidence sources, Module C); what they
        contribute to a node's output must enter its params (and so its fingerprint).
        ``pinned`` (the parent's ``source_inputs``) holds a node at the parent's sources: a
        node that is not forced and whose fingerprint, with the parent's index and source
        identities in place of the current ones, equals the parent's reuses the parent's
        value (``held`` lists them); a node that must execute reads the current sources and
        is fingerprinted with them. ``settings_key`` (the hash of ``settings``' JSON, as
        ``run_case`` records it) lets the stage parts of fingerprints be kept across the
        process's runs (``_SHARED_PARTS``); the state outside the graph is read every run."""
        self.force = frozenset(force)
        self.reuse: Mapping[str, tuple[str, str]] = reuse or {}
        self.cache = cache
        self.resources: Mapping[str, Any] = dict(resources or {})
        self.pinned: Mapping[str, Mapping[str, Any]] = pinned or {}
        self.held: set[str] = set()
        self.store = store
        self.settings = settings
        self.agents = agents
        self.run_id = run_id
        self.settings_key = settings_key
        self._agents_identity: str | None = None
        self._limit = asyncio.Semaphore(max_concurrency)
        self._progress = progress
        # node records + trace events not yet written: reused nodes are batched and written
        # in one transaction with the next executed node's, or when the run() ends
        self._pending: list[tuple[NodeRecord, TraceKind, dict[str, Any], str]] = []
        self._remember: list[tuple[str, str, str, bytes]] = []  # cache entries not yet written
        self._blobs: dict[str, bytes] = {}  # the parent's outputs, read in one query
        # cache entries under the fingerprints of this case's previous run, read in one query
        self._prefetched: dict[str, tuple[str, bytes]] = {}
        self._hashes: dict[str, str] = {}  # node key -> content hash of its output
        self._part_hashes: dict[tuple[str, tuple[str | int, ...]], str] = {}  # projections'
        # stage -> stage_parts, this run; keyed by the whole StageDef, not its name: stages of
        # one name differ in the code they hash (one per dimension module, per procedure)
        self._parts: dict[StageDef, dict[str, str]] = {}

    async def run(
        self, specs: Sequence[NodeSpec], sources: Mapping[str, BaseModel]
    ) -> dict[str, NodeOutcome]:
        validate_graph(specs, sources)
        by_key = {s.key: s for s in specs}
        self._hashes = {}
        self._part_hashes = {}
        self._parts = {}
        self._blobs = self.store.get_blobs(
            h for k, (_, h) in self.reuse.items() if k in by_key and k not in self.force
        )
        self._prefetched = self.store.prefetch_cached(self.run_id) if self.cache else {}
        values: dict[str, BaseModel] = dict(sources)
        done: dict[str, asyncio.Future[NodeOutcome]] = {}
        loop = asyncio.get_running_loop()
        for key in by_key:
            done[key] = loop.create_future()

        async def evaluate(spec: NodeSpec) -> None:
            fut = done[spec.key]
            try:
                for dep in spec.dependencies:
                    if dep in done:
                        await asyncio.shield(done[dep])
                outcome = await self._evaluate(spec, values)
                values[spec.key] = outcome.value
                fut.set_result(outcome)
            except BaseException as exc:  # propagate to dependants, then to the caller
                if not fut.done():
                    fut.set_exception(exc)
                raise

        tasks = [asyncio.create_task(evaluate(s), name=s.key) for s in specs]
        try:
            await asyncio.gather(*tasks)
        except BaseException:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            for fut in done.values():
                if fut.done() and not fut.cancelled():
                    fut.exception()  # mark retrieved
            raise
        finally:
            self._flush()  # a failed run's trace still holds every node that finished
            self._blobs = {}
            self._prefetched = {}
        return {key: fut.result() for key, fut in done.items()}

    async def _evaluate(self, spec: NodeSpec, values: Mapping[str, BaseModel]) -> NodeOutcome:
        kwargs: dict[str, Any] = {}
        hashes: dict[str, Any] = {}
        for inp in spec.inputs:
            if inp.many:
                parts = [project(values[k], inp.path) for k in inp.keys]
                kwargs[inp.name] = parts
                hashes[inp.name] = [
                    self._input_hash(k, inp.path, p) for k, p in zip(inp.keys, parts, strict=True)
                ]
            else:
                part = project(values[inp.keys[0]], inp.path)
                kwargs[inp.name] = part
                hashes[inp.name] = self._input_hash(inp.keys[0], inp.path, part)
        stage_body = self._parts.get(spec.stage)
        if stage_body is None:
            if spec.stage.tools is None or self._shared_parts(spec.stage) is not None:
                stage_body = self._stage_parts(spec.stage)
            else:  # tool probes start programs: the loop serves the model calls meanwhile
                stage_body = await asyncio.to_thread(self._stage_parts, spec.stage)
            self._parts[spec.stage] = stage_body
        fp = fingerprint(spec, hashes, self.settings, self.agents, parts=stage_body)
        started = time.perf_counter()
        cached: tuple[str, bytes] | None = None
        if spec.key not in self.force:
            parent = self.reuse.get(spec.key)
            pin = self.pinned.get(spec.key)
            if parent is not None and pin and parent[0] != fp:
                held = fingerprint(
                    spec, hashes, self.settings, self.agents, pin=pin, parts=stage_body
                )
                if held == parent[0]:
                    fp = held
                    self.held.add(spec.key)
            if parent is not None and parent[0] == fp:
                blob = self._blobs.pop(parent[1], None)
                cached = (parent[1], blob if blob is not None else self.store.get_blob(parent[1]))
            if cached is None and self.cache:
                cached = self._prefetched.get(fp) or self.store.cached_blob(fp)
        if cached is not None:
            digest, raw = cached
            value = spec.stage.output.model_validate_json(raw)
            outcome = NodeOutcome(
                spec.key, spec.stage.name, fp, digest, value, True, time.perf_counter() - started
            )
            self._commit(outcome, TraceKind.NODE_REUSED)
            return outcome

        ctx = StageContext(
            node=spec.key,
            settings=self.settings,
            agents=self.agents,
            params=spec.params,
            resources=self.resources,
        )
        queued = time.perf_counter()
        async with self._limit:
            waited = time.perf_counter() - queued  # a free slot is not the node's own time
            try:
                with bind_node(spec.key):  # model calls are accounted to this node
                    value = await spec.stage.fn(ctx, **kwargs)
            except StageError:
                raise
            except Exception as exc:
                self._flush()
                self.store.append_event(
                    self.run_id,
                    TraceKind.NODE_FAILED,
                    node=spec.key,
                    payload={"stage": spec.stage.name, "error": f"{type(exc).__name__}: {exc}"},
                )
                if isinstance(exc, SemvError) and exc.exit_code == 2:
                    raise  # a user condition (a replay-cache miss, ...): its own exit 2 and hint
                raise StageError(spec.key, f"{type(exc).__name__}: {exc}") from exc
        if not isinstance(value, spec.stage.output):
            raise StageError(
                spec.key,
                f"stage {spec.stage.name} returned {type(value).__name__}, "
                f"expected {spec.stage.output.__name__}",
            )
        violations = check_node(spec, value, values, strength=self.settings.strength)
        if violations:
            invariant, detail = violations[0]
            self._flush()
            self.store.append_event(
                self.run_id,
                TraceKind.NODE_REJECTED,
                node=spec.key,
                payload={
                    "stage": spec.stage.name,
                    "fingerprint": fp,
                    "violations": [{"invariant": i, "detail": d} for i, d in violations],
                },
            )
            raise InvariantViolation(spec.key, invariant, detail)
        text = canonical_json(value)
        digest = sha256_text(text)
        # the cache entry is written with the node's record, in the same transaction (_flush)
        self._remember.append((fp, spec.stage.name, digest, text.encode("utf-8")))
        outcome = NodeOutcome(
            spec.key, spec.stage.name, fp, digest, value, False,
            time.perf_counter() - started - waited,
        )  # fmt: skip
        self._commit(outcome, TraceKind.NODE_EXECUTED)
        return outcome

    def _identity(self) -> str:
        """The backend's identity, read once a run (it hashes the backend's settings)."""
        if self._agents_identity is None:
            self._agents_identity = self.agents.identity
        return self._agents_identity

    def _shared_parts(self, stage: StageDef) -> dict[str, str] | None:
        """The process-wide ``stage_parts`` of ``stage`` for this run's settings and backend,
        if an earlier run computed them."""
        if self.settings_key is None:
            return None
        return _SHARED_PARTS.get((stage, self.settings_key, self._identity()))

    def _stage_parts(self, stage: StageDef) -> dict[str, str]:
        """``stage_parts`` of ``stage`` for this run: with a ``settings_key``, all but the
        ``external`` part come from the process-wide ``_SHARED_PARTS``."""
        if self.settings_key is None:
            return stage_parts(stage, self.settings, self.agents)
        shared = self._shared_parts(stage)
        if shared is None:
            shared = stage_parts(stage, self.settings, self.agents, external=False)
            if len(_SHARED_PARTS) >= _SHARED_PARTS_LIMIT:
                _SHARED_PARTS.clear()
            _SHARED_PARTS[(stage, self.settings_key, self._identity())] = shared
        if stage.external is None:
            return shared
        return {**shared, "external": canonical_json(stage.external(self.settings))}

    def _input_hash(self, key: str, path: tuple[str | int, ...], part: Any) -> str:
        """The content hash of ``part``, the projection ``path`` of node ``key``'s output. A
        whole output's is its output hash (computed when it was executed, the blob's address
        when reused); a projection is hashed once a run however many nodes read it (a node's
        output never changes once evaluated)."""
        if not path:
            known = self._hashes.get(key)
            if known is not None:
                return known
        digest = self._part_hashes.get((key, path))
        if digest is None:
            digest = content_hash(part)
            self._part_hashes[(key, path)] = digest
        return digest

    def _commit(self, outcome: NodeOutcome, kind: TraceKind) -> None:
        """Queue the node's record and trace event; an executed node writes the queue (its
        own and the reused nodes' before it) in one transaction right away."""
        self._hashes[outcome.key] = outcome.output_hash
        self._pending.append(
            (
                NodeRecord(
                    key=outcome.key,
                    stage=outcome.stage,
                    fingerprint=outcome.fingerprint,
                    output_hash=outcome.output_hash,
                    reused=outcome.reused,
                    seconds=round(outcome.seconds, 6),
                ),
                kind,
                {
                    "stage": outcome.stage,
                    "fingerprint": outcome.fingerprint,
                    "output": outcome.output_hash,
                },
                utc_now(),
            )
        )
        if not outcome.reused:
            self._flush()
        if self._progress is not None:
            self._progress(outcome.key, outcome.reused)

    def _flush(self) -> None:
        """Write the queued node records and their hash-chained events (one transaction)."""
        pending, self._pending = self._pending, []
        remember, self._remember = self._remember, []
        self.store.record_nodes(self.run_id, pending, remember=remember)
