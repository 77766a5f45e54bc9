"""Pairwise ratings (evaluation.pairwise): the Bradley-Terry fit against two independent MLEs, its
invariances, degenerate inputs, the CLI and its error paths, length control, implied comparisons
from 1-5 ratings, the leaderboard across studies, and preference pairs."""

from __future__ import annotations

import io
import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from arena.files.preferences import preference_pairs, write_preference_jsonl
from evaluation import pairwise as pw
from evaluation.pairwise import bootstrap, bt
from evaluation.pairwise import cli as pw_cli
from evaluation.pairwise import simulate as sim

ROOT = Path(__file__).resolve().parents[1]
VOTES = ROOT / "tests" / "data" / "pairwise_votes.csv"
HALF = {"a": 1.0, "b": 0.0, "tie": 0.5, "bothbad": 0.5}


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "evaluation.pairwise", *args], cwd=ROOT, capture_output=True, text=True, timeout=600
    )


def cli(capsys, *args: str) -> tuple[int, str, str]:
    """The CLI in this process (a subprocess costs seconds of imports): (exit code, stdout, stderr)."""
    code = pw_cli.main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def elo_from_strengths(theta: dict[str, float]) -> dict[str, float]:
    mean = np.mean(list(theta.values()))
    return {s: 1000 + 400 / math.log(10) * (t - mean) for s, t in theta.items()}


def glm_ratings(votes: pd.DataFrame) -> dict[str, float]:
    """An independent MLE: statsmodels' binomial GLM on the design matrix (the first system as the
    reference), every tie split into an A-win and a B-win of weight 1/2."""
    import statsmodels.api as sm

    systems = sorted(set(votes["system_a"]) | set(votes["system_b"]))
    rows, y, w = [], [], []
    for r in votes.itertuples():
        x = np.zeros(len(systems))
        x[systems.index(r.system_a)] += 1.0
        x[systems.index(r.system_b)] -= 1.0
        s = HALF[r.winner]
        for outcome, weight in ((1.0, s), (0.0, 1.0 - s)):
            if weight > 0:
                rows.append(x[1:])
                y.append(outcome)
                w.append(weight)
    fit = sm.GLM(np.array(y), np.array(rows), family=sm.families.Binomial(), freq_weights=np.array(w)).fit(tol=1e-12)
    theta = {systems[0]: 0.0} | {s: float(b) for s, b in zip(systems[1:], fit.params)}
    return elo_from_strengths(theta)


def mm_ratings(votes: pd.DataFrame, iterations: int = 20000) -> dict[str, float]:
    """Another: Hunter's (2004) MM algorithm, pi_i <- W_i / sum_j n_ij / (pi_i + pi_j), W_i the half-wins."""
    systems = sorted(set(votes["system_a"]) | set(votes["system_b"]))
    k = len(systems)
    wins, n = np.zeros(k), np.zeros((k, k))
    for r in votes.itertuples():
        a, b = systems.index(r.system_a), systems.index(r.system_b)
        wins[a] += HALF[r.winner]
        wins[b] += 1 - HALF[r.winner]
        n[a, b] += 1
        n[b, a] += 1
    pi = np.ones(k)
    for _ in range(iterations):
        pi = wins / (n / (pi[:, None] + pi[None, :])).sum(axis=1)
        pi /= np.exp(np.log(pi).mean())
    return elo_from_strengths({s: float(np.log(p)) for s, p in zip(systems, pi)})


# ---- the fit ---------------------------------------------------------------------------------------


def test_cli_ratings_equal_two_independent_mles_within_one_elo_point():
    proc = run_cli(str(VOTES), "--json", "--resamples", "200")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)["studies"]
    votes = pd.read_csv(VOTES, dtype=str)
    assert set(out) == {"7", "8"}
    for sid, study in out.items():
        mine = {name: s["rating"] for name, s in study["systems"].items()}
        group = votes[votes["study_id"] == sid]
        for reference in (glm_ratings(group), mm_ratings(group)):
            assert mine.keys() == reference.keys()
            for name, rating in reference.items():
                assert mine[name] == pytest.approx(rating, abs=1.0)
        assert np.mean(list(mine.values())) == pytest.approx(1000.0, abs=1e-6)
        counts = pd.concat([group["system_a"], group["system_b"]]).value_counts()
        assert {n: s["votes"] for n, s in study["systems"].items()} == counts.to_dict()
        for s in study["systems"].values():
            assert s["ci_low"] < s["rating"] < s["ci_high"]
            assert isinstance(s["provisional"], bool)


