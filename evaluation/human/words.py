"""The human-rating results in words: one line per result of `evaluation.human.stats`, for the
Results tab, the organizer and the command line. Plain text (method names come from the registry,
but whoever shows a line escapes it)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from common.messages import english

from .crossed import SCOPE_ITEMS, SCOPE_THESE

ALPHA = 0.05


def _nan(x: Any) -> float:
    try:
        return float(x)
    except (TypeError, ValueError):
        return math.nan


def _ok(x: Any) -> bool:
    return bool(np.isfinite(_nan(x)))


def fmt(v: Any, digits: int = 2) -> str:
    """A number for a line, "–" when missing."""
    x = _nan(v)
    return "–" if not np.isfinite(x) else f"{x:.{digits}f}"


def confidence_words(p: float) -> str:
    """How sure, in words, from a family-adjusted p (already below ALPHA)."""
    return "very clearly" if p < 0.001 else "clearly" if p < 0.01 else "probably"


def scope_words(row: Mapping[str, Any]) -> str:
    """ "" when the result is about prompts and raters in general; else the words that say it is not."""
    if row.get("scope") == SCOPE_ITEMS:
        n = _nan(row.get("n_items", row.get("n_pairs", row.get("n"))))
        what = ("this prompt" if int(n) == 1 else f"these {int(n)} prompts") if np.isfinite(n) else "these prompts"
        return (
            f" Holds for {what} only: too few prompts to say how other prompts would fare (the raters are the sample)."
        )
    if row.get("scope") != SCOPE_THESE:
        return ""
    n = _nan(row.get("n_raters"))
    who = f"these {int(n)} rater{'s' if int(n) != 1 else ''}" if np.isfinite(n) else "these raters"
    return f" Holds for {who} only: too few raters to say how raters in general would score."


def study_scope_words(pairwise: Any) -> str:
    """Whom a study's headline speaks for, from its pairs' scopes."""
    scopes = set(pairwise["scope"]) if len(pairwise) else set()
    if SCOPE_ITEMS in scopes:
        return "for these prompts only: with one or two prompts the raters are the sample, not the prompts"
    if SCOPE_THESE in scopes:
        return "for these raters only: with one or two raters the prompts are the sample, not the raters"
    return "for prompts and raters in general: both are samples"


def items_words(n: Any) -> str:
    """ "1 item", "12 items"."""
    k = _nan(n)
    return f"{int(k)} item{'s' if int(k) != 1 else ''}" if np.isfinite(k) else f"{n} items"


def interval_words(lo: Any, hi: Any) -> str:
    return f"95% CI {_nan(lo):+.2f} to {_nan(hi):+.2f}"


def explain_pair(row: Mapping[str, Any], alpha: float = ALPHA) -> str:
    a, b, dim = row.get("method_a"), row.get("method_b"), row.get("dimension")
    d, p, n = _nan(row.get("mean_diff")), _nan(row.get("p_holm")), row.get("n_pairs")
    status = row.get("status", "ok" if _ok(row.get("ci_low")) else "not estimable")
    head = f"{a} vs {b} on {dim}: "
    if not np.isfinite(d) or status == "no data":
        return head + "no item where one rater scored both."
    if status == "not testable":
        return head + f"{a} − {b} = {d:+.2f} on one item: not testable (one item shows nothing of how items vary)."
    if status == "not estimable" or not _ok(row.get("ci_low")):
        return (
            head + f"{a} − {b} = {d:+.2f} on {items_words(n)}, the same on every item and rater: not estimable "
            "(no variation to build an interval from)." + scope_words(row)
        )
    adjusted = f"p = {p:.3g} adjusted over the family" if np.isfinite(p) else "no adjusted p"
    raters = f", {int(row['n_raters'])} raters" if _ok(row.get("n_raters")) else ""
    text = (
        head
        + f"{a} − {b} = {d:+.2f} points ({interval_words(row.get('ci_low'), row.get('ci_high'))}, {items_words(n)}{raters}, {adjusted})"
    )
    if np.isfinite(p) and p < alpha:
        better = a if d > 0 else b
        text += f": {better} is rated higher ({confidence_words(p)}); chance alone rarely gives a gap this size."
    else:
        text += ": no clear difference; the data fit anything in that interval."
    return text + scope_words(row)


def explain_friedman(row: Mapping[str, Any], alpha: float = ALPHA) -> str:
    p = _nan(row.get("p_value"))
    if not np.isfinite(p):
        return f"Friedman on {row.get('dimension')}: not computed (needs 3+ methods and 2+ items rated by all)."
    verdict = (
        "at least one method is ranked differently from the others"
        if p < alpha
        else "no evidence that the methods are ranked differently"
    )
    return (
        f"Friedman on {row.get('dimension')} ({row.get('k_methods')} methods, {row.get('n_units')} items): p = {p:.3g}, "
        f"{verdict} (exploratory: treats the raters as fixed)."
    )


def explain_mixed(row: Mapping[str, Any], alpha: float = ALPHA) -> str:
    lo, hi, est = _nan(row.get("ci_low")), _nan(row.get("ci_high")), _nan(row.get("estimate"))
    head = f"Mixed model, {row.get('dimension')}: {row.get('method_a')} − {row.get('method_b')} = {est:+.2f}"
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return head + ": interval not estimable." + scope_words(row)
    sig = lo > 0 or hi < 0
    return (
        head
        + f" ({interval_words(lo, hi)}, df {fmt(row.get('df'), 1)}), {_nan(row.get('effect_size')):+.2f} SD of a single "
        "rating; "
        + (
            "the interval excludes 0."
            if sig
            else "the interval includes 0: no clear difference once item, rater, taste and output variation are allowed for."
        )
        + scope_words(row)
    )


AGREEMENT_SCALE = english("story_scale")


def agreement_level(alpha: float) -> str:
    """How raters agree at Krippendorff's `alpha`, in words; only a negative alpha is "worse than chance".
    Classified at 3 decimals, as the sentences show it, so an alpha shown as 0.667 is never "low"."""
    a = round(alpha, 3)
    if a >= 0.8:
        return "agree well"
    if a >= 0.667:
        return "agree only tentatively"
    if a >= 0.2:
        return "often disagree"
    if a >= 0:
        return "barely agree"
    return "disagree more than chance would"


def explain_alpha(row: Mapping[str, Any]) -> str:
    a = _nan(row.get("alpha"))
    if not np.isfinite(a):
        return f"Agreement on {row.get('dimension')}: not computable (needs 2+ raters on the same outputs)."
    return f"Agreement on {row.get('dimension')}: Krippendorff's α = {a:.3f}, raters {agreement_level(a)}."


def explain_position(row: Mapping[str, Any]) -> str:
    d, lo, hi = (_nan(row.get(k)) for k in ("diff", "ci_low", "ci_high"))
    if not np.isfinite(d):
        return f"Position on {row.get('dimension')}: not estimable."
    if not np.isfinite(lo):
        n = row.get("n_items")
        why = "not testable: one item" if n == 1 else "interval not estimable (no variation)"
        return f"Position on {row.get('dimension')}: first − last = {d:+.2f} on {n} item(s), {why}."
    tail = (
        "outputs shown first get higher scores"
        if lo > 0
        else "outputs shown last get higher scores"
        if hi < 0
        else "no clear position bias"
    )
    return (
        f"Position on {row.get('dimension')}: shown first − shown last = {d:+.2f} ({interval_words(lo, hi)}, "
        f"{row.get('n_items')} items): {tail}."
    )


def explain_mean(row: Mapping[str, Any]) -> str:
    """A method's mean on one dimension with its interval, in words."""
    m, dim, mean = row.get("method"), row.get("dimension"), _nan(row.get("mean"))
    status = row.get("status", "ok")
    if status == "not testable":
        return f"{m} on {dim}: {mean:.2f} on one item, no interval (one item)."
    if status != "ok" or not _ok(row.get("ci_low")):
        return f"{m} on {dim}: {mean:.2f}, interval not estimable (no variation)." + scope_words(row)
    return (
        f"{m} on {dim}: {mean:.2f} (95% CI {_nan(row.get('ci_low')):.2f} to {_nan(row.get('ci_high')):.2f}, "
        f"{row.get('n')} items)." + scope_words(row)
    )


