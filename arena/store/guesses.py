"""Raters' guesses: "Which response do you think came from METHOD?", asked after an item is scored.

`GuessStore` is a base of `Store` (store.py), as `FeedbackStore` is; its methods use the store's
transactions. A guess is stored once per (rater, item, method), with the position the rater picked
(NULL = "don't know") and the position METHOD's response really had for that rater: the second is
the answer key, read only by the evaluation once a study is closed (evaluation/blinding.py) and by the
export, which leaves it out while the study is open.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from sqlalchemy import select

from common.errors import UserError

from .feedback import FeedbackStore
from .rows import Guess
from .schema import guesses, pair_guess_marks, raters, utcnow


class GuessStore(FeedbackStore):
    """Guesses: the blind question's answers, read back with the query of skips and flags."""

    def save_guesses(
        self,
        rater_id: int,
        item_id: int,
        answers: Sequence[tuple[str, int, int | None, int | None]],
        created_at=None,
    ) -> int:
        """Store (target_method, n_responses, guessed_position or None, true_position) answers of one
        rater on one item in one transaction; an answer given before stays as it was (the first answer
        counts). true_position None: an imported guess whose export left the answer key out. Returns
        how many were new."""
        rows = []
        for method, n, guessed, true in answers:
            n = int(n)
            if n < 2:
                raise UserError("a guess needs at least two responses to choose from")
            if guessed is not None and not 0 <= int(guessed) < n:
                raise UserError("that response is not part of this item")
            if true is not None and not 0 <= int(true) < n:
                raise UserError("the method's response is not part of this item")
            rows.append(
                dict(
                    rater_id=int(rater_id),
                    item_id=int(item_id),
                    target_method=str(method),
                    n_responses=n,
                    guessed_position=None if guessed is None else int(guessed),
                    true_position=None if true is None else int(true),
                    created_at=created_at or utcnow(),
                )
            )
        if not rows:
            return 0
        # RETURNING, not rowcount: psycopg reports no row count for an INSERT ... ON CONFLICT DO NOTHING.
        stmt = (
            self._insert(guesses)
            .on_conflict_do_nothing(index_elements=["rater_id", "item_id", "target_method"])
            .returning(guesses.c.id)
        )
        with self.write() as conn:
            return sum(conn.execute(stmt.values(**row)).first() is not None for row in rows)

    def guessed_targets(self, rater_id: int, item_ids: Iterable[int]) -> dict[int, set[str]]:
        """{item_id: methods this rater has answered about} for these items (answered ones only)."""
        ids = [int(i) for i in item_ids]
        if not ids:
            return {}
        with self.read() as conn:
            rows = conn.execute(
                select(guesses.c.item_id, guesses.c.target_method).where(
                    guesses.c.rater_id == int(rater_id), guesses.c.item_id.in_(ids)
                )
            ).all()
        found: dict[int, set[str]] = {}
        for item_id, method in rows:
            found.setdefault(int(item_id), set()).add(method)
        return found

    def mark_pair_answers(self, rater_id: int, item_id: int, methods: Iterable[str]) -> None:
        """Note that this rater answered the blind question about these methods on a pair that did not
        hold them (pairwise studies): no answer is kept, only the mark (a mark made before stays)."""
        stmt = self._insert(pair_guess_marks).on_conflict_do_nothing(
            index_elements=["rater_id", "item_id", "target_method"]
        )
        with self.write() as conn:
            for method in dict.fromkeys(str(m) for m in methods):
                conn.execute(
                    stmt.values(rater_id=int(rater_id), item_id=int(item_id), target_method=method, created_at=utcnow())
                )

    def pair_answered(self, rater_id: int, item_id: int) -> bool:
        """Whether this rater answered the blind question on this item of a pairwise study: a guess
        stored, or a mark (`mark_pair_answers`)."""
        with self.read() as conn:
            for table in (guesses, pair_guess_marks):
                found = conn.execute(
                    select(table.c.id)
                    .where(table.c.rater_id == int(rater_id), table.c.item_id == int(item_id))
                    .limit(1)
                ).first()
                if found is not None:
                    return True
        return False

    def guesses(self, study_id: int | None = None) -> list[Guess]:
        """Every guess (of one study), in study, item, rater and method order, with the answer key."""
        return self._feedback(guesses, Guess, study_id, raters.c.name, guesses.c.target_method)


__all__ = ["GuessStore"]