def test_ties_and_both_bad_count_as_half_a_win_each():
    votes = pd.DataFrame(
        {
            "study_id": "1",
            "item_id": [str(i) for i in range(6)],
            "rater": "r",
            "system_a": "x",
            "system_b": "y",
            "winner": ["a", "a", "tie", "bothbad", "b", "tie"],
        }
    )
    fit = pw.fit_bt(pw.Battles.from_votes(pw.check_votes(votes)))
    # x scores 2 + 1.5 = 3.5 of 6: P(x beats y) = 3.5 / 6 at the MLE.
    assert pw.win_probability(fit.rating("x"), fit.rating("y")) == pytest.approx(3.5 / 6, abs=1e-6)  # the ridge: < 1e-6
    assert fit.rating("x") + fit.rating("y") == pytest.approx(2000.0)


def test_elo_scale_400_points_is_ten_to_one():
    assert pw.win_probability(1400, 1000) == pytest.approx(10 / 11)
    assert pw.win_probability(1000, 1000) == 0.5


def shuffled_and_renamed(votes: pd.DataFrame, seed: int) -> tuple[pd.DataFrame, dict[str, str]]:
    rng = np.random.default_rng(seed)
    names = sorted(set(votes["system_a"]) | set(votes["system_b"]))
    new = dict(zip(names, [f"zz{n}" for n in rng.permutation(len(names))]))
    out = votes.sample(frac=1.0, random_state=seed).reset_index(drop=True)
    return out.assign(system_a=out["system_a"].map(new), system_b=out["system_b"].map(new)), new


def test_ratings_and_intervals_do_not_depend_on_row_order_or_system_names():
    votes = pd.read_csv(VOTES, dtype=str)
    votes = votes[votes["study_id"] == "7"]
    before = pw.rate(votes, n_resamples=200).systems.set_index("system")
    other, new = shuffled_and_renamed(votes, 3)
    after = pw.rate(other, n_resamples=200).systems.set_index("system")
    for old, renamed in new.items():
        for col in ("rating", "ci_low", "ci_high", "rating_length_controlled", "ci_high_length_controlled"):
            assert after.loc[renamed, col] == pytest.approx(before.loc[old, col], abs=1e-6)
        assert after.loc[renamed, "votes"] == before.loc[old, "votes"]


def test_swapping_sides_of_every_vote_changes_nothing():
    votes = pd.read_csv(VOTES, dtype=str)
    votes = votes[votes["study_id"] == "8"]
    flip = {"a": "b", "b": "a", "tie": "tie", "bothbad": "bothbad"}
    swapped = votes.assign(
        system_a=votes["system_b"],
        system_b=votes["system_a"],
        winner=votes["winner"].map(flip),
        len_a=votes["len_b"],
        len_b=votes["len_a"],
    )
    a = pw.rate(votes, n_resamples=100).systems.set_index("system")
    b = pw.rate(swapped, n_resamples=100).systems.set_index("system")
    for col in ("rating", "rating_length_controlled", "ci_low"):
        assert b[col].to_dict() == pytest.approx(a[col].to_dict(), abs=1e-6)


# ---- degenerate inputs -----------------------------------------------------------------------------


def votes_of(pairs: list[tuple[str, str, str]], items: int = 1) -> pd.DataFrame:
    rows = []
    for i in range(items):
        for n, (a, b, w) in enumerate(pairs):
            rows.append(
                {"study_id": "s", "item_id": f"i{i}", "rater": f"r{n % 3}", "system_a": a, "system_b": b, "winner": w}
            )
    return pd.DataFrame(rows)