def explain_taste(taste: Any, items_fixed: bool = False) -> str:
    """The pooled rater x method taste in one line (`items_fixed`: one or two prompts, where each
    difference's rater variation, taste included, is its own)."""
    if items_fixed:
        return (
            "Raters' own taste for a method: part of each difference's variation between raters, who are the sample "
            "(one or two prompts)."
        )
    if taste is None or not taste.n_pairs:
        return "Raters' own taste for a method: not estimable (needs 3+ raters on the same items)."
    p = taste.p_value
    if getattr(taste, "lopsided", False):
        return (
            f"Raters' own taste for a method: one rater carries most of the differences, so the study can barely "
            f"measure it (variance {taste.variance:.3f} per difference, one-sided p = {p:.2g}); each difference "
            "counts every rater once instead (the mean of the raters' own mean differences), and its interval "
            "comes from how much raters differ, their taste included (raters − 1 degrees of freedom; the tails "
            "simulated for who rated what)."
        )
    if taste.used:
        return (
            f"Raters' own taste for a method: present (variance {taste.variance:.3f} per difference, one-sided p = "
            f"{p:.2g}); every pairwise interval includes it."
        )
    return (
        f"Raters' own taste for a method: not detected (p = {p:.2g}); the pairwise intervals use the items' variation."
    )


def explain_lopsided(share: float, n_raters: int) -> str:
    """Why the intervals are wide when one rater gave most of the ratings ("" when none did)."""
    if not (np.isfinite(share) and share > 0.5 and n_raters >= 2):
        return ""
    return (
        f"One rater gave {share:.0%} of the ratings: to speak for raters in general every rater counts once, "
        f"that one's many ratings as much as each other rater's few ({n_raters} raters in all), so the intervals "
        "are wide; more raters with an even share would narrow them."
    )
