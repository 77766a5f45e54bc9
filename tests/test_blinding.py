"""The blinding index (evaluation/blinding.py): its formula, its CLI on good and bad files, and the
calibration of its interval by simulation (a seeded subset; the full grid is benchmarks/bench_blinding.py)."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from evaluation import blinding
from evaluation import blinding_sim as sim

HEADER = "study_id,item_id,rater,target_method,n_responses,guessed_label,true_label\n"


def answers(rows: list[tuple]) -> pd.DataFrame:
    return blinding.check_guesses(pd.DataFrame(rows, columns=list(blinding.COLUMNS)))


def test_two_responses_and_one_answer_per_item_is_bangs_index():
    # Bang et al. 2004: (correct - wrong) / all answers, "don't know" in the denominator only.
    rows = [(1, i, "ann", "BS-4", 2, g, "A") for i, g in enumerate("AAAAAAB")]
    rows += [(1, 7, "ann", "BS-4", 2, None, "A"), (1, 8, "ann", "BS-4", 2, "", "A")]
    [row] = blinding.blinding_index(answers(rows)).to_dict("records")
    correct, wrong, dont_know = 6, 1, 2
    assert row["index"] == pytest.approx((correct - wrong) / (correct + wrong + dont_know))
    assert (row["n"], row["correct"], row["dont_know"], row["items"]) == (9, 6, 2, 9)
    assert row["chance"] == pytest.approx(0.5)


def test_k_responses_chance_is_zero_always_right_is_one_always_wrong_is_minus_one_over_k_minus_one():
    right = [(1, i, r, "BS-4", 3, "B", "B") for i in range(6) for r in ("a", "b")]
    wrong = [(2, i, r, "BS-4", 3, "A", "C") for i in range(6) for r in ("a", "b")]
    # every letter equally often on every item: exactly chance
    chance = [(3, i, r, "BS-4", 3, g, "A") for i in range(4) for r, g in zip("abc", "ABC")]
    result = blinding.blinding_index(answers(right + wrong + chance)).set_index("study_id")
    assert result.loc["1", "index"] == pytest.approx(1.0) and result.loc["1", "ci_high"] == pytest.approx(1.0)
    assert result.loc["2", "index"] == pytest.approx(-0.5) and result.loc["2", "ci_low"] == pytest.approx(-0.5)
    assert result.loc["3", "index"] == pytest.approx(0.0, abs=1e-12)
    assert result.loc["1", "ci_low"] > 0 and result.loc["2", "ci_high"] < 0
    assert result.loc["3", "ci_low"] < 0 < result.loc["3", "ci_high"]


def test_items_are_the_unit_an_item_with_many_answers_weighs_as_much_as_one_with_one():
    rows = [(1, 0, f"r{k}", "BS-4", 3, "A", "A") for k in range(9)]  # item 0: nine right answers
    rows += [(1, 1, "r0", "BS-4", 3, "B", "A")]  # item 1: one wrong answer
    [row] = blinding.blinding_index(answers(rows)).to_dict("records")
    assert row["index"] == pytest.approx((1.0 + -0.5) / 2)


def test_methods_and_studies_are_separate():
    rows = [
        (s, i, "ann", m, 3, "A", "A" if m == "BS-4" else "B")
        for s in (1, 2)
        for i in range(5)
        for m in ("BS-4", "TS-Temp")
    ]
    result = blinding.blinding_index(answers(rows))
    assert len(result) == 4
    assert set(result[result["target_method"] == "BS-4"]["index"]) == {1.0}
    assert set(result[result["target_method"] == "TS-Temp"]["index"]) == {-0.5}


def test_the_interval_is_wider_when_answers_cluster_within_items():
    # Same answers overall (half right): spread evenly over items, or all right on some items and all
    # wrong on others. The second says less about the next item, and its interval is wider.
    even = [(1, i, f"r{r}", "BS-4", 2, "A" if (i + r) % 2 else "B", "A") for i in range(10) for r in range(4)]
    lumped = [(1, i, f"r{r}", "BS-4", 2, "A" if i % 2 else "B", "A") for i in range(10) for r in range(4)]
    [a] = blinding.blinding_index(answers(even)).to_dict("records")
    [b] = blinding.blinding_index(answers(lumped)).to_dict("records")
    assert a["index"] == pytest.approx(b["index"]) == pytest.approx(0.0)
    assert (b["ci_high"] - b["ci_low"]) > 1.5 * (a["ci_high"] - a["ci_low"])


def test_the_score_interval_does_not_collapse_on_six_wrong_guesses():
    # The plain t interval on item means is [-0.5, -0.5] here (sd 0) and excludes chance; six
    # random guesses are all wrong in 9% of studies, so that interval would cry wolf that often.
    index, lo, hi = blinding.score_interval(np.full((1, 6), -0.5), np.ones((1, 6)), 3, [0.0])
    assert index[0] == pytest.approx(-0.5) and lo[0] == pytest.approx(-0.5) and hi[0] > 0


def test_every_answer_dont_know_is_no_interval_and_says_so():
    # issue 34: "the blind held ... CI +0.00 to +0.00" claimed what nobody's guess showed
    [row] = blinding.blinding_index(answers([(1, i, "ann", "BS-4", 3, None, "A") for i in range(5)])).to_dict("records")
    assert row["index"] == 0.0 and np.isnan(row["ci_low"]) and np.isnan(row["ci_high"])
    said = blinding.words(row)
    assert "don't know" in said and "cannot show" in said and "held" not in said and "+0.00 to +0.00" not in said
    assert blinding.verdict(row) == "no guesses"
    assert blinding.as_json(pd.DataFrame([row]))["studies"]["1"]["methods"]["BS-4"]["ci_low"] is None


def test_the_index_is_the_mean_of_item_means_and_says_so_beside_bangs():
    # item 0: three answers, all right; items 1-3: one wrong answer each (k = 2): item means 1, -1, -1, -1
    rows = [(1, 0, r, "BS-4", 2, "A", "A") for r in ("ann", "bob", "cy")]
    rows += [(1, i, "ann", "BS-4", 2, "B", "A") for i in (1, 2, 3)]
    [row] = blinding.blinding_index(answers(rows)).to_dict("records")
    assert row["index"] == pytest.approx(-0.5) and row["pooled_index"] == pytest.approx(0.0)
    said = blinding.words(row)
    assert "mean over items" in said and "Bang's pooled over answers is +0.00" in said


def test_words_say_whether_the_blind_held():
    held = {"target_method": "BS-4", "n": 40, "dont_know": 4, "correct": 13, "index": 0.02, "ci_low": -0.2}
    held |= {"ci_high": 0.25, "items": 20, "chance": 1 / 3}
    broken = held | {"correct": 29, "index": 0.71, "ci_low": 0.55, "ci_high": 0.85}
    wrong = held | {"correct": 2, "index": -0.4, "ci_low": -0.5, "ci_high": -0.2}
    assert "consistent with chance" in blinding.words(held)
    text = blinding.words(broken)
    assert text.startswith("Raters picked BS-4 in 81% of their guesses (chance 33%): the blind did not hold for BS-4")
    assert '4 of 40 answers were "don\'t know"' in text
    assert "systematically" in blinding.words(wrong)


# ---- the CLI ---------------------------------------------------------------------------------------


def run_cli(tmp_path, text: str | bytes, capsys, *extra: str) -> tuple[int, str, str]:
    path = tmp_path / "guesses.csv"
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    code = blinding.main([str(path), *extra])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_cli_prints_the_documented_json(tmp_path, capsys):
    lines = [f"7,{i},{r},BS-4,3,{'A' if r != 'c' else ''},A" for i in range(8) for r in "abc"]
    lines += [f"7,{i},a,TS-Temp,3,B,C" for i in range(8)]
    code, out, err = run_cli(tmp_path, HEADER + "\n".join(lines) + "\n", capsys, "--json")
    assert code == 0, err
    result = json.loads(out)
    bs4 = result["studies"]["7"]["methods"]["BS-4"]
    assert set(bs4) >= {"index", "ci_low", "ci_high", "n", "correct", "dont_know"}
    assert (bs4["n"], bs4["correct"], bs4["dont_know"]) == (24, 16, 8)
    assert bs4["index"] == pytest.approx(2 / 3) and bs4["ci_low"] > 0
    assert result["studies"]["7"]["methods"]["TS-Temp"]["index"] == pytest.approx(-0.5)
    code, out, _ = run_cli(tmp_path, HEADER + "\n".join(lines) + "\n", capsys)
    assert code == 0 and "the blind did not hold for BS-4" in out


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "study_id,item_id,rater,target_method,n_responses,guessed_label\n1,1,a,BS-4,3,A\n",
            "missing column true_label",
        ),
        (HEADER + "1,1,a,BS-4,3,D,A\n", "guessed_label 'D' is not one of the 3 labels A, B, C"),
        (HEADER + "1,1,a,BS-4,3,A,E\n", "true_label 'E' is not one of the 3 labels"),
        (HEADER + "1,1,a,BS-4,1,A,A\n", "n_responses must be from 2"),
        (HEADER + "1,1,a,BS-4,three,A,A\n", "n_responses must be a whole number"),
        (HEADER + "1,1,a,BS-4,3,A,\n", "true_label is empty"),
        (HEADER + "1,1,a,BS-4,3,A,A\n1,1,a,BS-4,3,B,A\n", "row 3: a second answer"),
        (HEADER, "has no answers"),
        ("", "is empty"),
        ("  \n\n", "is empty"),
        (b"\xff\xfe\x00garbage", "cannot read"),
    ],
)
def test_cli_bad_input_is_one_error_line_and_exit_2(tmp_path, capsys, text, message):
    code, out, err = run_cli(tmp_path, text, capsys, "--json")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("error: ") and message in err, err


def test_cli_unreadable_path_is_one_error_line(tmp_path, capsys):
    for path in (tmp_path / "missing.csv", tmp_path):
        assert blinding.main([str(path), "--json"]) == 2
        err = capsys.readouterr().err
        assert err.startswith("error: cannot read") and err.count("\n") == 1


def test_cli_reads_an_arena_export_guess_rows_only(tmp_path, capsys):
    header = HEADER.strip() + ",row_kind,format_version,coherence\n"
    body = "".join(f"3,{i},ann,BS-4,2,A,A,guess,4,\n" for i in range(4)) + "3,0,ann,,,,,rating,4,5\n"
    code, out, err = run_cli(tmp_path, header + body, capsys, "--json")
    assert code == 0, err
    assert json.loads(out)["studies"]["3"]["methods"]["BS-4"]["n"] == 4


# ---- calibration -----------------------------------------------------------------------------------

# A fast, seeded subset of benchmarks/bench_blinding.py's grid: the smallest designs (where the plain
# t interval fails), don't-knows, missing answers, two and four responses; and known indices with
# raters of their own skill, items of their own difficulty, and raters who are systematically wrong.
NULL_SUBSET = (
    sim.GuessDesign(items=6, raters=1),
    sim.GuessDesign(items=8, raters=1, k=2),
    sim.GuessDesign(items=8, raters=3, dont_know=0.3),
    sim.GuessDesign(items=16, raters=3, dont_know=0.3, missing=0.2),
    sim.GuessDesign(items=8, raters=2, k=4, dont_know=0.2),
)
KNOWN_SUBSET = (
    sim.GuessDesign(items=8, raters=1, p_correct=0.8),
    sim.GuessDesign(items=16, raters=2, missing=0.2, p_correct=0.7, rater_sd=1.0),
    sim.GuessDesign(items=16, raters=3, p_correct=0.6, item_sd=1.5),
    sim.GuessDesign(items=12, raters=2, p_correct=0.15),
)


@pytest.mark.parametrize("design", NULL_SUBSET, ids=lambda d: d.label())
def test_under_random_guessing_the_interval_excludes_zero_in_at_most_8_percent_of_studies(design):
    cal = sim.calibrate(design, n_studies=1500, seed=21)
    print(cal.line())
    assert cal.excludes_zero <= 0.08
    assert cal.above_zero <= 0.05  # "the blind did not hold" when it did: at most one study in 20


@pytest.mark.parametrize("design", KNOWN_SUBSET, ids=lambda d: d.label())
def test_the_interval_covers_a_known_index(design):
    cal = sim.calibrate(design, n_studies=1500, seed=22)
    print(cal.line())
    assert cal.misses_truth <= 0.07
    assert not math.isclose(cal.truth, 0.0, abs_tol=0.1)  # the designs really have an index to find


def test_the_simulation_truth_is_the_index_of_many_items():
    design = sim.GuessDesign(items=4000, raters=2, dont_know=0.2, p_correct=0.6, item_sd=1.0)
    means, r, share, truth = sim.simulate(design, 3, np.random.default_rng(5))
    index, _, _ = blinding.score_interval(means, r, design.k, share)
    assert index == pytest.approx(truth, abs=0.03)