def test_a_system_that_won_everything_is_flagged_not_given_an_interval():
    votes = votes_of([("x", "y", "a"), ("y", "z", "tie"), ("z", "y", "a"), ("x", "z", "a"), ("y", "x", "b")], 12)
    res = pw.rate(votes, n_resamples=100)
    t = res.systems.set_index("system")
    assert t.loc["x", "separated"] == "won every comparison"
    assert t.loc["x", "provisional"] and "won every comparison" in t.loc["x", "why_provisional"]
    assert math.isnan(t.loc["x", "ci_low"]) and math.isnan(t.loc["x", "ci_high"])
    assert np.isfinite(t["rating"]).all() and t.loc["x", "rating"] == t["rating"].max()
    assert t.loc["y", "separated"] == "" and np.isfinite(t.loc["y", "ci_low"])
    assert any("No finite maximum-likelihood ratings" in w for w in res.warnings)
    assert pd.isna(t.loc["x", "rank_best"])
    lost = pw.rate(votes_of([("x", "y", "b"), ("x", "z", "b"), ("y", "z", "a"), ("z", "y", "a")], 12), n_resamples=100)
    assert lost.systems.set_index("system").loc["x", "separated"] == "lost every comparison"


def test_disconnected_systems_are_kept_apart_and_unranked():
    votes = pd.concat(
        [
            votes_of([("x", "y", "a"), ("y", "x", "tie"), ("x", "y", "b")], 12),
            votes_of([("u", "v", "a"), ("v", "u", "tie")], 12),
        ]
    )
    res = pw.rate(votes, n_resamples=100)
    t = res.systems.set_index("system")
    assert t.loc["x", "component"] == t.loc["y", "component"] != t.loc["u", "component"]
    assert t.loc[["x", "y"], "rating"].mean() == pytest.approx(1000.0)
    assert t.loc[["u", "v"], "rating"].mean() == pytest.approx(1000.0)
    assert any("never compared" in w for w in res.warnings)
    cross = res.differences[
        (res.differences["system_a"].isin(["u", "v"])) != (res.differences["system_b"].isin(["u", "v"]))
    ]
    assert cross["diff"].isna().all() and not cross["ordered"].any()


def test_all_ties_give_equal_ratings_and_no_order():
    res = pw.rate(votes_of([("x", "y", "tie"), ("y", "z", "bothbad"), ("z", "x", "tie")], 15), n_resamples=100)
    assert res.systems["rating"].to_numpy() == pytest.approx([1000.0] * 3)
    assert not res.differences["ordered"].any()
    assert "No system is clearly ahead" in pw.explain(res)[0]


def test_few_votes_make_a_system_provisional_and_unranked():
    design = sim.PairDesign(systems=4, elo=(0, 0, 300, 600), items=40, raters=5, share=(1, 1, 1, 0.08))
    votes = sim.simulate(design, 5)
    res = pw.rate(votes, n_resamples=200)
    t = res.systems.set_index("system")
    assert t.loc["S3", "votes"] < pw.MIN_VOTES
    assert t.loc["S3", "provisional"] and pd.isna(t.loc["S3", "rank_best"])
    assert not t.loc[["S0", "S1", "S2"], "provisional"].any()
    assert t.loc["S2", "rank"] == 1  # 300 Elo ahead of S0 and S1 on 40 items x 5 raters
    assert t.loc["S0", "rank_best"] == 2 and t.loc["S0", "rank_worst"] == 3


def test_rank_ranges_and_tied_groups():
    ranges = pw.rank_ranges(["a", "b", "c", "d"], [("a", "c"), ("a", "d"), ("b", "d")])
    assert ranges == {"a": (1, 2), "b": (1, 3), "c": (2, 4), "d": (3, 4)}
    assert pw.rank_label(*ranges["a"]) == "1–2" and pw.rank_label(2, 2) == "2"
    assert pw.tied_groups(["a", "b", "c"], {"a": (1, 1), "b": (2, 2), "c": (3, 3)}) == [["a"], ["b"], ["c"]]
    assert pw.tied_groups(["a", "b", "c"], {"a": (1, 2), "b": (1, 2), "c": (3, 3)}) == [["a", "b"], ["c"]]


# ---- the CLI ---------------------------------------------------------------------------------------


