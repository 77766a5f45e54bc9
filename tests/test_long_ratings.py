"""Outside data in the long format (one row per score): read as records for the store, analysed by
`python -m evaluation.human FILE --json` with the file's own questions and scale, raters who failed an
attention item excluded on request; bad input is one `error:` line and exit code 2."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from arena.files.long_ratings import read_long_ratings
from common.errors import UserError
from evaluation.human import cli as hcli
from evaluation.human import crossed
from evaluation.human import design as sd
from evaluation.human.ratings import read_ratings_file

ROOT = Path(__file__).resolve().parents[1]


def long_rows(
    frame: pd.DataFrame, dims: dict[str, str], scale: int = 2, failed: set[str] = frozenset()
) -> pd.DataFrame:
    """A simulated wide frame as long rows: dimension name -> wide column, scores times `scale`."""
    rows = []
    for r in frame.itertuples():
        for name, col in dims.items():
            rows.append(
                {
                    "study_id": "survey",
                    "item_id": f"p{r.item_id}",
                    "rater": r.rater,
                    "method": r.method,
                    "dimension": name,
                    "score": scale * getattr(r, col),
                    "position": r.position,
                    "attention_passed": "false" if r.rater in failed else "true",
                }
            )
    return pd.DataFrame(rows)


def survey(tmp_path: Path, raters: int = 24, failed: int = 6) -> tuple[Path, set[str]]:
    frame = sd.simulate(sd.Design(items=1, raters=raters, methods=3, sd_output=0.0).with_effect(1.0), 5)
    bad = {f"r{k}" for k in range(failed)}
    path = tmp_path / "survey.csv"
    long_rows(frame, {"quality": "coherence", "diversity": "naturalness"}, failed=bad).to_csv(path, index=False)
    return path, bad


def test_records_for_the_store_one_per_rater_method_and_item(tmp_path):
    path, bad = survey(tmp_path)
    data = read_long_ratings(path, scales={"": (1, 10)})
    [study] = data.studies
    assert study.rubric.names == ("quality", "diversity") and study.rubric.scales()["quality"] == (1, 10)
    assert len(study.ratings) == 24 * 3 and set(study.failed_attention) == bad
    first = study.ratings[0]
    assert set(first.scores) == {"quality", "diversity"} and first.output_id == "p0:" + first.method
    assert all(2 <= s <= 10 for r in study.ratings for s in r.scores.values())


def test_the_cli_analyses_the_files_own_questions_and_excludes_who_failed_attention(tmp_path, capsys):
    path, bad = survey(tmp_path)
    assert hcli.main([str(path), "--json", "--scale", "1-10", "--exclude-failed-attention", "--no-mixed"]) == 0
    study = json.loads(capsys.readouterr().out)["studies"]["survey"]
    assert set(study["dimensions"]) == {"quality", "diversity"} and study["dimensions"]["quality"]["scale"] == [1, 10]
    assert study["n_raters"] == 24 - len(bad)  # the raters analysed
    excluded = study["raters_excluded"]
    assert (excluded["n"], excluded["of"], excluded["rule"]) == (len(bad), 24, "failed any attention item")
    assert "6 of 24 raters excluded" in excluded["meaning"]
    assert set(excluded["raters"]) == bad and all(r["excluded"] == (r["rater"] in bad) for r in study["raters"])
    pair = study["dimensions"]["quality"]["pairwise"][1]  # A - C: C is shifted
    assert pair["scope"] == crossed.SCOPE_ITEMS and pair["n_items"] == 1 and pair["p"] is not None
    assert "Holds for this prompt only" in pair["meaning"] and study["scope"].startswith("for these prompts only")
    assert "sensitivity" in study and "excluded rater" in study["sensitivity"]["meaning"]
    # without the flag nobody is dropped, and the JSON says so
    assert hcli.main([str(path), "--json", "--scale", "1-10", "--no-mixed"]) == 0
    every = json.loads(capsys.readouterr().out)["studies"]["survey"]
    assert every["n_raters"] == 24 and every["raters_excluded"]["n"] == 0 and every["raters_excluded"]["rule"] is None


def test_scale_columns_and_per_dimension_scales(tmp_path, capsys):
    path, _ = survey(tmp_path, failed=0)
    frame = pd.read_csv(path).assign(scale_min=1, scale_max=10)
    frame.to_csv(tmp_path / "scaled.csv", index=False)
    assert hcli.main([str(tmp_path / "scaled.csv"), "--json", "--no-mixed"]) == 0
    assert json.loads(capsys.readouterr().out)["studies"]["survey"]["dimensions"]["diversity"]["scale"] == [1, 10]
    data = read_ratings_file(str(path), scales={"quality": (1, 10), "diversity": (0, 10)})
    assert data.rubrics["survey"].scales() == {"quality": (1, 10), "diversity": (0, 10)} and data.format == "long"


def test_exact_repeats_are_counted_once_with_a_warning(tmp_path):
    path, _ = survey(tmp_path, failed=0)
    frame = pd.read_csv(path)
    pd.concat([frame, frame.iloc[:5]]).to_csv(tmp_path / "twice.csv", index=False)
    data = read_long_ratings(tmp_path / "twice.csv", scales={"": (1, 10)})
    assert len(data.studies[0].ratings) == 24 * 3 and "5 exact repeat(s)" in data.warnings[0]


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "evaluation.human", *args], cwd=ROOT, capture_output=True, text=True, timeout=300
    )


def test_bad_input_is_one_error_line_and_exit_2(tmp_path):
    path, _ = survey(tmp_path, failed=0)
    frame = pd.read_csv(path)
    cases = {
        "outside": (frame, ["--scale", "1-5"], "outside its scale 1-5"),
        "scale": (frame, ["--scale", "ten"], "does not parse"),
        "unknown": (frame, ["--scale", "1-10", "--dimensions", "quality"], "unknown dimension 'diversity'"),
        "none": (frame, ["--dimensions", ","], "names no dimension"),
        "clash": (
            pd.concat([frame, frame.iloc[:1].assign(score=frame["score"].iloc[0] % 10 + 1)]),
            ["--scale", "1-10"],
            "twice",
        ),
        "columns": (frame.drop(columns="dimension").assign(quality=1), [], "missing column"),
        "flag": (frame.assign(attention_passed="maybe"), ["--scale", "1-10"], "not true or false"),
        "noname": (
            frame.assign(dimension=np.where(frame.index == 3, "", frame["dimension"])),
            ["--scale", "1-10"],
            "empty",
        ),
    }
    for name, (data, args, message) in cases.items():
        bad = tmp_path / f"{name}.csv"
        data.to_csv(bad, index=False)
        done = _cli(str(bad), "--json", "--no-mixed", *args)
        lines = done.stderr.strip().splitlines()
        assert done.returncode == 2 and len(lines) == 1 and lines[0].startswith("error: "), (name, done.stderr)
        assert message in lines[0], (name, lines[0])
        assert done.stdout == ""


def test_a_rubric_with_too_many_questions_is_refused(tmp_path):
    rows = [
        {"study_id": 1, "item_id": 1, "rater": "a", "method": "m", "dimension": f"q{k}", "score": 3} for k in range(9)
    ]
    path = tmp_path / "nine.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    with pytest.raises(UserError, match="1 to 8 dimensions"):
        read_long_ratings(path)


def test_wide_files_still_read_as_before_and_can_name_their_own_columns(tmp_path, capsys):
    frame = sd.simulate(sd.Design(items=8, raters=3), 2)
    frame[["study_id", "item_id", "output_id", "method", "rater", "position", "coherence", "naturalness"]].rename(
        columns={"coherence": "quality", "naturalness": "fluency"}
    ).to_csv(tmp_path / "wide.csv", index=False)
    assert hcli.main([str(tmp_path / "wide.csv"), "--json", "--no-mixed", "--dimensions", "quality,fluency"]) == 0
    study = json.loads(capsys.readouterr().out)["studies"]["1"]
    assert list(study["dimensions"]) == ["quality", "fluency"] and study["family"]["tests"] == 6
