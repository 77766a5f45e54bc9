"""Rating a pairwise study: two responses, A (left) and B (right), one vote, an optional reason.

The pair a rater sees on an item, and which side each stands on, comes from `pair_schedule` with
the rater's secret order seed, and is recorded in the store's assignments (position 0 = A) the first
time the item is shown, exactly as the 1-5 design records its order (arena/rating/blind.py): the page and
every handler's reply carry only the letters, the prompt and the two texts. The vote is stored
against the two output ids on the server, in one transaction with the end of a skip and the read
of the next item.

    view, _ = open_pair(store, study_id, rater_id)            # trusted API (tests, scripts)
    view, _ = vote_then_next(store, enrolment, view.item, "a", ["clearer"], "")
    if view.guesses:  # the study measures the blind: the same item, now with its question(s)
        guess_then_next(store, enrolment, view.item, {"BS-4": "B"})

A study that measures the blind (`guess_methods`, arena/rating/guessing.py) asks "If one of these came from
METHOD, which one?" once the vote is stored, on every pair and for every target, whether METHOD is on
screen or not: asking only on the pairs that hold it would tell the rater which pairs do, and by
elimination what the other methods look like. Answers (A, B or "Don't know") about a target on screen
are stored with n_responses 2 (chance 1/2), the answer key stays here; about a target not on screen
only a mark that the rater answered is kept (store.mark_pair_answers), so that nothing the rater sees,
stored or not, differs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import pandas as pd

from arena.access import invites
from arena.inputs.numbers import whole_number
from arena.rating import guessing
from arena.rating.pair_schedule import pair_block_size, pair_order
from arena.store import Item, Store, Study
from arena.store.schema import VOTE_WINNERS
from arena.store.vote_store import check_reasons
from arena.studies import ready_items
from common.errors import UserError
from common.messages import english, text

WINNER_LABELS: dict[str, str] = {w: english(f"pair_winner_{w}") for w in ("a", "b", "tie", "bothbad")}
assert tuple(WINNER_LABELS) == VOTE_WINNERS
LABELS = ("A", "B")


@dataclass
class PairView:
    """What the rating tab shows for one item of a pairwise study: no method, setting or id but the
    item's random public id."""

    item: str
    prompt: str
    text_a: str
    text_b: str
    index: int  # 1-based place among the study's ready items
    total: int
    rated_items: int  # items this rater has voted on or skipped
    complete: bool
    winner: str | None = None  # this rater's vote on this item, if any
    reasons: list[str] = field(default_factory=list)
    note: str = ""
    skipped: str | None = None
    # "Which response do you think came from METHOD?": the targets asked on this item, once it is voted on.
    guesses: list[str] = field(default_factory=list)

    @property
    def progress(self) -> str:
        return self.progress_in("en")

    def progress_in(self, lang: str) -> str:
        """ "Item 2 of 3 · you have judged 1 of 3", in `lang`."""
        return text("pair_progress", lang, index=self.index, total=self.total, judged=self.rated_items)


def is_pairwise(study: Study | None) -> bool:
    return study is not None and study.design == "pairwise"


def _check_open_pairwise(study: Study | None) -> Study:
    if study is None:
        raise UserError(english("study_does_not_exist"))
    if study.state != "open":
        raise UserError(
            "this study is not open for rating yet"
            if study.state == "draft"
            else "this study is closed: rating has ended. Thank you!"
        )
    if not is_pairwise(study):
        raise UserError(english("pair_not_pairwise"))
    return study


def _pair(store: Store, study_id: int, rater_id: int, item: Item) -> dict[int, int]:
    """{0: left output id, 1: right output id} for this rater and item, recorded on first view."""
    found = store.assignment(rater_id, item.id)
    if found:
        return found
    order = pair_order(store.outputs_for_item(item.id), store.rater_order_seed(study_id, rater_id), item.ordinal)
    return store.record_assignment(rater_id, item.id, order)


def _questions(store: Store, study: Study, rater_id: int, item: Item) -> list[str]:
    """The study's targets to ask this rater about on this item: all of them, whatever the pair, until
    the rater has answered (the answers about all targets come in one go).

    The store keeps one answer per (rater, item, method), and that is one answer per pair: a rater
    sees a single pair per item (pair_order depends on their seed and the item only, and the pair is
    recorded on first view and never replaced), so the question is asked once per rater and item,
    however often they come back or vote again; a pair without the target behaves the same, by the
    mark `guess_for` leaves instead of an answer."""
    targets = guessing.targets_on(study.guess_methods, item.attention)
    if not targets or store.pair_answered(rater_id, item.id):
        return []
    return list(targets)


