"""The command line's JSON: per study and dimension, every result of `analysis.analyse` as plain
numbers, with its sentence (`words`)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from . import stats as hs
from . import words
from .analysis import analyse
from .columns import DIMENSIONS


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
    "means, with items and raters both as samples (with 1-2 raters: these raters only, see scope)"
)


def summarise(ratings: pd.DataFrame, mixed: bool = True) -> dict[str, Any]:
    """The CLI's JSON: {"unit", "studies": {study id: {..., "family", "dimensions": {dim: {...}}}}}."""
    out: dict[str, Any] = {"unit": UNIT, "studies": {}}
    for sid, group in ratings.groupby("study_id", sort=False):
        res = analyse(group, mixed=mixed)
        pw_all = res["pairwise"]
        dims = {}
        for dim in DIMENSIONS:
            m = res["means"][res["means"]["dimension"] == dim]
            pw = pw_all[pw_all["dimension"] == dim]
            fr = res["friedman"][res["friedman"]["dimension"] == dim]
            ag = res["agreement"][res["agreement"]["dimension"] == dim]
            po = res["position"][res["position"]["dimension"] == dim]
            mm = res["mixed"][res["mixed"]["dimension"] == dim]
            vc = res["variance_components"][res["variance_components"]["dimension"] == dim]
            cj = res["cant_judge"][res["cant_judge"]["dimension"] == dim]
            dims[dim] = {
                "cant_judge": {r["method"]: int(r["n"]) for r in cj.to_dict("records")},
                "means": {
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
                    }
                    for r in m.to_dict("records")
                },
                "pairwise": [
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
                ],
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
        taste = res["taste"]
        out["studies"][str(sid)] = {
            "name": str(group["study_name"].iloc[0]) if "study_name" in group else None,
            "n_items": int(group["item_id"].nunique()),
            "n_raters": int(group["rater"].nunique()),
            "n_ratings": int(len(group)),
            "n_cant_judge": int(res["cant_judge"]["n"].sum()),
            "methods": res["methods"],
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
                "meaning": words.explain_taste(taste),
            },
            "dimensions": dims,
        }
    return out
