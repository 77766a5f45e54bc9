"""Could raters tell which method wrote which response? Bang's blinding index, generalised to k responses.

After scoring an item a rater may be asked "Which response do you think came from METHOD?" and answer
with a letter or "don't know" (arena/rating/guessing.py). One answer j, on an item with k responses of which
exactly one is METHOD's, scores

    s_j = 1              the guess was METHOD's response
    s_j = -1 / (k - 1)   the guess was another response
    s_j = 0              "don't know"

i.e. s = (correct - 1/k) / (1 - 1/k) for a guess: a random guess scores 0 on average, "don't know"
counts as chance, a rater who always recognises METHOD scores 1 and one who is always wrong
-1/(k-1) (-1 for k = 2, -0.5 for k = 3). The item is the unit (answers on one item share its texts, so
they are not independent): m_i is the mean of s over the answers on item i, and

    BI(METHOD) = (1/I) * sum_i m_i       over the I items with at least one answer.

For k = 2 and one answer per item this is Bang's index (Bang et al. 2004): (correct - wrong) / answers.

Which estimand, with several answers per item: the mean over items of each item's mean score (every
item counts once, as every other statistic here), not Bang's pooled index (the mean over answers,
where an item with more answers weighs more). The two differ when items have different numbers of
answers, by up to 0.107 in the designs an independent check ran; `pooled_index` reports Bang's beside
it, and the sentence says which is which when they differ.

No interval where there is none to build: when every answer was "don't know" nobody guessed, the
index is 0 by construction, and the domain of b shrinks to a point; the interval is then left out
(NaN), and the sentence says the data cannot show whether the blind held.

95% CI: a score interval (as Wilson's for a proportion) with a design effect for answers that cluster
within items. If answers were independent, at index b with a don't-know share d, a guess would be
right with probability p(b) = 1/k + b (1 - 1/k) / (1 - d) and one answer's variance would be

    v(b) = (1 - d) * (p(b) + (1 - p(b)) / (k - 1)^2) - b^2,

so the variance of BI would be V(b) = (1/I^2) * sum_i v_i(b) / r_i, with r_i the answers on item i.
The observed variance of the item means says how much more answers vary between items than that:
D = max(1, (s_m^2 / I) / V(BI)), s_m^2 the sample variance of the m_i (D = 1 with one item). The CI is
every b in [-(1 - d)/(k - 1), 1 - d] with (BI - b)^2 <= z^2 * D * V(b), z = 1.96. Taking the variance
at b rather than at the estimate is what keeps a handful of items honest: the plain t interval on item
means excluded 0 in 11% of random-guessing studies with 6 items and one rater (all six guesses wrong
has sd 0), this interval in at most 7.0% over the designs of benchmarks/bench_blinding.py, and it
missed a known index in at most 5.8% (docs/blinding.md has the figures).

    python -m evaluation.blinding GUESSES.csv --json

reads one row per answer (`study_id, item_id, rater, target_method, n_responses, guessed_label,
true_label`; empty guessed_label = don't know; an arena export works too: its guess rows are used) and
prints {"studies": {"<id>": {"methods": {METHOD: {"index", "ci_low", "ci_high", "n", "correct",
"dont_know", "items", "chance"}}}}}. Bad input prints one `error:` line and exits with code 2.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from arena.files.readers import read_csv
from arena.inputs.text import unescape_cell
from common import messages
from common.errors import UserError

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
Z = 1.959963984540054  # the normal 0.975 quantile
COLUMNS: tuple[str, ...] = (
    "study_id",
    "item_id",
    "rater",
    "target_method",
    "n_responses",
    "guessed_label",
    "true_label",
)
RESULT_COLUMNS: tuple[str, ...] = (
    "study_id",
    "target_method",
    "index",
    "ci_low",
    "ci_high",
    "n",
    "correct",
    "dont_know",
    "items",
    "raters",
    "chance",
    "pooled_index",
    "max_answers_per_item",
)
BISECTION_STEPS = 60
ESTIMAND = "mean over items of each item's mean answer score (pooled_index: Bang's, the mean over answers)"


# ---- the index and its interval, for many studies at once (the app and the simulations share it) ----


def answer_scores(correct: Any, dont_know: Any, k: Any) -> np.ndarray:
    """s per answer: 1 right, -1/(k-1) wrong, 0 don't know (see the module docstring)."""
    correct, dont_know, k = (np.asarray(x) for x in (correct, dont_know, k))
    return np.where(dont_know, 0.0, np.where(correct, 1.0, -1.0 / (k - 1.0)))


