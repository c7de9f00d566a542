"""One reader of the environment: ``semv.config`` reads every variable semv uses
(``Environment``, ``environment_variable``, ``child_environment``), and the TOML file is named
by the caller (``Settings.from_file``), never by module state or a stray ``semv.toml``."""

from __future__ import annotations

import ast
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from semv.config import (
    ClashConfig,
    Settings,
    child_environment,
    config_file,
    environment,
    environment_variable,
    load_settings,
)
from semv.errors import ConfigError

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "semv"
READER = SRC / "_environment.py"


def _environment_reads(text: str, name: str) -> list[str]:
    """Where the module ``text`` reads the process environment: ``os.environ``/``os.environb``,
    ``os.getenv``/``os.putenv``/``os.unsetenv``, or any of them imported from ``os``."""
    names = {"environ", "environb", "getenv", "getenvb", "putenv", "unsetenv"}
    found = []
    for node in ast.walk(ast.parse(text, filename=name)):
        if (
            isinstance(node, ast.Attribute)
            and node.attr in names
            and isinstance(node.value, ast.Name)
            and node.value.id == "os"
        ):
            found.append(f"{name}:{node.lineno}: os.{node.attr}")
        elif isinstance(node, ast.ImportFrom) and node.module == "os":
            found += [
                f"{name}:{node.lineno}: from os import {a.name}"
                for a in node.names
                if a.name in names
            ]
    return found


def test_no_module_but_the_configurations_reader_reads_the_environment() -> None:
    """``semv._environment`` (re-exported by ``semv.config``) is the one reader; the constants'
    ``SEMV_<SECTION>__<FIELD>`` variables are read by pydantic-settings for ``Settings``."""
    readers = [
        where
        for path in sorted(SRC.rglob("*.py"))
        if path != READER
        for where in _environment_reads(
            path.read_text(encoding="utf-8"), str(path.relative_to(SRC.parent))
        )
    ]
    assert readers == []
    assert _environment_reads(READER.read_text(encoding="utf-8"), "_environment.py") != []


def test_the_scan_finds_each_way_of_reading() -> None:
    text = (
        "import os\nfrom os import getenv, path\n"
        "a = os.environ.get('X')\nb = os.getenv('Y')\nc = {**os.environ}\nd = getenv('Z')\n"
    )
    assert sorted(_environment_reads(text, "probe.py")) == [
        "probe.py:2: from os import getenv",
        "probe.py:3: os.environ",
        "probe.py:4: os.getenv",
        "probe.py:5: os.environ",
    ]


@pytest.mark.parametrize(
    ("variable", "value", "field", "expected"),
    [
        ("SEMV_CACHE_DIR", "/srv/semv-cache", "cache_dir", Path("/srv/semv-cache")),
        ("SEMV_MODELS_DIR", "/srv/models", "models_dir", Path("/srv/models")),
        ("SEMV_OCR_WORKER", "0", "ocr_worker", False),
        ("SEMV_NLP_WORKER", "1", "nlp_worker", True),
        ("SEMV_LLM_PREFETCH", "0", "llm_prefetch", False),
        ("SEMV_EMBED_CACHE", "0", "embed_cache", False),
        ("SEMV_ONNX_CACHE", "0", "onnx_cache", False),
        ("SEMV_PLOT_CACHE", "0", "plot_cache", False),
        ("SEMV_HEAD_LOG", "/srv/heads.log", "head_log", Path("/srv/heads.log")),
        ("SEMV_HEAD_KEY", "k", "head_key", "k"),
        ("SEMV_ARTIFACTS_URL", "file:///srv/bucket", "artifacts_url", "file:///srv/bucket"),
        ("SEMV_CONFIG", "/etc/semv.toml", "config", Path("/etc/semv.toml")),
        ("RAY_ADDRESS", "10.0.0.2:6379", "ray_address", "10.0.0.2:6379"),
        ("SEARXNG_URL", "http://127.0.0.1:8888", "searxng_url", "http://127.0.0.1:8888"),
        ("XDG_CACHE_HOME", "/srv/xdg", "xdg_cache_home", Path("/srv/xdg")),
    ],
)
def test_each_field_takes_its_variable(
    monkeypatch: pytest.MonkeyPatch, variable: str, value: str, field: str, expected: object
) -> None:
    monkeypatch.setenv(variable, value)
    assert getattr(environment(), field) == expected
    assert getattr(Settings().environment, field) == expected
    if variable != "SEMV_CONFIG":  # that one names a file the command then reads
        assert getattr(load_settings(None).environment, field) == expected


