"""What a rater says besides scores: skipping an item with a reason, flagging an item or one of its
responses, and the per-question "can't judge" answer (stored in `rating_scores` as a NULL score with
its `cant_judge` flag, whatever the study's rubric; see schema.py).

`FeedbackStore` is a base of `Store` (store.py); its methods use the store's transactions. Flags
and skips are stored per output id and item id: the blind letter a rater used is turned into an
output id on the server (arena/rating/blind.py), and nothing here goes back to a rater's browser.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from sqlalchemy import Table, and_, delete, func, select

from arena.inputs.text import printable
from common.errors import UserError
from common.rubric import Rubric

from .rating_store import RatingStore
from .rows import Flag, Skip, T, from_row
from .schema import flags, items, outputs, raters, rating_scores, ratings, skips, utcnow

SKIP_REASONS: dict[str, str] = {
    "language": "I can't read the language",
    "unclear": "The prompt is unclear",
    "unsafe": "Offensive or unsafe content",
    "other": "Other (say why)",
}
FLAG_REASONS: dict[str, str] = {
    "broken": "Broken or empty output",
    "prompt": "Problem with the prompt",
    "personal": "Contains personal data",
    "unsafe": "Offensive or unsafe content",
    "other": "Other (say why)",
}
MAX_NOTE = 1000


def clean_note(note: object, what: str = "note") -> str | None:
    """Free text from a rater: without control characters but tab and newline, at most MAX_NOTE."""
    if note is None:
        return None
    if not isinstance(note, str):
        raise UserError(f"the {what} must be text")
    note = printable(note, keep="\t\n").strip()
    if len(note) > MAX_NOTE:
        raise UserError(f"the {what} is longer than {MAX_NOTE} characters")
    return note or None


def check_reason(reason: object, allowed: Mapping[str, str], note: str | None, what: str) -> str:
    """A reason key from `allowed`; "other" needs a note saying why."""
    if not isinstance(reason, str) or reason not in allowed:
        raise UserError(f"choose a reason to {what}: one of {', '.join(allowed)}")
    if reason == "other" and not note:
        raise UserError(f"say in a few words why you {what} (reason: other)")
    return reason


class FeedbackStore(RatingStore):
    """Skips, flags and can't-judge counts: a rated item ends its skip in the ratings' transaction."""

    def save_item_ratings(self, rater_id: int, item_id: int, rows: Sequence[Any], rubric: Rubric | None = None) -> None:
        """A rater's ratings of one item and the end of their skip of it, in one transaction: an item
        rated after a skip counts as rated, never as both. `rubric`: the study's (default: the three 1-5)."""
        with self.transaction() as conn:
            self.save_ratings(rater_id, rows, rubric)  # joins this transaction
            conn.execute(delete(skips).where(skips.c.rater_id == int(rater_id), skips.c.item_id == int(item_id)))

    def skip_item(self, rater_id: int, item_id: int, reason: object, note: object = None, created_at=None) -> None:
        """Record (or change) a rater's skip of an item. Refused when they have rated any of its
        responses: a skipped item has no scores, and ratings are never dropped silently."""
        note = clean_note(note)
        reason = check_reason(reason, SKIP_REASONS, note, "skip")
        with self.write() as conn:
            rated = conn.execute(
                select(func.count())
                .select_from(ratings.join(outputs, outputs.c.id == ratings.c.output_id))
                .where(ratings.c.rater_id == int(rater_id), outputs.c.item_id == int(item_id))
            ).scalar_one()
            if rated:
                raise UserError(
                    "you have rated this item already, so it cannot be skipped: change your ratings "
                    "and submit, or go to the next item"
                )
            where = and_(skips.c.rater_id == int(rater_id), skips.c.item_id == int(item_id))
            if conn.execute(select(skips.c.id).where(where)).scalar() is not None:
                conn.execute(
                    skips.update().where(where).values(reason=reason, note=note, created_at=created_at or utcnow())
                )
            else:
                conn.execute(
                    skips.insert().values(
                        rater_id=int(rater_id),
                        item_id=int(item_id),
                        reason=reason,
                        note=note,
                        created_at=created_at or utcnow(),
                    )
                )

    def skipped_items(self, study_id: int, rater_id: int) -> dict[int, str]:
        """{item_id: reason} of the items of a study this rater skipped."""
        with self.read() as conn:
            rows = conn.execute(
                select(skips.c.item_id, skips.c.reason)
                .join(items, items.c.id == skips.c.item_id)
                .where(items.c.study_id == int(study_id), skips.c.rater_id == int(rater_id))
            )
            return {int(r.item_id): r.reason for r in rows}

    def _feedback(self, table: Table, row: type[T], study_id: int | None, *order: Any) -> list[T]:
        """Rows of `skips` or `flags` with their item's place and the rater's name, as `row`."""
        columns = [c for c in table.c if c.name not in ("id", "rater_id")]
        query = (
            select(
                items.c.study_id,
                items.c.ordinal.label("item_ordinal"),
                items.c.public_id.label("item_public_id"),
                raters.c.name.label("rater"),
                *columns,
            )
            .join(items, items.c.id == table.c.item_id)
            .join(raters, raters.c.id == table.c.rater_id)
            .order_by(items.c.study_id, items.c.ordinal, *order)
        )
        if study_id is not None:
            query = query.where(items.c.study_id == int(study_id))
        with self.read() as conn:
            return [from_row(row, r) for r in conn.execute(query).mappings()]

    def skips(self, study_id: int | None = None) -> list[Skip]:
        """Every skip (of one study), in study, item and rater order."""
        return self._feedback(skips, Skip, study_id, raters.c.name)

    def add_flag(
        self,
        rater_id: int,
        item_id: int,
        reason: object,
        note: object = None,
        output_id: int | None = None,
        position: int | None = None,
        created_at=None,
    ) -> bool:
        """Flag an item (output_id None) or one response of it; False when this rater already gave
        the same flag (a double click stores one)."""
        note = clean_note(note)
        reason = check_reason(reason, FLAG_REASONS, note, "flag this")
        oid = None if output_id is None else int(output_id)
        with self.write() as conn:
            if oid is not None:
                owner = conn.execute(select(outputs.c.item_id).where(outputs.c.id == oid)).scalar()
                if owner != int(item_id):
                    raise UserError("that response is not part of this item")
            same = conn.execute(
                select(flags.c.id).where(
                    flags.c.rater_id == int(rater_id),
                    flags.c.item_id == int(item_id),
                    flags.c.output_id.is_(None) if oid is None else flags.c.output_id == oid,
                    flags.c.reason == reason,
                    func.coalesce(flags.c.note, "") == (note or ""),
                )
            ).first()
            if same is not None:
                return False
            conn.execute(
                flags.insert().values(
                    rater_id=int(rater_id),
                    item_id=int(item_id),
                    output_id=oid,
                    position=None if position is None else int(position),
                    reason=reason,
                    note=note,
                    created_at=created_at or utcnow(),
                )
            )
            return True

    def flags(self, study_id: int | None = None) -> list[Flag]:
        """Every flag (of one study), in study, item and flagging order; output_id None = the whole
        item, position = the letter that rater saw (0 = A)."""
        return self._feedback(flags, Flag, study_id, flags.c.created_at, flags.c.id)

    def cant_judge_ids(self, rater_id: int, output_ids: Iterable[int]) -> dict[int, set[str]]:
        """{output_id: dimensions marked can't judge} among this rater's ratings of these outputs (an
        empty set for a rating that judged every one)."""
        ids = [int(o) for o in output_ids]
        if not ids:
            return {}
        query = (
            select(ratings.c.output_id, rating_scores.c.dimension)
            .select_from(ratings.outerjoin(rating_scores, and_(
                rating_scores.c.rating_id == ratings.c.id, rating_scores.c.cant_judge
            )))
            .where(ratings.c.rater_id == int(rater_id), ratings.c.output_id.in_(ids))
        )  # fmt: skip
        out: dict[int, set[str]] = {}
        with self.read() as conn:
            for oid, dim in conn.execute(query).all():
                out.setdefault(int(oid), set()).update(() if dim is None else (str(dim),))
        return out


__all__ = [
    "FLAG_REASONS",
    "FeedbackStore",
    "SKIP_REASONS",
    "check_reason",
    "clean_note",
]
