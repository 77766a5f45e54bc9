"""Double-blind presentation: balanced positions that cannot be predicted, the server-side mapping,
and the rater's view.

Positions follow a Williams design (a Latin square balanced for order and carry-over), made secret
per (study, rater): the rater's own `order_seed` (drawn once, server-side) picks a permutation of the
systems onto the design's symbols, and a shuffle of the design's rows within each block of B
consecutive items (B = n rows for an even number of systems n, 2n for odd n). Over each complete
block every system is shown in every position equally often, for that rater. Nothing is shared
between raters or between blocks, so an item a rater manages to unblind says nothing about any other
rater's orders nor about other blocks; within its own block it says only what balance implies (that
row is used up). See tests/test_blind_attacks.py. The order a rater saw is recorded in the store the
first time the item is shown and reused ever after.

Who may rate: a rater opens a study with their invite code (arena/access/invites.py). The name-based entry
points below (`open_item`, `submit`) are the trusted library API for scripts and
tests; the app's handlers use the `*_with_code` ones.

What reaches the browser is `RaterView`: labels (A, B, ...), the prompt and the texts, plus the
rater's own scores. The mapping from label to output lives only in the store (and in this
process's memo of it, below, which never leaves the server).

Facts that never change once written are remembered per store, so a submit does not read them
again: a rater's id (raters are never renamed or deleted), the order recorded for a rater and an
item (never updated; it goes only with its study), and an item's outputs (never updated). The
item and output keys include the item's random public id, so a row id that the database hands out
again after a study was deleted can never find a remembered entry. Anything that can change
(which items are ready, the study and its state, the rater's ratings) is read from the store every time.
"""

from __future__ import annotations

import random
import threading
import weakref
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from arena.access import invites
from arena.inputs.numbers import study_id as parse_study_id
from arena.inputs.numbers import whole_number
from arena.rating import attention, guessing, pair_rating
from arena.store import SCORE_COLUMNS, Item, Output, Store, Study, clean_rater_name
from arena.store.rating_store import CheckedRating
from arena.store.values import check_dimension_score, clean_comment
from arena.studies import ready_item_ids, ready_items
from common import messages
from common.errors import UserError
from common.messages import english
from common.rubric import MAX_DIMENSIONS, Rubric

LABELS = guessing.LABELS  # "ABC…": position 0 is shown as A
DIMENSIONS: tuple[str, ...] = SCORE_COLUMNS
# The answer "I can't judge this dimension for this response": not missing (the item can be
# submitted) and not a score (stored as NULL with a flag; every statistic leaves it out).
CANT_JUDGE = "Can't judge"
FORM_SCORES: tuple[int, ...] = (1, 2, 3, 4, 5)  # the rating form's choices, besides CANT_JUDGE


