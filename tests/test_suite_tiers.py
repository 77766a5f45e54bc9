"""The suite's own tools (issue 45): the tier markers every test gets from what it uses, the choice of
the live tests' database, the assertion count that must not fall, and the run's slowest tests."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from types import ModuleType

import pytest

from tests.support import stores

ROOT = Path(__file__).resolve().parents[1]


def script(name: str) -> ModuleType:
    """A module of scripts/ (not a package), loaded from its file."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


count_asserts = script("count_asserts")
slowest_tests = script("slowest_tests")


RECORD_MARKERS = """
import sys, pytest

class Record:
    def pytest_collection_finish(self, session):
        for item in session.items:
            tiers = sorted(m.name for m in item.iter_markers() if m.name in ("live", "e2e", "vllm", "alone"))
            print("TIERS", item.nodeid, ",".join(tiers))

sys.exit(pytest.main(["--collect-only", "-q", "-p", "no:cacheprovider", *sys.argv[1:]], plugins=[Record()]))
"""


def tiers_of(*paths: str) -> dict[str, set[str]]:
    """Test id -> its tier markers, as a fresh pytest collects `paths` (one interpreter for all)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_XDIST")}
    done = subprocess.run(
        [sys.executable, "-c", RECORD_MARKERS, *paths], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stdout + done.stderr
    found = [line.split(" ")[1:] for line in done.stdout.splitlines() if line.startswith("TIERS ")]
    return {test: set(filter(None, tiers[0].split(","))) if tiers else set() for test, *tiers in found}


def test_tier_markers_come_from_what_a_test_uses():
    files = ("tests/test_submit_once_live.py", "tests/e2e/test_xss_e2e.py", "tests/test_eta.py")
    tiers = tiers_of(*files, "tests/test_engine_vllm.py")
    by_file: dict[str, set[frozenset[str]]] = {}
    for test, names in tiers.items():
        by_file.setdefault(test.split("::")[0], set()).add(frozenset(names))
    assert by_file["tests/test_submit_once_live.py"] == {frozenset({"live"})}  # imports shared_app
    assert by_file["tests/e2e/test_xss_e2e.py"] == {frozenset({"live", "e2e"})}
    assert by_file["tests/test_eta.py"] == {frozenset()}
    # Only the tests that take the server's fixture wait for it; the mapping tests in the same file do not.
    assert by_file["tests/test_engine_vllm.py"] == {frozenset({"vllm"}), frozenset()}
    assert tiers["tests/test_engine_vllm.py::test_the_app_paths_go_to_the_engine"] == {"vllm"}


ALONE = ("tests/test_load.py", "tests/test_flood_doors_live.py", "tests/test_blind_closed_live.py")


def test_the_tests_that_measure_latency_run_alone():
    """scripts/test.sh runs the live tests on two workers, then those marked `alone` with none beside
    them: the load test's, the floods' and a first token's time bounds measure the app."""
    tiers = tiers_of(*ALONE, "tests/e2e/test_compare_speed_e2e.py", "tests/test_security.py")
    files = {test.split("::")[0]: names for test, names in tiers.items()}
    assert all(files[f] == {"live", "alone"} for f in ALONE), files
    assert files["tests/e2e/test_compare_speed_e2e.py"] == {"live", "e2e", "alone"}
    assert files["tests/test_security.py"] == {"live"}  # many calls, no time bound: beside the others


@pytest.mark.parametrize(
    "setting,pg,expected",
    [
        ("", None, ["sqlite"]),
        ("", "postgresql+psycopg://pg/x", ["postgresql"]),
        ("sqlite", "postgresql+psycopg://pg/x", ["sqlite"]),
        ("SQLite, postgresql", None, ["sqlite", "postgresql"]),
    ],
)
def test_the_live_database_is_postgresql_where_a_server_runs_unless_named(monkeypatch, setting, pg, expected):
    monkeypatch.setenv(stores.LIVE_DB_ENV, setting)
    if pg:
        monkeypatch.setenv(stores.PG_ENV, pg)
    else:
        monkeypatch.delenv(stores.PG_ENV, raising=False)
    assert stores.live_backends() == expected


@pytest.mark.parametrize("setting", ["mysql", "sqlite,oracle", " , "])
def test_an_unknown_live_database_is_refused_by_name(monkeypatch, setting):
    monkeypatch.setenv(stores.LIVE_DB_ENV, setting)
    with pytest.raises(pytest.UsageError, match=stores.LIVE_DB_ENV):
        stores.live_backends()


def test_every_kind_of_assertion_is_counted():
    source = textwrap.dedent(
        """
        import pytest
        from playwright.sync_api import expect

        def test_a(page, frame):
            assert 1 + 1 == 2
            with pytest.raises(ValueError):
                int("x")
            pytest.warns(UserWarning, lambda: None)
            expect(page.locator("h1")).to_be_visible()
            torch.testing.assert_close(frame, frame)
            self.assertEqual(1, 1)
            print("not an assertion")
            raises = "not one either"
        """
    )
    counts = count_asserts.count_source(source)
    assert counts == {"assert": 1, "expected_raise": 2, "helper": 3}


def test_the_slowest_tests_are_read_across_tiers(tmp_path, capsys):
    (tmp_path / "junit-unit.xml").write_text(
        '<testsuites><testsuite><testcase classname="tests.test_a" name="test_fast" time="0.5"/>'
        '<testcase classname="tests.test_a" name="test_slow" time="42.0"><failure/></testcase>'
        "</testsuite></testsuites>"
    )
    (tmp_path / "junit-live.xml").write_text(
        '<testsuites><testsuite><testcase classname="tests.test_b" name="test_app" time="7.25"/></testsuite></testsuites>'
    )
    assert slowest_tests.main(["--top", "2", str(tmp_path / "junit-unit.xml"), str(tmp_path / "junit-live.xml")]) == 0
    out = capsys.readouterr().out.splitlines()
    assert "tier unit: 2 tests, 42 s of test time" in out and "tier live: 1 tests, 7 s of test time" in out
    slowest = out[out.index("slowest 2 of 3 tests (setup + call + teardown):") + 1 :]
    assert slowest == [
        "    42.0 s  unit  tests.test_a::test_slow  [failure]",
        "     7.2 s  live  tests.test_b::test_app",
    ]
