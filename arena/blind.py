"""Double-blind presentation: balanced positions, the server-side mapping, and the rater's view.

Positions follow a Williams design (a Latin square balanced for order), indexed by the item's
place in the study plus the rater's arrival order, applied over a per-study secret order of the
systems. Each rater therefore sees every system equally often in every position over consecutive
items, and each item shows every system in every position across consecutive raters. The order a
rater saw is recorded in the store the first time the item is shown and reused ever after.

What reaches the browser is `RaterView`: labels (A, B, ...), the prompt and the texts, plus the
rater's own scores. The mapping from label to output lives only in the store (and in this
process's memo of it, below, which never leaves the server).

Facts that never change once written are remembered per store, so a submit does not read them
again: a rater's id (raters are never renamed or deleted), the order recorded for a rater and an
item (never updated; it goes only with its study), and an item's outputs (never updated). The
item and output keys include the item's random public id, so a row id that the database hands out
again after a study was deleted can never find a remembered entry. Anything that can change
(which items are ready, the study, the rater's ratings) is read from the store every time.
"""

from __future__ import annotations

import random
import threading
import weakref
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

import pandas as pd

from .errors import UserError
from .store import SCORE_COLUMNS, Store, check_score, clean_rater_name
from .studies import ready_item_ids

LABELS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
DIMENSIONS: tuple[str, ...] = SCORE_COLUMNS


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


def secret_order(keys: Sequence[tuple[str, int]], blind_seed: int) -> list[tuple[str, int]]:
    """The study's fixed, secret order of its systems (method, sample), before balancing."""
    ordered = sorted(keys)
    random.Random(f"{blind_seed}|{ordered!r}").shuffle(ordered)
    return ordered


def balanced_order(output_rows: Sequence[Mapping[str, Any]], blind_seed: int, item_ordinal: int,
                   rater_index: int) -> list[int]:
    """Output ids in display order (position 0 = A) for one rater and one item."""
    by_key = {(o["method"], int(o["sample_index"])): int(o["id"]) for o in output_rows}
    base = secret_order(list(by_key), blind_seed)
    rows = williams_rows(len(base))
    row = rows[(item_ordinal + rater_index) % len(rows)]
    return [by_key[base[k]] for k in row]


@dataclass
class Response:
    label: str
    text: str
    scores: dict[str, int | None] = field(default_factory=dict)
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
    rated_items: int  # items this rater has fully rated
    complete: bool  # this item fully rated by this rater

    @property
    def progress(self) -> str:
        return f"Item {self.index} of {self.total} · you have rated {self.rated_items} of {self.total}"


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


_memos: "weakref.WeakKeyDictionary[Store, dict[str, _Memo]]" = weakref.WeakKeyDictionary()
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


def _assignment(store: Store, rater_id: int, item: Mapping[str, Any]) -> dict[int, int]:
    """`store.assignment` for an item row, remembered once recorded (an order is never changed)."""
    key = (rater_id, item["id"], item["public_id"])
    found = _memo(store, "order").get(key)
    if found is None:
        found = store.assignment(rater_id, item["id"])
        if found:
            _memo(store, "order").put(key, found)
    return dict(found)


def _outputs(store: Store, item: Mapping[str, Any], need: Sequence[int] = ()) -> list[dict[str, Any]]:
    """`store.outputs_for_item` for an item row; remembered, and read again when an output in `need`
    is not among the remembered ones (outputs are never changed, but a study may still be filling)."""
    key = (item["id"], item["public_id"])
    memo = _memo(store, "outputs")
    found = memo.get(key)
    if found is None or not set(need) <= {o["id"] for o in found}:
        found = store.outputs_for_item(item["id"])
        memo.put(key, found)
    return found


def _parse_study_id(study_id: Any) -> int:
    try:
        value = int(study_id)
        if value != float(study_id):
            raise ValueError
        return value
    except (TypeError, ValueError, OverflowError):
        raise UserError("choose a study first") from None


