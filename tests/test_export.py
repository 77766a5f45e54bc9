"""Export to CSV/JSONL and import back: a round trip loses nothing; the CLI does the same."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from arena.files.export import EXPORT_COLUMNS, OPTIONAL_COLUMNS, export_rows, export_to_path, import_file, main
from arena.rating import blind
from arena.store import RATING_COLUMNS, Store
from common.errors import UserError
from tests.support.stores import BACKENDS, open_store

ROOT = Path(__file__).resolve().parents[1]
IDS = ("study_id", "item_id", "output_id")
AWKWARD = [
    'comma, "quotes"\nand a newline\r\n',
    "line\u2028separator",
    "  padded  ",
    "NA",
    "null",
    "",
    "中文，全角",
    "=1+1",
    "tab\there",
]


def fill(store: Store, close: bool = True) -> int:
    """A rated study, closed unless `close` is False (an open study's export is sealed: it does not import)."""
    sid = store.create_study(
        "round trip",
        methods=["BS-4", "TS-Temp"],
        settings={"TS-Temp": {"temperature": 0.7}},
        samples_per_method=2,
        max_new_tokens=8,
        base_seed=3,
    )
    iids = store.add_items(
        sid,
        [
            {"prompt": AWKWARD[k % len(AWKWARD)] or "p", "scenario": "s", "language": "en", "raw": k % 2 == 1}
            for k in range(3)
        ],
    )
    for n, iid in enumerate(iids):
        store.add_output(
            iid,
            "BS-4",
            0,
            text=AWKWARD[n],
            settings={"num_beams": 4, "method": "BS-4"},
            seed=None,
            model="m",
            new_tokens=8,
            latency_ms=0.1 + 0.2,
            ttft_ms=None,
            tokens_per_s=1 / 3,
            prompt_tokens=11,
            finish_reason="eos",
        )
        for s in range(2):
            store.add_output(
                iid,
                "TS-Temp",
                s,
                text=AWKWARD[n + 3 + s],
                settings={"temperature": 0.7},
                seed=3 + s * 2**62,
                model="m",
                new_tokens=123456,
                latency_ms=12.345678901234,
                ttft_ms=1e-9,
                tokens_per_s=2.5,
            )
    for rater in ("ann", "Bob Smith"):
        for index in range(1, 4):
            view, _ = blind.open_item(store, rater, sid, index)
            scores = {r.label: {"coherence": 1 + index, "informativeness": 2, "naturalness": 5} for r in view.responses}
            blind.submit(store, rater, view.item, scores, {"A": AWKWARD[index], "B": "ok"})
    if close:
        store.set_study_state(sid, "closed", allowed_from=("open",))
    return sid


def strip_ids(rows):
    return [{k: v for k, v in r.items() if k not in IDS} for r in rows]


@pytest.mark.parametrize("fmt", ["csv", "jsonl"])
@pytest.mark.parametrize("backend", BACKENDS)
def test_round_trip_loses_nothing(tmp_path, backend, fmt):
    source, close_source = open_store("sqlite", tmp_path / "a")
    target, close_target = open_store(backend, tmp_path / "b")
    try:
        fill(source)
        first = tmp_path / f"first.{fmt}"
        assert export_to_path(source, first) == 2 * 3 * 3
        counts = import_file(target, first)
        assert counts == {
            "studies": 1,
            "items": 3,
            "outputs": 9,
            "ratings": 18,
            "skips": 0,
            "flags": 0,
            "guesses": 0,
            "votes": 0,
        }
        assert strip_ids(export_rows(target)) == strip_ids(export_rows(source))
        second = tmp_path / f"second.{fmt}"
        export_to_path(target, second)
        again = import_file(target, second)  # importing again changes nothing
        assert again["studies"] == again["items"] == again["outputs"] == 0
        assert target.count_ratings() == 18
        # The same grouping survives, whatever ids the target chose.
        a, b = export_rows(source), export_rows(target)
        for key in IDS:
            pairs = {(x[key], y[key]) for x, y in zip(a, b)}
            assert len(pairs) == len({x[key] for x in a}) == len({y[key] for y in b})
        assert {r["study_state"] for r in b} == {"closed"}
        assert blind.reveal(target, b[0]["study_id"]).empty  # assignments are not exported, ratings keep positions
        assert {r["position"] for r in b} == {0, 1, 2}
    finally:
        close_source()
        close_target()


def test_export_has_the_analysis_columns_first(tmp_path):
    store = Store(f"sqlite:///{tmp_path / 'a.db'}")
    fill(store)
    path = tmp_path / "x.csv"
    export_to_path(store, path)
    with open(path, newline="", encoding="utf-8") as fh:
        header = next(csv.reader(fh))
    assert tuple(header) == EXPORT_COLUMNS + OPTIONAL_COLUMNS and tuple(header[: len(RATING_COLUMNS)]) == RATING_COLUMNS
    jl = tmp_path / "x.jsonl"
    export_to_path(store, jl)
    first = json.loads(jl.read_text(encoding="utf-8").split("\n")[0])
    assert first["method"] in ("BS-4", "TS-Temp") and json.loads(first["settings"])


def test_bad_import_files_are_refused_and_nothing_is_stored(tmp_path):
    source = Store(f"sqlite:///{tmp_path / 'a.db'}")
    fill(source)
    good = tmp_path / "good.csv"
    export_to_path(source, good)
    lines = good.read_text(encoding="utf-8").splitlines(keepends=True)
    header = next(csv.reader([lines[0]]))
    col = header.index("coherence")
    rows = list(csv.reader(good.open(newline="", encoding="utf-8")))
    rows[-1][col] = "7"
    bad = tmp_path / "bad.csv"
    with open(bad, "w", newline="", encoding="utf-8") as fh:
        csv.writer(fh, lineterminator="\n").writerows(rows)
    target = Store(f"sqlite:///{tmp_path / 'b.db'}")
    with pytest.raises(UserError, match="coherence"):
        import_file(target, bad)
    (tmp_path / "other.csv").write_text("a,b\n1,2\n", encoding="utf-8")
    with pytest.raises(UserError, match="not an arena export"):
        import_file(target, tmp_path / "other.csv")
    with pytest.raises(UserError):
        import_file(target, tmp_path / "x.txt")
    assert target.count_ratings() == 0 and target.list_studies() == []


def test_cli_exports_and_imports(tmp_path, capsys):
    db = tmp_path / "a.db"
    store = Store(f"sqlite:///{db}")
    sid = fill(store)
    out = tmp_path / "cli.jsonl"
    assert main(["--database", f"sqlite:///{db}", "-o", str(out), "--study", str(sid)]) == 0
    assert len(out.read_text(encoding="utf-8").strip("\n").split("\n")) == 18
    assert main(["--database", f"sqlite:///{tmp_path / 'b.db'}", "--import", str(out)]) == 0
    assert Store(f"sqlite:///{tmp_path / 'b.db'}").count_ratings() == 18
    assert main(["--database", f"sqlite:///{db}", "-o", str(tmp_path / "x.txt")]) == 2
    assert "error:" in capsys.readouterr().err
    # as a real process, reading the database from the environment
    env = {"ARENA_DB_PATH": str(db), "PATH": "/usr/bin:/bin"}
    proc = subprocess.run(
        [sys.executable, "-m", "arena.files.export"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    rows = list(csv.DictReader(io.StringIO(proc.stdout, newline="")))
    assert len(rows) == 18 and {r["rater"] for r in rows} == {"ann", "Bob Smith"}


FORMULAS = ['=HYPERLINK("http://x","y")', "+1", "-2+3", "@SUM(A1)", "\tx", "'quoted", "''=both"]


def test_csv_cells_that_start_a_formula_are_escaped_and_come_back_exact(tmp_path):
    store = Store(f"sqlite:///{tmp_path / 'a.db'}")
    sid = store.create_study("formulas", methods=["BS-4", "TS-Temp"], max_new_tokens=8)
    iids = store.add_items(sid, [{"prompt": f, "scenario": "s"} for f in FORMULAS])
    for iid, f in zip(iids, FORMULAS):
        for m in ("BS-4", "TS-Temp"):
            store.add_output(iid, m, 0, text=f, settings={}, seed=1, model="m", new_tokens=1)
    for index in range(1, len(FORMULAS) + 1):
        view, _ = blind.open_item(store, FORMULAS[0], sid, index)  # even the rater's name starts with "="
        blind.submit(
            store,
            FORMULAS[0],
            view.item,
            {r.label: {"coherence": 3, "informativeness": 3, "naturalness": 3} for r in view.responses},
            {"A": FORMULAS[index - 1]},
        )
    store.set_study_state(sid, "closed", allowed_from=("open",))
    path = tmp_path / "x.csv"
    export_to_path(store, path)
    cells = [c for row in csv.reader(path.open(newline="", encoding="utf-8")) for c in row]
    assert not any(c.startswith(("=", "+", "-", "@", "\t")) for c in cells if c and not c.lstrip("-").isdigit())
    target = Store(f"sqlite:///{tmp_path / 'b.db'}")
    import_file(target, path)
    assert strip_ids(export_rows(target)) == strip_ids(export_rows(store))
    assert set(target.ratings_frame()["prompt"]) == set(FORMULAS)


def test_seeds_leave_the_server_only_once_the_study_is_closed(tmp_path):
    store = Store(f"sqlite:///{tmp_path / 'a.db'}")
    sid = fill(store, close=False)
    rows = export_rows(store)
    assert all(r["seed"] is None and r["base_seed"] is None and r["blind_seed"] is None for r in rows)
    store.set_study_state(sid, "closed", allowed_from=("open",))
    rows = export_rows(store)
    assert {r["base_seed"] for r in rows} == {3} and {r["seed"] for r in rows} >= {3}
    path = tmp_path / "closed.jsonl"
    export_to_path(store, path)
    target = Store(f"sqlite:///{tmp_path / 'b.db'}")
    import_file(target, path)
    [study] = target.list_studies()
    assert study.state == "closed" and study.base_seed == 3


def test_an_export_from_before_the_lifecycle_imports_and_is_not_published(tmp_path):
    store = Store(f"sqlite:///{tmp_path / 'a.db'}")
    fill(store)
    path = tmp_path / "new.csv"
    export_to_path(store, path)
    rows = list(csv.DictReader(path.open(newline="", encoding="utf-8")))
    old = tmp_path / "old.csv"  # as the previous version wrote it: no state, no version, no escaping
    with open(old, "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(EXPORT_COLUMNS)
        for r in rows:
            writer.writerow([r[c] for c in EXPORT_COLUMNS])
    target = Store(f"sqlite:///{tmp_path / 'b.db'}")
    assert import_file(target, old)["ratings"] == 18
    [study] = target.list_studies()
    assert study.state == "open"  # never published by an import
    assert set(target.outputs_frame()["text"]) == {r["text"] for r in rows}
