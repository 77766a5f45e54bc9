"""`python -m evaluation.human RATINGS.csv --json` on a real export (made through the store and the
blind tab's API) and on a minimal file; bad input gives one `error:` line and exit code 2."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from arena.files.export import export_to_path
from arena.rating import blind
from arena.store import Store
from evaluation.human import cli as hcli
from evaluation.human import columns as hcols
from evaluation.human import crossed
from evaluation.human import design as stats_design
from evaluation.human import stats as hs

ROOT = Path(__file__).resolve().parents[1]
METHODS = ("BS-4", "TS-Temp", "TS-Tilted")
QUALITY = {"BS-4": 4, "TS-Temp": 3, "TS-Tilted": 2}


def rated_store(path: Path) -> tuple[Store, int]:
    store = Store(f"sqlite:///{path}")
    sid = store.create_study(
        "cli study", methods=list(METHODS), settings={}, samples_per_method=1, max_new_tokens=8, base_seed=1
    )
    iids = store.add_items(
        sid, [{"prompt": f"prompt {k}", "scenario": "s", "language": "en", "raw": False} for k in range(6)]
    )
    for n, iid in enumerate(iids):
        for method in METHODS:
            store.add_output(
                iid,
                method,
                0,
                text=f"{method} answer {n}",
                settings={},
                seed=None,
                model="m",
                new_tokens=8,
                latency_ms=1.0,
                ttft_ms=None,
                tokens_per_s=8.0,
            )
    for r, rater in enumerate(("ann", "bob", "cy")):
        for index in range(1, 7):
            view, _ = blind.open_item(store, rater, sid, index)
            scores = {}
            for resp in view.responses:
                method = resp.text.split(" answer ")[0]
                q = QUALITY[method] + (index + r) % 2 - (1 if resp.label == "A" and r == 2 else 0)
                scores[resp.label] = {"coherence": q, "informativeness": 1 + (index * (r + 1)) % 5, "naturalness": 3}
            blind.submit(store, rater, view.item, scores)
    store.set_study_state(sid, "closed", allowed_from=("open",))  # an open study's export says no method
    return store, sid


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "evaluation.human", *args], cwd=ROOT, capture_output=True, text=True, timeout=300
    )


def test_cli_on_a_real_export(tmp_path):
    store, sid = rated_store(tmp_path / "a.db")
    path = tmp_path / "ratings.csv"
    assert export_to_path(store, path) == 6 * 3 * 3
    proc = run_cli(str(path), "--json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert list(out["studies"]) == [str(sid)]
    study = out["studies"][str(sid)]
    assert (study["n_items"], study["n_raters"], study["n_ratings"]) == (6, 3, 54)
    coh = study["dimensions"]["coherence"]
    frame = store.ratings_frame(sid)
    expected = hs.method_means(frame, ["coherence"]).set_index("method")
    for method in METHODS:
        m = coh["means"][method]
        assert m["mean"] == pytest.approx(expected.loc[method, "mean"]) and m["n_items"] == 6
        assert m["ci_low"] <= m["mean"] <= m["ci_high"]
    assert {(p["a"], p["b"]) for p in coh["pairwise"]} == {
        ("BS-4", "TS-Temp"),
        ("BS-4", "TS-Tilted"),
        ("TS-Temp", "TS-Tilted"),
    }
    first = next(p for p in coh["pairwise"] if (p["a"], p["b"]) == ("BS-4", "TS-Tilted"))
    assert set(first) >= {"a", "b", "diff", "ci_low", "ci_high", "p", "p_holm", "family", "scope", "df"}
    assert first["diff"] == pytest.approx(2.0, abs=0.2) and first["ci_low"] > 0 and first["p_holm"] >= first["p"]
    # p_holm is adjusted over one family: every pair x dimension, and `family` says so
    family = study["family"]
    assert family["tests"] == sum(p["p_holm"] is not None for d in study["dimensions"].values() for p in d["pairwise"])
    assert first["family"] == family["description"] and family["adjustment"] == "step-down max-T"
    assert study["methods"] == list(METHODS) and first["scope"] == crossed.SCOPE_ALL
    assert 0 <= coh["friedman_p"] < 0.05
    assert coh["agreement"] is not None
    pos = coh["position_effect"]
    assert pos["n_items"] == 6 and pos["ci_low"] <= pos["diff"] <= pos["ci_high"]
    assert coh["mixed_model"]["contrasts"] and "item" in coh["mixed_model"]["variance_components"]
    # the same numbers on a file with only the required columns
    minimal = tmp_path / "minimal.csv"
    pd.read_csv(path)[list(hcols.REQUIRED_COLUMNS)].to_csv(minimal, index=False)
    assert hcli.main([str(minimal), "--json", "--no-mixed"]) == 0


def test_cli_on_a_minimal_file(tmp_path, capsys):
    df = pd.concat(
        [
            stats_design.simulate(stats_design.Design(items=8, raters=2, methods=3), 1, study_id=7),
            stats_design.simulate(stats_design.Design(items=5, raters=2, methods=2), 2, study_id=9),
        ]
    )
    path = tmp_path / "minimal.csv"
    df.assign(extra="ignored")[[*hcols.REQUIRED_COLUMNS, "extra"]].to_csv(path, index=False)
    assert hcli.main([str(path), "--json", "--no-mixed"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out["studies"]) == {"7", "9"}
    nat = out["studies"]["9"]["dimensions"]["naturalness"]
    assert set(nat["means"]) == {"A", "B"} and len(nat["pairwise"]) == 1 and nat["friedman_p"] is None
    assert hcli.main([str(path)]) == 0 and "study 7" in capsys.readouterr().out


@pytest.mark.parametrize(
    "content, message",
    [
        ("", "empty"),
        ("study_id,item_id,output_id,method,rater,position,coherence,informativeness,naturalness\n", "no ratings"),
        (
            "study_id,item_id,output_id,method,rater,position,coherence,informativeness\n1,1,1,A,r,0,3,3\n",
            "naturalness",
        ),
        (
            "study_id,item_id,output_id,method,rater,position,coherence,informativeness,naturalness\n1,1,1,A,r,0,6,3,3\n",
            "coherence",
        ),
        (
            "study_id,item_id,output_id,method,rater,position,coherence,informativeness,naturalness\n1,1,1,A,r,0,3,2.5,3\n",
            "informativeness",
        ),
        (
            "study_id,item_id,output_id,method,rater,position,coherence,informativeness,naturalness\n1,1,1,A,r,0,3,,3\n",
            "informativeness",
        ),
    ],
)
def test_bad_input_is_one_error_line_and_exit_2(tmp_path, capsys, content, message):
    path = tmp_path / "bad.csv"
    path.write_text(content, encoding="utf-8")
    assert hcli.main([str(path), "--json"]) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:") and message in lines[0] and captured.out == ""
    assert hcli.main([str(tmp_path / "missing.csv")]) == 2
    assert capsys.readouterr().err.startswith("error:")


def test_reversed_rows_give_the_same_json(tmp_path, capsys):
    store, _ = rated_store(tmp_path / "a.db")
    path = tmp_path / "ratings.csv"
    export_to_path(store, path)
    frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    frame.iloc[::-1].to_csv(tmp_path / "reversed.csv", index=False)
    outputs = []
    for name in ("ratings.csv", "reversed.csv"):
        assert hcli.main([str(tmp_path / name), "--json", "--no-mixed"]) == 0
        outputs.append(json.loads(capsys.readouterr().out))
    assert outputs[0]["studies"] == outputs[1]["studies"]


def test_repeated_ratings_are_collapsed_with_a_warning_and_conflicts_refused(tmp_path, capsys):
    df = stats_design.simulate(stats_design.Design(items=6, raters=3, methods=3), 4)
    path = tmp_path / "once.csv"
    df[list(hcols.REQUIRED_COLUMNS)].to_csv(path, index=False)
    assert hcli.main([str(path), "--json", "--no-mixed"]) == 0
    once = json.loads(capsys.readouterr().out)
    twice = tmp_path / "twice.csv"
    pd.concat([df, df.iloc[:7]])[list(hcols.REQUIRED_COLUMNS)].to_csv(twice, index=False)
    assert hcli.main([str(twice), "--json", "--no-mixed"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out) == once
    assert captured.err.startswith("warning:") and "7 exact repeat" in captured.err
    clash = df.iloc[:1].assign(coherence=(df["coherence"].iloc[0] % 5) + 1)
    bad = tmp_path / "clash.csv"
    pd.concat([df, clash])[list(hcols.REQUIRED_COLUMNS)].to_csv(bad, index=False)
    assert hcli.main([str(bad), "--json"]) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:") and "different scores" in lines[0] and not captured.out


def test_cli_process_exit_code_on_bad_input(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("a,b\n1,2\n", encoding="utf-8")
    proc = run_cli(str(path), "--json")
    assert (
        proc.returncode == 2
        and proc.stdout == ""
        and proc.stderr.startswith("error: ")
        and len(proc.stderr.splitlines()) == 1
    )


def test_an_open_studys_sealed_export_is_refused_with_its_reason(tmp_path, capsys):
    store, sid = rated_store(tmp_path / "a.db")
    store.set_study_state(sid, "open", allowed_from=("closed",))  # as while raters rate
    path = tmp_path / "open.csv"
    export_to_path(store, path)
    assert hcli.main([str(path), "--json"]) == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert "output_id is empty" in line and "its study was open when it was exported" in line