def test_cli_prints_length_controlled_ratings_and_a_readable_table(capsys):
    code, out, _ = cli(capsys, str(VOTES), "--json", "--resamples", "100")
    study = json.loads(out)["studies"]["7"]
    for s in study["systems"].values():
        assert {"rating_length_controlled", "ci_low_length_controlled", "ci_high_length_controlled"} <= s.keys()
        assert s["ci_low_length_controlled"] < s["rating_length_controlled"] < s["ci_high_length_controlled"]
    assert study["length_effect"]["elo_per_rms_difference"] is not None
    assert study["interval"]["method"] == "twoway" and 1 <= study["interval"]["df"] <= 29  # 30 items
    assert code == 0 and study["lines"]
    code, table, _ = cli(capsys, str(VOTES), "--resamples", "100")
    assert code == 0 and "study 7" in table and "length-ctl" in table and "BS-4" in table


def test_cli_without_lengths_has_no_length_controlled_rating(tmp_path, capsys):
    path = tmp_path / "v.csv"
    pd.read_csv(VOTES, dtype=str).drop(columns=["len_a", "len_b"]).to_csv(path, index=False)
    _, out, _ = cli(capsys, str(path), "--json", "--resamples", "100")
    study = json.loads(out)["studies"]["8"]
    assert all("rating_length_controlled" not in s for s in study["systems"].values())
    assert study["length_effect"] is None


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda df: df.drop(columns=["rater"]), "missing column(s) rater"),
        (lambda df: df.assign(winner=df["winner"].where(df.index != 4, "A wins")), "line 6: winner = 'A wins'"),
        (
            lambda df: df.assign(system_b=df["system_b"].where(df.index != 2, df["system_a"])),
            "line 4: system_a and system_b",
        ),
        (lambda df: df.assign(len_a=df["len_a"].where(df.index != 0, "long")), "line 2: len_a = 'long'"),
        (lambda df: df.assign(len_b=df["len_b"].where(df.index != 1, "-3")), "line 3: len_b = '-3'"),
        (lambda df: df.drop(columns=["len_b"]), "len_a without len_b"),
        (lambda df: df.assign(item_id=df["item_id"].where(df.index != 3, " ")), "line 5: item_id is empty"),
        (lambda df: df.iloc[:0], "has no votes"),
    ],
)
def test_cli_bad_input_prints_one_error_line_and_exits_2(tmp_path, capsys, edit, message):
    path = tmp_path / "bad.csv"
    edit(pd.read_csv(VOTES, dtype=str, keep_default_na=False)).to_csv(path, index=False)
    code, out, err = cli(capsys, str(path), "--json")
    assert code == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0], err


def test_cli_empty_and_missing_files_exit_2_from_the_shell(tmp_path):
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    proc = run_cli(str(empty))
    assert proc.returncode == 2 and proc.stdout == "" and proc.stderr.strip() == f"error: {empty} is empty"
    missing = tmp_path / "nope.csv"
    assert pw_cli.main([str(missing)]) == 2


# ---- length control --------------------------------------------------------------------------------


def test_length_control_removes_a_pure_length_preference():
    # No system is better; S0 writes shorter answers, and longer answers win.
    design = sim.PairDesign(
        systems=3, elo=(0, 0, 0), items=300, raters=4, length_effect=2.0, length_log_mean=(3.6, 4.6, 4.6), sd_item=0.3
    )
    res = pw.rate(sim.simulate(design, 11), n_resamples=200)
    t = res.systems.set_index("system")
    assert t.loc["S0", "ci_high"] < 1000  # raw: the short system looks worse
    assert t.loc["S0", "ci_low_length_controlled"] < 1000 < t.loc["S0", "ci_high_length_controlled"]
    assert res.length_effect["ci_low"] > 0
    assert any("Length sways the votes" in line for line in pw.explain(res))