def test_unset_and_empty_variables_take_the_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("SEMV_CACHE_DIR", "SEMV_MODELS_DIR", "SEMV_OCR_WORKER", "SEMV_LLM_PREFETCH"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", "/srv/xdg")
    monkeypatch.setenv("SEMV_EMBED_CACHE", "")
    env = environment()
    assert env.ocr_worker is None and env.llm_prefetch and env.embed_cache
    assert env.cache_root == Path("/srv/xdg/semv")
    assert env.models_root == Path("/srv/xdg/semv/models")
    monkeypatch.setenv("SEMV_CACHE_DIR", "/srv/c")
    assert environment().cache_root == Path("/srv/c")


def test_a_bad_switch_is_an_error_naming_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SEMV_OCR_WORKER", "maybe")
    with pytest.raises(ConfigError, match=r"SEMV_OCR_WORKER='maybe': expected 1 or 0"):
        environment()
    with pytest.raises(ConfigError, match="SEMV_OCR_WORKER"):
        load_settings(None)


def test_a_bad_switch_stops_the_command_with_one_line(tmp_path: Path) -> None:
    env = child_environment(PYTHONPATH=str(ROOT / "src"), SEMV_NLP_WORKER="yes please")
    done = subprocess.run(
        [sys.executable, "-m", "semv", "verify", str(ROOT / "examples" / "lyon-flood"), "--json"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.strip().splitlines() == [
        "error: environment: SEMV_NLP_WORKER='yes please': expected 1 or 0"
    ]


def test_the_environment_is_not_a_constant(monkeypatch: pytest.MonkeyPatch) -> None:
    """Where caches live changes no verdict: the environment is left out of the dump that
    settings hashes are taken of, and a file cannot set it."""
    monkeypatch.setenv("SEMV_CACHE_DIR", "/srv/a")
    first = Settings().model_dump_json()
    monkeypatch.setenv("SEMV_CACHE_DIR", "/srv/b")
    assert Settings().model_dump_json() == first
    assert "environment" not in Settings().model_dump()
    with pytest.raises(Exception, match="environment variables"):
        Settings.model_validate({"environment": {"cache_dir": "/srv/c"}})


def test_secrets_and_child_environments(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SEMV_TEST_SECRET", "s3cret")
    monkeypatch.setenv("SEMV_TEST_EMPTY", "")
    assert environment_variable("SEMV_TEST_SECRET") == "s3cret"
    assert environment_variable("SEMV_TEST_EMPTY") is None
    child = child_environment(HOME="/tmp/profile")
    assert child["HOME"] == "/tmp/profile" and child["SEMV_TEST_SECRET"] == "s3cret"
    monkeypatch.setenv("SEMV_HEAD_KEY", "head-key-7f3a")
    assert environment().head_key == "head-key-7f3a"
    assert "head-key-7f3a" not in repr(environment())  # a key is never printed with the settings


# --- the TOML file is the caller's ------------------------------------------------------


def test_a_bare_settings_reads_no_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A stray ``semv.toml`` in the working directory changes only what a command loads
    (``load_settings``, documented), never a bare ``Settings()``."""
    (tmp_path / "semv.toml").write_text("[clash]\nthreshold = 0.61\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("SEMV_CONFIG", raising=False)
    monkeypatch.delenv("SEMV_CLASH__THRESHOLD", raising=False)
    assert Settings().clash.threshold == ClashConfig().threshold
    assert config_file() == Path("semv.toml")
    assert load_settings().clash.threshold == 0.61


def test_the_file_is_named_by_option_then_variable_then_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("SEMV_CONFIG", raising=False)
    assert config_file() is None
    (tmp_path / "semv.toml").write_text("")
    assert config_file() == Path("semv.toml")
    monkeypatch.setenv("SEMV_CONFIG", str(tmp_path / "named.toml"))
    assert config_file() == tmp_path / "named.toml"
    assert config_file(tmp_path / "option.toml") == tmp_path / "option.toml"


def test_files_load_in_parallel_threads_without_crossing(tmp_path: Path) -> None:
    """Each load takes its own file: no module state carries the path between threads."""
    files = []
    for i in range(8):
        path = tmp_path / f"c{i}.toml"
        path.write_text(f"[clash]\nthreshold = {0.5 + i / 100}\n")
        files.append(path)
    got: dict[int, float] = {}
    errors: list[BaseException] = []
    start = threading.Barrier(len(files))

    def load(i: int) -> None:
        try:
            start.wait()
            for _ in range(5):
                got[i] = Settings.from_file(files[i]).clash.threshold
                assert got[i] == 0.5 + i / 100
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=load, args=(i,)) for i in range(len(files))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert got == {i: 0.5 + i / 100 for i in range(len(files))}


def test_file_then_environment_and_a_fit_reads_no_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "fit.toml"
    path.write_text("[clash]\nthreshold = 0.6\nmargin = 0.2\n")
    monkeypatch.setenv("SEMV_CLASH__THRESHOLD", "0.65")
    both = Settings.from_file(path)
    assert (both.clash.threshold, both.clash.margin) == (0.65, 0.2)
    fit = Settings.from_file(path, read_environment=False)
    assert (fit.clash.threshold, fit.clash.margin) == (0.6, 0.2)
    assert Settings.shipped().clash.threshold == ClashConfig().threshold
    assert Settings.from_file(None, read_environment=False) == Settings.shipped()
    typo = tmp_path / "typo.toml"
    typo.write_text("[clsh]\nthreshold = 0.6\n")
    with pytest.raises(ConfigError, match=r"typo\.toml: invalid configuration.*clsh"):
        Settings.from_file(typo, read_environment=False)
    with pytest.raises(ConfigError, match=r"typo\.toml"):
        Settings.from_file(typo)
    bad = tmp_path / "bad.toml"
    bad.write_text("[decision]\nsupported = 0.40\n")  # below weakly_supported
    with pytest.raises(ConfigError, match=r"bad\.toml: invalid configuration"):
        Settings.from_file(bad, read_environment=False)


def test_a_fit_script_takes_its_config_and_ignores_a_stray_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``scripts/fit_calibration.py --config FILE`` stops with a one-line error naming a
    missing file; without ``--config`` it fits under the shipped defaults, whatever
    ``./semv.toml`` and ``SEMV_*`` say."""
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import fit_calibration
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    train = tmp_path / "train.jsonl"
    train.write_text("")
    missing = tmp_path / "missing.toml"
    assert fit_calibration.main(["--train", str(train), "--config", str(missing)]) == 2
    assert f"{missing}: configuration file not found" in capsys.readouterr().err
    (tmp_path / "semv.toml").write_text("[clash]\nthreshold = 0.61\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SEMV_CLASH__THRESHOLD", "0.62")
    seen: list[Settings] = []

    def verdicts(path: Path, settings: Settings) -> list[object]:
        seen.append(settings)
        raise SystemExit(0)  # stop before the fit: the settings are what is checked

    monkeypatch.setattr(fit_calibration, "cosmos_verdicts", verdicts)
    with pytest.raises(SystemExit):
        fit_calibration.main(["--train", str(train), "--out", str(tmp_path / "out.json")])
    assert [s.clash.threshold for s in seen] == [ClashConfig().threshold]


@pytest.mark.parametrize(
    ("module", "arguments"),
    [
        ("semv.perception.ocr_worker", ["--onnx-cache", "off"]),
        ("semv.nlp.worker", ["--cache-dir", "CACHE"]),
    ],
)
def test_a_worker_is_told_its_folders_and_reads_no_environment(
    tmp_path: Path, module: str, arguments: list[str]
) -> None:
    """A worker process starts while its parent imports semv; it is handed what it needs of
    the parent's ``Environment`` on its command line, so it never imports ``semv.config``
    (pydantic-settings: ~0.2 s of CPU on the worker's own start)."""
    args = [a.replace("CACHE", str(tmp_path)) for a in arguments]
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", module, *args],
        input=b"\n",  # released at once, after loading
        env=child_environment(PYTHONPATH=str(ROOT / "src")),
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-500:]
    imported = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.decode().splitlines()}
    assert "semv.perception._ocr_engines" in imported or "semv.nlp.entities" in imported
    assert not {"semv.config", "pydantic_settings"} & imported
    if module == "semv.nlp.worker":  # its warm-up opened the gazetteer in the folder given
        assert list(tmp_path.glob("gazetteer-*.sqlite3"))
