"""Human-rating statistics on synthetic ratings tables whose answers are known. The unit is the item:
each method's score on an item is the mean over its raters (see evaluation/hs.py)."""

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from evaluation.human import columns as hcols
from evaluation.human import crossed
from evaluation.human import design as stats_design
from evaluation.human import stats as hs
from evaluation.human import words as hw

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
    df = pd.DataFrame(
        rows,
        columns=[
            "study_id",
            "scenario",
            "item_id",
            "rater",
            "method",
            "output_id",
            "coherence",
            "informativeness",
            "naturalness",
        ],
    )
    df["study_name"] = df["study_id"].map(lambda s: f"study {s}")
    return df


def simulate_study(seed=0, **design):
    return stats_design.simulate(stats_design.Design(items=10, raters=3, **design), seed)


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
    m = hs.method_means(df).set_index(["method", "dimension"])
    assert m.loc[("A", "coherence"), "mean"] == 5 and m.loc[("C", "coherence"), "mean"] == 1
    # n counts items (4), not ratings (8): two raters of one item are not two independent units
    assert m.loc[("A", "coherence"), "n"] == 4 and m.loc[("A", "coherence"), "n_ratings"] == 8
    # every score the same: no interval can be built from no variation (never a zero-width CI)
    b = m.loc[("B", "coherence")]
    assert b["status"] == "not estimable" and math.isnan(b["ci_low"]) and math.isnan(b["ci_high"])
    assert "not estimable" in hw.explain_mean(b.to_dict() | {"method": "B", "dimension": "coherence"})
    nat = m.loc[("A", "naturalness")]
    item_means = df[df.method == "A"].groupby("item_id")["naturalness"].mean()
    assert nat["mean"] == pytest.approx(item_means.mean()) and nat["status"] == "ok"
    assert nat["ci_low"] < nat["mean"] < nat["ci_high"]
    assert nat["scope"] == crossed.SCOPE_THESE  # two raters: the interval is about these raters


def test_pairwise_wilcoxon_exact_p_and_holm():
    pw = hs.pairwise_wilcoxon(ordered_study()).set_index(["dimension", "method_a", "method_b"])
    row = pw.loc[("coherence", "A", "B")]
    # 4 items (the unit), all differences positive: exact two-sided p = 2 / 2^4. Each (item, rater)
    # as a unit would give 8 "pairs" and p = 2 / 2^8, overstating the evidence.
    assert row["n_pairs"] == 4 and row["mean_diff"] == 2
    assert math.isnan(row["ci_low"]) and math.isnan(row["ci_high"])  # the same difference everywhere
    assert row["p_value"] == pytest.approx(2 / 2**4)
    # three equal p-values: Holm multiplies the smallest by 3 and keeps the rest monotone
    assert list(pw.loc["coherence"]["p_holm"]) == pytest.approx([3 * 2 / 2**4] * 3)
    # no difference at all: no test
    assert math.isnan(pw.loc[("informativeness", "A", "B"), "p_value"])


def test_the_primary_analysis_says_not_estimable_and_not_testable_in_words():
    pw = hs.pairwise(ordered_study()).set_index(["dimension", "method_a", "method_b"])
    row = pw.loc[("coherence", "A", "B")]
    assert row["status"] == "not estimable" and math.isnan(row["p_holm"]) and math.isnan(row["ci_low"])
    line = hw.explain_pair(row.to_dict() | {"dimension": "coherence", "method_a": "A", "method_b": "B"})
    assert "not estimable" in line and "CI" not in line
    one = hs.pairwise(ordered_study(n_items=1), ["naturalness"]).iloc[0]
    assert one["status"] == "not testable" and math.isnan(one["p_value"])
    assert "not testable" in hw.explain_pair(one)
    pos = hs.position_effect(ordered_study(n_items=1).assign(position=[0, 1, 2] * 2), ["naturalness"]).iloc[0]
    assert "not testable" in hw.explain_position(pos)


def test_not_estimable_says_every_difference_is_the_same_only_when_it_is():
    """Two raters who disagree (A - B = +2 for one, 0 for the other) on two items whose mean
    differences are equal: the interval, about these raters' item means, has no spread, but the
    differences are not "the same on every item and rater" (what the Results tab said before)."""
    rows = []
    for item in (0, 1):
        for rater, (a, b) in enumerate(((5, 3), (4, 4))):
            for method, score in (("A", a), ("B", b)):
                rows.append(dict(study_id=1, item_id=item, output_id=item * 2 + (method == "B"), method=method,
                                 rater=rater, position=0, coherence=score))  # fmt: skip
    pw = hs.pairwise(pd.DataFrame(rows), ["coherence"]).iloc[0]
    assert pw["status"] == "not estimable" and pw["mean_diff"] == pytest.approx(1.0)
    line = hw.explain_pair(pw.to_dict() | {"dimension": "coherence"})
    assert "not estimable" in line and "the same on every item and rater" not in line and "do not vary" in line
    same = hs.pairwise(ordered_study(), ["coherence"]).iloc[0]  # every difference +2
    assert "the same on every item and rater" in hw.explain_pair(same.to_dict() | {"dimension": "coherence"})


def test_the_headline_family_counts_its_tests_in_words():
    # a family of one test (two methods, one estimable question) read "1 tests" (issue 46's browser walk)
    assert hs.family_words(1, 1, "max-T") == "1 test (every pair x 1 dimension), step-down max-T"
    assert hs.family_words(6, 2, "holm") == "6 tests (every pair x 2 dimensions), Holm"