def test_length_adjusted_contrast_for_1_to_5_ratings():
    rng = np.random.default_rng(4)
    rows = []
    for item in range(60):
        base = rng.normal(0, 0.5)
        for m, method in enumerate(("short", "long")):
            tokens = int(np.exp(rng.normal(3.5 + m, 0.4)))
            for rater in range(3):
                latent = 3 + base + 0.8 * np.log2(tokens + 1) - 0.8 * 4.5 + rng.normal(0, 0.6)  # length only
                score = int(np.clip(np.round(latent), 1, 5))
                rows.append(
                    {
                        "study_id": 1,
                        "item_id": item,
                        "output_id": item * 2 + m,
                        "method": method,
                        "rater": f"r{rater}",
                        "position": m,
                        "coherence": score,
                        "informativeness": score,
                        "naturalness": score,
                        "new_tokens": tokens,
                    }
                )
    frame = pd.DataFrame(rows)
    out = pw.length_adjusted_contrast(frame, ["coherence"]).iloc[0]
    assert (out["method_a"], out["method_b"]) == ("long", "short")
    assert out["ci_low"] > 0  # unadjusted: "long" wins
    assert out["ci_low_length_adjusted"] < 0 < out["ci_high_length_adjusted"]  # adjusted: no method effect left
    assert out["length_slope_ci_low"] > 0
    from evaluation.human import stats as hs

    primary = hs.pairwise_wilcoxon(frame, ["coherence"]).iloc[0]
    # Complete data, two methods: the unadjusted contrast is the primary one, interval included.
    if primary["method_a"] == out["method_a"]:
        expected = (primary["mean_diff"], primary["ci_low"], primary["ci_high"])
    else:
        expected = (-primary["mean_diff"], -primary["ci_high"], -primary["ci_low"])
    assert (out["diff"], out["ci_low"], out["ci_high"]) == pytest.approx(expected)
    with pytest.raises(ValueError, match="new_tokens"):
        pw.length_adjusted_contrast(frame.drop(columns=["new_tokens"]))


# ---- implied comparisons and the leaderboard -------------------------------------------------------


def small_ratings() -> pd.DataFrame:
    """Two items, two raters, three methods; scores chosen so every outcome is known by hand."""
    scores = {
        # (item, rater): {method: (coherence, informativeness, naturalness)}
        (1, "ann"): {"BS-4": (5, 4, 3), "TS-Temp": (4, 4, 4), "TS-Tilted": (2, 2, 2)},
        (1, "bob"): {"BS-4": (3, 3, 3), "TS-Temp": (3, 3, 3), "TS-Tilted": (4, None, 4)},
        (2, "ann"): {"BS-4": (1, 1, 1), "TS-Temp": (2, 1, 1), "TS-Tilted": (5, 5, 5)},
    }
    rows = []
    for (item, rater), by_method in scores.items():
        for n, (method, dims) in enumerate(by_method.items()):
            rows.append(
                {
                    "study_id": 3,
                    "item_id": item,
                    "output_id": item * 10 + n,
                    "method": method,
                    "rater": rater,
                    "position": n,
                    "model": "smollm2",
                    "new_tokens": 10 * (n + 1),
                }
                | dict(zip(("coherence", "informativeness", "naturalness"), dims))
            )
    return pd.DataFrame(rows)


def test_implied_votes_from_a_small_1_to_5_frame():
    out = pw.implied_votes(small_ratings())
    got = {(r.item_id, r.rater, r.system_a, r.system_b): r.winner for r in out.itertuples()}
    assert got == {
        ("1", "ann", "BS-4", "TS-Temp"): "tie",  # 4 vs 4
        ("1", "ann", "BS-4", "TS-Tilted"): "a",
        ("1", "ann", "TS-Temp", "TS-Tilted"): "a",
        ("1", "bob", "BS-4", "TS-Temp"): "tie",
        ("1", "bob", "BS-4", "TS-Tilted"): "b",  # 3 vs 4 on the two dimensions both were judged on
        ("1", "bob", "TS-Temp", "TS-Tilted"): "b",
        ("2", "ann", "BS-4", "TS-Temp"): "b",  # 1 vs 4/3
        ("2", "ann", "BS-4", "TS-Tilted"): "b",
        ("2", "ann", "TS-Temp", "TS-Tilted"): "b",
    }
    one = pw.implied_votes(small_ratings(), ["coherence"])
    assert (
        one.set_index(["item_id", "rater", "system_a", "system_b"]).loc[("1", "ann", "BS-4", "TS-Temp"), "winner"]
        == "a"
    )
    assert {"len_a", "len_b"} <= set(out.columns)


