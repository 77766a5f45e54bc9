"""The human-rating results in words: one line per result of `evaluation.human.stats`, for the
Results tab, the organizer and the command line. Plain text (method names come from the registry,
but whoever shows a line escapes it)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from common.messages import dimension_name, english, text

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
    """How sure, in words, from a family-adjusted p (already below ALPHA); English, the key of its
    translation (`confidence_*` in common/messages.py)."""
    return "very clearly" if p < 0.001 else "clearly" if p < 0.01 else "probably"


def _sure(p: float, lang: str) -> str:
    return text("confidence_" + confidence_words(p).replace(" ", "_"), lang)


def _dim(row: Mapping[str, Any], lang: str) -> str:
    return dimension_name(str(row.get("dimension")), lang)


def scope_words(row: Mapping[str, Any], lang: str = "en") -> str:
    """ "" when the result is about prompts and raters in general; else the words that say it is not."""
    if row.get("scope") == SCOPE_ITEMS:
        n = _nan(row.get("n_items", row.get("n_pairs", row.get("n"))))
        if not np.isfinite(n):
            what = text("hw_these_prompts", lang)
        else:
            what = text("hw_this_prompt", lang) if int(n) == 1 else text("hw_these_n_prompts", lang, n=int(n))
        return text("hw_scope_items", lang, what=what)
    if row.get("scope") != SCOPE_THESE:
        return ""
    n = _nan(row.get("n_raters"))
    who = text("hw_these_n_raters", lang, n=int(n)) if np.isfinite(n) else text("hw_these_raters", lang)
    return text("hw_scope_raters", lang, who=who)


def study_scope_words(pairwise: Any) -> str:
    """Whom a study's headline speaks for, from its pairs' scopes."""
    scopes = set(pairwise["scope"]) if len(pairwise) else set()
    if SCOPE_ITEMS in scopes:
        return "for these prompts only: with one or two prompts the raters are the sample, not the prompts"
    if SCOPE_THESE in scopes:
        return "for these raters only: with one or two raters the prompts are the sample, not the raters"
    return "for prompts and raters in general: both are samples"


def items_words(n: Any, lang: str = "en") -> str:
    """ "1 item", "12 items"."""
    k = _nan(n)
    return text("hw_items", lang, n=int(k)) if np.isfinite(k) else text("hw_items_unknown", lang, n=n)


def interval_words(lo: Any, hi: Any, lang: str = "en") -> str:
    return text("hw_interval", lang, low=_nan(lo), high=_nan(hi))


def explain_pair(row: Mapping[str, Any], alpha: float = ALPHA, lang: str = "en") -> str:
    a, b = row.get("method_a"), row.get("method_b")
    d, p, n = _nan(row.get("mean_diff")), _nan(row.get("p_holm")), row.get("n_pairs")
    status = row.get("status", "ok" if _ok(row.get("ci_low")) else "not estimable")
    head = text("hw_pair_head", lang, a=a, b=b, dimension=_dim(row, lang))
    if not np.isfinite(d) or status == "no data":
        return head + text("hw_pair_no_data", lang)
    if status == "not testable":
        return head + text("hw_pair_not_testable", lang, a=a, b=b, d=d)
    if status == "not estimable" or not _ok(row.get("ci_low")):
        # se 0: every difference is the same; se missing: they differ, but not across the sample the
        # interval generalises over (two raters disagree while every item's mean difference is equal)
        key = "hw_pair_not_estimable" if _nan(row.get("se")) == 0 else "hw_pair_no_spread"
        return head + text(key, lang, a=a, b=b, d=d, items=items_words(n, lang)) + scope_words(row, lang)
    adjusted = text("hw_adjusted", lang, p=p) if np.isfinite(p) else text("hw_no_adjusted", lang)
    raters = text("hw_n_raters", lang, n=int(row["n_raters"])) if _ok(row.get("n_raters")) else ""
    interval = interval_words(row.get("ci_low"), row.get("ci_high"), lang)
    said = head + text(
        "hw_pair", lang, a=a, b=b, d=d, interval=interval, items=items_words(n, lang), raters=raters, adjusted=adjusted
    )
    if np.isfinite(p) and p < alpha:
        said += text("hw_pair_higher", lang, better=a if d > 0 else b, confidence=_sure(p, lang))
    else:
        said += text("hw_pair_unclear", lang)
    return said + scope_words(row, lang)


def explain_friedman(row: Mapping[str, Any], alpha: float = ALPHA, lang: str = "en") -> str:
    p = _nan(row.get("p_value"))
    if not np.isfinite(p):
        return text("hw_friedman_not_computed", lang, dimension=_dim(row, lang))
    verdict = text("hw_friedman_differ" if p < alpha else "hw_friedman_same", lang)
    return text(
        "hw_friedman",
        lang,
        dimension=_dim(row, lang),
        k=row.get("k_methods"),
        n=row.get("n_units"),
        p=p,
        verdict=verdict,
    )


def explain_mixed(row: Mapping[str, Any], alpha: float = ALPHA, lang: str = "en") -> str:
    lo, hi, est = _nan(row.get("ci_low")), _nan(row.get("ci_high")), _nan(row.get("estimate"))
    head = text("hw_mixed_head", lang, dimension=_dim(row, lang), a=row.get("method_a"), b=row.get("method_b"), est=est)
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return head + text("hw_mixed_no_interval", lang) + scope_words(row, lang)
    sig = lo > 0 or hi < 0
    body = text(
        "hw_mixed_body",
        lang,
        interval=interval_words(lo, hi, lang),
        df=fmt(row.get("df"), 1),
        effect=_nan(row.get("effect_size")),
    )
    return head + body + text("hw_mixed_excludes" if sig else "hw_mixed_includes", lang) + scope_words(row, lang)


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


def explain_alpha(row: Mapping[str, Any], lang: str = "en") -> str:
    a = _nan(row.get("alpha"))
    if not np.isfinite(a):
        return text("hw_alpha_not_computable", lang, dimension=_dim(row, lang))
    level = text("agreement_" + agreement_level(a).replace(" ", "_"), lang)
    return text("hw_alpha", lang, dimension=_dim(row, lang), alpha=a, level=level)


def explain_position(row: Mapping[str, Any], lang: str = "en") -> str:
    d, lo, hi = (_nan(row.get(k)) for k in ("diff", "ci_low", "ci_high"))
    dim = _dim(row, lang)
    if not np.isfinite(d):
        return text("hw_position_not_estimable", lang, dimension=dim)
    n = row.get("n_items")
    if not np.isfinite(lo):
        why = text("hw_position_one_item" if n == 1 else "hw_position_no_variation", lang)
        return text("hw_position_untested", lang, dimension=dim, d=d, n=n, why=why)
    tail = "hw_position_first" if lo > 0 else "hw_position_last" if hi < 0 else "hw_position_none"
    interval = interval_words(lo, hi, lang)
    return text("hw_position", lang, dimension=dim, d=d, interval=interval, n=n, tail=text(tail, lang))


def explain_mean(row: Mapping[str, Any], lang: str = "en") -> str:
    """A method's mean on one dimension with its interval, in words."""
    said = dict(method=row.get("method"), dimension=_dim(row, lang), mean=_nan(row.get("mean")))
    status = row.get("status", "ok")
    if status == "not testable":
        return text("hw_mean_one_item", lang, **said)
    if status != "ok" or not _ok(row.get("ci_low")):
        return text("hw_mean_no_interval", lang, **said) + scope_words(row, lang)
    low, high = _nan(row.get("ci_low")), _nan(row.get("ci_high"))
    return text("hw_mean", lang, **said, low=low, high=high, n=row.get("n")) + scope_words(row, lang)


def explain_taste(taste: Any, items_fixed: bool = False, lang: str = "en") -> str:
    """The pooled rater x method taste in one line (`items_fixed`: one or two prompts, where each
    difference's rater variation, taste included, is its own)."""
    if items_fixed:
        return text("hw_taste_items_fixed", lang)
    if taste is None or not taste.n_pairs:
        return text("hw_taste_not_estimable", lang)
    p = f"{taste.p_value:.2g}" if _ok(taste.p_value) else "–"  # no test (no variation): no "nan"
    if getattr(taste, "lopsided", False):
        return text("hw_taste_lopsided", lang, variance=taste.variance, p=p)
    if taste.used:
        return text("hw_taste_present", lang, variance=taste.variance, p=p)
    return text("hw_taste_not_detected", lang, p=p)


def explain_lopsided(share: float, n_raters: int, lang: str = "en") -> str:
    """Why the intervals are wide when one rater gave most of the ratings ("" when none did)."""
    if not (np.isfinite(share) and share > 0.5 and n_raters >= 2):
        return ""
    return text("hw_lopsided", lang, share=share, n=n_raters)
