"""Human-rating statistics on synthetic ratings tables whose answers are known."""

import math

import numpy as np
import pandas as pd
import pytest

from evaluation import human

NAN = math.nan
# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", section C: 4 observers,
# 12 units, values 1-5 with gaps; published alpha: nominal 0.743, ordinal 0.815, interval 0.849.
KRIPPENDORFF_EXAMPLE = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, NAN, NAN, NAN],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, NAN, 3],
    [NAN, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, NAN],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, NAN],
]


def ratings_frame(rows):
    """Rows of (study, scenario, item, rater, method, output_id, coherence, informativeness, naturalness)."""
    df = pd.DataFrame(rows, columns=["study_id", "scenario", "item_id", "rater", "method", "output_id",
                                     "coherence", "informativeness", "naturalness"])
    df["study_name"] = df["study_id"].map(lambda s: f"study {s}")
    return df


def ordered_study(n_items=4, raters=("ann", "bob")):
    """Every rater scores A=5, B=3, C=1 on coherence; informativeness all 4; naturalness mixed."""
    rows = []
    for item in range(n_items):
        for r, rater in enumerate(raters):
            for k, (method, coh) in enumerate((("A", 5), ("B", 3), ("C", 1))):
                nat = 1 + (item + r + k) % 5
                rows.append((1, "qa" if item % 2 else "letter", item, rater, method, item * 10 + k, coh, 4, nat))
    return ratings_frame(rows)


def test_method_means_with_ci_and_n():
    df = ordered_study()
    m = human.method_means(df).set_index(["method", "dimension"])
    assert m.loc[("A", "coherence"), "mean"] == 5 and m.loc[("C", "coherence"), "mean"] == 1
    assert m.loc[("A", "coherence"), "n"] == 8
    assert (m.loc[("B", "coherence"), "ci_low"], m.loc[("B", "coherence"), "ci_high"]) == (3, 3)
    nat = m.loc[("A", "naturalness")]
    values = df[df.method == "A"]["naturalness"]
    assert nat["mean"] == pytest.approx(values.mean())
    assert values.min() <= nat["ci_low"] < nat["mean"] < nat["ci_high"] <= values.max()


def test_bootstrap_ci_matches_the_normal_approximation_on_a_large_sample():
    x = np.random.default_rng(1).integers(1, 6, size=2000)
    lo, hi = human.bootstrap_ci(x)
    half = 1.96 * x.std(ddof=1) / np.sqrt(len(x))
    assert lo == pytest.approx(x.mean() - half, abs=0.02) and hi == pytest.approx(x.mean() + half, abs=0.02)


def test_pairwise_wilcoxon_exact_p_and_holm():
    pw = human.pairwise_wilcoxon(ordered_study()).set_index(["dimension", "method_a", "method_b"])
    row = pw.loc[("coherence", "A", "B")]
    # 8 paired units, all differences positive: exact two-sided p = 2 / 2^8
    assert row["n_pairs"] == 8 and row["mean_diff"] == 2
    assert row["p_value"] == pytest.approx(2 / 2**8)
    # three equal p-values: Holm multiplies the smallest by 3 and keeps the rest monotone
    assert list(pw.loc["coherence"]["p_holm"]) == pytest.approx([3 * 2 / 2**8] * 3)
    # no difference at all: no test
    assert math.isnan(pw.loc[("informativeness", "A", "B"), "p_value"])


def test_holm_by_hand():
    assert human.holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert human.holm([0.5, NAN, 0.01]) == pytest.approx([0.5, NAN, 0.02], nan_ok=True)


def test_friedman_on_a_perfect_ordering():
    fr = human.friedman(ordered_study()).set_index("dimension")
    # n=8 blocks, k=3, rank sums 24, 16, 8: chi2 = 12/(n k (k+1)) * sum R^2 - 3 n (k+1) = 16
    assert fr.loc["coherence", "statistic"] == pytest.approx(16.0)
    assert fr.loc["coherence", "p_value"] == pytest.approx(math.exp(-8))  # chi2, 2 df
    assert fr.loc["coherence", "n_units"] == 8


def test_krippendorff_alpha_on_the_published_example():
    rows = [(1, "s", unit, f"obs{o}", "A", unit, value, value, value)
            for o, line in enumerate(KRIPPENDORFF_EXAMPLE) for unit, value in enumerate(line) if not math.isnan(value)]
    alpha = human.krippendorff_alpha(ratings_frame(rows)).set_index("dimension")
    assert alpha.loc["coherence", "alpha"] == pytest.approx(0.815, abs=5e-4)
    nominal = human.krippendorff_alpha(ratings_frame(rows), level="nominal")
    assert nominal["alpha"].iloc[0] == pytest.approx(0.743, abs=5e-4)
    assert alpha.loc["coherence", "raters"] == 4 and alpha.loc["coherence", "units_pairable"] == 11


def test_spearman_between_ppl_and_scores():
    df = ordered_study()
    ppl = {oid: 10.0 + 5 * (oid % 10) + oid / 100 for oid in df["output_id"].unique()}  # A lowest PPL, C highest
    corr = human.ppl_correlation(df, ppl).set_index("dimension")
    assert corr.loc["coherence", "spearman_rho"] < -0.8
    assert corr.loc["coherence", "n_outputs"] == df["output_id"].nunique()
    assert math.isnan(corr.loc["informativeness", "spearman_rho"])  # constant scores


def test_filters_by_study_scenario_and_rater():
    df = pd.concat([ordered_study(), ordered_study().assign(study_id=2, study_name="study 2")])
    assert len(human.filter_ratings(df, study=2)) == len(df) / 2
    assert len(human.filter_ratings(df, study="study 1")) == len(df) / 2
    only = human.filter_ratings(df, study=1, scenario="qa", rater="ann")
    assert set(only["scenario"]) == {"qa"} and set(only["rater"]) == {"ann"} and len(only) == 2 * 3
    assert len(human.filter_ratings(df, rater=["ann", "bob"])) == len(df)
