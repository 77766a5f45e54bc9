"""The suite's own tools (issue 45): the tier markers every test gets from what it uses, the choice of
the live tests' database, the assertion count that must not fall, and the run's slowest tests."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import textwrap
import time
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
file_durations = script("file_durations")
app_starts = script("app_starts")


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


def test_a_live_apps_start_is_recorded_once_and_summed(tmp_path, monkeypatch, capsys):
    """tests/support/live_app.py writes one line per app process when it stops it (a second stop adds
    nothing); scripts/app_starts.py sums them and names the settings started more than once."""
    from tests.support import live_app

    monkeypatch.setattr(live_app, "ROOT", tmp_path)
    proc = subprocess.Popen([sys.executable, "-c", "import time; sum(range(10**7)); time.sleep(60)"])
    env = {"ARENA_ENGINE": "dummy", "ARENA_DB_PATH": "x", "PATH": os.environ["PATH"]}
    app = live_app.LiveApp(proc, "http://127.0.0.1:1", 1, tmp_path, tmp_path / "log", env, 12.5, "tests/test_x.py::t")
    time.sleep(0.5)
    app.stop()
    app.stop()
    [line] = [json.loads(x) for x in (tmp_path / "artifacts" / "app-starts.jsonl").read_text().splitlines()]
    assert line["serve_s"] == 12.5 and line["by"] == "tests/test_x.py::t" and line["cpu_s"] > 0
    assert line["settings"] == {"ARENA_ENGINE": "dummy"} or "ARENA_ENGINE" in os.environ  # its own settings only
    twice = [line, {**line, "cpu_s": 3.0, "by": "tests/test_y.py::u"}]
    lines = app_starts.summary(twice).splitlines()
    assert lines[0] == f"app starts: 2, 25 s to serve in all, {line['cpu_s'] + 3.0:.0f} CPU s in their lives"
    assert (
        lines[-1].startswith("started 2 times with the same settings:") and "tests/test_y.py::u" in lines[1]
    )  # most CPU first


def junit(path: Path, cases: list[tuple[str, float]]) -> Path:
    body = "".join(f'<testcase classname="{c}" name="t{k}" time="{t}"/>' for k, (c, t) in enumerate(cases))
    path.write_text(f"<testsuites><testsuite>{body}</testsuite></testsuites>")
    return path


def test_each_files_time_is_the_sum_of_its_tests_and_unmeasured_files_keep_theirs(tmp_path):
    for name in ("tests/test_a.py", "tests/e2e/test_b.py", "tests/test_kept.py"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("")
    xml = junit(
        tmp_path / "junit-unit.xml",
        [("tests.test_a", 1.5), ("tests.test_a.TestGroup", 2.0), ("tests.e2e.test_b", 30.0), ("tests.test_gone", 9.0)],
    )
    times = file_durations.times_by_file([xml, tmp_path / "junit-absent.xml"], tmp_path)
    assert times == {"tests/test_a.py": [1.5, 2.0], "tests/e2e/test_b.py": [30.0]}  # a vanished file is not one
    old = {"tests/test_a.py": 99.0, "tests/test_kept.py": 12.0, "tests/test_deleted.py": 50.0}
    table = file_durations.updated_table(old, times, tmp_path)
    assert list(table.items()) == [
        ("tests/e2e/test_b.py", 30.0),
        ("tests/test_kept.py", 12.0),
        ("tests/test_a.py", 3.5),
    ]


def test_a_ci_logs_durations_lines_give_each_files_slowest_phases(tmp_path):
    (tmp_path / "tests" / "e2e").mkdir(parents=True)
    for name in ("tests/test_a.py", "tests/e2e/test_b.py"):
        (tmp_path / name).write_text("")
    log = """============================= slowest 25 durations =============================
> 56.07s call     tests/test_a.py::test_one[x-1]
21.83s setup    tests/test_a.py::test_two
0.5s teardown tests/e2e/test_b.py::test_three
> 49.73s call     tests/test_gone.py::test_four
    45.7 s  live  tests.test_a::test_one
