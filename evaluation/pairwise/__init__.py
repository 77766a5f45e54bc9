"""Pairwise battles: Bradley-Terry ratings on the Elo scale with honest intervals, length control,
a leaderboard across studies, and preference pairs for training. Pure evaluation: votes in,
ratings out; no store, no UI.

What a caller uses:

    rate(votes) -> StudyRatings           one study's (or pooled studies') ratings, intervals, ranks
    as_dict(result), explain(result)      its JSON and its takeaways in words
    leaderboard(votes, ratings)           pairwise and 1-5 studies of one model, one table
    implied_votes(ratings)                the comparisons a 1-5 study's scores imply
    length_adjusted_contrast(ratings)     1-5 method contrasts with and without length
    check_votes(frame), read_votes(path)  validation (a UserError names the line and column)

`python -m evaluation.pairwise VOTES.csv --json` runs `rate` on each study of a votes file.
Models and calibration: docs/pairwise.md.
"""

from .bt import ELO_MEAN, ELO_SCALE, Fit, fit_bt, win_probability
from .implied import implied_votes
from .leaderboard import Leaderboard, leaderboard
from .length_adjust import length_adjusted_contrast
from .ranks import rank_label, rank_ranges, tied_groups
from .rate import MIN_ITEMS, MIN_VOTES, StudyRatings, rate
from .votes import LENGTH_COLUMNS, VOTE_COLUMNS, WINNERS, Battles, check_votes, read_votes
from .words import NOT_ESTIMABLE, as_dict, estimable, explain, not_estimable, provisional_reasons, table_lines

__all__ = [
    "ELO_MEAN",
    "ELO_SCALE",
    "LENGTH_COLUMNS",
    "MIN_ITEMS",
    "MIN_VOTES",
    "NOT_ESTIMABLE",
    "VOTE_COLUMNS",
    "WINNERS",
    "Battles",
    "Fit",
    "Leaderboard",
    "StudyRatings",
    "as_dict",
    "check_votes",
    "estimable",
    "explain",
    "fit_bt",
    "implied_votes",
    "leaderboard",
    "length_adjusted_contrast",
    "not_estimable",
    "provisional_reasons",
    "rank_label",
    "rank_ranges",
    "read_votes",
    "table_lines",
    "tied_groups",
    "rate",
    "win_probability",
]