def _variance(b: np.ndarray, k: np.ndarray, r: np.ndarray, keep: np.ndarray, d: np.ndarray) -> np.ndarray:
    """V(b) per study: (1/I^2) sum_i v_i(b) / r_i over the items kept. b, d: (S,); k, r, keep: (S, I)."""
    guess = np.maximum(1.0 - d, 1e-12)[:, None]
    p = np.clip(1.0 / k + b[:, None] * (1.0 - 1.0 / k) / guess, 0.0, 1.0)
    v = np.maximum(guess * (p + (1.0 - p) / (k - 1.0) ** 2) - b[:, None] ** 2, 0.0)
    n_items = keep.sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        total = np.where(keep, v / np.where(keep, r, 1.0), 0.0).sum(axis=1)
        return np.where(n_items > 0, total / np.maximum(n_items, 1) ** 2, np.nan)


def score_interval(
    item_means: Any, answers: Any, k: Any, dont_know_share: Any, z: float = Z
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(index, ci_low, ci_high) per study, for arrays of S studies x I item slots.

    Args:
        item_means: m_i, shape (S, I); NaN where a study has no such item (or no answer on it).
        answers: r_i, the answers on each item, shape (S, I).
        k: the responses shown on each item, shape (S, I) (or broadcastable).
        dont_know_share: d, the share of a study's answers that were "don't know", shape (S,).
        z: the normal quantile (1.96 for 95%).

    A study without items gets NaN. Everything else follows the module docstring.
    """
    m = np.atleast_2d(np.asarray(item_means, dtype=float))
    r = np.broadcast_to(np.asarray(answers, dtype=float), m.shape)
    k = np.broadcast_to(np.asarray(k, dtype=float), m.shape)
    d = np.broadcast_to(np.asarray(dont_know_share, dtype=float), m.shape[:1]).copy()
    keep = ~np.isnan(m) & (r > 0)
    n_items = keep.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        index = np.where(keep, m, 0.0).sum(axis=1) / np.where(n_items > 0, n_items, np.nan)
        centred = np.where(keep, m - index[:, None], 0.0)
        s2 = (centred**2).sum(axis=1) / np.maximum(n_items - 1, 1)
    v_hat = _variance(np.nan_to_num(index), k, r, keep, d)
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = np.where((n_items >= 2) & (v_hat > 0), (s2 / np.maximum(n_items, 1)) / v_hat, 1.0)
    design = np.maximum(ratio, 1.0)
    k_max = np.where(keep, k, 2.0).max(axis=1)
    low_end = -(1.0 - d) / (k_max - 1.0)
    high_end = 1.0 - d
    est = np.clip(np.nan_to_num(index), low_end, high_end)

    def outside(b: np.ndarray) -> np.ndarray:
        return (est - b) ** 2 > z**2 * design * _variance(b, k, r, keep, d)

    bounds = []
    for end in (low_end, high_end):
        # The set of b inside is an interval around the estimate (V is concave in b on the domain),
        # so each end is found by bisection between the estimate and the end of the domain.
        inner, outer = est.copy(), end.copy()
        reached = ~outside(end)
        for _ in range(BISECTION_STEPS):
            mid = (inner + outer) / 2
            out = outside(mid)
            outer = np.where(out, mid, outer)
            inner = np.where(out, inner, mid)
        bounds.append(np.where(reached, end, inner))
    lo, hi = bounds
    none = n_items == 0
    return (
        np.where(none, np.nan, index),
        np.where(none, np.nan, np.minimum(lo, est)),
        np.where(none, np.nan, np.maximum(hi, est)),
    )


# ---- from answers to the index per study and method ---------------------------------------------------


def check_guesses(
    frame: pd.DataFrame, where: str = "guesses", row_numbers: Sequence[int] | None = None
) -> pd.DataFrame:
    """The answers as clean columns: n_responses int >= 2, labels among its letters (guessed_label None =
    don't know), a true label on every row, no answer twice. Raises UserError naming the first bad row
    (by `row_numbers`, the rows' lines in their file; default: 2, 3, ... as under a header line)."""
    missing = [c for c in COLUMNS if c not in frame.columns]
    if missing:
        raise UserError(f"{where}: missing column{'s' if len(missing) > 1 else ''} {', '.join(missing)}")
    rows = []
    seen: set[tuple[str, str, str, str]] = set()
    numbers = list(row_numbers) if row_numbers is not None else list(range(2, len(frame) + 2))
    for n, row in zip(numbers, frame[list(COLUMNS)].itertuples(index=False)):
        at = f"{where} row {n}"
        study, item, rater, method = (_text(getattr(row, c)) for c in ("study_id", "item_id", "rater", "target_method"))
        for name, value in (("study_id", study), ("item_id", item), ("rater", rater), ("target_method", method)):
            if not value:
                raise UserError(f"{at}: {name} is empty")
        try:
            k = float(_text(row.n_responses))
            if not k.is_integer():
                raise ValueError
        except ValueError:
            raise UserError(f"{at}: n_responses must be a whole number, got {row.n_responses!r}") from None
        if not 2 <= k <= len(LETTERS):
            raise UserError(f"{at}: n_responses must be from 2 to {len(LETTERS)}, got {int(k)}")
        letters = LETTERS[: int(k)]
        guessed, true = _text(row.guessed_label).upper(), _text(row.true_label).upper()
        if guessed and guessed not in letters:
            raise UserError(f"{at}: guessed_label {guessed!r} is not one of the {int(k)} labels {', '.join(letters)}")
        if not true:
            raise UserError(f"{at}: true_label is empty (export the study once it is closed: open studies hide it)")
        if true not in letters:
            raise UserError(f"{at}: true_label {true!r} is not one of the {int(k)} labels {', '.join(letters)}")
        key = (study, item, rater, method)
        if key in seen:
            raise UserError(f"{at}: a second answer of rater {rater!r} on item {item} about {method}")
        seen.add(key)
        rows.append((study, item, rater, method, int(k), guessed or None, true))
    return pd.DataFrame(rows, columns=list(COLUMNS))


def _text(value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return str(value).strip()


def blinding_index(guesses: pd.DataFrame, z: float = Z) -> pd.DataFrame:
    """One row per (study, target method): RESULT_COLUMNS. `guesses` as `check_guesses` returns them
    (or the store's `guesses_frame`, which has the same columns)."""
    if guesses.empty:
        return pd.DataFrame(columns=list(RESULT_COLUMNS))
    g = guesses.copy()
    g["dont_know"] = g["guessed_label"].isna() | (g["guessed_label"].astype(str).str.strip() == "")
    g["correct"] = ~g["dont_know"] & (g["guessed_label"].astype(str) == g["true_label"].astype(str))
    g["s"] = answer_scores(g["correct"], g["dont_know"], g["n_responses"].astype(float))
    rows = []
    groups = list(g.groupby(["study_id", "target_method"], sort=False))
    per_item = [
        grp.groupby("item_id", sort=False).agg(m=("s", "mean"), r=("s", "size"), k=("n_responses", "max"))
        for _, grp in groups
    ]
    width = max((len(p) for p in per_item), default=0)
    m = np.full((len(groups), width), np.nan)
    r = np.zeros((len(groups), width))
    k = np.full((len(groups), width), 2.0)
    for s, p in enumerate(per_item):
        m[s, : len(p)], r[s, : len(p)], k[s, : len(p)] = p["m"], p["r"], p["k"]
    shares = np.array([grp["dont_know"].mean() for _, grp in groups])
    index, lo, hi = score_interval(m, r, k, shares, z)
    for s, ((study, method), grp) in enumerate(groups):
        guessed = not bool(grp["dont_know"].all())  # every answer "don't know": no interval (see above)
        rows.append(
            {
                "study_id": study,
                "target_method": method,
                "index": float(index[s]),
                "ci_low": float(lo[s]) if guessed else math.nan,
                "ci_high": float(hi[s]) if guessed else math.nan,
                "n": int(len(grp)),
                "correct": int(grp["correct"].sum()),
                "dont_know": int(grp["dont_know"].sum()),
                "items": int(grp["item_id"].nunique()),
                "raters": int(grp["rater"].nunique()),
                "chance": float((1.0 / grp["n_responses"].astype(float)).mean()),
                "pooled_index": float(grp["s"].mean()),
                "max_answers_per_item": int(per_item[s]["r"].max()),
            }
        )
    return pd.DataFrame(rows, columns=list(RESULT_COLUMNS))


def guesses_frame(guesses: Sequence[Any], attention_items: Collection[int] = ()) -> pd.DataFrame:
    """The store's guesses (`Store.guesses`) as COLUMNS, labels as the raters saw them; a guess whose
    answer key was left out of the export it was imported from cannot be scored and is not included,
    nor one on an attention item (`attention_items`: their ids): its responses are identical, so the
    answer was pure chance (older studies asked there; arena/rating/guessing.py no longer does)."""
    skip = {int(i) for i in attention_items}
    rows = [
        (
            g.study_id,
            g.item_id,
            g.rater,
            g.target_method,
            int(g.n_responses),
            None if g.guessed_position is None else LETTERS[g.guessed_position],
            LETTERS[g.true_position],
        )
        for g in guesses
        if g.true_position is not None and int(g.item_id) not in skip
    ]
    return pd.DataFrame(rows, columns=list(COLUMNS))


def study_blinding(store: Any, study_id: int) -> pd.DataFrame:
    """`blinding_index` of one study's stored guesses (empty when the study asked none)."""
    attention = [i.id for i in store.items(int(study_id)) if i.attention]
    return blinding_index(guesses_frame(store.guesses(int(study_id)), attention))


def closed_study_blinding(store: Any, study_id: int) -> pd.DataFrame:
    """`study_blinding`, only for a closed or published study: while raters rate, the index would tell
    the organizer (and through them, anyone) how recognisable each method is. Raises UserError."""
    study = store.get_study(int(study_id))
    if study is None:
        raise UserError(messages.text("no_study_number", id=int(study_id)))
    if study.state not in ("closed", "published"):
        raise UserError(messages.english("blinding_not_closed"))
    if not study.guess_methods:
        raise UserError(messages.english("blinding_not_asked"))
    return study_blinding(store, study.id)


# ---- in words ---------------------------------------------------------------------------------------


def verdict(row: Mapping[str, Any]) -> str:
    """ "not kept", "chance" or "wrong": whether the CI lies above 0, covers it, or lies below; "no
    guesses" without an interval (every answer "don't know")."""
    lo, hi = float(row["ci_low"]), float(row["ci_high"])
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return "no guesses"
    if lo > 0:
        return "not kept"
    if hi < 0:
        return "wrong"
    return "chance"


def words(row: Mapping[str, Any], lang: str = "en") -> str:
    """One plain sentence for one (study, method) row of `blinding_index`, in `lang`, e.g. "Raters picked
    BS-4 in 81% of their guesses (chance 33%): the blind did not hold for BS-4 (...)"."""
    method = str(row["target_method"])
    n, dk, right, items = int(row["n"]), int(row["dont_know"]), int(row["correct"]), int(row["items"])
    if n == 0:
        return messages.text("blind_not_asked", lang, method=method)
    guessed = n - dk
    if guessed == 0:
        return messages.text("blind_all_dont_know", lang, method=method, n=n, items=items)
    dk_part = messages.text("blind_dont_know_part", lang, dk=dk, n=n) if dk else ""
    stats_part = messages.text(
        "blind_stats",
        lang,
        index=float(row["index"]),
        low=float(row["ci_low"]),
        high=float(row["ci_high"]),
        items=items,
        dk=dk_part,
    )
    pooled = float(row.get("pooled_index", math.nan))
    if (
        int(row.get("max_answers_per_item", 1) or 1) > 1
        and math.isfinite(pooled)
        and abs(pooled - float(row["index"])) >= 0.005
    ):
        stats_part += messages.text("blind_pooled", lang, pooled=pooled)
    share = messages.text(
        "blind_share", lang, method=method, share=100 * right / guessed, chance=100 * float(row["chance"])
    )
    tail = {"not kept": "blind_not_kept", "wrong": "blind_wrong"}.get(verdict(row), "blind_chance")
    return messages.text(
        "blind_sentence", lang, share=share, verdict=messages.text(tail, lang, method=method), stats=stats_part
    )


def summary_lines(result: pd.DataFrame, lang: str = "en") -> list[str]:
    return [words(r, lang) for r in result.to_dict("records")]


# ---- the CLI ----------------------------------------------------------------------------------------


def read_guesses(path: str | Path) -> pd.DataFrame:
    """A guesses CSV (or an arena export, whose guess rows are taken), checked by `check_guesses`."""
    path = Path(path)
    table = read_csv(path, path.name)
    header = table.header
    records = [(row.line, row.values) for row in table.rows]
    missing = [c for c in COLUMNS if c not in header]
    if missing:
        raise UserError(f"{path.name}: missing column{'s' if len(missing) > 1 else ''} {', '.join(missing)}")
    if "row_kind" in header:  # an arena export: its guess rows, with cells unescaped as its format says
        # (not those on an attention item: chance answers that older studies asked for, `guesses_frame`)
        records = [
            (n, r) for n, r in records if (r.get("row_kind") or "") == "guess" and not (r.get("item_attention") or "")
        ]
        records = [
            (n, {k: unescape_cell(v) if isinstance(v, str) else v for k, v in r.items()})
            if str(r.get("format_version") or "") not in ("", "1")
            else (n, r)
            for n, r in records
        ]
    if not records:
        raise UserError(f"{path.name} has no answers (no rows{' of kind guess' if 'row_kind' in header else ''})")
    frame = pd.DataFrame([r for _, r in records], columns=header)
    return check_guesses(frame, path.name, [n for n, _ in records])


def as_json(result: pd.DataFrame) -> dict[str, Any]:
    studies: dict[str, Any] = {}
    for row in result.to_dict("records"):
        entry = studies.setdefault(str(row["study_id"]), {"methods": {}})
        entry["methods"][str(row["target_method"])] = {
            "index": _number(row["index"]),
            "ci_low": _number(row["ci_low"]),
            "ci_high": _number(row["ci_high"]),
            "n": int(row["n"]),
            "correct": int(row["correct"]),
            "dont_know": int(row["dont_know"]),
            "items": int(row["items"]),
            "chance": _number(row["chance"]),
            "pooled_index": _number(row["pooled_index"]),
            "estimand": ESTIMAND,
        }
    return {"studies": studies}


def _number(value: Any) -> float | None:
    value = float(value)
    return round(value, 6) if math.isfinite(value) else None


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m evaluation.blinding",
        description="Bang's blinding index per study and target method, from raters' guesses.",
    )
    p.add_argument("guesses", help="CSV: " + ", ".join(COLUMNS) + " (or an arena export)")
    p.add_argument("--json", action="store_true", help="print JSON instead of sentences")
    args = p.parse_args(list(argv) if argv is not None else None)
    try:
        result = blinding_index(read_guesses(args.guesses))
    except UserError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(as_json(result), indent=1))
    else:
        for study, rows in result.groupby("study_id", sort=False):
            print(f"study {study}:")
            for line in summary_lines(rows):
                print(f"  {line}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