def test_more_raters_copying_the_same_scores_add_no_evidence_to_the_item_level_tests():
    df = simulate_study(seed=5)
    copies = pd.concat([df, df.assign(rater=df["rater"] + "-copy")])
    one, two = hs.pairwise_wilcoxon(df), hs.pairwise_wilcoxon(copies)
    assert list(two["n_pairs"]) == list(one["n_pairs"])
    assert list(two["p_value"]) == pytest.approx(list(one["p_value"]), nan_ok=True)
    assert list(two["ci_low"]) == pytest.approx(list(one["ci_low"]), nan_ok=True)


def test_t_interval_of_item_differences_by_hand():
    d = np.array([0.5, 1.0, -0.5, 0.0, 1.5])
    mean, lo, hi = hs.t_interval(d)
    half = 2.7764451051977987 * d.std(ddof=1) / np.sqrt(5)  # t(0.975, 4)
    assert (mean, lo, hi) == pytest.approx((0.5, 0.5 - half, 0.5 + half))
    mean, lo, hi = hs.t_interval([1.0, 1.0, 1.0])
    assert mean == 1.0 and math.isnan(lo) and math.isnan(hi)


def test_holm_by_hand():
    assert hs.holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert hs.holm([0.5, NAN, 0.01]) == pytest.approx([0.5, NAN, 0.02], nan_ok=True)


def test_friedman_on_a_perfect_ordering():
    fr = hs.friedman(ordered_study()).set_index("dimension")
    # n=4 items (blocks), k=3, rank sums 12, 8, 4: chi2 = 12/(n k (k+1)) * sum R^2 - 3 n (k+1) = 8
    assert fr.loc["coherence", "statistic"] == pytest.approx(8.0)
    assert fr.loc["coherence", "p_value"] == pytest.approx(math.exp(-4))  # chi2, 2 df
    assert fr.loc["coherence", "n_units"] == 4


def test_krippendorff_alpha_is_the_packages_value():
    import krippendorff

    df = simulate_study(seed=3)
    for dim in hcols.DIMENSIONS:
        data = hs.reliability_matrix(df, dim)
        ours = hs.krippendorff_alpha(df, [dim])["alpha"].iloc[0]
        ref = krippendorff.alpha(reliability_data=data, level_of_measurement="ordinal", value_domain=[1, 2, 3, 4, 5])
        assert ours == pytest.approx(ref, abs=1e-12)


def test_krippendorff_alpha_on_the_published_example():
    rows = [
        (1, "s", unit, f"obs{o}", "A", unit, value, value, value)
        for o, line in enumerate(KRIPPENDORFF_EXAMPLE)
        for unit, value in enumerate(line)
        if not math.isnan(value)
    ]
    alpha = hs.krippendorff_alpha(ratings_frame(rows)).set_index("dimension")
    assert alpha.loc["coherence", "alpha"] == pytest.approx(0.815, abs=5e-4)
    nominal = hs.krippendorff_alpha(ratings_frame(rows), level="nominal")
    assert nominal["alpha"].iloc[0] == pytest.approx(0.743, abs=5e-4)
    assert alpha.loc["coherence", "raters"] == 4 and alpha.loc["coherence", "units_pairable"] == 11


def test_ppl_correlation_within_method_not_pooled():
    # Within each method, higher PPL goes with a higher score; across methods the method with the
    # lowest PPL scores best. Pooled, the method would drive a strong negative correlation.
    rows = []
    for k, (method, base_ppl, base_score) in enumerate((("A", 5, 5), ("B", 20, 3), ("C", 60, 1))):
        for item in range(6):
            rows.append((1, "s", item, "ann", method, 100 * k + item, min(5, base_score + item // 3), 3, 3))
    df = ratings_frame(rows)
    ppl = {100 * k + item: base + item for k, base in enumerate((5, 20, 60)) for item in range(6)}
    pooled = stats.spearmanr([ppl[o] for o in df["output_id"]], df["coherence"]).statistic
    assert pooled < -0.8
    corr = hs.ppl_correlation(df, ppl).set_index(["dimension", "method"])
    assert corr.loc[("coherence", "B"), "spearman_rho"] > 0.8 and corr.loc[("coherence", "B"), "n_outputs"] == 6
    partial = corr.loc[("coherence", "(method partialled out)")]
    assert partial["spearman_rho"] > 0.5 and partial["n_outputs"] == 18
    assert math.isnan(corr.loc[("informativeness", "A"), "spearman_rho"])  # constant scores


def test_filters_by_study_scenario_and_rater():
    df = pd.concat([ordered_study(), ordered_study().assign(study_id=2, study_name="study 2")])
    assert len(hs.filter_ratings(df, study=2)) == len(df) / 2
    assert len(hs.filter_ratings(df, study="study 1")) == len(df) / 2
    only = hs.filter_ratings(df, study=1, scenario="qa", rater="ann")
    assert set(only["scenario"]) == {"qa"} and set(only["rater"]) == {"ann"} and len(only) == 2 * 3
    assert len(hs.filter_ratings(df, rater=["ann", "bob"])) == len(df)


def test_exact_signed_rank_p_is_scipys():
    # up to 13 items the exact sign-flip p is computed by enumeration; it must be scipy's value
    rng = np.random.default_rng(0)
    for trial in range(18):
        n = int(rng.integers(2, 14))
        x = [np.round(rng.normal(size=n) * 3) / 3, rng.normal(size=n), rng.integers(-2, 3, size=n).astype(float)][
            trial % 3
        ]
        if np.count_nonzero(x) == 0:
            continue
        ref = stats.wilcoxon(x, zero_method="wilcox")
        stat, p = hs.wilcoxon_p(x)
        assert p == pytest.approx(ref.pvalue, abs=1e-12) and stat == pytest.approx(ref.statistic)
