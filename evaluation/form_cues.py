"""How recognisable is each method from the form of its responses alone, before anyone reads them?

A rater who notices that one response always stops early, or always runs to the cut-off, or loops,
can tell a method apart without judging quality; the blind is then broken by the form. This module
measures that on a study's generated outputs, before the study is rated, with a deliberately simple
classifier on surface features only:

* tokens: new tokens generated; characters: length of the text;
* stopped: 1 when the method stopped by itself (end of sequence), 0 when it ran into max tokens;
* sentence_end: 1 when the text ends with a sentence end (. ! ? 。 ！ ？ …, maybe followed by a quote);
* loop: 1 when some phrase repeats three times back to back (`evaluation.metrics.has_loop`);
  repeated_3grams: share of word 3-grams that occurred earlier in the same text;
* distinct_1, distinct_2: distinct unigrams and bigrams over all, within the text.

Leave one item out: for each item, the features of the other items, centred within their item (the
prompt sets the length; what gives a method away is how it differs from the others on the same
prompt) and scaled by their pooled standard deviation, give each method a centroid; on the held-out
item, for each method, the response nearest to that method's centroid is the classifier's pick,
exactly as a rater answers "which response came from METHOD?". The accuracy over items is compared
with chance (1/k with k responses, more when a method has several samples) by a one-sided exact
binomial test over items (each item is one independent trial). `recognisable` = p < 0.05.

The report names the feature that separates a method most (its centroid's largest |z|) and what to do
about it (`REMEDIES`). It describes the outputs per method, so the Organizer shows it only while the
organizer may know that (before rating starts, or after the study is closed).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
import pandas as pd

from common import messages
from common.errors import UserError

from .metrics import has_loop, ngrams, words

FEATURES: tuple[str, ...] = (
    "tokens",
    "characters",
    "stopped",
    "sentence_end",
    "loop",
    "repeated_3grams",
    "distinct_1",
    "distinct_2",
)
MIN_ITEMS = 3
ALPHA = 0.05
_SENTENCE_END = re.compile(r"[.!?。！？…][\"'”’)\]»」』]*\s*$")
# What each feature says and what to do where it gives a method away: common/messages.py's
# `form_describe_<feature>` and `form_remedy_<...>` (in Chinese too), in English here.
DESCRIBE_KEYS: dict[str, str] = {f: f"form_describe_{f}" for f in FEATURES}
REMEDY_KEYS: dict[str, str] = {
    "tokens": "form_remedy_length",
    "characters": "form_remedy_length",
    "stopped": "form_remedy_stopped",
    "sentence_end": "form_remedy_sentence_end",
    "loop": "form_remedy_loop",
    "repeated_3grams": "form_remedy_repeats",
    "distinct_1": "form_remedy_diversity",
    "distinct_2": "form_remedy_diversity",
}
DESCRIBE: dict[str, str] = {f: messages.english(key) for f, key in DESCRIBE_KEYS.items()}
REMEDIES: dict[str, str] = {f: messages.english(key) for f, key in REMEDY_KEYS.items()}
BINARY = ("stopped", "sentence_end", "loop")  # features that are 0 or 1: counted, not averaged
RESULT_COLUMNS: tuple[str, ...] = (
    "method",
    "items",
    "correct",
    "accuracy",
    "chance",
    "p_value",
    "recognisable",
    "cue",
    "cue_words",
    "remedy",
    # the cue's figures, for its words in another language: the method's count (or mean) of it and of how
    # many responses, the others' likewise
    "cue_own",
    "cue_own_n",
    "cue_others",
    "cue_others_n",
)


def surface_features(
    text: str, new_tokens: Any = None, finish_reason: Any = None, max_new_tokens: Any = None
) -> dict[str, float]:
    """The features of one response (see the module docstring)."""
    tokens = words(text or "")
    grams = ngrams(tokens, 3)
    seen: set[tuple[str, ...]] = set()
    repeated = 0
    for g in grams:
        repeated += g in seen
        seen.add(g)
    n_new = _number(new_tokens)
    n_new = float(len(tokens)) if n_new is None or n_new <= 0 else n_new
    if finish_reason not in (None, ""):
        stopped = 0.0 if str(finish_reason) == "length" else 1.0
    else:
        cap = _number(max_new_tokens)
        stopped = float(cap is not None and n_new < cap)
    return {
        "tokens": n_new,
        "characters": float(len((text or "").strip())),
        "stopped": stopped,
        "sentence_end": float(bool(_SENTENCE_END.search(text or ""))),
        "loop": float(has_loop(tokens)),
        "repeated_3grams": repeated / len(grams) if grams else 0.0,
        "distinct_1": len(set(tokens)) / len(tokens) if tokens else 0.0,
        "distinct_2": len(set(ngrams(tokens, 2))) / max(len(tokens) - 1, 1) if len(tokens) > 1 else 0.0,
    }


def _number(value: Any) -> float | None:
    try:
        x = float(value)
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) else None


def feature_frame(outputs: Iterable[Mapping[str, Any]]) -> pd.DataFrame:
    """One row per output (dicts with item_id, method, text, and optionally new_tokens, finish_reason,
    max_new_tokens): item_id, method and FEATURES."""
    rows = []
    for o in outputs:
        rows.append(
            {
                "item_id": o["item_id"],
                "method": o["method"],
                **surface_features(o["text"], o.get("new_tokens"), o.get("finish_reason"), o.get("max_new_tokens")),
            }
        )
    return pd.DataFrame(rows, columns=["item_id", "method", *FEATURES])


def _centred(frame: pd.DataFrame) -> pd.DataFrame:
    values = frame[list(FEATURES)].astype(float)
    return values - values.groupby(frame["item_id"]).transform("mean")


def recognisability(features: pd.DataFrame) -> pd.DataFrame:
    """Per method, the leave-one-item-out classifier's picks (RESULT_COLUMNS). Items with fewer than two
    responses are left out; with fewer than MIN_ITEMS items every method gets no result (items 0).

    The scale of each feature is its standard deviation over all items' centred values: that uses no
    method label, so the held-out item's label never reaches its own prediction; the centroids do use
    labels and leave the held-out item out."""
    from scipy import stats  # late: 0.6 CPU s that an app start does not need

    per_item = features.groupby("item_id")["method"].transform("size")
    f = features[per_item >= 2].reset_index(drop=True)
    items = list(dict.fromkeys(f["item_id"]))
    methods = list(dict.fromkeys(f["method"]))
    centred = _centred(f)
    scale = centred.std(ddof=1)
    usable = [c for c in FEATURES if scale[c] > 0]
    z = (centred[usable] / scale[usable]).to_numpy() if usable else np.zeros((len(f), 0))
    label = f["method"].to_numpy()
    item_of = f["item_id"].to_numpy()
    sums = {m: z[label == m].sum(axis=0) for m in methods}
    counts = {m: int((label == m).sum()) for m in methods}
    hits: dict[str, list[bool]] = {m: [] for m in methods}
    chances: dict[str, list[float]] = {m: [] for m in methods}
    rng = np.random.default_rng(0)
    if len(items) >= MIN_ITEMS:
        for held in items:
            rows = np.flatnonzero(item_of == held)
            for m in methods:
                own = rows[label[rows] == m]
                left = counts[m] - len(own)
                if not len(own) or not left:
                    continue
                centroid = (sums[m] - z[own].sum(axis=0)) / left
                distance = ((z[rows] - centroid) ** 2).sum(axis=1)
                # Ties (no usable feature, equal features) are broken at random, seeded: the stored
                # order of outputs follows the methods, and taking the first would favour one.
                nearest = np.flatnonzero(np.isclose(distance, distance.min(), rtol=1e-9, atol=1e-12))
                pick = rows[int(rng.choice(nearest))]
                hits[m].append(bool(label[pick] == m))
                chances[m].append(len(own) / len(rows))
    overall = centred / scale.replace(0.0, np.nan)
    result = []
    for m in methods:
        n, right = len(hits[m]), int(sum(hits[m]))
        chance = float(np.mean(chances[m])) if chances[m] else math.nan
        p = float(stats.binomtest(right, n, chance, alternative="greater").pvalue) if n else math.nan
        cue, figures = _cue(f, overall, m)
        result.append(
            {
                "method": m,
                "items": n,
                "correct": right,
                "accuracy": right / n if n else math.nan,
                "chance": chance,
                "p_value": p,
                "recognisable": bool(n and p < ALPHA),
                "cue": cue,
                "cue_words": cue_words(m, cue, figures),
                "remedy": REMEDIES.get(cue, "") if n and p < ALPHA else "",
                **dict(zip(("cue_own", "cue_own_n", "cue_others", "cue_others_n"), figures)),
            }
        )
    return pd.DataFrame(result, columns=list(RESULT_COLUMNS))


def _cue(f: pd.DataFrame, z: pd.DataFrame, method: str) -> tuple[str, tuple[float, int, float, int]]:
    """The feature on which `method` differs most from the others on the same items, and its figures:
    the method's count (a 0/1 feature) or mean, of how many responses, and the others' likewise."""
    mine = f["method"] == method
    means = z[mine].mean().dropna()
    if means.empty or not mine.any() or mine.all():
        return "", (math.nan, 0, math.nan, 0)
    cue = str(means.abs().idxmax())
    a, b = f.loc[mine, cue].astype(float), f.loc[~mine, cue].astype(float)
    if cue in BINARY:
        return cue, (float(a.sum()), len(a), float(b.sum()), len(b))
    return cue, (float(a.mean()), len(a), float(b.mean()), len(b))


def cue_words(method: str, cue: str, figures: tuple[float, int, float, int], lang: str = "en") -> str:
    """How `method` stands out by `cue` (`_cue`'s figures), in `lang`: "BS-4 stopped by itself in 5 of 6
    responses, the others in 1 of 12" or "BS-4 differs by its length in tokens: 40 on average, the others 64"."""
    if not cue:
        return ""
    own, own_n, others, others_n = figures
    if cue in BINARY:
        return messages.text(
            f"form_cue_{cue}", lang, method=method, own=int(own), own_n=own_n, others=int(others), others_n=others_n
        )
    fmt = "{:.0f}" if cue in ("tokens", "characters") else "{:.2f}"
    what = messages.text(DESCRIBE_KEYS[cue], lang)
    return messages.text(
        "form_cue_differs", lang, method=method, what=what, own=fmt.format(own), others=fmt.format(others)
    )


def summary_lines(result: pd.DataFrame, lang: str = "en") -> list[str]:
    """One plain sentence per method, in `lang`."""
    lines = []
    for r in result.to_dict("records"):
        if not r["items"]:
            lines.append(messages.text("form_too_few", lang, method=r["method"], n=MIN_ITEMS))
            continue
        said = dict(
            method=r["method"], correct=r["correct"], items=r["items"], chance=f"{100 * r['chance']:.0f}",
            p=f"{r['p_value']:.2g}",
        )  # fmt: skip
        if r["recognisable"]:
            figures = (r.get("cue_own", math.nan), r.get("cue_own_n", 0), r.get("cue_others", math.nan),
                       r.get("cue_others_n", 0))  # fmt: skip
            cue = cue_words(r["method"], r["cue"], figures, lang) if "cue_own" in r else r["cue_words"]
            remedy = messages.text(REMEDY_KEYS[r["cue"]], lang) if r["cue"] in REMEDY_KEYS else r["remedy"]
            lines.append(messages.text("form_recognisable", lang, **said, cue=cue, remedy=remedy))
        else:
            lines.append(messages.text("form_not_recognisable", lang, **said))
    return lines


def study_outputs(store: Any, study_id: int) -> list[dict[str, Any]]:
    """A study's outputs as `feature_frame` takes them, read from the store."""
    study = store.get_study(int(study_id))
    cap = study.max_new_tokens if study is not None else None
    return [
        {
            "item_id": item.id,
            "method": o.method,
            "text": o.text,
            "new_tokens": o.new_tokens,
            "finish_reason": o.finish_reason,
            "max_new_tokens": cap,
        }
        for item in store.items(int(study_id))
        for o in store.outputs_for_item(item.id)
    ]


def check_study(store: Any, study_id: int) -> pd.DataFrame:
    """`recognisability` of a study's stored outputs."""
    return recognisability(feature_frame(study_outputs(store, study_id)))


def study_report(store: Any, study_id: int) -> pd.DataFrame:
    """`check_study` for the organizer, while they may know how each method's responses look: before
    anything of the study is rated, or once it is closed. Raises UserError otherwise (double-blind: the
    organizer who knew that "one method always stops early" would see through the study's pages)."""
    study = store.get_study(int(study_id))
    if study is None:
        raise UserError(messages.text("no_study_number", id=int(study_id)))
    if study.state == "open" and (store.study_summary(study.id)["ratings"] or store.guesses(study.id)):
        raise UserError(messages.english("form_check_started"))
    return check_study(store, study.id)
