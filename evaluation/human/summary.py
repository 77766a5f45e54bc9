"""The command line's JSON: per study and dimension (the study's rubric), every result of
`analysis.analyse` as plain numbers, with its sentence (`words`); per rater the quality flags
(`quality.rater_flags`); with an exclusion rule, who it dropped and the headline with and without them."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

import numpy as np
import pandas as pd

from common.rubric import DEFAULT_RUBRIC, Rubric

from . import choices, quality, words
from . import stats as hs
from .analysis import analyse


def _clean(v: Any) -> Any:
    if isinstance(v, (float, np.floating)):
        return None if not np.isfinite(v) else float(v)
    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, (np.bool_,)):
        return bool(v)
    return v


UNIT = (
    "cell: one rater's mean over a method's samples on one item; estimates are means over items of item "
    "means, with items and raters both as samples (with 1-2 raters: these raters only; with 1-2 items: these "
    "prompts only, see scope)"
)


def _means(m: pd.DataFrame) -> dict[str, Any]:
    return {
        r["method"]: {
            "mean": _clean(r["mean"]),
            "ci_low": _clean(r["ci_low"]),
            "ci_high": _clean(r["ci_high"]),
            "n_items": _clean(r["n"]),
            "n_ratings": _clean(r["n_ratings"]),
            "n_raters": _clean(r["n_raters"]),
            "df": _clean(r["df"]),
            "status": r["status"],
            "scope": r["scope"],
            "meaning": words.explain_mean(r),
        }
        for r in m.to_dict("records")
    }


def _pairs(pw: pd.DataFrame) -> list[dict[str, Any]]:
    return [
        {
            "a": r["method_a"],
            "b": r["method_b"],
            "diff": _clean(r["mean_diff"]),
            "ci_low": _clean(r["ci_low"]),
            "ci_high": _clean(r["ci_high"]),
            "p": _clean(r["p_value"]),
            "p_holm": _clean(r["p_holm"]),
            "df": _clean(r["df"]),
            "n_items": _clean(r["n_pairs"]),
            "n_raters": _clean(r["n_raters"]),
            "status": r["status"],
            "scope": r["scope"],
            "family": r["family"],
            "meaning": words.explain_pair(r),
        }
        for r in pw.to_dict("records")
    ]


def _choices(res: dict[str, Any]) -> dict[str, Any]:
    """Per choice question: {method: {label: n}} and the test of independence, with its sentence."""
    counts, out = res["choice_counts"], {}
    for test in res["choice_tests"].to_dict("records"):
        mine = counts[counts["question"] == test["question"]]
        out[test["question"]] = {
            "counts": {m: dict(zip(g["label"], map(int, g["n"]))) for m, g in mine.groupby("method", sort=False)},
            "test": {k: _clean(v) for k, v in test.items() if k != "question"},
            "meaning": choices.explain_choice(test, counts),
        }
    return out


def _dimension(res: dict[str, Any], dim: str, mixed: bool) -> dict[str, Any]:
    def of(key: str) -> pd.DataFrame:
        frame = res[key]
        return frame[frame["dimension"] == dim] if len(frame) else frame

    fr, ag, po, mm, vc, cj = (
        of(k) for k in ("friedman", "agreement", "position", "mixed", "variance_components", "cant_judge")
    )
    return {
        "scale": [res["rubric"].dimension(dim).low, res["rubric"].dimension(dim).high],
        "cant_judge": {r["method"]: int(r["n"]) for r in cj.to_dict("records")},
        "means": _means(of("means")),
        "pairwise": _pairs(of("pairwise")),
        "friedman_p": _clean(fr["p_value"].iloc[0]) if len(fr) else None,
        "agreement": _clean(ag["alpha"].iloc[0]) if len(ag) else None,
        "position_effect": (
            {k: _clean(po.iloc[0][k]) for k in ("diff", "ci_low", "ci_high", "p_value", "n_items")}
            | {"meaning": words.explain_position(po.iloc[0])}
        )
        if len(po)
        else None,
        "mixed_model": {
            "contrasts": [
                {
                    "a": r["method_a"],
                    "b": r["method_b"],
                    **{k: _clean(r[k]) for k in hs.MIXED_COLUMNS[3:] if k != "scope"},
                    "scope": r["scope"],
                }
                for r in mm.to_dict("records")
            ],
            "variance_components": {r["component"]: _clean(r["variance"]) for r in vc.to_dict("records")},
        }
        if mixed
        else None,
    }


def _raters(flags: pd.DataFrame, exclusion: quality.Exclusion) -> list[dict[str, Any]]:
    out = []
    for r in flags.to_dict("records"):
        entry = {k: _clean(v) for k, v in r.items() if k != "flags"}
        entry |= {
            "flags": list(r["flags"]),
            "excluded": r["rater"] in exclusion.raters,
            "meaning": quality.flag_words(r),
        }
        out.append(entry)
    return out


def study_summary(
    ratings: pd.DataFrame,
    rubric: Rubric = DEFAULT_RUBRIC,
    mixed: bool = True,
    exclude: Collection[str] = (),
    failed_attention: Collection[str] = (),
) -> dict[str, Any]:
    """One study's JSON (see `summarise`): the analysis of the raters `exclude` keeps, the flags of
    every rater, and with an exclusion the headline on every rater beside it."""
    flags = quality.rater_flags(ratings, rubric, failed_attention)
    exclusion = quality.excluded_raters(flags, exclude)
    kept = quality.apply_exclusion(ratings, exclusion)
    res = analyse(kept, mixed=mixed, rubric=rubric)
    pw_all = res["pairwise"]
    taste = res["taste"]
    out: dict[str, Any] = {
        "name": str(ratings["study_name"].iloc[0]) if "study_name" in ratings and len(ratings) else None,
        "rubric": rubric.to_dict(),
        "n_items": int(kept["item_id"].nunique()),
        "n_raters": int(kept["rater"].nunique()),
        "n_ratings": int(len(kept)),
        "n_cant_judge": int(res["cant_judge"]["n"].sum()),
        "raters_excluded": exclusion.as_dict() | {"meaning": exclusion.words()},
        "methods": res["methods"],
        "scope": words.study_scope_words(pw_all),
        "top_rater_share": _clean(res["top_rater_share"]),
        "family": {
            "tests": int(pw_all["p_holm"].notna().sum()),
            "what": "every method pair x dimension, adjusted together: the headline names only these",
            "adjustment": "step-down max-T" if res["adjust"] == "max-T" else "Holm",
            "description": str(pw_all["family"].iloc[0]) if len(pw_all) else None,
        },
        "rater_taste": {
            "variance": _clean(taste.variance),
            "p": _clean(taste.p_value),
            "used": bool(taste.used),
            "level": _clean(taste.level),
            "meaning": words.explain_taste(taste, res["items_fixed"]),
        },
        "lines": res["lines"],
        "dimensions": {dim: _dimension(res, dim, mixed) for dim in rubric.numeric},
        "choices": _choices(res),
        "raters": _raters(flags, exclusion),
    }
    if exclusion.n:
        every = analyse(ratings, mixed=False, rubric=rubric)["pairwise"]
        table = quality.with_and_without(every, pw_all)
        out["sensitivity"] = {
            "meaning": quality.sensitivity_words(table, exclusion),
            "n_raters_all": int(ratings["rater"].nunique()),
            "pairs": [{k: _clean(v) for k, v in r.items()} for r in table.to_dict("records")],
        }
    return out


def summarise(
    ratings: pd.DataFrame,
    mixed: bool = True,
    rubrics: Mapping[str, Rubric] | None = None,
    exclude: Collection[str] = (),
    failed_attention: Mapping[str, Collection[str]] | None = None,
) -> dict[str, Any]:
    """The CLI's JSON: {"unit", "studies": {study id: {..., "family", "dimensions": {dim: {...}}}}}.
    `rubrics`: each study's (default: the default rubric); `exclude`: exclusion rules (`quality.RULES`);
    `failed_attention`: per study, the raters who failed an attention item."""
    out: dict[str, Any] = {"unit": UNIT, "studies": {}}
    # One order whatever the file's: sums of floats follow the rows' order, and a file whose rows came
    # in another order gave p values that differed in their last digits (tests/test_stats_cli.py).
    key = [c for c in ("study_id", "item_id", "rater", "method", "output_id") if c in ratings.columns]
    ratings = ratings.sort_values(key, kind="stable").reset_index(drop=True) if key else ratings
    for sid, group in ratings.groupby("study_id", sort=False):
        rubric = (rubrics or {}).get(str(sid), DEFAULT_RUBRIC)
        failed = (failed_attention or {}).get(str(sid), ())
        out["studies"][str(sid)] = study_summary(group, rubric, mixed, exclude, failed)
    return out