"""
    assert file_durations.times_from_log(log, tmp_path) == {
        "tests/test_a.py": [56.07, 21.83],
        "tests/e2e/test_b.py": [0.5],
    }


def test_the_prediction_replays_xdists_file_scheduling():
    # one worker: the sum; two workers each take a file, and the worker whose file has 2 or fewer tests
    # left takes the next at once (xdist's refill rule), so the 1-test file's worker also gets the third
    assert file_durations.predict_wall([[1.0, 2.0], [4.0]], 1) == 7.0
    assert file_durations.predict_wall([[10.0], [1.0, 1.0, 1.0, 1.0], [5.0]], 2) == 15.0
    # a long file handed out last runs alone at the end; handed out first it runs beside the short ones
    # (its worker, with one test left, also takes a short file at once: 20 + 6, the other 18)
    short, long = [[2.0, 2.0, 2.0]] * 4, [[20.0]]
    assert file_durations.predict_wall(short + long, 2) == 32.0
    assert file_durations.predict_wall(long + short, 2) == 26.0
    times = {"tests/test_a.py": [3.0] * 5, "tests/test_b.py": [20.0], "tests/test_c.py": [1.0, 1.0]}
    assert file_durations.orders(times) == {
        "collection order": ["tests/test_a.py", "tests/test_b.py", "tests/test_c.py"],
        "most tests first (xdist's default)": ["tests/test_a.py", "tests/test_c.py", "tests/test_b.py"],
        "longest first": ["tests/test_b.py", "tests/test_a.py", "tests/test_c.py"],
    }


class Item:
    """What the ordering reads of a collected test: its file."""

    def __init__(self, path: Path, name: str) -> None:
        self.path, self.name = path, name


def test_files_run_longest_first_and_an_unknown_file_as_the_median(tmp_path):
    from tests.support.schedule import load_table, longest_first

    def items(name: str, n: int) -> list[Item]:
        return [Item(tmp_path / "tests" / name, f"{name}::{k}") for k in range(n)]

    collected = items("test_a.py", 2) + items("test_new.py", 2) + items("test_b.py", 1) + items("test_c.py", 3)
    (tmp_path / "durations.json").write_text(
        '{"tests/test_a.py": 1.0, "tests/test_b.py": 40.0, "tests/test_c.py": 5.0}'
    )
    table = load_table(tmp_path / "durations.json")
    ordered = [i.name for i in longest_first(collected, table, tmp_path)]
    assert ordered == [
        "test_b.py::0",
        *(f"test_new.py::{k}" for k in range(2)),  # the median, 5 s: tied with test_c, collected before it
        *(f"test_c.py::{k}" for k in range(3)),
        *(f"test_a.py::{k}" for k in range(2)),
    ]
    assert load_table(tmp_path / "missing.json") == {}
    assert [i.name for i in longest_first(collected, {}, tmp_path)] == [i.name for i in collected]


ORDERED_PROJECT = {
    "conftest.py": """
from pathlib import Path
from tests.support.schedule import load_table, longest_first

def pytest_collection_modifyitems(items):
    root = Path(__file__).parent
    items[:] = longest_first(items, load_table(root / "durations.json"), root)
""",
    "durations.json": '{"test_b.py": 30.0, "test_c.py": 20.0, "test_a.py": 1.0}',
    "test_a.py": "from started import start\n" + "".join(f"def test_{k}():\n    start(__file__)\n" for k in range(4)),
    "test_b.py": "from started import start\n\ndef test_0():\n    start(__file__)\n",
    "test_c.py": "from started import start\n" + "".join(f"def test_{k}():\n    start(__file__)\n" for k in range(2)),
    "started.py": """
import os, time
from pathlib import Path

def start(test_file):
    with open(Path(test_file).with_name("started.log"), "a") as log:
        log.write(Path(test_file).stem + "\\n")
    time.sleep(1.5)
""",
}


def first_files_started(folder: Path, *options: str) -> set[str]:
    """The two files the two workers of `pytest -n 2 --dist loadfile` start with, in `folder`."""
    (folder / "started.log").unlink(missing_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_XDIST")}
    env["PYTHONPATH"] = f"{ROOT}{os.pathsep}{folder}"
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "2", "--dist", "loadfile", *options],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return set((folder / "started.log").read_text().split()[:2])


def test_xdist_hands_out_files_in_our_order_only_without_its_own_reordering(tmp_path):
    """scripts/test.sh passes --no-loadscope-reorder: by default xdist's loadfile sorts the files by
    their number of tests (LoadScopeScheduling.schedule), and the longest-first order is lost."""
    for name, text in ORDERED_PROJECT.items():
        (tmp_path / name).write_text(textwrap.dedent(text))
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    assert first_files_started(tmp_path, "--no-loadscope-reorder") == {"test_b", "test_c"}
    assert first_files_started(tmp_path) == {"test_a", "test_c"}  # most tests first: 4, 2, then 1
    test_sh = (ROOT / "scripts" / "test.sh").read_text()
    assert test_sh.count("--dist loadfile --no-loadscope-reorder") == 2  # the unit and the live tier
