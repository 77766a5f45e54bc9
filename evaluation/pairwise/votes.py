"""Pairwise votes: the columns, their validation, and the arrays the fits run on.

A vote is one rater's verdict on one item between two systems shown as A (left) and B (right):
`winner` is "a", "b", "tie" or "bothbad". For the Bradley-Terry fit a tie and "both bad" are half
a win for each side (as FastChat's leaderboard counts them), so a vote's score for A is 1, 0 or 1/2.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from arena.files.readers import read_csv
from common.errors import UserError

VOTE_COLUMNS: tuple[str, ...] = ("study_id", "item_id", "rater", "system_a", "system_b", "winner")
LENGTH_COLUMNS: tuple[str, ...] = ("len_a", "len_b")
WINNERS: tuple[str, ...] = ("a", "b", "tie", "bothbad")
SCORE_OF_A: dict[str, float] = {"a": 1.0, "b": 0.0, "tie": 0.5, "bothbad": 0.5}
_TEXT_COLUMNS = ("study_id", "item_id", "rater", "system_a", "system_b")


def check_votes(votes: pd.DataFrame, source: str = "votes", lines: Sequence[int] | None = None) -> pd.DataFrame:
    """A validated copy of `votes`: text columns stripped, `winner` lower-cased, and the lengths as
    floats when both `len_a` and `len_b` are there (columns that are blank throughout count as absent).

    Raises UserError on a missing column, a blank id, an unknown winner, a system against itself, a
    length that is not a non-negative number, or no votes at all, naming the file's line of the row
    (`lines[row]`; by default a plain CSV's: the header is line 1)."""

    def _line(row: int) -> int:
        return lines[row] if lines is not None else row + 2

    missing = [c for c in VOTE_COLUMNS if c not in votes.columns]
    if missing:
        raise UserError(f"{source}: missing column(s) {', '.join(missing)}")
    if votes.empty:
        raise UserError(f"{source} has no votes")
    out = pd.DataFrame({c: votes[c].astype(str).str.strip() for c in _TEXT_COLUMNS}, index=votes.index)
    for col in _TEXT_COLUMNS:
        blank = (out[col] == "") | votes[col].isna().to_numpy()
        if blank.any():
            raise UserError(f"{source}, line {_line(int(np.flatnonzero(blank)[0]))}: {col} is empty")
    winner = votes["winner"].astype(str).str.strip().str.lower()
    bad = ~winner.isin(WINNERS)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise UserError(
            f"{source}, line {_line(row)}: winner = {votes['winner'].iloc[row]!r} is not one of {', '.join(WINNERS)}"
        )
    out["winner"] = winner
    same = out["system_a"] == out["system_b"]
    if same.any():
        row = int(np.flatnonzero(same)[0])
        raise UserError(f"{source}, line {_line(row)}: system_a and system_b are both {out['system_a'].iloc[row]!r}")
    present = [c for c in LENGTH_COLUMNS if c in votes.columns and (votes[c].astype(str).str.strip() != "").any()]
    if len(present) == 1:
        raise UserError(f"{source}: {present[0]} without {({*LENGTH_COLUMNS} - {present[0]}).pop()}")
    for col in present:
        text = votes[col].astype(str).str.strip()
        values = pd.to_numeric(text, errors="coerce").astype(float)
        wrong = values.isna() | ~np.isfinite(values) | (values < 0)
        if wrong.any():
            row = int(np.flatnonzero(wrong)[0])
            raise UserError(
                f"{source}, line {_line(row)}: {col} = {votes[col].iloc[row]!r} is not a length (a number ≥ 0)"
            )
        out[col] = values.to_numpy()
    return out.reset_index(drop=True)


def read_votes(path: str) -> pd.DataFrame:
    """The votes of a CSV file (VOTE_COLUMNS, optional LENGTH_COLUMNS; other columns ignored), validated,
    exact repeats counted once (`read_votes_and_warnings`)."""
    return read_votes_and_warnings(path)[0]


def read_votes_and_warnings(path: str) -> tuple[pd.DataFrame, list[str]]:
    """(votes, warnings) of a CSV file. The same vote repeated exactly (a file concatenated twice: the
    same study, item, rater, systems, winner and lengths) is counted once, and a warning says how many;
    one rater giving two different verdicts on the same pair of one item is an error, as for the 1-5
    ratings (`evaluation.human.ratings`)."""
    table = read_csv(path)
    frame = pd.DataFrame([row.values for row in table.rows], columns=table.header, dtype=str)
    lines = [row.line for row in table.rows]
    votes = check_votes(frame, path, lines)
    return without_repeats(votes, path, lines)


def without_repeats(votes: pd.DataFrame, source: str, lines: Sequence[int]) -> tuple[pd.DataFrame, list[str]]:
    """`votes` (as `check_votes` returns them) with exact repeats dropped, and the warning that says so.
    The same pair shown the other way round (B on the left) is another vote, not a repeat."""
    exact = votes.duplicated(keep="first")
    key = ["study_id", "item_id", "rater", "system_a", "system_b"]
    clash = votes.loc[~exact, key].duplicated(keep=False)
    if clash.any():
        rows = np.flatnonzero(~exact.to_numpy())[np.flatnonzero(clash.to_numpy())[:2]]
        first = votes.iloc[rows[0]]
        raise UserError(
            f"{source}, lines {', '.join(str(lines[int(k)]) for k in rows)}: rater {first['rater']!r} voted twice on "
            f"{first['system_a']!r} against {first['system_b']!r} for item {first['item_id']!r} of study "
            f"{first['study_id']!r}, with different verdicts"
        )
    if not exact.any():
        return votes, []
    note = (
        f"{source}: {int(exact.sum())} exact repeat(s) of a vote (same rater, item, systems and verdict) counted once"
    )
    return votes[~exact.to_numpy()].reset_index(drop=True), [note]


def relative_length_difference(len_a: np.ndarray, len_b: np.ndarray) -> np.ndarray:
    """(len_a - len_b) / (len_a + len_b), in [-1, 1]; 0 where both are 0. The unit (tokens,
    characters) cancels, and one long answer cannot dominate the fit the way a raw difference would."""
    total = len_a + len_b
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 0, (len_a - len_b) / np.where(total > 0, total, 1.0), 0.0)


