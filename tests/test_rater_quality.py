"""Rater quality control (evaluation/human/quality.py) on simulated studies whose odd raters are known:
straight-lining, speeding, scoring against the others (a permutation test per item, combined with
Fisher's method), exclusion rules, and the analysis with and without the excluded raters."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from evaluation.human import analysis as ha
from evaluation.human import design as sd
from evaluation.human import quality

DIMS = ["coherence", "informativeness", "naturalness"]


def odd_study() -> pd.DataFrame:
    """16 items x 5 honest raters x 4 methods that differ, plus a straight-liner, a rater who reverses
    the others' order, a speeder and a rater who answers at random; an item every 60 s (the speeder 5 s)."""
    design = sd.Design(items=16, raters=5, methods=4, effects=(0, 0.8, 1.6, 2.4), sd_resid=0.5, sd_rater=0.2)
    df = sd.simulate(design, 3)
    r0 = df[df["rater"] == "r0"]
    flat = r0.assign(rater="flat", **{d: 3 for d in DIMS})
    reverse = r0.assign(rater="reverse", **{d: 6 - r0[d] for d in DIMS})
    rng = np.random.default_rng(1)
    noise = r0.assign(rater="noise", **{d: rng.integers(1, 6, len(r0)) for d in DIMS})
    fast = df[df["rater"] == "r1"].assign(rater="fast")
    df = pd.concat([df, flat, reverse, noise, fast], ignore_index=True)
    start = pd.Timestamp("2026-03-01T09:00:00Z")
    step = np.where(df["rater"] == "fast", 5, 60)
    return df.assign(created_at=start + pd.to_timedelta(df["item_id"] * step, unit="s"))


def test_every_rater_gets_flags_and_each_odd_one_is_found():
    flags = quality.rater_flags(odd_study(), DIMS, failed_attention=["r4"]).set_index("rater")
    assert set(flags.index) == {"r0", "r1", "r2", "r3", "r4", "flat", "reverse", "noise", "fast"}
    assert flags.loc["flat", "flags"] == ["straight-lining"]
    assert flags.loc["fast", "flags"] == ["speeder"] and flags.loc["fast", "median_s_per_item"] == 5
    assert flags.loc["reverse", "flags"] == ["against"] and flags.loc["reverse", "against_p"] < 1e-6
    assert flags.loc["r4", "flags"] == ["attention"]
    honest = ["r0", "r1", "r2", "r3"]
    assert not any(flags.loc[honest, "flags"].map(bool)) and (flags.loc[honest, "agree_p"] < 1e-6).all()
    # a rater who answers at random neither agrees beyond chance nor goes against the others
    assert flags.loc["noise", "agree_p"] > 0.01 and flags.loc["noise", "against_p"] > 0.01
    said = {r["rater"]: quality.flag_words(r) for r in flags.reset_index().to_dict("records")}
    assert "unrelated" in said["noise"] and "against the other raters' consensus" in said["reverse"]
    assert said["r0"] == "r0: nothing stands out."


def test_fisher_combines_the_per_item_permutation_p_values():
    ps = [0.2, 0.05, 0.5, 0.01]
    assert quality.fisher(ps) == pytest.approx(stats.combine_pvalues(ps, method="fisher").pvalue)


def test_the_consensus_test_does_not_depend_on_row_order():
    df = odd_study()
    forward = quality.consensus_tests(df, DIMS)
    backward = quality.consensus_tests(df.iloc[::-1].reset_index(drop=True), DIMS)
    pd.testing.assert_frame_equal(forward, backward)


def test_the_permutation_test_holds_its_level_for_random_raters():
    # raters who score at random against a consensus: the "against" p must be uniform, so a 5% flag fires ~5%
    rng = np.random.default_rng(0)
    design = sd.Design(items=6, raters=4, methods=3, effects=(0, 1, 2), sd_resid=0.5)
    low = []
    for k in range(60):
        df = sd.simulate(design, k)
        df.loc[df["rater"] == "r0", DIMS] = rng.integers(1, 6, ((df["rater"] == "r0").sum(), 3))
        low.append(
            quality.consensus_tests(df, DIMS, permutations=400, seed=k).set_index("rater").loc["r0", "against_p"]
        )
    assert 0.0 <= np.mean(np.array(low) < 0.05) <= 0.15


def test_exclusion_rules_and_the_analysis_with_and_without():
    df = odd_study()
    flags = quality.rater_flags(df, DIMS)
    exclusion = quality.excluded_raters(flags, ["straight-lining", "against", "speeder"])
    assert set(exclusion.raters) == {"flat", "reverse", "fast"} and exclusion.n_raters == 9
    assert exclusion.words().startswith("3 of 9 raters excluded by the rule set in advance")
    kept = quality.apply_exclusion(df, exclusion)
    assert set(kept["rater"]) == {"r0", "r1", "r2", "r3", "r4", "noise"}
    table = quality.with_and_without(ha.analyse(df, mixed=False)["pairwise"], ha.analyse(kept, mixed=False)["pairwise"])
    assert len(table) == 18 and set(table.columns) == set(quality.SENSITIVITY_COLUMNS)
    assert "excluded rater" in quality.sensitivity_words(table, exclusion)
    with pytest.raises(ValueError, match="unknown exclusion rule"):
        quality.excluded_raters(flags, ["lazy"])
    kept, rule = quality.failed_attention_rule(df, ["noise", "nobody"])
    assert rule.raters == ("noise",) and "noise" not in set(kept["rater"]) and rule.words().startswith("1 of 9")


def test_apply_rules_reads_attention_from_the_frame():
    df = odd_study()
    df["attention_passed"] = df["rater"] != "noise"
    kept, exclusion, flags = quality.apply_rules(df, DIMS, ["attention"])
    assert exclusion.raters == ("noise",) and "noise" not in set(kept["rater"]) and len(flags) == 9
