"""The study in words, for people who will not read the statistics: one takeaway sentence and one
line on rater agreement, both taken from the primary analysis of `evaluation.human` (the item is the
unit; pairwise Wilcoxon on items with Holm's correction and the t CI of the mean difference).

A method "leads" on a dimension when it has the highest mean over items there and every other
method is rated lower with Holm p < 0.05. When no dimension has such a leader but some pairs differ,
the sentence names the clearest pair. Otherwise: "no clear difference yet, N = …". Plain text;
whoever shows it escapes it (method names come from the registry, but treat them as text).
"""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

ALPHA = 0.05


def _finite(v: Any) -> bool:
    try:
        return v is not None and math.isfinite(float(v))
    except (TypeError, ValueError):
        return False


def confidence_words(p: float) -> str:
    """How sure, in words, from a Holm-corrected p (already below ALPHA)."""
    return "very clearly" if p < 0.001 else "clearly" if p < 0.01 else "probably"


def leaders(pairwise: pd.DataFrame, alpha: float = ALPHA) -> list[dict[str, Any]]:
    """Per dimension, the method rated higher than every other with Holm p < alpha: dicts with
    dimension, method, the smallest lead (points) with its CI and the largest Holm p."""
    found: list[dict[str, Any]] = []
    if pairwise is None or pairwise.empty:
        return found
    for dim, rows in pairwise.groupby("dimension", sort=False):
        methods = list(dict.fromkeys(list(rows["method_a"]) + list(rows["method_b"])))
        for m in methods:
            wins = []
            for _, r in rows.iterrows():
                if m not in (r["method_a"], r["method_b"]):
                    continue
                sign = 1 if r["method_a"] == m else -1
                d, p = r["mean_diff"], r["p_holm"]
                if not (_finite(d) and _finite(p) and p < alpha and sign * d > 0):
                    break
                lo, hi = (sign * r["ci_low"], sign * r["ci_high"])
                wins.append((sign * d, min(lo, hi), max(lo, hi), p, r["n_pairs"]))
            else:
                if wins and len(wins) == len(methods) - 1:
                    lead = min(wins)
                    found.append(
                        {
                            "dimension": dim,
                            "method": m,
                            "lead": lead[0],
                            "ci_low": lead[1],
                            "ci_high": lead[2],
                            "p": max(w[3] for w in wins),
                            "items": int(lead[4]),
                        }
                    )
    return found


def takeaway(pairwise: pd.DataFrame, n_items: int, n_ratings: int, n_raters: int, alpha: float = ALPHA) -> str:
    """One sentence: who leads on what and how sure, or "no clear difference yet, N = …"."""
    sizes = f"N = {n_items} prompts, {n_ratings} ratings by {n_raters} rater{'s' if n_raters != 1 else ''}"
    if not n_ratings:
        return f"No ratings yet ({sizes})."
    leads = leaders(pairwise, alpha)
    if leads:
        parts = [
            f"{l['method']} leads on {l['dimension']} ({confidence_words(l['p'])}: at least "
            f"{l['lead']:+.2f} points on the 1–5 scale over every other method, 95% CI "
            f"{l['ci_low']:+.2f} to {l['ci_high']:+.2f}, Holm p ≤ {l['p']:.2g})"
            for l in leads
        ]
        led = {l["dimension"] for l in leads}
        rest = [d for d in dict.fromkeys(pairwise["dimension"]) if d not in led]
        tail = f"; no clear leader on {', '.join(rest)}" if rest else ""
        return "; ".join(parts) + tail + f" ({sizes})."
    sig = (
        pairwise[pd.to_numeric(pairwise["p_holm"], errors="coerce") < alpha]
        if pairwise is not None and len(pairwise)
        else pd.DataFrame()
    )
    if len(sig):
        r = sig.sort_values("p_holm").iloc[0]
        better, worse = (r["method_a"], r["method_b"]) if r["mean_diff"] > 0 else (r["method_b"], r["method_a"])
        return (
            f"No method leads overall; the clearest difference: {better} is rated above {worse} on {r['dimension']} "
            f"by {abs(r['mean_diff']):.2f} points ({confidence_words(r['p_holm'])}, Holm p = {r['p_holm']:.2g}) ({sizes})."
        )
    return f"No clear difference yet between the methods ({sizes})."


def agreement_words(agreement: pd.DataFrame) -> str:
    """Rater agreement (Krippendorff's alpha, ordinal) in one plain line."""
    if agreement is None or agreement.empty:
        return "Agreement between raters: not computable yet (needs 2+ raters on the same outputs)."
    vals = [(r["dimension"], float(r["alpha"])) for _, r in agreement.iterrows() if _finite(r["alpha"])]
    if not vals:
        return "Agreement between raters: not computable yet (needs 2+ raters on the same outputs)."
    low = round(min(a for _, a in vals), 3)  # classified as shown (3 decimals), so "0.667" never reads "low"
    word = (
        "Raters agree well"
        if low >= 0.8
        else "Raters agree only tentatively"
        if low >= 0.667
        else "Raters often disagree"
        if low >= 0.2
        else "Raters barely agree, so treat the scores with care"
        if low >= 0
        else "Raters disagree more than chance would, so treat the scores with care"
    )
    detail = ", ".join(f"{d} α = {a:.3f}" for d, a in vals)
    return f"{word} ({detail}; Krippendorff's α: 1 = perfect, 0 = chance, ≥ 0.8 good, ≥ 0.667 tentative)."