def williams_rows(n: int) -> list[list[int]]:
    """Rows of a Williams design for n treatments: n rows (even n) or 2n rows (odd n).

    Every treatment appears once per row and equally often in each column; every ordered pair of
    neighbours appears equally often. E.g. n=3 -> [0,1,2] [1,2,0] [2,0,1] [2,1,0] [0,2,1] [1,0,2].
    """
    if n < 1:
        raise ValueError("n must be at least 1")
    first = [0] + [((j + 1) // 2) if j % 2 else (n - j // 2) for j in range(1, n)]
    rows = [[(x + i) % n for x in first] for i in range(n)]
    if n % 2:
        rows += [list(reversed(r)) for r in rows]
    return rows


def block_size(n: int) -> int:
    """Items per balanced block for n systems: the number of rows of the Williams design."""
    return len(williams_rows(n))


def balanced_order(output_rows: Sequence[Output], order_seed: int, item_ordinal: int) -> list[int]:
    """Output ids in display order (position 0 = A) for one rater's `order_seed` and one item.

    The systems (method, sample) are put onto the Williams symbols by a permutation drawn from the
    seed; item k uses row perm_b[k mod B] of the design, perm_b a shuffle drawn per block b = k // B."""
    by_key = {(o.method, int(o.sample_index)): int(o.id) for o in output_rows}
    systems = sorted(by_key)
    symbols = list(systems)
    random.Random(f"systems|{order_seed}|{systems!r}").shuffle(symbols)
    rows = williams_rows(len(systems))
    block, within = divmod(int(item_ordinal), len(rows))
    perm = list(range(len(rows)))
    random.Random(f"block|{order_seed}|{len(rows)}|{block}").shuffle(perm)
    return [by_key[symbols[s]] for s in rows[perm[within]]]


@dataclass
class Response:
    label: str
    text: str
    # Every question of the rubric, in its order: an answer, CANT_JUDGE or None (not yet). A text
    # question's is always None here: its answer is `comment` (the response's comment box asks it).
    scores: dict[str, int | str | None] = field(default_factory=dict)
    comment: str = ""


@dataclass
class RaterView:
    """Everything the rating tab shows for one item. Deliberately no method, setting, timing or id
    other than the item's random public id."""

    item: str
    prompt: str
    responses: list[Response]
    index: int  # 1-based place of this item among the study's ready items
    total: int
    rated_items: int  # items this rater has handled: fully rated or skipped
    complete: bool  # this item fully rated (or skipped) by this rater
    skipped_items: int = 0  # of rated_items, how many were skipped
    skipped: str | None = None  # this item's skip reason (a SKIP_REASONS key) when the rater skipped it
    # Methods the rater is still to be asked about on this item ("Which response do you think came
    # from METHOD?"): only once they have scored it, and only in a study that asks (arena/rating/guessing.py).
    guesses: list[str] = field(default_factory=list)

    @property
    def progress(self) -> str:
        # a skipped item is handled, not rated: the count says so (issue 35)
        skipped = f" ({self.skipped_items} skipped)" if self.skipped_items else ""
        rated = self.rated_items - self.skipped_items
        return f"Item {self.index} of {self.total} · you have rated {rated} of {self.total}{skipped}"


class _Memo:
    """A bounded, thread-safe map for one kind of immutable fact (oldest entries go first)."""

    def __init__(self, size: int = 20_000):
        self.size = size
        self._data: OrderedDict[Any, Any] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Any) -> Any:
        with self._lock:
            return self._data.get(key)

    def put(self, key: Any, value: Any) -> None:
        with self._lock:
            self._data[key] = value
            while len(self._data) > self.size:
                self._data.popitem(last=False)


_memos: weakref.WeakKeyDictionary[Store, dict[str, _Memo]] = weakref.WeakKeyDictionary()
_memos_lock = threading.Lock()


def _memo(store: Store, kind: str) -> _Memo:
    with _memos_lock:
        per_store = _memos.get(store)
        if per_store is None:
            per_store = _memos[store] = {}
        memo = per_store.get(kind)
        if memo is None:
            memo = per_store[kind] = _Memo()
        return memo


def _find_rater(store: Store, name: str) -> int | None:
    """`store.find_rater`, remembered once found (a name's id never changes)."""
    memo = _memo(store, "rater")
    found = memo.get(name)
    if found is None:
        found = store.find_rater(name)
        if found is not None:
            memo.put(name, found)
    return found


def _assignment(store: Store, rater_id: int, item: Item) -> dict[int, int]:
    """`store.assignment` for an item row, remembered once recorded (an order is never changed)."""
    key = (rater_id, item.id, item.public_id)
    found = _memo(store, "order").get(key)
    if found is None:
        found = store.assignment(rater_id, item.id)
        if found:
            _memo(store, "order").put(key, found)
    return dict(found)


def _outputs(store: Store, item: Item, stored: int) -> list[Output]:
    """`store.outputs_for_item` for an item row; remembered, and read again when the item now has
    another number of outputs than remembered (`stored`: outputs are never changed or deleted one by
    one, but an item may still be filling)."""
    key = (item.id, item.public_id)
    memo = _memo(store, "outputs")
    found = memo.get(key)
    if found is None or len(found) != stored:
        found = store.outputs_for_item(item.id)
        memo.put(key, found)
    return found


def _parse_study_id(study_id: Any) -> int:
    return parse_study_id(study_id, "choose a study first")


def _mapping(store: Store, study_id: int, rater_id: int, item: Item, outputs: Sequence[Output]) -> dict[int, int]:
    mapping = _assignment(store, rater_id, item)
    if mapping:
        return mapping
    order = balanced_order(outputs, store.rater_order_seed(study_id, rater_id), item.ordinal)
    mapping = store.record_assignment(rater_id, item.id, order)
    _memo(store, "order").put((rater_id, item.id, item.public_id), dict(mapping))
    return mapping


def _known_rater_id(store: Store, name: str) -> int:
    """The rater's id; no write lock (and, once known, no query) just to look a name up."""
    found = _find_rater(store, name)
    return found if found is not None else store.rater_id(name)


def open_item(store: Store, rater: object, study_id: Any, index: int | None = None) -> tuple[RaterView | None, str]:
    """Trusted API (scripts, tests): the view of item `index` (1-based) of a study for the rater named
    `rater`, enrolling them on first use; with no index, the first item they have not fully rated.
    Returns (None, message) when there is nothing to show. The app uses `open_with_code`."""
    name = clean_rater_name(rater)
    sid = _parse_study_id(study_id)
    # Not in one transaction, unlike `open_for`: a rater named here may be new to the study, and
    # drawing their place in it retries after a conflict, which a surrounding transaction forbids.
    return _open(store, sid, lambda: _known_rater_id(store, name), index)


def open_with_code(
    store: Store, code: object, index: int | None = None, client: str | None = None
) -> tuple[RaterView | None, str]:
    """The app's entry: the invite code names the study and the rater (see arena/access/invites.py)."""
    enrolment = invites.resolve(store, code, client)
    return open_for(store, enrolment.study_id, lambda: enrolment.rater_id, index)


def _check_open(study: Study | None) -> Study:
    if study is None:
        raise UserError("that study does not exist")
    if study.state != "open":
        raise UserError(
            {
                "draft": "this study is not open for rating yet",
                "closed": "this study is closed: rating has ended. Thank you!",
                "published": "this study is closed: rating has ended. Thank you!",
            }.get(study.state, "this study is not open for rating")
        )
    if study.design != "scores":
        # Its orders are pairs (arena/rating/pair_rating.py): a 1-5 view or submit would record another order.
        raise UserError("this study is rated in pairs (A vs B), not with 1-5 scores")
    return study


def open_for(store: Store, sid: int, rater_id_of: Any, index: int | None = None) -> tuple[RaterView | None, str]:
    """The view of item `index` (1-based; None: the first one not yet handled) for a rater.

    One transaction (it joins the caller's, as a submit's save): the reads see one state of the
    study, and the first view of an item records its order in the same commit. For enrolled raters
    (an invite code's), whose place in the study exists already."""
    with store.transaction():
        return _open(store, sid, rater_id_of, index)


def _open(
    store: Store, sid: int, rater_id_of: Any, index: int | None, prefer: int | None = None
) -> tuple[RaterView | None, str]:
    """`open_for`'s work. `prefer`: with no index, show this item instead of the next one if the
    study asks its raters to guess and this rater has scored it but not answered yet."""
    study = _check_open(store.get_study(sid))
    ready_rows, stored = ready_items(store, study)
    ready = [i.id for i in ready_rows]
    if not ready:
        return None, "This study has no items ready for rating yet."
    rater_id = rater_id_of()
    rated = store.rated_counts(sid, rater_id)
    counts = {i: (stored.get(i, 0), rated.get(i, 0)) for i in ready}
    skipped = store.skipped_items(sid, rater_id)  # a skipped item counts as handled
    done = [counts[i][1] >= counts[i][0] or i in skipped for i in ready]
    if index is None and _asks(store, study, rater_id, _row(ready_rows, prefer), counts):
        pos = ready.index(prefer)  # type: ignore[arg-type]  # _asks is False for None
    elif index is None:
        first = next((k for k, d in enumerate(done) if not d), None)
        n_skipped = sum(1 for i in ready if i in skipped and not counts[i][1] >= counts[i][0])
        if first is None and n_skipped:  # a skipped item is not a rated one
            return None, english("rater_all_handled").format(
                n=len(ready), rated=len(ready) - n_skipped, skipped=n_skipped
            )
        if first is None:
            return None, (
                f"You have rated all {len(ready)} items of this study. Thank you! "
                "Use Previous to review or change a rating."
            )
        pos = first
    else:
        pos = whole_number(index, "item number", 1, len(ready)) - 1
    item = ready_rows[pos]
    outputs = _outputs(store, item, stored[item.id])
    mapping = _mapping(store, sid, rater_id, item, outputs)
    texts = {o.id: o.text for o in outputs}
    # No query for the rater's ratings of an item they rated nothing of (the next item, after a submit).
    mine = store.ratings_for(rater_id, mapping.values()) if item.id in rated else {}
    responses = []
    for position in sorted(mapping):
        oid = mapping[position]
        given = mine.get(oid)
        # A stored rating's NULL score is a can't-judge answer (the schema allows NULL only with its flag).
        # A text question is answered in the response's comment box (ui/rate/rubric_form.py).
        said = next((given.score(d.name) for d in study.rubric.dimensions if not d.values), None) if given else None
        responses.append(
            Response(
                LABELS[position],
                texts[oid],
                {  # every question in the rubric's order: the form's rows are its positions
                    d.name: None
                    if given is None or not d.values
                    else CANT_JUDGE
                    if given.score(d.name) is None
                    else given.score(d.name)
                    for d in study.rubric.dimensions
                },
                str(said or (given.comment if given is not None else None) or ""),
            )
        )
    n_skipped = sum(1 for i in ready if i in skipped and not counts[i][1] >= counts[i][0])
    asked: list[str] = []
    targets = guessing.targets_on(study.guess_methods, item.attention)
    if targets and counts[item.id][1] >= counts[item.id][0]:
        answered = store.guessed_targets(rater_id, [item.id]).get(item.id, set())
        asked = guessing.pending(targets, answered)
    view = RaterView(
        item.public_id,
        item.prompt,
        responses,
        pos + 1,
        len(ready),
        sum(done),
        done[pos],
        n_skipped,
        skipped.get(item.id),
        asked,
    )
    return view, ""


def _row(rows: Sequence[Item], item_id: int | None) -> Item | None:
    return next((i for i in rows if i.id == item_id), None) if item_id is not None else None


def _asks(store: Store, study: Study, rater_id: int, item: Item | None, counts: Mapping[int, tuple[int, int]]) -> bool:
    """Whether the study still has a guess question for this rater on this (ready, fully scored) item."""
    targets = guessing.targets_on(study.guess_methods, item.attention) if item is not None else ()
    if item is None or not targets or item.id not in counts:
        return False
    if counts[item.id][1] < counts[item.id][0]:
        return False
    answered = store.guessed_targets(rater_id, [item.id]).get(item.id, set())
    return bool(guessing.pending(targets, answered))


def locate(store: Store, study_id: Any, item_public_id: object) -> int:
    """The 1-based place of an item among its study's ready items."""
    sid = _parse_study_id(study_id)
    item = store.item_by_public_id(item_public_id)
    if item is None or item.study_id != sid:
        raise UserError("unknown item; reload the study")
    ids = ready_item_ids(store, sid)
    if item.id not in ids:
        raise UserError("that item is not ready for rating")
    return ids.index(item.id) + 1


def _opened(
    store: Store, rater_id: int | None, item_public_id: object, study_id: int | None = None
) -> tuple[Item | None, int | None, dict[int, int]]:
    """(item, rater id, {position: output id}) for an item this rater opened; the mapping is empty
    when the item, the rater or the recorded order is missing. With `study_id`, an item of another
    study counts as missing (a code opens its own study only)."""
    item = store.item_by_public_id(item_public_id)
    if item is not None and study_id is not None and item.study_id != study_id:
        item = None
    if item is None or rater_id is None:
        return item, rater_id, {}
    _check_open(store.get_study(item.study_id))
    return item, rater_id, _assignment(store, rater_id, item)


def _by_name(store: Store, rater: object, item_public_id: object):
    return _opened(store, _find_rater(store, clean_rater_name(rater)), item_public_id)


def _by_code(store: Store, code: object, item_public_id: object, client: str | None = None):
    enrolment = invites.resolve(store, code, client)
    return _opened(store, enrolment.rater_id, item_public_id, enrolment.study_id)


def submit(
    store: Store,
    rater: object,
    item_public_id: object,
    scores: Mapping[str, Mapping[str, Any]],
    comments: Mapping[str, Any] | None = None,
) -> None:
    """Trusted API: store one rater's scores for every response of an item, all or nothing.

    `scores` is {label: {dimension: 1..5 or CANT_JUDGE}} for exactly the labels this rater was
    shown. The item must have been opened by this rater (that is when its order was recorded)."""
    item, rater_id, mapping = _by_name(store, rater, item_public_id)
    if item is None:
        raise UserError("unknown item; reload the study and try again")
    _save(store, rater_id, item, mapping, scores, comments)


def submit_slots_for(
    store: Store,
    enrolment: invites.Enrolment,
    item_public_id: object,
    slot_scores: Sequence[Sequence[Any]],
    slot_comments: Sequence[Any],
) -> int:
    """Submit for an enrolment already resolved from its code (the rating tab resolves once per call);
    returns the item's id."""
    opened = _opened(store, enrolment.rater_id, item_public_id, enrolment.study_id)
    return _submit_slots(opened, store, slot_scores, slot_comments)


def submit_slots_then_next(
    store: Store,
    enrolment: invites.Enrolment,
    item_public_id: object,
    slot_scores: Sequence[Sequence[Any]],
    slot_comments: Sequence[Any],
) -> tuple[RaterView | None, str]:
    """The rating tab's Submit: `submit_slots_for`, then the rater's next item (`open_for`), in one
    transaction. One commit per submit, and it is the commit of the scores: if anything fails,
    nothing is kept and the rater is told (the store's message says it was not saved)."""
    with store.transaction():
        item_id = submit_slots_for(store, enrolment, item_public_id, slot_scores, slot_comments)
        # In a study that measures the blind, the item just scored comes back with its question(s).
        return _open(store, enrolment.study_id, lambda: enrolment.rater_id, None, prefer=item_id)


def submit_slots_with_code(
    store: Store,
    code: object,
    item_public_id: object,
    slot_scores: Sequence[Sequence[Any]],
    slot_comments: Sequence[Any],
    client: str | None = None,
) -> None:
    """The app's submit: the code must open the item's study."""
    _submit_slots(_by_code(store, code, item_public_id, client), store, slot_scores, slot_comments)


def check_rubric_form(values: Sequence[Any], slots: int, rubric: Rubric) -> tuple[list[list[Any]], list[Any]]:
    """The rating tab's inputs as the client sent them (its Submit skips Gradio's processing for
    speed), checked as Gradio would, whatever the study's rubric (ui/rate/rubric_form.py): `slots` rows
    of MAX_DIMENSIONS answers (the rubric's first, the rest empty), each empty, a whole number (or
    CANT_JUDGE where the question's type offers it), or text for a text question, then `slots`
    comments. Returns (rows, comments); each answer's value is checked against its type on submit
    (`_save`), and whether every row shown is complete by the caller."""
    n_scores = slots * MAX_DIMENSIONS
    if len(values) != n_scores + slots:
        raise UserError("malformed request")
    rows = [list(values[k * MAX_DIMENSIONS : (k + 1) * MAX_DIMENSIONS]) for k in range(slots)]
    for row in rows:
        for j, v in enumerate(row):
            q = rubric.dimensions[j] if j < len(rubric.dimensions) else None
            if v is None or (q is not None and v == CANT_JUDGE and q.qtype.can_judge):
                continue
            if q is not None and q.qtype.control == "text" and isinstance(v, str):
                continue
            if q is None or isinstance(v, bool) or not isinstance(v, (int, float)) or not float(v).is_integer():
                which = f"{q.name}: " if q is not None else ""
                raise UserError(f"{which}an answer must be one of the question's values or {CANT_JUDGE!r}, got {v!r}")
            row[j] = int(v)  # 4.0 is the radio's 4, as Gradio's own check allows
            check_dimension_score(q, row[j])  # a value no control offers: refused, not counted as missing
    notes = list(values[n_scores:])
    if any(v is not None and not isinstance(v, str) for v in notes):
        raise UserError("a comment must be text")
    # A text question is asked in each response's comment box: its answer is that box's text (unless
    # a client sent it in the question's own place, as the rating API may).
    asked = [row[: len(rubric.dimensions)] for row in rows]
    for j, q in enumerate(rubric.dimensions):
        if not q.values:
            for k, row in enumerate(asked):
                if row[j] in (None, ""):
                    row[j], notes[k] = notes[k], None
    return asked, notes


def _submit_slots(opened, store: Store, slot_scores: Sequence[Sequence[Any]], slot_comments: Sequence[Any]) -> int:
    """Slot k holds response LABELS[k]; slots beyond the responses shown must be empty."""
    item, rater_id, mapping = opened
    if item is None:
        raise UserError("unknown item; reload the study and try again")
    shown = len(mapping)
    scores: dict[str, dict[str, Any]] = {}
    notes: dict[str, Any] = {}
    for k, given in enumerate(slot_scores):
        label = LABELS[k]
        if k < shown:
            names = study_rubric(store, item.study_id).names
            if any(v not in (None, "") for v in list(given)[len(names) :]):
                raise UserError(f"this study asks {len(names)} question(s) per response: {', '.join(names)}")
            scores[label] = dict(zip(names, given))
            notes[label] = slot_comments[k] if k < len(slot_comments) and slot_comments[k] else None
        elif any(v not in (None, "") for v in given):
            raise UserError(f"there is no response {label} in this item")
    _save(store, rater_id, item, mapping, scores, notes)
    return int(item.id)


def _save(
    store: Store, rater_id: int | None, item: Item, mapping: Mapping[int, int], scores: Any, comments: Any
) -> None:
    if rater_id is None or not mapping:
        raise UserError(english("rater_item_not_opened"))
    if not isinstance(scores, Mapping):
        raise UserError("scores are missing")
    labels = {LABELS[p]: p for p in mapping}
    extra = set(scores) - set(labels)
    if extra:
        raise UserError(f"no response {', '.join(sorted(map(str, extra)))} in this item")
    if comments is not None and not isinstance(comments, Mapping):
        raise UserError("comments must map response labels to text")
    comments = comments or {}
    rubric = study_rubric(store, item.study_id)
    checked = [
        (label, position, *_checked_scores(rubric, label, scores.get(label)))
        for label, position in sorted(labels.items())
    ]
    scale_names = {d.name for d in rubric.dimensions if d.kind == "scale"}  # what an attention item asks
    # Checked here, once: the store writes a CheckedRating as it is.
    rows = [
        CheckedRating(
            output_id=int(mapping[position]),
            scores=values,
            cant_judge=frozenset(cant),
            comment=clean_comment(comments.get(label)),
            position=position,
        )
        for label, position, values, cant in checked
    ]
    with store.transaction():  # the ratings, the end of a skip and an attention item's outcome: one commit
        store.save_item_ratings(rater_id, item.id, rows, rubric)
        if item.attention:
            store.record_attention(
                item.study_id,
                rater_id,
                attention.followed(
                    item.attention, [{k: v for k, v in r.scores.items() if k in scale_names} for r in rows]
                ),
            )


def _checked_scores(rubric: Rubric, label: str, given: Any) -> tuple[dict[str, int | str | None], set[str]]:
    """One response's answers on the study's rubric: each required question one of its type's values
    or CANT_JUDGE (where the type offers it), an optional one (a comment) left out when empty."""
    if not isinstance(given, Mapping):
        raise UserError(f"score every response: response {label} has no scores")
    values: dict[str, int | str | None] = {}
    cant: set[str] = set()
    for dim in rubric.dimensions:
        if given.get(dim.name) in (None, ""):
            if not dim.required:
                continue
            raise UserError(f"score every response: {dim.name} of response {label} is missing")
        if given.get(dim.name) == CANT_JUDGE and dim.qtype.can_judge:
            values[dim.name] = None
            cant.add(dim.name)
            continue
        try:
            values[dim.name] = check_dimension_score(dim, given.get(dim.name))
        except UserError as exc:
            raise UserError(f"response {label}: {exc}") from None
    return values, cant


def study_rubric(store: Store, study_id: int) -> Rubric:
    """The study's rubric, remembered (a study's rubric is set at creation and never changes)."""
    memo = _memo(store, "rubric")
    found = memo.get(int(study_id))
    if found is None:
        found = store.study_rubric(study_id)
        memo.put(int(study_id), found)
    return found


def _enrolled_item(
    store: Store, enrolment: invites.Enrolment, item_public_id: object
) -> tuple[Item, int, dict[int, int]]:
    item, rater_id, mapping = _opened(store, enrolment.rater_id, item_public_id, enrolment.study_id)
    if item is None or rater_id is None or not mapping:
        raise UserError(english("rater_item_not_opened"))
    return item, rater_id, mapping


def skip_for(
    store: Store, enrolment: invites.Enrolment, item_public_id: object, reason: object, note: object = None
) -> None:
    """Skip the item on screen with a reason (a SKIP_REASONS key; "other" needs a note): it counts as
    handled for this rater's progress and gets no scores from them."""
    item, rater_id, _ = _enrolled_item(store, enrolment, item_public_id)
    store.skip_item(rater_id, item.id, reason, note)


def skip_then_next(
    store: Store, enrolment: invites.Enrolment, item_public_id: object, reason: object, note: object = None
) -> tuple[RaterView | None, str]:
    """The rating tab's Skip: `skip_for`, then the rater's next item, in one transaction (as Submit)."""
    with store.transaction():
        skip_for(store, enrolment, item_public_id, reason, note)
        return open_for(store, enrolment.study_id, lambda: enrolment.rater_id)


def flag_for(
    store: Store,
    enrolment: invites.Enrolment,
    item_public_id: object,
    label: object,
    reason: object,
    note: object = None,
) -> bool:
    """Flag the item on screen (label None or "") or the response shown to this rater as `label`.
    The letter becomes an output id here, on the server; False if the same flag was given before."""
    item, rater_id, mapping = _enrolled_item(store, enrolment, item_public_id)
    if label in (None, ""):
        return store.add_flag(rater_id, item.id, reason, note)
    positions = {LABELS[p]: p for p in mapping}
    if not isinstance(label, str) or label not in positions:
        raise UserError(f"there is no response {str(label)[:3]} in this item")
    position = positions[label]
    return store.add_flag(rater_id, item.id, reason, note, output_id=mapping[position], position=position)


def skip(store: Store, rater: object, item_public_id: object, reason: object, note: object = None) -> None:
    """Trusted API (scripts, tests): `skip_for` by rater name."""
    item, rater_id, mapping = _by_name(store, rater, item_public_id)
    if item is None or rater_id is None or not mapping:
        raise UserError(english("rater_item_not_opened"))
    store.skip_item(rater_id, item.id, reason, note)


def reveal(store: Store, study_id: int) -> pd.DataFrame:
    """Organizer only, once the study is closed: for every rater and item shown, which method stood
    behind each label, with its seed. Before that the organizer is blind too (double-blind)."""
    sid = _parse_study_id(study_id)
    study = store.get_study(sid)
    if study is None:
        raise UserError("that study does not exist")
    if study.state not in ("closed", "published"):
        raise UserError(
            "the mapping and the seeds are shown once the study is closed; close it first "
            "(raters can no longer rate then)"
        )
    rows = []
    for item in store.items(sid):
        outs = {o.id: o for o in store.outputs_for_item(item.id)}
        for rater_name, rater_id in store.raters_for_item(item.id):
            for position, oid in sorted(store.assignment(rater_id, item.id).items()):
                o = outs[oid]
                rows.append(
                    {
                        "rater": rater_name,
                        "item": item.ordinal + 1,
                        "scenario": item.scenario,
                        "label": LABELS[position],
                        "method": o.method,
                        "sample": o.sample_index,
                        "seed": o.seed,
                        "settings": o.settings,
                    }
                )
    return pd.DataFrame(rows, columns=["rater", "item", "scenario", "label", "method", "sample", "seed", "settings"])


BALANCE_COLUMNS = ["check", "result", "detail"]


def position_balance(store: Store, study_id: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Organizer view of the design: (balance, per rater).

    Per rater: how many items they were shown and how many of those fill complete balanced blocks
    (no item, rater or label is named). Balance, while the study is open: one pass/fail line, whether
    over every rater's complete blocks each method stood at each position equally often, as the
    design promises. Counts per method and position would change as a rater opens an item, so
    comparing two readings would give away that rater's order: they are shown once the study is
    closed (then the balance table has one row per method, counts per position)."""
    sid = _parse_study_id(study_id)
    study = store.get_study(sid)
    if study is None:
        raise UserError("that study does not exist")
    if study.design == "pairwise":
        return pair_rating.pair_balance(store, study)
    counts: dict[str, dict[int, int]] = {}
    shown: dict[int, set[int]] = {}
    per_system: dict[int, dict[int, dict[tuple[str, int], dict[int, int]]]] = {}  # rater -> ordinal -> ...
    n_systems = 0
    for item in store.items(sid):
        outs = {o.id: o for o in store.outputs_for_item(item.id)}
        n_systems = max(n_systems, len(outs))
        for _, rater_id in store.raters_for_item(item.id):
            for position, oid in store.assignment(rater_id, item.id).items():
                o = outs[oid]
                counts.setdefault(o.method, {}).setdefault(position, 0)
                counts[o.method][position] += 1
                key = (o.method, int(o.sample_index))
                cell = per_system.setdefault(rater_id, {}).setdefault(item.ordinal, {}).setdefault(key, {})
                cell[position] = cell.get(position, 0) + 1
            shown.setdefault(rater_id, set()).add(item.ordinal)
    size = block_size(n_systems) if n_systems else 1
    per_rater = []
    balanced, blocks_checked = True, 0
    for k, (rater_id, ordinals) in enumerate(sorted(shown.items()), start=1):
        blocks: dict[int, list[int]] = {}
        for ordinal in ordinals:
            blocks.setdefault(ordinal // size, []).append(ordinal)
        full = [b for b in blocks.values() if len(b) == size]
        for block in full:
            blocks_checked += 1
            tally: dict[tuple[str, int], dict[int, int]] = {}
            for ordinal in block:
                for key, cell in per_system[rater_id][ordinal].items():
                    for position, n in cell.items():
                        tally.setdefault(key, {}).setdefault(position, 0)
                        tally[key][position] += n
            balanced &= all(len(set(c.values())) == 1 and len(c) == n_systems for c in tally.values())
        per_rater.append(
            {
                "rater": messages.text("rater_pseudonym", n=k),
                "items shown": len(ordinals),
                "block size": size,
                "complete blocks": len(full),
                "items in complete blocks": len(full) * size,
            }
        )
    per_rater_frame = pd.DataFrame(
        per_rater, columns=["rater", "items shown", "block size", "complete blocks", "items in complete blocks"]
    )
    if study.state in ("closed", "published"):
        positions = sorted({p for c in counts.values() for p in c})
        by_method = pd.DataFrame(
            [{"method": m, **{LABELS[p]: c.get(p, 0) for p in positions}} for m, c in sorted(counts.items())],
            columns=["method", *[LABELS[p] for p in positions]],
        )
        return by_method, per_rater_frame
    if not blocks_checked:
        result, detail = "–", messages.english("organizer_balance_none")
    else:
        result = messages.english("organizer_balance_pass" if balanced else "organizer_balance_fail")
        detail = (
            messages.text("organizer_balance_ok", n=blocks_checked)
            if balanced
            else messages.english("organizer_balance_bug")
        )
    summary = pd.DataFrame(
        [{"check": messages.english("organizer_balance_check"), "result": result, "detail": detail}],
        columns=BALANCE_COLUMNS,
    )
    return summary, per_rater_frame


def guess_for(store: Store, enrolment: invites.Enrolment, item_public_id: object, answers: Mapping[str, Any]) -> int:
    """Store a rater's answers to "Which response do you think came from METHOD?" on the item on
    screen: {method: a letter they were shown, or guessing.DONT_KNOW}. Only after they scored every
    response of it; an answer given before stays as it was. The reply says nothing about whether an
    answer was right (it is the number of answers stored, which does not depend on it)."""
    item, rater_id, mapping = _enrolled_item(store, enrolment, item_public_id)
    study = _check_open(store.get_study(item.study_id))
    if not study.guess_methods:
        raise UserError("this study asks no question about the methods")
    if not guessing.targets_on(study.guess_methods, item.attention):
        raise UserError("this item asks no question about the methods")
    if not isinstance(answers, Mapping):
        raise UserError("malformed request")
    unknown = [str(m)[:40] for m in answers if m not in study.guess_methods]
    if unknown:
        raise UserError(english("guess_not_asked"))
    if len(store.ratings_for(rater_id, mapping.values())) < len(mapping):
        raise UserError(english("guess_score_first"))
    answered = store.guessed_targets(rater_id, [item.id]).get(item.id, set())
    asked = guessing.pending(study.guess_methods, answered)
    picked = guessing.parse_answers({m: answers.get(m) for m in asked}, len(mapping))
    outputs = _outputs(store, item, len(mapping))
    rows = guessing.answer_key(picked, mapping, {o.id: o.method for o in outputs})
    return store.save_guesses(rater_id, item.id, rows)


def guess_then_next(
    store: Store, enrolment: invites.Enrolment, item_public_id: object, answers: Mapping[str, Any]
) -> tuple[RaterView | None, str]:
    """The rating tab's answer to the guess question(s): `guess_for`, then the rater's next item, in
    one transaction."""
    with store.transaction():
        guess_for(store, enrolment, item_public_id, answers)
        return open_for(store, enrolment.study_id, lambda: enrolment.rater_id)
