"""Every procedure starts with the same prefix, built once; the node lists (keys, stages,
versions, inputs, params: what a node's cache key is made of) are those the graphs have always
declared, spelled out here by hand."""

from __future__ import annotations

from typing import Any

from semv.graph import NodeSpec
from semv.model import Asset, Case, MediaKind
from semv.procedures import get_procedure

CASE = Case(
    id="c",
    claim="A flood in Lyon",
    media=(
        Asset(id="asset:0", path="/x/a.jpg", kind=MediaKind.IMAGE, loaded=False),
        Asset(id="asset:1", path="/x/b.jpg", kind=MediaKind.IMAGE, loaded=False),
    ),
)
DESCRIBED = ("describe:asset:0", "describe:asset:1")

# (key, stage, version, [(input name, keys, path)], params)
PREFIX: list[
    tuple[str, str, str, list[tuple[str, tuple[str, ...], tuple[Any, ...]]], dict[str, Any]]
] = [
    ("bundle", "bundle", "1", [("case", ("case",), ())], {}),
    ("media:asset:0", "media", "3", [("asset", ("case",), ("media", 0))], {}),
    ("media:asset:1", "media", "3", [("asset", ("case",), ("media", 1))], {}),
    (
        "describe:asset:0",
        "describe",
        "1",
        [("asset", ("case",), ("media", 0)), ("media", ("media:asset:0",), ())],
        {},
    ),
    (
        "describe:asset:1",
        "describe",
        "1",
        [("asset", ("case",), ("media", 1)), ("media", ("media:asset:1",), ())],
        {},
    ),
]
CLAIMS = (
    "claims",
    "claims",
    "2",
    [
        ("case", ("bundle",), ("case",)),
        ("supplied", ("bundle",), ("supplied",)),
        ("media", DESCRIBED, ()),
    ],
    {},
)
DIMENSIONS = ("what", "where", "when", "who", "why", "authenticity")


def _shape(spec: NodeSpec) -> tuple[Any, ...]:
    return (
        spec.key,
        spec.stage.name,
        spec.stage.version,
        [(i.name, i.keys, i.path) for i in spec.inputs],
        dict(spec.params),
    )


def _graph(name: str, **kwargs: Any) -> list[NodeSpec]:
    return get_procedure(name).graph(CASE, contract="internal", **kwargs)


def test_every_procedure_starts_with_the_same_prefix() -> None:
    for name in ("semv", "mmd-agent", "t2-agent"):
        assert [_shape(s) for s in _graph(name)[:6]] == [*PREFIX, CLAIMS], name
    remmd = _graph("remmd")
    assert [_shape(s) for s in remmd[:5]] == PREFIX
    assert remmd[5].key == "points"  # ReMMD does not decompose into SEMV's subclaims


def test_the_semv_stage_graph_keeps_its_nodes() -> None:
    chain = [
        ("recall", "recall", "1"),
        ("plan", "plan", "1"),
        ("retrieve", "retrieve", "4"),
        ("validate", "validate", "3"),
        ("argue", "argue", "4"),
        ("qbaf", "qbaf", "4"),
        ("escalate", "escalate", "1"),
    ]
    expected = [(key, stage, version) for key, stage, version, _, _ in [*PREFIX, CLAIMS]]
    expected += [(f"{node}:{k}", stage, v) for k in DIMENSIONS for node, stage, v in chain]
    expected += [("aggregate", "aggregate", "3"), ("render", "render", "2")]
    specs = _graph("semv", rejected={"when": ["e2"]})
    assert [(s.key, s.stage.name, s.stage.version) for s in specs] == expected
    by_key = {s.key: s for s in specs}
    assert dict(by_key["validate:when"].params) == {"rejected": ["e2"]}
    assert dict(by_key["validate:what"].params) == {}
    assert dict(by_key["aggregate"].params) == {"contract": "internal"}
    assert by_key["retrieve:who"].dependencies == ("plan:who", "bundle", *DESCRIBED)
    assert by_key["aggregate"].dependencies == (
        "claims",
        *(f"escalate:{k}" for k in DIMENSIONS),
        *DESCRIBED,
    )


def test_the_labelled_procedures_end_in_the_same_render_node() -> None:
    for name in ("remmd", "mmd-agent", "t2-agent"):
        render = _graph(name)[-1]
        assert _shape(render) == (
            "render",
            "render-labelled",
            "1",
            [
                ("bundle", ("bundle",), ()),
                ("verdict", ("verdict",), ()),
                ("findings", ("findings",), ()),
                ("media", DESCRIBED, ()),
            ],
            {"procedure": name},
        )


def test_remmd_keeps_its_nodes_and_takes_rejections_in_the_judge() -> None:
    specs = _graph("remmd", rejected={"p1": ["e1"], "*": ["e2"], "points": ["p1"]})
    assert [(s.key, s.stage.name) for s in specs[5:]] == [
        ("points", "remmd-points"),
        ("bank", "remmd-bank"),
        ("judge", "remmd-judge"),
        ("veracity", "remmd-veracity"),
        ("diagnosis", "remmd-diagnosis"),
        ("findings", "remmd-findings"),
        ("verdict", "remmd-verdict"),
        ("render", "render-labelled"),
    ]
    judge = next(s for s in specs if s.key == "judge")
    assert dict(judge.params) == {"rejected_evidence": ["e1", "e2"], "rejected_points": ["p1"]}


def test_a_baseline_recalls_from_memory_when_asked() -> None:
    specs = _graph("mmd-agent", memory=True, rejected={"what": ["e1"]})
    recall = specs[6]
    assert (recall.key, recall.stage.name, recall.stage.version) == ("recall:what", "recall", "2")
    assert recall.dependencies == ("bundle", "claims", "memory")
    assert dict(specs[9].params) == {"rejected": ["e1"]}
    assert [s.key for s in specs[10:15]] == [
        "mmd:text",
        "mmd:image",
        "mmd:cross",
        "findings",
        "verdict",
    ]
