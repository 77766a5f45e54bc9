"""The primary analysis (items and raters as samples, one family for the headline) against known
answers: the REML engine against statsmodels, the closed forms against the engine, Satterthwaite by
hand, max-T against its limits, and the degenerate cases (row order, duplicates, few raters)."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from evaluation import story
from evaluation.human import analysis as ha
from evaluation.human import crossed, reml, sim
from evaluation.human import stats as hs
from evaluation.human import words as hw


def crossed_data(seed=1, I=15, R=4, M=3, drop=0.15):
    rng = np.random.default_rng(seed)
    i, r, m = (a.ravel() for a in np.meshgrid(np.arange(I), np.arange(R), np.arange(M), indexing="ij"))
    y = (
        3
        + 0.3 * m
        + rng.normal(0, 0.7, I)[i]
        + rng.normal(0, 0.4, R)[r]
        + rng.normal(0, 0.6, I * M)[i * M + m]
        + rng.normal(0, 0.3, R * M)[r * M + m]
        + rng.normal(0, 0.8, len(i))
    )
    keep = rng.random(len(y)) > drop
    return y[keep], i[keep], r[keep], m[keep]


def test_reml_engine_agrees_with_statsmodels_on_a_crossed_unbalanced_design():
    from statsmodels.regression.mixed_linear_model import MixedLM

    y, i, r, m = crossed_data()
    X = np.column_stack([np.ones(len(y)), m == 1, m == 2]).astype(float)
    fit = reml.fit_reml(y, X, {"item": i, "rater": r, "output": i * 3 + m, "rater:method": r * 3 + m})
    frame = pd.DataFrame(dict(y=y, g=1, m=m, item=i, rater=r, output=i * 3 + m, rm=r * 3 + m))
    vc = {"item": "0+C(item)", "output": "0+C(output)", "rater": "0+C(rater)", "rm": "0+C(rm)"}
    model = MixedLM.from_formula("y ~ C(m)", groups="g", re_formula="0", vc_formula=vc, data=frame)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = model.fit(reml=True, method="lbfgs")
    ours = fit.components
    theirs = dict(zip(model.exog_vc.names, ref.vcomp)) | {"residual": ref.scale}
    for name, key in (("item", "item"), ("rater", "rater"), ("output", "output"), ("rater:method", "rm")):
        assert ours[name] == pytest.approx(theirs[key], abs=2e-4)
    assert ours["residual"] == pytest.approx(theirs["residual"], abs=2e-4)
    assert fit.beta == pytest.approx(np.asarray(ref.fe_params), abs=1e-4)
    _, var, _ = reml.contrast(fit, np.array([0.0, 1.0, 0.0]))
    assert math.sqrt(var) == pytest.approx(float(np.sqrt(ref.cov_params().iloc[1, 1])), rel=1e-3)


@pytest.mark.parametrize("sd_item, sd_rater", [(1, 0.5), (0.01, 1), (1, 0.01), (0.01, 0.01)])
def test_closed_forms_give_the_reml_numbers_on_complete_tables(sd_item, sd_rater):
    rng = np.random.default_rng(int(10 * sd_item + 100 * sd_rater))
    table = rng.normal(0, sd_item, (11, 1)) + rng.normal(0, sd_rater, (1, 4)) + rng.normal(0, 1, (11, 4))
    i, r = np.nonzero(np.ones(table.shape))
    y = table[i, r]
    for conditional in (False, True):
        var, df, _ = crossed.balanced_mean_variance(table, conditional)
        if conditional:  # raters fixed: the item component free to go below 0 (its unbiased estimate)
            v2, df2, _ = crossed.free_variance(y, reml.indicators(r), {"item": i}, crossed.item_weights(i), "item")
        else:
            fit = reml.fit_reml(y, np.ones((len(y), 1)), {"item": i, "rater": r})
            v2, df2 = reml.linear_variance(fit, crossed.item_weights(i))
        assert float(var) == pytest.approx(v2, rel=1e-5) and float(df) == pytest.approx(df2, rel=1e-4)
    # a difference with the rater component held at a pooled taste: closed form = REML refit
    closed = crossed.pair_fit(y, i, r)
    general = crossed.PairFit(y, i, r, closed.theta, table=None, fit=None)
    for used in (False, True):
        taste = crossed.Taste(0.2, 0.1, 4.0, 0.01 if used else 0.5, used, 3, 6)
        a, b = crossed.pair_estimate(closed, taste), crossed.pair_estimate(general, taste)
        assert a.se == pytest.approx(b.se, rel=1e-5) and a.df == pytest.approx(b.df, rel=1e-4)


def test_satterthwaite_df_by_hand_on_a_balanced_table():
    rng = np.random.default_rng(0)
    table = rng.normal(0, 1, (12, 1)) + rng.normal(0, 1, (1, 5)) + rng.normal(0, 1, (12, 5))
    I, R = table.shape
    ms_i, ms_r, ms_e = (float(x) for x in crossed.mean_squares(table))
    assert ms_i > ms_e and ms_r > ms_e  # all components positive: no pooling
    var = (ms_i + ms_r - ms_e) / (I * R)
    df = (ms_i + ms_r - ms_e) ** 2 / (ms_i**2 / (I - 1) + ms_r**2 / (R - 1) + ms_e**2 / ((I - 1) * (R - 1)))
    i, r = np.nonzero(np.ones(table.shape))
    e = crossed.crossed_mean(table[i, r], i, r)
    assert e.se**2 == pytest.approx(var) and e.df == pytest.approx(df)
    assert e.ci_high - e.estimate == pytest.approx(stats.t.ppf(0.975, df) * math.sqrt(var))
    assert e.scope == crossed.SCOPE_ALL


def test_max_t_between_its_limits():
    p = np.array([0.01, 0.02, 0.2, 0.5])
    independent = hs.max_t_stepdown(p, np.eye(4))
    sidak = [1 - (1 - 0.01) ** 4, 1 - (1 - 0.02) ** 3, 1 - (1 - 0.2) ** 2, 0.5]
    assert independent == pytest.approx(sidak, abs=0.006)  # Monte Carlo error of 20,000 draws
    same = hs.max_t_stepdown(p, np.full((4, 4), 0.9999) + np.eye(4) * 0.0001)
    assert same == pytest.approx(p, abs=0.004)  # one test four times: no correction needed
    holm = np.array(hs.holm(p))
    for corr in (np.eye(4), np.full((4, 4), 0.5) + np.eye(4) * 0.5):
        adj = hs.max_t_stepdown(p, corr, holm)
        assert np.all(adj >= p) and np.all(adj <= holm + 1e-12)
        assert np.all(np.diff(adj[np.argsort(p)]) >= 0)  # step-down: monotone
    assert hs.max_t_stepdown(p, np.eye(4)) == pytest.approx(hs.max_t_stepdown(p, np.eye(4)))  # seeded


def test_one_family_over_pairs_and_dimensions():
    df = sim.simulate(sim.Design(items=12).with_effect(0.8), 4)
    pw = hs.pairwise(df)
    assert len(pw) == 9 and pw["family"].nunique() == 1 and pw["family"].iloc[0].startswith("9 tests")
    holm = hs.pairwise(df, adjust="holm")
    assert list(holm["p_holm"]) == pytest.approx(hs.holm(holm["p_value"]))  # over all 9, not per dimension
    assert (pw["p_holm"] <= holm["p_holm"] + 1e-12).all() and (pw["p_holm"] >= pw["p_value"]).all()


def test_reversing_rows_changes_nothing_and_pairs_follow_the_study_order():
    df = sim.simulate(sim.Design(items=10, methods=3).with_effect(0.5), 2)
    df = df.assign(method=df["method"].map({"A": "TS-Temp", "B": "BS-4", "C": "TS-Tilted"}))
    order = ["BS-4", "TS-Temp", "TS-Tilted"]
    forward = ha.analyse(df, mixed=False, methods=order)
    backward = ha.analyse(df.iloc[::-1].reset_index(drop=True), mixed=False, methods=order)
    pd.testing.assert_frame_equal(forward["pairwise"], backward["pairwise"])
    pd.testing.assert_frame_equal(forward["means"], backward["means"])
    assert forward["lines"] == backward["lines"]
    assert list(forward["pairwise"]["method_a"][:3]) == ["BS-4", "BS-4", "TS-Temp"]
    # without an order given, the export's study_methods column gives it; else names sorted
    tagged = df.assign(study_methods='["TS-Tilted", "TS-Temp", "BS-4"]')
    assert hs.method_order(tagged.iloc[::-1]) == ["TS-Tilted", "TS-Temp", "BS-4"]
    assert hs.method_order(df.iloc[::-1]) == sorted(order)


def test_duplicate_ratings_are_collapsed_once_for_every_analysis():
    df = sim.simulate(sim.Design(items=8), 3)
    doubled = pd.concat([df, df.iloc[:5]], ignore_index=True)
    with pytest.warns(hs.DuplicateRatingsWarning, match="5 repeated"):
        result = ha.analyse(doubled, mixed=False)
    clean = ha.analyse(df, mixed=False)
    for key in ("pairwise", "means", "friedman", "agreement", "position"):
        pd.testing.assert_frame_equal(result[key], clean[key])


def test_two_raters_hold_for_these_raters_only_in_every_word():
    df = sim.simulate(sim.Design(items=30, raters=2).with_effect(1.2), 5)
    result = ha.analyse(df, mixed=True)
    pw = result["pairwise"]
    assert (pw["scope"] == crossed.SCOPE_THESE).all() and (result["means"]["scope"] == crossed.SCOPE_THESE).all()
    assert (result["mixed"]["scope"] == crossed.SCOPE_THESE).all()
    assert all("these 2 raters only" in hw.explain_pair(r) for r in pw.to_dict("records"))
    sentence = story.takeaway(pw, 30, len(df), 2)
    assert "leads" in sentence or "rated above" in sentence
    assert "these 2 raters only" in sentence


def test_raters_taste_enters_when_it_is_there():
    strong = sim.simulate(sim.Design(items=20, raters=4, sd_rater_method=0.6), 8)
    none = sim.simulate(sim.Design(items=20, raters=4, sd_rater_method=0.0, sd_rater=0.0), 8)
    _, taste = hs.pairwise_analysis(strong)
    assert taste.used and taste.variance > 0 and taste.n_pairs == 9 and taste.pieces == 6
    _, no_taste = hs.pairwise_analysis(none)
    assert not no_taste.used
    assert "present" in hw.explain_taste(taste) and "not detected" in hw.explain_taste(no_taste)


def test_missing_cells_go_through_reml_and_stay_sensible():
    df = sim.simulate(sim.Design(items=16, cant_judge=0.2, skipped=0.15).with_effect(0.6), 9)
    pw = hs.pairwise(df)
    assert (pw["status"] == "ok").all() and (pw["df"] > 1).all()
    assert (pw["ci_low"] < pw["mean_diff"]).all() and (pw["mean_diff"] < pw["ci_high"]).all()
    means = hs.method_means(df)
    assert (means["status"] == "ok").all() and (means["ci_high"] - means["ci_low"] < 3).all()


def test_the_takeaway_names_only_what_survives_the_family_over_dimensions():
    # a null study (seeded) where Holm within naturalness alone would call a pair significant (0.033),
    # but not after the family of 3 pairs x 3 dimensions: the sentence must not name it
    df = sim.simulate(sim.Design(items=12), 18)
    pw = hs.pairwise(df)
    info = pw[pw["dimension"] == "naturalness"]
    assert min(hs.holm(info["p_value"])) < 0.05 and (pw["p_holm"] >= 0.05).all()
    assert story.takeaway(pw, 12, len(df), 3).startswith("No clear difference yet")
    # the same rows with family-adjusted p below 0.05: now it is named, with the family in words
    named = story.takeaway(pw.assign(p_holm=pw["p_value"]), 12, len(df), 3)
    assert "naturalness" in named and "adjusted over all 9 pairs × dimensions" in named