def test_leaderboard_across_a_pairwise_and_a_1_to_5_study():
    design = sim.PairDesign(systems=3, elo=(0, 80, 160), items=30, raters=4)
    votes = sim.simulate(design, 8, study_id="11")
    names = {"S0": "BS-4", "S1": "TS-Temp", "S2": "TS-Tilted"}
    votes = votes.assign(system_a=votes["system_a"].map(names), system_b=votes["system_b"].map(names), model="smollm2")
    board = pw.leaderboard(votes.drop(columns=["len_a", "len_b"]), small_ratings(), n_resamples=100)
    t = board.table.set_index("system")
    assert t.loc["BS-4", "studies"] == ["11", "3"]
    n_pairwise = int(((votes["system_a"] == "BS-4") | (votes["system_b"] == "BS-4")).sum())
    assert t.loc["BS-4", "comparisons_by_study"] == {"11": n_pairwise, "3": 6}
    assert t.loc["BS-4", "votes"] == n_pairwise + 6
    assert board.sources.set_index("study_id")["kind"].to_dict() == {"11": "pairwise", "3": "1-5"}
    other = small_ratings().assign(model="gemma3")
    with pytest.raises(ValueError, match="one leaderboard per model"):
        pw.leaderboard(votes, other)
    with pytest.raises(ValueError, match="no comparisons"):
        pw.leaderboard(None, small_ratings().iloc[:0])


# ---- preference pairs ------------------------------------------------------------------------------


def test_preference_pairs_keep_decisive_majorities_only():
    rows = [
        {"prompt": "p1", "text_a": "short", "text_b": "long", "winner": "b"},
        {"prompt": "p1", "text_a": "long", "text_b": "short", "winner": "a"},
        {"prompt": "p1", "text_a": "short", "text_b": "long", "winner": "a"},
        {"prompt": "p2", "text_a": "x", "text_b": "y", "winner": "a"},
        {"prompt": "p2", "text_a": "y", "text_b": "x", "winner": "a"},  # split evenly: no line
        {"prompt": "p3", "text_a": "u", "text_b": "v", "winner": "tie"},
        {"prompt": "p3", "text_a": "u", "text_b": "v", "winner": "bothbad"},
        {"prompt": "p4", "text_a": "same", "text_b": "same", "winner": "a"},
    ]
    assert preference_pairs(rows) == [{"prompt": "p1", "chosen": "long", "rejected": "short"}]
    assert len(preference_pairs(rows, policy="every")) == 5
    buf = io.StringIO()
    assert (
        write_preference_jsonl(
            preference_pairs(rows + [{"prompt": "é", "text_a": "ü", "text_b": "o", "winner": "a"}]), buf
        )
        == 2
    )
    lines = [json.loads(line) for line in buf.getvalue().splitlines()]
    assert lines[1] == {"prompt": "é", "chosen": "ü", "rejected": "o"} and "ü" in buf.getvalue()
    with pytest.raises(ValueError, match="winner"):
        preference_pairs([{"prompt": "p", "text_a": "x", "text_b": "y", "winner": "left"}])


def test_two_way_variance_is_never_below_either_part():
    # Three raters who happen to agree make the rater part tiny; V_items + V_raters - V_cells would
    # then be near zero and the interval absurdly narrow. Each part alone is at most the whole.
    rng = np.random.default_rng(0)
    items, raters, cells = rng.normal(0, 10, (500, 1)), rng.normal(0, 1, (500, 1)), rng.normal(0, 10, (500, 1))
    iv = bootstrap.twoway_intervals(np.zeros(1), items, raters, cells, 24, 3, 72)
    assert iv.se[0] >= np.std(items, ddof=1) * math.sqrt(24 / 23) - 1e-9
    assert 1 <= iv.df[0] <= 23


# ---- the solver ------------------------------------------------------------------------------------


def test_newton_solver_matches_a_known_logistic_fit_and_is_batched():
    x = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, -1.0]])
    wins = np.array([[3.0, 1.0, 2.0], [6.0, 2.0, 4.0]])
    totals = np.array([[4.0, 4.0, 4.0], [8.0, 8.0, 8.0]])
    beta = bt.newton_logistic(x, wins, totals, ridge=0.0)
    assert beta[0] == pytest.approx(beta[1], abs=1e-8)  # doubling every count changes nothing
    p = 1 / (1 + np.exp(-(beta[0] @ x.T)))
    assert ((wins[0] - totals[0] * p) @ x) == pytest.approx([0.0, 0.0], abs=1e-9)  # the score equations
