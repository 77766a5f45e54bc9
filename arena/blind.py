"""Double-blind presentation: balanced positions, the server-side mapping, and the rater's view.

Positions follow a Williams design (a Latin square balanced for order), indexed by the item's
place in the study plus the rater's arrival order, applied over a per-study secret order of the
systems. Each rater therefore sees every system equally often in every position over consecutive
items, and each item shows every system in every position across consecutive raters. The order a
rater saw is recorded in the store the first time the item is shown and reused ever after.

What reaches the browser is `RaterView`: labels (A, B, ...), the prompt and the texts, plus the
rater's own scores. The mapping from label to output lives only in the store.
"""

from __future__ import annotations

import random
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


def _ready_items(store: Store, study_id: int) -> list[dict[str, Any]]:
    ready = set(ready_item_ids(store, study_id))
    return [item for item in store.items(study_id) if item["id"] in ready]


def _parse_study_id(study_id: Any) -> int:
    try:
        value = int(study_id)
        if value != float(study_id):
            raise ValueError
        return value
    except (TypeError, ValueError, OverflowError):
        raise UserError("choose a study first") from None


def _mapping(store: Store, study: Mapping[str, Any], rater_id: int, item: Mapping[str, Any]) -> dict[int, int]:
    mapping = store.assignment(rater_id, item["id"])
    if mapping:
        return mapping
    rater_index = store.study_rater_index(study["id"], rater_id)
    order = balanced_order(store.outputs_for_item(item["id"]), study["blind_seed"], item["ordinal"], rater_index)
    return store.record_assignment(rater_id, item["id"], order)


def open_item(store: Store, rater: object, study_id: Any, index: int | None = None) -> tuple[RaterView | None, str]:
    """The view of item `index` (1-based) of a study for `rater`; with no index, the first item the
    rater has not fully rated. Returns (None, message) when there is nothing to show."""
    name = clean_rater_name(rater)
    sid = _parse_study_id(study_id)
    study = store.get_study(sid)
    if study is None:
        raise UserError("that study does not exist")
    ready = _ready_items(store, sid)
    if not ready:
        return None, "This study has no items ready for rating yet."
    rater_id = store.rater_id(name)
    counts = store.item_counts(sid, rater_id)
    done = [counts[it["id"]][1] >= counts[it["id"]][0] for it in ready]
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
    item = ready[pos]
    mapping = _mapping(store, study, rater_id, item)
    texts = {o["id"]: o["text"] for o in store.outputs_for_item(item["id"])}
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


def labels_shown(store: Store, rater: object, item_public_id: object) -> list[str]:
    """The labels this rater was shown for this item ([] if never shown)."""
    item = store.item_by_public_id(item_public_id)
    rater_id = store.find_rater(clean_rater_name(rater))
    if item is None or rater_id is None:
        return []
    return [LABELS[p] for p in sorted(store.assignment(rater_id, item["id"]))]


def submit(store: Store, rater: object, item_public_id: object, scores: Mapping[str, Mapping[str, Any]],
           comments: Mapping[str, Any] | None = None) -> None:
    """Store one rater's scores for every response of an item, all or nothing.

    `scores` is {label: {dimension: 1..5}} for exactly the labels this rater was shown. The item
    must have been opened by this rater (that is when its order was recorded)."""
    name = clean_rater_name(rater)
    item = store.item_by_public_id(item_public_id)
    if item is None:
        raise UserError("unknown item; reload the study and try again")
    rater_id = store.find_rater(name)
    mapping = store.assignment(rater_id, item["id"]) if rater_id is not None else {}
    if not mapping:
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
