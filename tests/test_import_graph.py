"""The package import graph of ``src/semv`` has no cycles, the import-linter contracts of
``pyproject.toml`` are kept (and each one fails on a violation), and the CLI loads commands
lazily.

The graph has one node per package directly under ``semv`` (``semv.memory``, ``semv.pipeline``
...) and an edge for every ``import`` / ``from ... import`` of another such package, at module
level **and inside functions** (a function-level import is still a dependency, only a later
one); imports under ``if TYPE_CHECKING:`` are left out (they never run).
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _package(module: str) -> str:
    return ".".join(module.split(".")[:2])


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for stmt in node.body:
                skipped.update(id(n) for n in ast.walk(stmt))
    return skipped


def _imported(node: ast.AST, module: str, is_package: bool) -> list[str]:
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    if isinstance(node, ast.ImportFrom):
        if not node.level:
            return [node.module or ""]
        base = module.split(".") if is_package else module.split(".")[:-1]
        base = base[: len(base) - (node.level - 1)]
        return [".".join(base + ([node.module] if node.module else []))]
    return []


def import_graph() -> dict[str, dict[str, str]]:
    """package → {imported package: one "module -> module" import that makes the edge}."""
    edges: dict[str, dict[str, str]] = defaultdict(dict)
    for path in sorted((SRC / "semv").rglob("*.py")):
        module = _module_name(path)
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        skipped = _type_checking_nodes(tree)
        for node in ast.walk(tree):
            if id(node) in skipped:
                continue
            for target in _imported(node, module, path.name == "__init__.py"):
                if target.startswith("semv.") and _package(target) != _package(module):
                    edges[_package(module)].setdefault(_package(target), f"{module} -> {target}")
    return edges


def _cycles(edges: dict[str, dict[str, str]]) -> list[list[str]]:
    """Strongly connected components with more than one package (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in edges.get(v, {}):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in list(edges):
        if v not in index:
            visit(v)
    return found


def test_the_graph_sees_function_level_imports() -> None:
    edges = import_graph()
    # `semv.cli._runs.verify` imports the pipeline inside the command, nowhere else
    assert "semv.pipeline" in edges["semv.cli"]
    assert "semv.memory" in edges["semv.stages"]  # stages.recall, inside the memory-on stage


def test_no_package_import_cycles() -> None:
    edges = import_graph()
    problems = [
        f"{' / '.join(c)}: " + "; ".join(edges[a][b] for a in c for b in edges[a] if b in c)
        for c in _cycles(edges)
    ]
    assert problems == []


def _modules_after(code: str) -> set[str]:
    run = subprocess.run(
        [sys.executable, "-c", code + "\nimport sys\nprint('\\n'.join(sorted(sys.modules)))"],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": str(SRC)},
    )
    return set(run.stdout.split())


def test_semv_version_loads_no_command() -> None:
    code = (
        "import sys\nsys.argv = ['semv', '--version']\nfrom semv.cli import main\n"
        "try:\n    main()\nexcept SystemExit:\n    pass"
    )
    loaded = _modules_after(code)
    heavy = {"matplotlib", "sqlalchemy", "spacy", "semv.store", "semv.pipeline", "semv.model"}
    heavy |= {"semv.web", "semv.eval", "semv.procedures", "semv.config", "semv.cli._runs"}
    assert heavy & loaded == set()


def test_semv_verify_loads_no_evaluation_web_plotting_or_other_procedure(tmp_path: Path) -> None:
    """A text-only verify on a fresh data dir, memory off, no source: nothing of evaluation,
    web, plotting, the other procedures, memory, retrieval, the forensic extractors (their
    versions enter the media node's fingerprint without them) or Alembic (a fresh SQLite
    store gets its schema without it) is imported."""
    example = Path(__file__).resolve().parents[1] / "examples" / "lyon-flood"
    argv = ["semv", "verify", str(example), "--text-only", "--data-dir", str(tmp_path)]
    code = (
        f"import sys\nsys.argv = {argv!r}\nfrom semv.cli import main\n"
        "try:\n    main()\nexcept SystemExit as exc:\n    assert not exc.code, exc.code"
    )
    loaded = _modules_after(code)
    assert "semv.pipeline" in loaded  # it did verify
    unwanted = ("matplotlib", "semv.web", "semv.eval", "semv.learning", "semv.contest")
    unwanted += ("semv.procedures.remmd", "semv.procedures.mmd_agent", "semv.procedures.t2_agent")
    unwanted += ("semv.memory", "semv.retrieval", "alembic")
    unwanted += ("semv.perception.forensics", "semv.perception.manipulation")
    assert sorted(m for m in loaded if m.startswith(unwanted)) == []


# ---- the import-linter contracts of pyproject.toml ([tool.importlinter], `make lint`) ---------

ROOT = SRC.parent
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def _lint_imports(src: Path, cwd: Path, *contracts: str) -> subprocess.CompletedProcess[str]:
    """`lint-imports` with this project's contracts over the package tree in ``src``."""
    args = [str(LINT_IMPORTS), str(ROOT / "pyproject.toml"), "--no-cache", "--no-logo"]
    for contract in contracts:
        args += ["--contract", contract]
    return subprocess.run(
        args,
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(src)},
        check=False,
    )


def test_the_import_contracts_are_kept(tmp_path: Path) -> None:
    run = _lint_imports(SRC, tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "Contracts: 3 kept, 0 broken." in run.stdout


def _tree_with(tmp_path: Path, module: str, source: str) -> Path:
    """A copy of ``src/semv`` with one more module ``module`` (dotted) holding ``source``."""
    import shutil

    src = tmp_path / "src"
    shutil.copytree(
        SRC / "semv", src / "semv", ignore=shutil.ignore_patterns("__pycache__", "data")
    )
    (src / Path(*module.split("."))).with_suffix(".py").write_text(source, encoding="utf-8")
    return src


def test_a_private_module_of_another_package_breaks_its_contract(tmp_path: Path) -> None:
    src = _tree_with(
        tmp_path, "semv.procedures.remmd.probe", "from semv.agents.llm._prompts import untrusted\n"
    )
    run = _lint_imports(src, tmp_path, "private-modules")
    assert run.returncode == 1
    assert "semv.procedures.remmd.probe -> semv.agents.llm._prompts" in run.stdout
    # the package's public name is allowed
    ok = _tree_with(
        tmp_path / "ok", "semv.procedures.remmd.probe", "from semv.agents.llm import untrusted\n"
    )
    assert _lint_imports(ok, tmp_path, "private-modules").returncode == 0


def test_reasoning_reading_the_configuration_breaks_its_purity(tmp_path: Path) -> None:
    src = _tree_with(tmp_path, "semv.reasoning._probe", "from semv.config import DecisionConfig\n")
    run = _lint_imports(src, tmp_path, "pure-reasoning")
    assert run.returncode == 1
    assert "semv.reasoning._probe -> semv.config" in run.stdout


def test_the_language_layer_importing_upward_breaks_the_layers(tmp_path: Path) -> None:
    src = _tree_with(tmp_path, "semv.nlp.probe", "import semv.config\n")
    run = _lint_imports(src, tmp_path, "layers")
    assert run.returncode == 1
    assert "semv.nlp is not allowed to import semv.config" in run.stdout
