"""Blind presentation: balanced positions, recorded mapping, the rater's view, validated submits."""

from __future__ import annotations

import dataclasses
import json
from collections import Counter

import pytest

import decoders
from arena.rating import blind
from common.errors import UserError

METHODS = ["BS-4", "TS-Temp", "TS-Tilted"]


def make_study(store, n_items=6, methods=METHODS):
    """A study whose outputs are stored directly (no model): each text names nothing."""
    sid = store.create_study("blind test", methods=methods, samples_per_method=1, max_new_tokens=8)
    iids = store.add_items(sid, [{"prompt": f"prompt {k}", "scenario": "s"} for k in range(n_items)])
    for iid in iids:
        for k, m in enumerate(methods):
            store.add_output(
                iid,
                m,
                0,
                text=f"response text {iid}-{k}",
                settings={"method": m, "temperature": 0.9},
                seed=0,
                model="m",
                new_tokens=4,
                latency_ms=123.456,
                ttft_ms=7.5,
                tokens_per_s=32.1,
            )
    return sid, iids


@pytest.mark.parametrize("n", range(1, 8))
def test_williams_rows_are_latin_and_balanced(n):
    rows = blind.williams_rows(n)
    assert all(sorted(r) == list(range(n)) for r in rows)
    for col in range(n):
        counts = Counter(r[col] for r in rows)
        assert set(counts.values()) == {len(rows) // n}
    if n > 1:  # each ordered pair of neighbours equally often
        pairs = Counter((r[j], r[j + 1]) for r in rows for j in range(n - 1))
        assert len(pairs) == n * (n - 1) and len(set(pairs.values())) == 1


def test_positions_are_balanced_for_each_rater_over_each_block(store):
    sid, iids = make_study(store, n_items=6)
    method_of = {o.id: o.method for iid in iids for o in store.outputs_for_item(iid)}
    per_rater_pos = Counter()
    per_item_pos = Counter()
    for r in range(6):
        rater = f"rater {r}"
        for index in range(1, 7):
            view, _ = blind.open_item(store, rater, sid, index)
            rid = store.find_rater(rater)
            item = store.item_by_public_id(view.item)
            for pos, oid in store.assignment(rid, item.id).items():
                per_rater_pos[(rater, method_of[oid], pos)] += 1
                per_item_pos[(item.id, method_of[oid], pos)] += 1
    # 6 items per rater = one block, 3 methods x 3 positions: each method twice in each position for
    # each rater. Across raters an item's positions are independent draws (what makes one rater's
    # unblinded item useless for another's), so per item they are balanced only in expectation.
    assert set(per_rater_pos.values()) == {2} and len(per_rater_pos) == 6 * 9
    assert sum(per_item_pos.values()) == 6 * 6 * 3


def test_order_is_recorded_and_stable(store):
    sid, _ = make_study(store, n_items=2)
    first, _ = blind.open_item(store, "ann", sid)
    again, _ = blind.open_item(store, "ann", sid, 1)
    assert [r.text for r in first.responses] == [r.text for r in again.responses]
    assert [r.label for r in first.responses] == ["A", "B", "C"]


def test_view_carries_no_method_setting_or_timing(store):
    sid, _ = make_study(store)
    view, _ = blind.open_item(store, "ann", sid)
    dumped = json.dumps(dataclasses.asdict(view))
    for name in decoders.names():
        assert name not in dumped
    for leak in ("temperature", "123.456", "7.5", "32.1", "latency", "seed", "method", "settings"):
        assert leak not in dumped, leak


def full_scores(value=3):
    return {label: {d: value for d in blind.DIMENSIONS} for label in "ABC"}


def test_submit_progress_next_and_going_back(store):
    sid, iids = make_study(store, n_items=3)
    view, _ = blind.open_item(store, "ann", sid)
    assert (view.index, view.total, view.rated_items) == (1, 3, 0)
    blind.submit(store, "ann", view.item, full_scores(4), {"B": "nice"})
    nxt, _ = blind.open_item(store, "ann", sid)
    assert (nxt.index, nxt.rated_items) == (2, 1)
    back, _ = blind.open_item(store, "ann", sid, 1)
    assert back.complete and back.responses[1].comment == "nice"
    assert all(r.scores == {d: 4 for d in blind.DIMENSIONS} for r in back.responses)
    changed = full_scores(4)
    changed["A"]["naturalness"] = 1
    blind.submit(store, "ann", back.item, changed)
    frame = store.ratings_frame(sid)
    assert len(frame) == 3 and sorted(frame.naturalness) == [1, 4, 4]
    # positions stored with the ratings match the recorded mapping
    rid = store.find_rater("ann")
    mapping = store.assignment(rid, iids[0])
    assert {int(r.output_id): int(r.position) for r in frame.itertuples()} == {o: p for p, o in mapping.items()}
    for _ in range(2):
        v, _ = blind.open_item(store, "ann", sid)
        blind.submit(store, "ann", v.item, full_scores(2))
    done, message = blind.open_item(store, "ann", sid)
    assert done is None and "all 3 items" in message


@pytest.mark.parametrize(
    "scores, comments",
    [
        ({"A": {"coherence": 3, "informativeness": 3, "naturalness": 3}}, None),  # B, C missing
        ({**full_scores(), "D": {"coherence": 3, "informativeness": 3, "naturalness": 3}}, None),  # no D
        ({**full_scores(), "A": {"coherence": 6, "informativeness": 3, "naturalness": 3}}, None),
        ({**full_scores(), "B": {"coherence": 2.5, "informativeness": 3, "naturalness": 3}}, None),
        ({**full_scores(), "C": {"coherence": "x", "informativeness": 3, "naturalness": 3}}, None),
        ({**full_scores(), "C": {"coherence": None, "informativeness": 3, "naturalness": 3}}, None),
        ("not a dict", None),
        (full_scores(), {"A": 42}),
    ],
)
def test_bad_submits_are_refused_and_store_nothing(store, scores, comments):
    sid, _ = make_study(store, n_items=1)
    view, _ = blind.open_item(store, "ann", sid)
    with pytest.raises(UserError):
        blind.submit(store, "ann", view.item, scores, comments)
    assert store.count_ratings() == 0


def test_unknown_item_missing_rater_and_unopened_item_are_refused(store):
    sid, iids = make_study(store, n_items=2)
    view, _ = blind.open_item(store, "ann", sid)
    for rater, item in (("", view.item), (None, view.item), ("ann", "no-such-item"), ("ann", None), ("ann", 5)):
        with pytest.raises(UserError):
            blind.submit(store, rater, item, full_scores())
    # bob never opened it: his labels would mean nothing
    with pytest.raises(UserError):
        blind.submit(store, "bob", view.item, full_scores())
    other = store.get_item(iids[1]).public_id  # ann never opened the second item
    with pytest.raises(UserError):
        blind.submit(store, "ann", other, full_scores())
    assert store.count_ratings() == 0
    blind.submit(store, "ann", view.item, full_scores())
    blind.submit(store, "ann", view.item, full_scores())  # a double submit stores nothing twice
    assert store.count_ratings() == 3


def test_items_with_missing_outputs_are_not_shown(store):
    sid = store.create_study("partial", methods=METHODS)
    iids = store.add_items(sid, [{"prompt": "a"}, {"prompt": "b"}])
    for m in METHODS:
        store.add_output(iids[1], m, 0, text=m.lower(), settings={}, seed=0, model="m", new_tokens=1)
    store.add_output(iids[0], "BS-4", 0, text="x", settings={}, seed=0, model="m", new_tokens=1)
    view, _ = blind.open_item(store, "ann", sid)
    assert view.total == 1 and view.prompt == "b"


def test_reveal_maps_labels_to_methods(store):
    sid, _ = make_study(store, n_items=2)
    view, _ = blind.open_item(store, "ann", sid)
    with pytest.raises(UserError, match="closed"):  # the organizer is blind too while rating runs
        blind.reveal(store, sid)
    store.set_study_state(sid, "closed", allowed_from=("open",))
    table = blind.reveal(store, sid)
    assert len(table) == 3 and set(table.method) == set(METHODS) and list(table.label) == ["A", "B", "C"]
    texts = {o.method: o.text for o in store.outputs_for_item(store.item_by_public_id(view.item).id)}
    for response, method in zip(view.responses, table.method):
        assert texts[method] == response.text
