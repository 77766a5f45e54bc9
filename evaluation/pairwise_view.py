"""A published pairwise study as the Results tab and /present show it: the leaderboard and its words.

The votes come from the store as `python -m arena.export --votes` writes them (`arena.files.pair_export`),
the ratings from `evaluation.pairwise.rate` (Bradley-Terry on the Elo scale, two-way intervals,
length control with the outputs' new tokens); nothing here is computed another way.
"""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from arena.files.pair_export import vote_rows
from arena.store import Store
from common import messages
from common.errors import UserError

from . import blinding
from . import pairwise as pw

NOT_PUBLISHED = "there is no published study with that id"
LEADERBOARD_COLUMNS = [
    "rank",
    "method",
    "rating [95% CI]",
    "at equal length [95% CI]",
    "votes",
    "items",
    "wins / losses / ties",
    "provisional",
]


def _interval(value: Any, low: Any, high: Any, lang: str = "en") -> str:
    if value is None or not math.isfinite(float(value)):
        return "–"
    if low is None or pd.isna(low) or not math.isfinite(float(low)):
        return messages.text("no_interval", lang, value=f"{float(value):.0f}")
    if not pw.estimable(low, high):  # an interval of thousands of points: the number means nothing
        return pw.not_estimable(lang)
    return f"{float(value):.0f} [{float(low):.0f}, {float(high):.0f}]"


def leaderboard_table(result: pw.StudyRatings, lang: str = "en") -> pd.DataFrame:
    """One row per system, best first: rank (a range where intervals overlap; "–" when provisional),
    raw and length-controlled ratings with their intervals, votes, items, the tally, provisional; the
    cells' words in `lang` (the columns keep their English names: /present renames them)."""
    eff = result.length_effect
    # All answers as long as their rivals: no length effect can be fitted, so no "at equal length" column values.
    controlled_ok = (
        "rating_length_controlled" in result.systems
        and eff is not None
        and math.isfinite(float(eff["elo_if_twice_as_long"]))
    )
    rows = []
    for r in result.systems.itertuples():
        best, worst = getattr(r, "rank_best"), getattr(r, "rank_worst")
        rank = "–" if pd.isna(best) else pw.rank_label(int(best), int(worst))
        controlled = (
            _interval(r.rating_length_controlled, r.ci_low_length_controlled, r.ci_high_length_controlled, lang)
            if controlled_ok
            else "–"
        )
        rows.append(
            {
                "rank": rank,
                "method": r.system,
                "rating [95% CI]": _interval(r.rating, r.ci_low, r.ci_high, lang),
                "at equal length [95% CI]": controlled,
                "votes": int(r.votes),
                "items": int(r.items),
                "wins / losses / ties": f"{int(r.wins)} / {int(r.losses)} / {int(r.ties)}",
                "provisional": messages.text(
                    "pw_provisional_yes", lang, why=pw.provisional_reasons(r.why_provisional, lang)
                )
                if r.provisional
                else messages.text("no", lang),
            }
        )
    return pd.DataFrame(rows, columns=LEADERBOARD_COLUMNS)


def pairwise_view(
    store: Store, study_id: int, *, public: bool = True, n_resamples: int = 1000, lang: str = "en"
) -> dict[str, Any]:
    """The leaderboard of a pairwise study: published only when `public` (else closed will do). The
    headline, takeaway, lines, blinding lines and the table's cells in `lang` (/present, the Results tab)."""
    study = store.get_study(int(study_id))
    allowed = ("published",) if public else ("closed", "published")
    if study is None or study.design != "pairwise" or study.state not in allowed:
        raise UserError(NOT_PUBLISHED)
    rows = vote_rows(store, study.id)
    # Raters' answers to "which came from METHOD?", if the study asked: the index per method (chance 1/2).
    blind_lines = blinding.summary_lines(blinding.study_blinding(store, study.id), lang) if study.guess_methods else []
    base = {"name": study.name, "study_id": study.id, "methods": list(study.methods), "blinding": blind_lines}
    if not rows:
        return {
            **base,
            "headline": messages.text("pw_headline_no_votes", lang),
            "takeaway": messages.text("pw_no_votes_takeaway", lang),
            "lines": [],
            "table": pd.DataFrame(columns=LEADERBOARD_COLUMNS),
            "sizes": (0, 0, 0),
        }
    votes = pw.check_votes(pd.DataFrame(rows), source=f"study #{study.id}")
    result = pw.rate(votes, n_resamples=n_resamples)
    lines = pw.explain(result, lang)
    sizes = (result.n_items, result.n_votes, result.n_raters)
    return {
        **base,
        "headline": messages.text(
            "pw_headline",
            lang,
            sizes=messages.text("results_sizes_votes", lang, items=sizes[0], votes=sizes[1], raters=sizes[2]),
            methods=", ".join(study.methods),
        ),
        "takeaway": lines[0],
        "lines": lines,
        "table": leaderboard_table(result, lang),
        "sizes": sizes,
        "result": result,
    }