def _mapping(store: Store, study_id: int, rater_id: int, item: Mapping[str, Any]) -> dict[int, int]:
    mapping = _assignment(store, rater_id, item)
    if mapping:
        return mapping
    study = store.get_study(study_id)
    if study is None:
        raise UserError("that study does not exist")
    rater_index = store.study_rater_index(study["id"], rater_id)
    order = balanced_order(store.outputs_for_item(item["id"]), study["blind_seed"], item["ordinal"], rater_index)
    mapping = store.record_assignment(rater_id, item["id"], order)
    _memo(store, "order").put((rater_id, item["id"], item["public_id"]), dict(mapping))
    return mapping


def _known_rater_id(store: Store, name: str) -> int:
    """The rater's id; no write lock (and, once known, no query) just to look a name up."""
    found = _find_rater(store, name)
    return found if found is not None else store.rater_id(name)


def open_item(store: Store, rater: object, study_id: Any, index: int | None = None) -> tuple[RaterView | None, str]:
    """The view of item `index` (1-based) of a study for `rater`; with no index, the first item the
    rater has not fully rated. Returns (None, message) when there is nothing to show."""
    name = clean_rater_name(rater)
    sid = _parse_study_id(study_id)
    ready = ready_item_ids(store, sid)  # empty for a study that does not exist
    if not ready:
        if store.get_study(sid) is None:
            raise UserError("that study does not exist")
        return None, "This study has no items ready for rating yet."
    rater_id = _known_rater_id(store, name)
    counts = store.item_counts(sid, rater_id)
    done = [counts[i][1] >= counts[i][0] for i in ready]
    if index is None:
        pos = next((k for k, d in enumerate(done) if not d), None)
        if pos is None:
            return None, (f"You have rated all {len(ready)} items of this study. Thank you! "
                          "Use Previous to review or change a rating.")
    else:
        try:
            pos = int(index) - 1
        except (TypeError, ValueError):
            raise UserError("item number must be a whole number") from None
        if not 0 <= pos < len(ready):
            raise UserError(f"item number must be between 1 and {len(ready)}")
    item = store.get_item(ready[pos])  # only the item shown, not every item of the study
    if item is None:  # deleted a moment ago
        raise UserError("that study changed; press Start again")
    mapping = _mapping(store, sid, rater_id, item)
    texts = {o["id"]: o["text"] for o in _outputs(store, item, list(mapping.values()))}
    mine = store.ratings_for(rater_id, mapping.values())
    responses = []
    for position in sorted(mapping):
        oid = mapping[position]
        given = mine.get(oid, {})
        responses.append(Response(LABELS[position], texts[oid], {d: given.get(d) for d in DIMENSIONS},
                                  given.get("comment") or ""))
    view = RaterView(item["public_id"], item["prompt"], responses, pos + 1, len(ready), sum(done), done[pos])
    return view, ""


def locate(store: Store, study_id: Any, item_public_id: object) -> int:
    """The 1-based place of an item among its study's ready items."""
    sid = _parse_study_id(study_id)
    item = store.item_by_public_id(item_public_id)
    if item is None or item["study_id"] != sid:
        raise UserError("unknown item; reload the study")
    ids = ready_item_ids(store, sid)
    if item["id"] not in ids:
        raise UserError("that item is not ready for rating")
    return ids.index(item["id"]) + 1


def _opened(store: Store, rater: object, item_public_id: object) -> tuple[dict[str, Any] | None, int | None, dict[int, int]]:
    """(item, rater id, {position: output id}) for an item this rater opened; the mapping is empty
    when the item, the rater or the recorded order is missing."""
    item = store.item_by_public_id(item_public_id)
    rater_id = _find_rater(store, clean_rater_name(rater))
    if item is None or rater_id is None:
        return item, rater_id, {}
    return item, rater_id, _assignment(store, rater_id, item)


