"""Calibration of the primary analysis by simulation: a fast, seeded subset of
benchmarks/bench_calibration.py (the full table, with the mixed model, is there and in
docs/statistics.md). Seeded, so the figures are the same on every run; a design that misses the
targets fails here. About a minute on 2 cores."""

import math

import numpy as np
import pandas as pd
import pytest

from evaluation import human
from evaluation import stats_design as sd


@pytest.mark.parametrize("name, n", [("taste", 500), ("missing", 250)])
def test_false_positives_and_coverage_on_the_hard_designs(name, n):
    cal = sd.calibrate(name, n_null=n, n_known=n, seed=2026, workers=2)
    print(f"\n{name}: {cal.row()}")
    assert 0.03 <= cal.fwer <= 0.07  # any pair x dimension, after max-T over the family
    assert 0.93 <= cal.coverage <= 0.97  # the shifted difference
    assert 0.93 <= cal.coverage_means <= 0.97  # every method's mean
    assert cal.scope == human.SCOPE_ALL
    if name == "taste":  # the analysis before issue 22, on the same null studies: far too many false positives
        assert cal.fwer_item > 0.1
    assert cal.power >= cal.power_holm  # max-T never loses to Holm on the same p-values


def test_population_scores_match_a_large_simulation():
    # many raters: the rater severities average out (with 5, their mean alone has SD 0.4 / sqrt(5))
    design = sd.Design(items=200, raters=200, methods=2, effects=(0.0, 0.8), sd_rater_method=0.3)
    df = sd.simulate(design, 7)
    means = df.groupby("method")["coherence"].mean().to_numpy()
    assert means == pytest.approx(sd.population_scores(design), abs=0.08)


def test_conditional_scores_are_these_raters_expectation():
    design = sd.Design(items=3000, raters=2, methods=2, sd_rater=0.8, sd_rater_method=0.4)
    df, truth = sd.simulate_study(design, 3)
    means = df.groupby("method")["coherence"].mean().to_numpy()
    assert means == pytest.approx(truth.conditional[0], abs=0.04)  # these two raters, endless items
    assert not np.allclose(truth.conditional[0], truth.population, atol=0.04)


def test_the_planner_makes_the_apps_decisions():
    design = sd.Design(items=12, raters=3, methods=3, sd_rater_method=0.3).with_effect(0.7)
    rng = np.random.default_rng(11)
    scores = sd.observed(sd.latent(design, rng, 6, 3)["latent"])  # studies x dims x items x raters x methods x 1
    fast = sd.study_tests(scores.mean(axis=-1))
    i, r, m = (a.ravel() for a in np.meshgrid(np.arange(12), np.arange(3), np.arange(3), indexing="ij"))
    for s in range(len(scores)):
        frame = pd.DataFrame(
            {"study_id": 1, "item_id": i, "output_id": i * 3 + m, "method": np.array(list("ABC"))[m], "rater": r}
        ).assign(position=0)
        for d, dim in enumerate(human.DIMENSIONS):
            frame[dim] = scores[s, d, :, :, :, 0][i, r, m]
        app = human.pairwise(frame)
        assert fast["p"][s] == pytest.approx(app["p_value"].to_numpy())
        assert fast["df"][s] == pytest.approx(app["df"].to_numpy())
        assert list(np.nan_to_num(fast["p_family"][s], nan=1) < 0.05) == list(app["p_holm"] < 0.05)


def test_power_grows_with_items_and_effect():
    grid = sd.power_grid(0.8, items=(8, 40), raters=(3,), n_studies=120, seed=1)
    low, high = grid["power"]
    assert low < high and high > 0.8
    none = sd.power_grid(0.0, items=(20,), raters=(3,), n_studies=300, seed=1)["power"].iloc[0]
    assert none < 0.06  # no effect: power = the false-positive rate of the pair after the family adjustment
    _, line = sd.plan(0.8, items=(8, 40), raters=(3,), n_studies=120)
    assert "40 items × 3 raters" in line and "power" in line and "3 dimensions" in line
    _, line = sd.plan(1.5, items=(30,), raters=(2,), n_studies=100)
    assert "those raters only" in line
    assert not math.isnan(low)
