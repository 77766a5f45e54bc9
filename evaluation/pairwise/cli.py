"""`python -m evaluation.pairwise VOTES.csv [--json]`: Bradley-Terry ratings of each study in a votes file.

The file has one row per vote: study_id, item_id, rater, system_a, system_b, winner (a, b, tie or
bothbad) and, optionally, len_a and len_b (the two answers' lengths, in any unit); other columns
are ignored. With --json it prints

    {"studies": {"<id>": {"systems": {NAME: {"rating", "ci_low", "ci_high", "votes", "provisional",
     ...}}, ...}}}

and, with lengths, rating_length_controlled (with ci_low_length_controlled, ci_high_length_controlled)
per system and the study's length_effect. Bad input prints one `error:` line and exits with 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from common.errors import UserError

from .rate import MIN_ITEMS, MIN_VOTES, N_RESAMPLES, rate
from .votes import LENGTH_COLUMNS, VOTE_COLUMNS, read_votes_and_warnings
from .words import as_dict, explain, table_lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m evaluation.pairwise",
        description="Bradley-Terry ratings (Elo scale, mean 1000) with 95% intervals from pairwise votes.",
    )
    parser.add_argument("votes", help=f"CSV with {', '.join(VOTE_COLUMNS)} (optional {', '.join(LENGTH_COLUMNS)})")
    parser.add_argument("--json", action="store_true", help="print JSON (default: a table and plain-language lines)")
    parser.add_argument(
        "--resamples", type=int, default=N_RESAMPLES, help=f"bootstrap resamples (default {N_RESAMPLES})"
    )
    parser.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
    parser.add_argument("--level", type=float, default=0.95, help="interval level (default 0.95)")
    parser.add_argument("--min-votes", type=int, default=MIN_VOTES, help=f"provisional below (default {MIN_VOTES})")
    parser.add_argument("--min-items", type=int, default=MIN_ITEMS, help=f"provisional below (default {MIN_ITEMS})")
    args = parser.parse_args(argv)
    try:
        if args.resamples < 50:
            raise UserError("--resamples must be at least 50")
        if not 0.5 <= args.level < 1:
            raise UserError("--level must be in [0.5, 1)")
        votes, notes = read_votes_and_warnings(args.votes)
    except UserError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for note in notes:
        print(f"warning: {note}", file=sys.stderr)
    studies = {}
    for sid, group in votes.groupby("study_id", sort=False):
        studies[str(sid)] = rate(
            group,
            level=args.level,
            n_resamples=args.resamples,
            seed=args.seed,
            min_votes=args.min_votes,
            min_items=args.min_items,
        )
    if args.json:
        print(json.dumps({"studies": {sid: as_dict(r) for sid, r in studies.items()}}, ensure_ascii=False, indent=1))
        return 0
    for sid, r in studies.items():
        print(
            f"study {sid}: {r.n_votes} votes on {r.n_items} items from {r.n_raters} raters, {r.tie_share:.0%} ties or "
            f"both bad; {r.level:.0%} intervals: {r.scheme} bootstrap, {r.n_resamples} resamples"
        )
        for line in table_lines(r):
            print("  " + line)
        for line in explain(r):
            print("  " + line)
    return 0