@dataclass(frozen=True)
class Battles:
    """Votes as arrays. Systems, items and raters are numbered in sorted order of their names, so
    that neither the order of the rows nor the names given to systems change any result.

    Args:
        systems: the system names; `a[n]`, `b[n]` index into it.
        score: A's share of vote n: 1 (A won), 0 (B won), 1/2 (tie or both bad).
        item: cluster index of the vote's item (an item of one study: (study_id, item_id)).
        study: index of the vote's study (items are resampled within their study).
        rater: index of the rater (by name: the same name in two studies is one person).
        length_diff: `relative_length_difference` per vote, or None without lengths.
    """

    systems: tuple[str, ...]
    a: np.ndarray
    b: np.ndarray
    score: np.ndarray
    item: np.ndarray
    rater: np.ndarray
    study: np.ndarray
    length_diff: np.ndarray | None = None

    @property
    def n_items(self) -> int:
        return int(self.item.max()) + 1 if len(self.item) else 0

    @property
    def n_raters(self) -> int:
        return int(self.rater.max()) + 1 if len(self.rater) else 0

    @property
    def cell(self) -> np.ndarray:
        """Index of each vote's (item, rater) cell: the votes one rater gave on one item."""
        return np.unique(self.item * max(self.n_raters, 1) + self.rater, return_inverse=True)[1]

    @property
    def n_cells(self) -> int:
        return int(self.cell.max()) + 1 if len(self.item) else 0

    @classmethod
    def from_votes(cls, votes: pd.DataFrame, systems: Sequence[str] | None = None) -> Battles:
        """From a frame that passed `check_votes` (any number of studies: items are kept apart by study)."""
        names = tuple(sorted(set(votes["system_a"]) | set(votes["system_b"]))) if systems is None else tuple(systems)
        index = {s: k for k, s in enumerate(names)}
        item_key = votes["study_id"].astype(str) + "\x1f" + votes["item_id"].astype(str)
        lengths = None
        if all(c in votes.columns for c in LENGTH_COLUMNS):
            lengths = relative_length_difference(votes["len_a"].to_numpy(float), votes["len_b"].to_numpy(float))
        return cls(
            systems=names,
            a=votes["system_a"].map(index).to_numpy(int),
            b=votes["system_b"].map(index).to_numpy(int),
            score=votes["winner"].map(SCORE_OF_A).to_numpy(float),
            item=_codes(item_key),
            rater=_codes(votes["rater"].astype(str)),
            study=_codes(votes["study_id"].astype(str)),
            length_diff=lengths,
        )

    def per_system(self) -> pd.DataFrame:
        """Per system: votes, items, raters it was in, and its wins, losses and ties (a tie or both bad)."""
        rows = []
        for k, name in enumerate(self.systems):
            as_a, as_b = self.a == k, self.b == k
            mine = as_a | as_b
            own = np.where(as_a, self.score, 1.0 - self.score)[mine]
            rows.append(
                {
                    "system": name,
                    "votes": int(mine.sum()),
                    "items": int(len(np.unique(self.item[mine]))),
                    "raters": int(len(np.unique(self.rater[mine]))),
                    "wins": int((own == 1.0).sum()),
                    "losses": int((own == 0.0).sum()),
                    "ties": int((own == 0.5).sum()),
                }
            )
        return pd.DataFrame(rows, columns=["system", "votes", "items", "raters", "wins", "losses", "ties"])

    def subset(self, keep: np.ndarray) -> Battles:
        """The votes where `keep` is True, systems and numbering kept (items and raters renumbered)."""
        return Battles(
            systems=self.systems,
            a=self.a[keep],
            b=self.b[keep],
            score=self.score[keep],
            item=np.unique(self.item[keep], return_inverse=True)[1],
            rater=np.unique(self.rater[keep], return_inverse=True)[1],
            study=np.unique(self.study[keep], return_inverse=True)[1],
            length_diff=None if self.length_diff is None else self.length_diff[keep],
        )


def _codes(keys: pd.Series) -> np.ndarray:
    order = {k: i for i, k in enumerate(sorted(set(keys)))}
    return keys.map(order).to_numpy(int)