def _open(
    store: Store, sid: int, rater_id_of: Callable[[], int], index: int | None, prefer: int | None = None
) -> tuple[PairView | None, str]:
    """The view of item `index`, else of the first item not judged. `prefer`: an item id just voted
    on, shown again (instead of the next item) while it has a question left for this rater."""
    study = _check_open_pairwise(store.get_study(sid))
    rows, _ = ready_items(store, study)
    if not rows:
        return None, english("rater_no_items_ready")
    rater_id = rater_id_of()
    voted = store.voted_items(sid, rater_id)
    skipped = store.skipped_items(sid, rater_id)
    done = [i.id in voted or i.id in skipped for i in rows]
    ids = [i.id for i in rows]
    if index is None and prefer is not None and prefer in voted and prefer in ids:
        if _questions(store, study, rater_id, rows[ids.index(prefer)]):
            index = ids.index(prefer) + 1
    if index is None:
        pos = next((k for k, d in enumerate(done) if not d), None)
        if pos is None:
            return None, text("pair_all_judged", n=len(rows))
    else:
        pos = whole_number(index, "item number", 1, len(rows)) - 1
    item = rows[pos]
    pair = _pair(store, sid, rater_id, item)
    texts = {o.id: o.text for o in store.outputs_for_item(item.id)}
    mine = store.vote_of(rater_id, item.id)
    # Only once the vote is stored: the question (and which methods it names) cannot colour the vote.
    asked = _questions(store, study, rater_id, item) if mine else []
    return (
        PairView(
            item.public_id,
            item.prompt,
            texts[pair[0]],
            texts[pair[1]],
            pos + 1,
            len(rows),
            sum(done),
            done[pos],
            mine.winner if mine else None,
            list(mine.reasons) if mine else [],
            (mine.note or "") if mine else "",
            skipped.get(item.id),
            asked,
        ),
        "",
    )


def open_pair(store: Store, study_id: int, rater_id: int, index: int | None = None) -> tuple[PairView | None, str]:
    """Trusted API: the view of item `index` (1-based; None: the first one not yet judged)."""
    with store.transaction():
        return _open(store, int(study_id), lambda: int(rater_id), index)


def open_for(store: Store, enrolment: invites.Enrolment, index: int | None = None) -> tuple[PairView | None, str]:
    """The rating tab's view for an enrolment already resolved from its code."""
    with store.transaction():
        return _open(store, enrolment.study_id, lambda: enrolment.rater_id, index)


def _shown(store: Store, enrolment: invites.Enrolment, item_public_id: object) -> tuple[Item, dict[int, int]]:
    item = store.item_by_public_id(item_public_id)
    if item is None or item.study_id != enrolment.study_id:
        raise UserError(english("pair_unknown_item"))
    _check_open_pairwise(store.get_study(item.study_id))
    pair = store.assignment(enrolment.rater_id, item.id)
    if sorted(pair) != [0, 1]:
        raise UserError(english("rater_item_not_opened"))
    return item, pair


def vote(
    store: Store,
    enrolment: invites.Enrolment,
    item_public_id: object,
    winner: object,
    reasons: Sequence[str] | None = None,
    note: object = None,
) -> int:
    """Store this rater's vote on the pair on screen (replacing an earlier one); returns the item's id."""
    item, pair = _shown(store, enrolment, item_public_id)
    if note is not None and not isinstance(note, str):
        raise UserError("a note must be text")
    store.save_vote(enrolment.rater_id, item.id, pair[0], pair[1], winner, check_reasons(reasons), note)
    return item.id


def vote_then_next(
    store: Store,
    enrolment: invites.Enrolment,
    item_public_id: object,
    winner: object,
    reasons: Sequence[str] | None = None,
    note: object = None,
) -> tuple[PairView | None, str]:
    """The tab's vote: `vote`, then the rater's next item, in one transaction (committed before the page
    moves on). In a study that measures the blind, the item voted on comes back with its question(s)."""
    with store.transaction():
        item_id = vote(store, enrolment, item_public_id, winner, reasons, note)
        return _open(store, enrolment.study_id, lambda: enrolment.rater_id, None, prefer=item_id)


def guess_for(
    store: Store, enrolment: invites.Enrolment, item_public_id: object, answers: Mapping[str, object]
) -> None:
    """Take the rater's answers to "If one of these came from METHOD, which one?" on the pair on screen
    ({method: "A", "B" or guessing.DONT_KNOW}, one per target of the study), only after their vote on
    it; answers given before stay as they were. An answer about a target on screen is stored with its
    answer key (worked out here); one about a target not on screen is not stored (no right answer,
    not in the blinding index nor the export), only marked as given. Nothing comes back: the reply is
    the same whether an answer was stored, right or wrong."""
    with store.transaction():
        item, pair = _shown(store, enrolment, item_public_id)
        study = _check_open_pairwise(store.get_study(item.study_id))
        if not guessing.targets_on(study.guess_methods, item.attention):
            raise UserError("this study asks no question about the methods")
        if not isinstance(answers, Mapping):
            raise UserError("malformed request")
        if any(m not in study.guess_methods for m in answers):
            raise UserError("that question is not asked in this study")
        if store.vote_of(enrolment.rater_id, item.id) is None:
            raise UserError("vote on this pair first; the question comes after")
        asked = _questions(store, study, enrolment.rater_id, item)
        picked = guessing.parse_answers({m: answers.get(m) for m in asked}, len(pair))
        method_of = {o.id: o.method for o in store.outputs_for_item(item.id)}
        on_screen = {method_of[oid] for oid in pair.values()}
        kept = [(m, p) for m, p in picked if m in on_screen]
        store.save_guesses(enrolment.rater_id, item.id, guessing.answer_key(kept, pair, method_of))
        store.mark_pair_answers(enrolment.rater_id, item.id, [m for m, _ in picked if m not in on_screen])


