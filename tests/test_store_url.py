"""A store URL is printed only through ``display_url``: its password is masked in every form
(``user:pass@`` and ``?password=``), and a store that cannot be opened is a user condition
(exit 2), named without its password."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from semv.cli import app
from semv.errors import StoreError
from semv.store import Store, display_url

SECRET = "s3cretPW"


@pytest.mark.parametrize(
    "url",
    [
        f"postgresql+psycopg://pg:{SECRET}@db.example/semv",
        f"postgresql://pg:{SECRET}@db.example:5432/semv?sslmode=require",
        f"postgresql+psycopg://pg@db.example/semv?password={SECRET}",
        f"postgresql://pg@db.example/semv?sslmode=require&password={SECRET}&application_name=x",
        f"postgresql://pg@/semv?host=/run/pg&PASSWORD={SECRET}",
    ],
)
def test_display_url_masks_the_password_in_every_form(url: str) -> None:
    shown = display_url(url)
    assert SECRET not in shown
    assert "db.example" in shown or "/run/pg" in shown  # the rest stays readable
    assert "***" in shown


def test_display_url_leaves_a_url_without_password_alone() -> None:
    assert display_url("sqlite:////tmp/x/semv.db") == "sqlite:////tmp/x/semv.db"
    assert display_url("postgresql://pg@db/semv?sslmode=require") == (
        "postgresql://pg@db/semv?sslmode=require"
    )


def test_a_store_that_cannot_be_opened_exits_2_without_its_password(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import uvicorn

    monkeypatch.setattr(uvicorn, "run", lambda *_a, **_k: pytest.fail("serve started"))
    url = f"postgresql://pg:{SECRET}@/semv?host={tmp_path}&password={SECRET}"
    with pytest.raises(StoreError) as caught:
        Store(tmp_path, url=url)
    assert caught.value.exit_code == 2
    assert SECRET not in str(caught.value)
    runner = CliRunner()
    for command in (["runs"], ["runs", "--interrupted"], ["show", "r1"], ["serve"]):
        done = runner.invoke(app, [*command, "--store", url, "--data-dir", str(tmp_path)])
        assert done.exit_code == 2, (command, done.output)
        assert SECRET not in done.output + done.stderr, command


def test_an_unparseable_store_url_is_named_without_its_password(tmp_path: Path) -> None:
    url = f"nosuchdriver://pg:{SECRET}@host/db?password={SECRET}"
    done = CliRunner().invoke(app, ["runs", "--store", url, "--data-dir", str(tmp_path)])
    assert done.exit_code == 2, done.output
    assert SECRET not in done.output + done.stderr
    assert "nosuchdriver" in done.stderr


@pytest.mark.postgres
def test_runs_on_an_empty_postgres_store_masks_both_password_forms(
    pg_url: str, tmp_path: Path
) -> None:
    # trust authentication ignores the password: the store opens, and `runs` names it
    with_userinfo = pg_url.replace("postgres@", f"postgres:{SECRET}@", 1)
    with_query = f"{pg_url}&password={SECRET}"
    runner = CliRunner()
    for url in (with_userinfo, with_query):
        for flags in ([], ["--interrupted"], ["--ids"]):
            done = runner.invoke(app, ["runs", *flags, "--store", url, "--data-dir", str(tmp_path)])
            assert done.exit_code == 0, done.output
            assert "no " in done.stderr  # "no runs yet in …" / "no interrupted runs in …"
            assert SECRET not in done.output + done.stderr, (url, flags)