def labels_shown(store: Store, rater: object, item_public_id: object) -> list[str]:
    """The labels this rater was shown for this item ([] if never shown)."""
    return [LABELS[p] for p in sorted(_opened(store, rater, item_public_id)[2])]


def submit(store: Store, rater: object, item_public_id: object, scores: Mapping[str, Mapping[str, Any]],
           comments: Mapping[str, Any] | None = None) -> None:
    """Store one rater's scores for every response of an item, all or nothing.

    `scores` is {label: {dimension: 1..5}} for exactly the labels this rater was shown. The item
    must have been opened by this rater (that is when its order was recorded)."""
    item, rater_id, mapping = _opened(store, clean_rater_name(rater), item_public_id)
    if item is None:
        raise UserError("unknown item; reload the study and try again")
    _save(store, rater_id, mapping, scores, comments)


def submit_slots(store: Store, rater: object, item_public_id: object, slot_scores: Sequence[Sequence[Any]],
                 slot_comments: Sequence[Any]) -> None:
    """`submit` for the rating tab's fixed rows of inputs: slot k holds response LABELS[k]. Slots
    beyond the responses shown must be empty. The item and the rater's order are looked up once."""
    item, rater_id, mapping = _opened(store, clean_rater_name(rater), item_public_id)
    if item is None:
        raise UserError("unknown item; reload the study and try again")
    shown = len(mapping)
    scores: dict[str, dict[str, Any]] = {}
    notes: dict[str, Any] = {}
    for k, given in enumerate(slot_scores):
        label = LABELS[k]
        if k < shown:
            scores[label] = dict(zip(DIMENSIONS, given))
            notes[label] = slot_comments[k] if k < len(slot_comments) and slot_comments[k] else None
        elif any(v not in (None, "") for v in given):
            raise UserError(f"there is no response {label} in this item")
    _save(store, rater_id, mapping, scores, notes)


def _save(store: Store, rater_id: int | None, mapping: Mapping[int, int], scores: Any, comments: Any) -> None:
    if rater_id is None or not mapping:
        raise UserError("this item was not opened by this rater; press Start to load it")
    if not isinstance(scores, Mapping):
        raise UserError("scores are missing")
    labels = {LABELS[p]: p for p in mapping}
    extra = set(scores) - set(labels)
    if extra:
        raise UserError(f"no response {', '.join(sorted(map(str, extra)))} in this item")
    if comments is not None and not isinstance(comments, Mapping):
        raise UserError("comments must map response labels to text")
    comments = comments or {}
    rows = []
    for label, position in sorted(labels.items()):
        given = scores.get(label)
        if not isinstance(given, Mapping):
            raise UserError(f"score every response: response {label} has no scores")
        row: dict[str, Any] = {"output_id": mapping[position], "position": position, "comment": comments.get(label)}
        for dim in DIMENSIONS:
            if given.get(dim) in (None, ""):
                raise UserError(f"score every response: {dim} of response {label} is missing")
            try:
                row[dim] = check_score(dim, given.get(dim))
            except UserError as exc:
                raise UserError(f"response {label}: {exc}") from None
        rows.append(row)
    store.save_ratings(rater_id, rows)


def reveal(store: Store, study_id: int) -> pd.DataFrame:
    """Organizer only: for every rater and item shown, which method stood behind each label."""
    sid = _parse_study_id(study_id)
    rows = []
    for item in store.items(sid):
        outs = {o["id"]: o for o in store.outputs_for_item(item["id"])}
        for rater_name, rater_id in store.raters_for_item(item["id"]):
            for position, oid in sorted(store.assignment(rater_id, item["id"]).items()):
                o = outs[oid]
                rows.append({"rater": rater_name, "item": item["ordinal"] + 1, "scenario": item["scenario"],
                             "label": LABELS[position], "method": o["method"], "sample": o["sample_index"],
                             "seed": o["seed"], "settings": o["settings"]})
    return pd.DataFrame(rows, columns=["rater", "item", "scenario", "label", "method", "sample", "seed", "settings"])
