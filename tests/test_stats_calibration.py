"""Calibration of the primary analysis by simulation (fast enough for CI; the full run with the mixed
model is benchmarks/bench_calibration.py). Seeded, so the figures are the same on every run."""

import math

import numpy as np
import pytest

from evaluation import human
from evaluation import stats_design as sd


def test_null_false_positive_rate_and_ci_coverage_of_a_known_difference():
    cal = sd.calibrate(sd.Design(items=20, raters=3, methods=3), n_null=500, n_known=500, known_effect=0.5, seed=2026)
    print("\n" + "\n".join(cal.lines()))
    assert 0.03 <= cal.fpr_wilcoxon <= 0.07
    assert 0.03 <= cal.fpr_friedman <= 0.07
    assert cal.fpr_any_holm <= 0.07  # familywise over the three pairs
    assert 0.93 <= cal.coverage_t <= 0.97
    assert 0.2 < cal.true_diff < 0.5  # rounding and clipping shrink the latent 0.5


def test_expected_scores_match_a_large_simulation():
    design = sd.Design(items=400, raters=5, methods=2, effects=(0.0, 0.8))
    df = sd.simulate(design, 7)
    means = df.groupby("method")["coherence"].mean().to_numpy()
    assert means == pytest.approx(sd.expected_scores(design), abs=0.12)


def test_vectorised_power_test_is_the_app_test():
    design = sd.Design(items=12, raters=2, methods=3, effects=(0.0, 0.0, 0.7))
    rng = np.random.default_rng(11)
    scores = sd.observed(sd.latent(design, rng, 1))[0]  # items x raters x methods
    rows = [
        {"item_id": i, "rater": f"r{r}", "method": "ABC"[m], "output_id": i * 3 + m, "coherence": scores[i, r, m]}
        for i in range(12)
        for r in range(2)
        for m in range(3)
    ]
    import pandas as pd

    pw = human.pairwise_wilcoxon(pd.DataFrame(rows), ["coherence"]).set_index(["method_a", "method_b"])
    from scipy import stats

    item_means = scores.mean(axis=1)
    p = stats.wilcoxon(item_means[None, :, 0] - item_means[None, :, 2], axis=1, zero_method="wilcox").pvalue[0]
    assert pw.loc[("A", "C"), "p_value"] == pytest.approx(p)


def test_power_grows_with_items_and_effect():
    grid = sd.power_grid(0.8, items=(8, 40), raters=(2,), n_studies=150, seed=1)
    low, high = grid["power"]
    assert low < high and high > 0.8
    none = sd.power_grid(0.0, items=(20,), raters=(2,), n_studies=300, seed=1)["power"].iloc[0]
    assert none < 0.06  # no effect: power = false-positive rate of the pair after Holm
    _, line = sd.plan(0.8, items=(8, 40), raters=(2,), n_studies=150)
    assert "40 items × 2 raters" in line and "power" in line
    assert not math.isnan(low)