def guess_then_next(
    store: Store, enrolment: invites.Enrolment, item_public_id: object, answers: Mapping[str, object]
) -> tuple[PairView | None, str]:
    """The tab's answer to the question(s): `guess_for`, then the rater's next item, in one transaction."""
    with store.transaction():
        guess_for(store, enrolment, item_public_id, answers)
        return _open(store, enrolment.study_id, lambda: enrolment.rater_id, None)


def skip_then_next(
    store: Store, enrolment: invites.Enrolment, item_public_id: object, reason: object, note: object = None
) -> tuple[PairView | None, str]:
    """Skip the pair on screen with a reason (as in 1-5 studies), then the next item, in one transaction."""
    with store.transaction():
        item, _ = _shown(store, enrolment, item_public_id)
        if item.id in store.voted_items(enrolment.study_id, enrolment.rater_id):
            raise UserError(
                "you have voted on this item already, so it cannot be skipped: vote again to change it, "
                "or go to the next item"
            )
        store.skip_item(enrolment.rater_id, item.id, reason, note)
        return _open(store, enrolment.study_id, lambda: enrolment.rater_id, None)


def flag(
    store: Store,
    enrolment: invites.Enrolment,
    item_public_id: object,
    label: object,
    reason: object,
    note: object = None,
) -> bool:
    """Flag the item (label None or "") or response A or B of it; the letter becomes an output id here."""
    item, pair = _shown(store, enrolment, item_public_id)
    if label in (None, ""):
        return store.add_flag(enrolment.rater_id, item.id, reason, note)
    if label not in LABELS:
        raise UserError(f"there is no response {str(label)[:3]} in this item")
    position = LABELS.index(str(label))
    return store.add_flag(enrolment.rater_id, item.id, reason, note, output_id=pair[position], position=position)


def pair_balance(store: Store, study: Study) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The Organizer's design check for a pairwise study, shaped as `blind.position_balance`'s:
    (balance, per rater). While open, one pass/fail line: over every rater's complete blocks, each
    ordered pair of methods (left, right) came up exactly once per block. Once closed, the counts per
    method and side (counts that move as a rater opens an item would give that rater's pairs away)."""
    n = len(study.methods)
    size = pair_block_size(n) if n >= 2 else 1
    shown: dict[int, dict[int, tuple[str, str]]] = {}  # rater -> ordinal -> (left method, right method)
    sides: dict[str, list[int]] = {m: [0, 0] for m in study.methods}
    for item in store.items(study.id):
        method_of = {o.id: o.method for o in store.outputs_for_item(item.id)}
        for _, rater_id in store.raters_for_item(item.id):
            pair = store.assignment(rater_id, item.id)
            if sorted(pair) != [0, 1]:
                continue
            left, right = method_of[pair[0]], method_of[pair[1]]
            shown.setdefault(rater_id, {})[item.ordinal] = (left, right)
            sides.setdefault(left, [0, 0])[0] += 1
            sides.setdefault(right, [0, 0])[1] += 1
    per_rater, balanced, checked = [], True, 0
    for k, (_, by_ordinal) in enumerate(sorted(shown.items()), start=1):
        blocks: dict[int, list[tuple[str, str]]] = {}
        for ordinal, methods in by_ordinal.items():
            blocks.setdefault(ordinal // size, []).append(methods)
        full = [b for b in blocks.values() if len(b) == size]
        for block in full:
            checked += 1
            balanced &= len(set(block)) == size
        per_rater.append(
            {
                "rater": f"rater {k}",
                "items shown": len(by_ordinal),
                "block size": size,
                "complete blocks": len(full),
                "items in complete blocks": len(full) * size,
            }
        )
    per_rater_frame = pd.DataFrame(per_rater, columns=PER_RATER_COLUMNS)
    if study.state in ("closed", "published"):
        frame = pd.DataFrame(
            [{"method": m, "A": a, "B": b} for m, (a, b) in sorted(sides.items())], columns=["method", "A", "B"]
        )
        return frame, per_rater_frame
    if not checked:
        result, detail = "–", "no rater has completed a balanced block yet"
    else:
        result = "pass" if balanced else "FAIL"
        detail = (
            f"every pair of methods met once each way round in each of {checked} complete block"
            f"{'s' if checked != 1 else ''}"
            if balanced
            else "the recorded pairs are not balanced: report this as a bug"
        )
    summary = pd.DataFrame(
        [
            {
                "check": "pairs and sides balanced (counts per method shown after closing)",
                "result": result,
                "detail": detail,
            }
        ],
        columns=["check", "result", "detail"],
    )
    return summary, per_rater_frame


PER_RATER_COLUMNS = ["rater", "items shown", "block size", "complete blocks", "items in complete blocks"]
