"""OCR's ONNX graphs, optimised once per machine and kept on disk.

Creating RapidOCR's three ONNX Runtime sessions (detector, direction classifier, recogniser)
spends most of its time optimising each graph (``ORT_ENABLE_ALL``), every process again: about
0.35 s of a cold verify's CPU on the 2-core machine. ONNX Runtime can save the graph it
optimised (``SessionOptions.optimized_model_filepath``); a session created from that file with
the same options finds little left to do (about 0.15 s for the three) and computes the same
outputs bit for bit (checked on random inputs of all three and on rendered text in five
languages, ``tests/test_ocr_onnx_cache.py``). The saved graph may hold layout transformations
for this CPU, so a file is keyed by the model file's identity (path, size, modification time),
ONNX Runtime's version, the machine type and the CPU's feature flags: another machine, CPU,
runtime or model gets its own file. Before a model is optimised its SHA-256 is checked against
the one RapidOCR ships for it (the check RapidOCR makes before each session; a session created
from a cached file skips it). Files go to ``cache_dir()/onnx`` (``configured_folder``; OCR's
worker is given the folder on its command line) and are written atomically; a
cache that cannot be read or written, a non-Linux system or any failure leaves RapidOCR's own
loading as it was. ``SEMV_ONNX_CACHE=0`` turns it off. Not from the papers.
"""

from __future__ import annotations

import hashlib
import logging
import platform
from pathlib import Path
from typing import Any, Final

__all__ = ["configured_folder", "enabled", "optimized_model", "use_optimized_models"]

logger = logging.getLogger(__name__)

SECTIONS: Final = ("Det", "Cls", "Rec")


def enabled(switch: bool) -> bool:
    """``switch`` (``SEMV_ONNX_CACHE``), and False where this is not Linux (the CPU flags key
    the cache)."""
    return switch and _cpu_flags() is not None


def configured_folder() -> Path | None:
    """Where this process's environment keeps optimised graphs (``cache_dir()/onnx``); None
    when the cache is off (``SEMV_ONNX_CACHE=0``, or not Linux)."""
    from semv._environment import environment

    env = environment()
    return env.cache_root / "onnx" if enabled(env.onnx_cache) else None


def _cpu_flags() -> str | None:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith(("flags", "Features")):
                    return " ".join(sorted(line.split(":", 1)[1].split()))
    except OSError:
        return None
    return None


def _session_options(threads: int) -> Any:
    """RapidOCR's session options for ONNX Runtime (``OrtInferSession._init_sess_opts`` with
    semv's configuration: its memory arena off, one intra-op thread)."""
    from onnxruntime import GraphOptimizationLevel, SessionOptions

    options = SessionOptions()
    options.log_severity_level = 4
    options.enable_cpu_mem_arena = False
    options.graph_optimization_level = GraphOptimizationLevel.ORT_ENABLE_ALL
    if threads > 0:
        options.intra_op_num_threads = threads
    return options


def optimized_model(original: Path, sha256: str | None, threads: int, folder: Path) -> Path | None:
    """The optimised copy of ``original`` in the cache ``folder``, made now if missing; None
    when it cannot be made (the caller then loads ``original`` as before)."""
    import onnxruntime

    from semv.atomic import atomic_target

    st = original.stat()
    key = "|".join(
        [
            str(original.resolve()),
            str(st.st_size),
            str(st.st_mtime_ns),
            onnxruntime.__version__,
            platform.machine(),
            _cpu_flags() or "",
        ]
    )
    target = folder / f"{original.stem}-{hashlib.sha256(key.encode()).hexdigest()[:20]}.onnx"
    if target.is_file():
        return target
    if sha256 is None or hashlib.sha256(original.read_bytes()).hexdigest() != sha256.lower():
        return None  # RapidOCR checks and reports it, as before
    options = _session_options(threads)
    with atomic_target(target, mode=0o644) as tmp:
        options.optimized_model_filepath = str(tmp)
        onnxruntime.InferenceSession(
            str(original), sess_options=options, providers=["CPUExecutionProvider"]
        )
    return target


def use_optimized_models(engine: Any, threads: int, folder: Path | None) -> None:
    """Point each of ``engine``'s ONNX Runtime sections that loads RapidOCR's default model at
    the optimised copy cached in ``folder`` (``model_path``, a RapidOCR setting), before its
    session is created. Leaves a section as it is when anything fails, and every section when
    ``folder`` is None (the cache is off)."""
    if folder is None:
        return
    try:
        from rapidocr.inference_engine.base import FileInfo, InferSession

        root = Path(str(engine.cfg.Global.model_root_dir))
        for name in SECTIONS:
            section = engine.cfg[name]
            if section.get("model_path") is not None:
                continue
            if str(section.engine_type.value) != "onnxruntime":
                continue
            info = InferSession.get_model_url(
                FileInfo(
                    engine_type=section.engine_type,
                    ocr_version=section.ocr_version,
                    task_type=section.task_type,
                    lang_type=section.lang_type,
                    model_type=section.model_type,
                )
            )
            original = root / Path(str(info["model_dir"])).name
            if not original.is_file():
                continue
            found = optimized_model(original, info.get("SHA256"), threads, folder)
            if found is not None:
                section.model_path = str(found)
    except Exception:  # any surprise: RapidOCR loads its own files, as before
        logger.debug("optimised ONNX graphs not used", exc_info=True)
