"""The study in words, for people who will not read the statistics: one takeaway sentence and one
line on rater agreement, both taken from the primary analysis of `evaluation.human` (items and raters
as samples; every pair x dimension in one family, `p_holm` adjusted over it).

A method "leads" on a dimension when every other method is rated lower there with a family-adjusted
p < 0.05. When no dimension has such a leader but some pairs differ, the sentence names the clearest
pair. Otherwise: "no clear difference yet, N = …". Only family-adjusted findings are named; with 1-2
raters the sentence says it holds for these raters only. Plain text; whoever shows it escapes it
(method names come from the registry, but treat them as text).
"""

from __future__ import annotations

import math
import re
from typing import Any

import pandas as pd

from .human_words import AGREEMENT_SCALE, agreement_level, confidence_words
from .stats_crossed import SCOPE_THESE

ALPHA = 0.05


def _finite(v: Any) -> bool:
    try:
        return v is not None and math.isfinite(float(v))
    except (TypeError, ValueError):
        return False


def _testable(pairwise: pd.DataFrame) -> pd.DataFrame:
    """The rows the headline may name: a finite family-adjusted p (and status ok, where given)."""
    ok = pd.to_numeric(pairwise["p_holm"], errors="coerce").notna()
    if "status" in pairwise:
        ok &= pairwise["status"] == "ok"
    return pairwise[ok]


def family_words(pairwise: pd.DataFrame) -> str:
    """ "adjusted over the 9 tests of the family" from the `family` column, or "family-adjusted"."""
    if "family" in pairwise and len(pairwise):
        m = re.match(r"(\d+) tests", str(pairwise["family"].iloc[0]))
        if m:
            return f"adjusted over all {m.group(1)} pairs × dimensions"
    return "family-adjusted"


def _scope_tail(rows: pd.DataFrame, n_raters: int) -> str:
    if "scope" in rows and (rows["scope"] == SCOPE_THESE).any():
        who = f"these {n_raters} rater{'s' if n_raters != 1 else ''}"
        return f"; this holds for {who} only (too few raters to speak for raters in general)"
    return ""


def leaders(pairwise: pd.DataFrame, alpha: float = ALPHA) -> list[dict[str, Any]]:
    """Per dimension, the method rated higher than every other with family-adjusted p (`p_holm`) < alpha:
    dicts with dimension, method, the smallest lead (points) with its CI and the largest adjusted p."""
    found: list[dict[str, Any]] = []
    if pairwise is None or pairwise.empty:
        return found
    for dim, rows in pairwise.groupby("dimension", sort=False):
        if "status" in rows and not (rows["status"] == "ok").all():
            continue  # a pair that cannot be tested: no method can be shown to lead on this dimension
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
    adjusted = family_words(pairwise) if pairwise is not None else "family-adjusted"
    leads = leaders(pairwise, alpha)
    if leads:
        parts = [
            f"{l['method']} leads on {l['dimension']} ({confidence_words(l['p'])}: at least "
            f"{l['lead']:+.2f} points on the 1–5 scale over every other method, 95% CI "
            f"{l['ci_low']:+.2f} to {l['ci_high']:+.2f}, p ≤ {l['p']:.2g} {adjusted})"
            for l in leads
        ]
        led = {l["dimension"] for l in leads}
        rest = [d for d in dict.fromkeys(pairwise["dimension"]) if d not in led]
        tail = f"; no clear leader on {', '.join(rest)}" if rest else ""
        named = pairwise[pairwise["dimension"].isin(led)]
        return "; ".join(parts) + tail + _scope_tail(named, n_raters) + f" ({sizes})."
    testable = _testable(pairwise) if pairwise is not None and len(pairwise) else pd.DataFrame()
    sig = testable[pd.to_numeric(testable["p_holm"], errors="coerce") < alpha] if len(testable) else testable
    if len(sig):
        r = sig.sort_values("p_holm").iloc[0]
        better, worse = (r["method_a"], r["method_b"]) if r["mean_diff"] > 0 else (r["method_b"], r["method_a"])
        return (
            f"No method leads overall; the clearest difference: {better} is rated above {worse} on {r['dimension']} "
            f"by {abs(r['mean_diff']):.2f} points ({confidence_words(r['p_holm'])}, p = {r['p_holm']:.2g} {adjusted})"
            + _scope_tail(sig.iloc[:1], n_raters)
            + f" ({sizes})."
        )
    return f"No clear difference yet between the methods ({sizes})."


def agreement_words(agreement: pd.DataFrame) -> str:
    """Rater agreement (Krippendorff's alpha, ordinal) in one plain line: each level of agreement
    names its own dimensions, so one dimension's negative alpha is never said of another."""
    none = "Agreement between raters: not computable yet (needs 2+ raters on the same outputs)."
    if agreement is None or agreement.empty:
        return none
    vals = [(str(r["dimension"]), float(r["alpha"])) for _, r in agreement.iterrows() if _finite(r["alpha"])]
    if not vals:
        return none
    order = [
        "disagree more than chance would",
        "barely agree",
        "often disagree",
        "agree only tentatively",
        "agree well",
    ]
    groups: dict[str, list[str]] = {}
    for dim, a in sorted(vals, key=lambda v: v[1]):
        groups.setdefault(agreement_level(a), []).append(f"{dim} α = {a:.3f}")
    parts = [f"{level} on {', '.join(groups[level])}" for level in order if level in groups]
    text = "Raters " + "; they ".join(parts)
    careful = min(a for _, a in vals) < 0.2
    return f"{text}{', so treat those scores with care' if careful else ''} ({AGREEMENT_SCALE})."
