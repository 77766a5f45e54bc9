"""Pairwise votes: one per rater and item of a pairwise study, with the two outputs as that rater saw them.

`VoteStore` is a base of `Store` (store.py), as `GuessStore` is. A vote and the end of the rater's
skip of that item are written in one transaction (an item voted on after a skip counts as voted,
never as both); voting again on an item replaces the vote.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import pandas as pd
from sqlalchemy import and_, delete, select

from common.errors import UserError

from .schema import VOTE_WINNERS, items, outputs, raters, skips, utcnow, votes
from .transactions import StoreBase
from .values import clean_comment, dumps

# The optional "why" of a vote, a short list (stored as keys) beside a free text.
REASONS: dict[str, str] = {
    "accurate": "More accurate or on topic",
    "clearer": "Clearer, reads better",
    "complete": "More complete or useful",
    "concise": "More concise",
    "safer": "Safer, less harmful",
}


def check_reasons(reasons: Any) -> list[str]:
    """The ticked reasons: REASONS keys or their labels (what a checkbox group sends)."""
    if reasons in (None, ""):
        return []
    if not isinstance(reasons, (list, tuple)):
        raise UserError("malformed request")
    by_label = {v: k for k, v in REASONS.items()}
    keys: list[str] = []
    for r in reasons:
        key = r if r in REASONS else by_label.get(r) if isinstance(r, str) else None
        if key is None:
            raise UserError(f"unknown reason {str(r)[:40]!r}")
        if key not in keys:
            keys.append(key)
    return keys


@dataclass(frozen=True)
class Vote:
    """A stored vote with what an export or an analysis needs beside it."""

    study_id: int
    item_id: int
    item_ordinal: int
    item_public_id: str
    rater: str
    output_a: int
    output_b: int
    winner: str  # one of VOTE_WINNERS
    reasons: tuple[str, ...]
    note: str | None
    created_at: datetime
    updated_at: datetime


def check_winner(winner: object) -> str:
    text = winner.strip().lower() if isinstance(winner, str) else ""
    if text not in VOTE_WINNERS:
        raise UserError(f"a vote is one of {', '.join(VOTE_WINNERS)}, not {str(winner)[:20]!r}")
    return text


class VoteStore(StoreBase):
    """Pairwise votes, one per rater and item."""

    def save_vote(
        self,
        rater_id: int,
        item_id: int,
        output_a: int,
        output_b: int,
        winner: object,
        reasons: Sequence[str] = (),
        note: object = None,
        created_at=None,
        updated_at=None,
    ) -> None:
        """Insert or replace this rater's vote on this item and end their skip of it, in one transaction."""
        winner = check_winner(winner)
        if int(output_a) == int(output_b):
            raise UserError("a vote compares two different responses")
        now = utcnow()
        values = dict(
            output_a=int(output_a),
            output_b=int(output_b),
            winner=winner,
            reasons=dumps(list(reasons)) if reasons else None,
            note=clean_comment(note) if isinstance(note, str) and note.strip() else None,
            updated_at=updated_at or now,
        )
        where = and_(votes.c.rater_id == int(rater_id), votes.c.item_id == int(item_id))
        with self.transaction() as conn:
            found = conn.execute(
                select(outputs.c.item_id).where(outputs.c.id.in_([int(output_a), int(output_b)]))
            ).all()
            if len(found) != 2 or any(int(r.item_id) != int(item_id) for r in found):
                raise UserError("the two responses of a vote must belong to its item")
            if conn.execute(select(votes.c.id).where(where)).scalar() is not None:
                conn.execute(votes.update().where(where).values(**values))
            else:
                conn.execute(
                    votes.insert().values(
                        rater_id=int(rater_id), item_id=int(item_id), created_at=created_at or now, **values
                    )
                )
            conn.execute(delete(skips).where(skips.c.rater_id == int(rater_id), skips.c.item_id == int(item_id)))

    def voted_items(self, study_id: int, rater_id: int) -> dict[int, str]:
        """{item_id: winner} of the items of a study this rater voted on."""
        with self.read() as conn:
            rows = conn.execute(
                select(votes.c.item_id, votes.c.winner)
                .join(items, items.c.id == votes.c.item_id)
                .where(items.c.study_id == int(study_id), votes.c.rater_id == int(rater_id))
            )
            return {int(r.item_id): r.winner for r in rows}

    def vote_progress(self, study_id: int) -> pd.DataFrame:
        """`progress` for a pairwise study: per rater, items voted on (each vote is one item), first
        and last vote time (columns as `RatingStore.progress`, `ratings` = votes)."""
        rows: dict[str, list[Any]] = {}
        for v in self.votes(study_id):
            row = rows.setdefault(v.rater, [v.rater, 0, 0, v.created_at, v.updated_at])
            row[1] += 1
            row[2] += 1
            row[3], row[4] = min(row[3], v.created_at), max(row[4], v.updated_at)
        frame = pd.DataFrame(
            sorted(rows.values()), columns=["rater", "items_done", "ratings", "first_rating", "last_rating"]
        )
        for col in ("items_done", "ratings"):
            frame[col] = frame[col].astype("int64")
        return frame

    def vote_of(self, rater_id: int, item_id: int) -> Vote | None:
        """This rater's vote on this item, if any."""
        found = self._votes(and_(votes.c.rater_id == int(rater_id), votes.c.item_id == int(item_id)))
        return found[0] if found else None

    def votes(self, study_id: int | None = None) -> list[Vote]:
        """Every vote (of one study), in study, item and rater order."""
        return self._votes(None if study_id is None else items.c.study_id == int(study_id))

    def _votes(self, where) -> list[Vote]:
        query = (
            select(
                items.c.study_id,
                votes.c.item_id,
                items.c.ordinal.label("item_ordinal"),
                items.c.public_id.label("item_public_id"),
                raters.c.name.label("rater"),
                votes.c.output_a,
                votes.c.output_b,
                votes.c.winner,
                votes.c.reasons,
                votes.c.note,
                votes.c.created_at,
                votes.c.updated_at,
            )
            .join(items, items.c.id == votes.c.item_id)
            .join(raters, raters.c.id == votes.c.rater_id)
            .order_by(items.c.study_id, items.c.ordinal, raters.c.name)
        )
        if where is not None:
            query = query.where(where)
        with self.read() as conn:
            return [
                Vote(
                    study_id=int(r.study_id),
                    item_id=int(r.item_id),
                    item_ordinal=int(r.item_ordinal),
                    item_public_id=r.item_public_id,
                    rater=r.rater,
                    output_a=int(r.output_a),
                    output_b=int(r.output_b),
                    winner=r.winner,
                    reasons=tuple(json.loads(r.reasons or "[]")),
                    note=r.note,
                    created_at=r.created_at,
                    updated_at=r.updated_at,
                )
                for r in conn.execute(query)
            ]


__all__ = ["REASONS", "Vote", "VoteStore", "check_reasons", "check_winner"]
