"""Calibration of the primary analysis by simulation: a fast, seeded subset of
benchmarks/bench_calibration.py (the full table, with the mixed model, is there and in
docs/statistics.md). Seeded, so the figures are the same on every run; a design that misses the
targets fails here. About 10 s (the closed forms on two designs, the app on one)."""

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from evaluation.human import columns as hcols
from evaluation.human import crossed
from evaluation.human import design as sd
from evaluation.human import stats as hs


def _any_significant(p: np.ndarray) -> np.ndarray:
    return (np.nan_to_num(p, nan=1.0) < hs.ALPHA).any(axis=1)


@pytest.mark.parametrize("name", ["taste", "variance"])
def test_fast_calibration_of_the_closed_forms(name):
    # the primary analysis of complete studies in closed form (the same p-values, df and decisions as the
    # app's: test_the_planner_makes_the_apps_decisions), 600 seeded null and 600 shifted studies of the
    # raters' taste design and of methods that differ only in how much they vary
    design = sd.DESIGNS[name][1]
    rng = np.random.default_rng(2026)
    null = sd.study_tests(sd.observed(sd.latent(design, rng, 600, 3)["latent"]).mean(axis=-1), draws=sd.PLANNER_DRAWS)
    fwer = _any_significant(null["p_family"]).mean()  # any pair x dimension after max-T over the family
    holm = np.array([hs.holm(p) for p in null["p"]])
    print(
        f"\n{name}, closed forms: family false positives {fwer:.3f} (max-T), {_any_significant(holm).mean():.3f} (Holm)"
    )
    assert 0.03 <= fwer <= 0.07
    known = design.with_effect(0.5)
    shifted = sd.study_tests(sd.observed(sd.latent(known, rng, 600, 3)["latent"]).mean(axis=-1), draws=sd.PLANNER_DRAWS)
    k = design.methods - 2  # pair (first, last) of the first dimension
    truth = sd.population_scores(known)
    half = stats.t.ppf(0.975, shifted["df"][:, k]) * shifted["se"][:, k]
    coverage = (np.abs(shifted["estimate"][:, k] - (truth[0] - truth[-1])) <= half).mean()
    power = (shifted["p_family"][:, k] < hs.ALPHA).mean()
    power_holm = (np.array([hs.holm(p)[k] for p in shifted["p"]]) < hs.ALPHA).mean()
    print(f"coverage {coverage:.3f}, power {power:.3f} (max-T) vs {power_holm:.3f} (Holm)")
    assert 0.93 <= coverage <= 0.97
    assert power >= power_holm  # max-T never loses to Holm on the same p-values


def test_fast_calibration_of_the_app_on_the_raters_taste_design():
    # the app's own functions on 40 + 30 seeded studies: too few for the target band, enough to fail when the
    # raters' taste is ignored again (the item-level analysis finds a "difference" in about 40% of them)
    cal = sd.calibrate("taste", n_null=40, n_known=30, seed=2026, workers=1)
    print(f"\ntaste, app: {cal.row()}")
    assert cal.fwer <= 0.2 and cal.fwer_item >= 0.25
    assert cal.coverage >= 0.85 and 0.88 <= cal.coverage_means <= 0.995
    assert cal.scope == crossed.SCOPE_ALL


def test_closed_form_calibration_covers_complete_designs_only():
    assert sd.closed_form_calibration(sd.DESIGNS["missing"][1], 10) is None  # REML path: the app's run only
    cal = sd.closed_form_calibration(sd.DESIGNS["few raters"][1], 40, seed=3)  # conditional truth, 2 raters
    assert cal is not None and cal["n"] == 40
    assert cal["fwer_holm"] <= cal["fwer"] <= 0.2 and cal["coverage"] >= 0.85


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
        for d, dim in enumerate(hcols.DIMENSIONS):
            frame[dim] = scores[s, d, :, :, :, 0][i, r, m]
        app = hs.pairwise(frame)
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
