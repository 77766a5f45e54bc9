"""The blind question is never asked on an attention item (issue 44): its responses are identical, so an
answer could only be chance, and counting it makes the blind look better than it is. Guesses that an
older database holds on attention items are left out of the blinding index, from the store and from an
export read by `python -m evaluation.blinding`; the same guesses on a real item are counted (the
positive control)."""

from __future__ import annotations

import csv

import pytest

from arena import studies
from arena.access import invites
from arena.files import export
from arena.rating import blind, guessing, pair_rating
from arena.rating.attention import AttentionPlan
from arena.store import Store
from common.errors import UserError
from evaluation import blinding

METHODS = ("BS-4", "TS-Temp", "TS-Tilted")
SCORES = [[4, 4, 4]] * 3 + [[None] * 3] * 5
CHECK = AttentionPlan(1, 2)  # "choose 2 on every question"


@pytest.fixture
def store(tmp_path):
    s = Store(f"sqlite:///{tmp_path / 'arena.db'}")
    yield s
    s.dispose()


def study_with_attention(store: Store, design: str = "scores") -> tuple[int, list[int]]:
    """Real item, attention item, real item; the study asks about BS-4."""
    sid = store.create_study(
        f"attention {design}", methods=list(METHODS), model="m", design=design, guess_methods=["BS-4"],
        settings={m: {} for m in METHODS},
    )  # fmt: skip
    prompts = [{"prompt": "first"}, {"prompt": "first", "attention": CHECK.as_json()}, {"prompt": "third"}]
    iids = store.add_items(sid, prompts)
    for iid, p in zip(iids, prompts, strict=True):
        for k, m in enumerate(METHODS):
            text = CHECK.text if p.get("attention") else f"{m} wrote {iid}"
            store.add_output(iid, m, 0, text=text, settings={}, seed=k, model="m", new_tokens=5)
    return sid, iids


def enrol(store: Store, sid: int, name: str = "ann") -> invites.Enrolment:
    [made] = invites.invite(store, sid, [name])
    return invites.resolve(store, made.code)


def test_the_question_is_asked_after_real_items_and_never_after_an_attention_item(store):
    sid, iids = study_with_attention(store)
    ann = enrol(store, sid)
    view, _ = blind.open_for(store, sid, lambda: ann.rater_id)
    after, _ = blind.submit_slots_then_next(store, ann, view.item, SCORES, [None] * 8)
    assert after.item == view.item and after.guesses == ["BS-4"]  # a real item: asked
    check, _ = blind.guess_then_next(store, ann, view.item, {"BS-4": "A"})
    assert store.item_by_public_id(check.item).attention  # the attention item comes next
    follow = [[2, 2, 2]] * 3 + [[None] * 3] * 5
    nxt, _ = blind.submit_slots_then_next(store, ann, check.item, follow, [None] * 8)
    assert nxt.item != check.item and nxt.guesses == []  # scored: on to the third item, no question
    again, _ = blind.open_for(store, sid, lambda: ann.rater_id, 2)  # back to it: still none
    assert again.complete and again.guesses == []
    with pytest.raises(UserError, match="asks no question"):  # nor through the API
        blind.guess_for(store, ann, check.item, {"BS-4": "A"})
    assert [g.item_id for g in store.guesses(sid)] == [iids[0]]


def test_a_pairwise_attention_item_asks_no_question_either(store):
    """Pairwise studies are created without attention items, but an imported one may hold them: the one
    rule (guessing.targets_on) serves both designs."""
    sid, iids = study_with_attention(store, "pairwise")
    ann = enrol(store, sid)
    view, _ = pair_rating.open_for(store, ann, 2)
    assert store.item_by_public_id(view.item).attention
    voted, _ = pair_rating.vote_then_next(store, ann, view.item, "a")
    assert voted is not None and voted.item != view.item and voted.guesses == []
    with pytest.raises(UserError, match="asks no question"):
        pair_rating.guess_for(store, ann, view.item, {"BS-4": "A"})
    assert guessing.targets_on(["BS-4"], None) == ("BS-4",) and guessing.targets_on(["BS-4"], CHECK.as_json()) == ()


def older_guesses(store: Store, sid: int, iids: list[int]) -> None:
    """What an older database holds: two raters answered on the attention item, both 'right' by chance
    (its responses are identical), and each answered wrong on the first real item."""
    for name in ("ann", "bo"):
        rid = store.rater_id(name)
        store.save_guesses(rid, iids[1], [("BS-4", 3, 0, 0)])  # attention item: picked A, "BS-4 was A"
        store.save_guesses(rid, iids[0], [("BS-4", 3, 1, 0)])  # real item: picked B, it was A


def test_older_guesses_on_attention_items_are_not_counted(store, tmp_path):
    sid, iids = study_with_attention(store)
    older_guesses(store, sid, iids)
    studies.close_study(store, sid)
    [row] = blinding.closed_study_blinding(store, sid).to_dict("records")
    assert row["n"] == 2 and row["items"] == 1 and row["correct"] == 0 and row["index"] < 0
    # the same CLI over the export: its guess rows carry the item's attention, and are left out there too
    path = tmp_path / "closed.csv"
    export.export_to_path(store, path, study_id=sid)
    rows = [r for r in csv.DictReader(path.open(encoding="utf-8", newline="")) if r["row_kind"] == "guess"]
    assert len(rows) == 4 and sum(1 for r in rows if r["item_attention"]) == 2  # kept in the file: nothing lost
    [from_file] = blinding.blinding_index(blinding.read_guesses(path)).to_dict("records")
    assert from_file["n"] == 2 and from_file["correct"] == 0
    # positive control: the same answers on a real item count
    store.save_guesses(store.rater_id("ann"), iids[2], [("BS-4", 3, 0, 0)])
    [row] = blinding.study_blinding(store, sid).to_dict("records")
    assert row["n"] == 3 and row["correct"] == 1
