"""Measuring the blind in pairwise studies, on SQLite and PostgreSQL: "Which response do you think came
from METHOD?" comes after the vote, only for targets that are one of the two on screen, is answered
A, B or don't know (n_responses 2), never says whether the answer was right, and feeds the blinding
index (chance 1/2), the export and its CLI once the study is closed."""

from __future__ import annotations

import csv
import json

import pytest

from arena import export, guessing, invites, pair_rating, studies
from arena.errors import UserError
from arena.prompts import PromptSpec
from arena.store import Store
from evaluation import blinding
from evaluation.pairwise_view import pairwise_view

METHODS = ("BS-4", "TS-Temp", "TS-Tilted")


def pair_study(store: Store, targets=("BS-4",), n_items: int = 6) -> int:
    sid = store.create_study(
        "pairs",
        methods=list(METHODS),
        samples_per_method=1,
        max_new_tokens=8,
        design="pairwise",
        state="open",
        guess_methods=list(targets),
    )
    iids = store.add_items(sid, [{"prompt": f"prompt {k}", "scenario": "s"} for k in range(n_items)])
    for iid in iids:
        for k, m in enumerate(METHODS):
            store.add_output(
                iid, m, 0, text=f"text {iid}-{k}", settings={"method": m}, seed=9, model="m", new_tokens=k + 2
            )
    return sid


def enrol(store: Store, sid: int, name: str) -> invites.Enrolment:
    [made] = invites.invite(store, sid, [name])
    return invites.resolve(store, made.code)


def shown_methods(store: Store, rater_id: int, item_public_id: str) -> list[str]:
    """The methods of the pair this rater saw, left (A) first: the answer key, read server-side."""
    item = store.item_by_public_id(item_public_id)
    method_of = {o.id: o.method for o in store.outputs_for_item(item.id)}
    pair = store.assignment(rater_id, item.id)
    return [method_of[pair[0]], method_of[pair[1]]]


def letter_of(store: Store, rater_id: int, item_public_id: str, method: str) -> str:
    return "AB"[shown_methods(store, rater_id, item_public_id).index(method)]


def other(letter: str) -> str:
    return "B" if letter == "A" else "A"


def test_the_question_comes_after_the_vote_and_only_for_a_target_in_the_pair(store):
    sid = pair_study(store)
    ann = enrol(store, sid, "ann")
    view, _ = pair_rating.open_for(store, ann)
    asked_on, skipped_on = 0, 0
    while view is not None:
        assert view.guesses == []  # nothing is asked before the vote
        with pytest.raises(UserError, match="vote on this pair first"):
            pair_rating.guess_for(store, ann, view.item, {"BS-4": "A"})
        after, message = pair_rating.vote_then_next(store, ann, view.item, "a")
        if "BS-4" in shown_methods(store, ann.rater_id, view.item):
            asked_on += 1
            assert after is not None and after.item == view.item and after.guesses == ["BS-4"]
            assert after.winner == "a" and message == ""  # the vote is stored before the question
            assert store.vote_of(ann.rater_id, store.item_by_public_id(view.item).id).winner == "a"
            view, _ = pair_rating.guess_then_next(store, ann, view.item, {"BS-4": guessing.DONT_KNOW})
        else:
            skipped_on += 1  # BS-4 is not on screen: no question, the next item comes
            assert after is None or (after.item != view.item and after.guesses == [])
            view = after
    assert (asked_on, skipped_on) == (4, 2)  # three methods: 4 of each block's 6 pairs hold BS-4
    rows = store.guesses(sid)
    assert len(rows) == 4 and {(g.target_method, g.n_responses, g.guessed_position) for g in rows} == {
        ("BS-4", 2, None)
    }


def test_each_method_asks_both_of_the_pair_and_stores_the_answer_key(store):
    sid = pair_study(store, targets=METHODS, n_items=2)
    bo = enrol(store, sid, "bo")
    view, _ = pair_rating.open_for(store, bo)
    after, _ = pair_rating.vote_then_next(store, bo, view.item, "tie")
    pair = shown_methods(store, bo.rater_id, view.item)
    assert after.guesses == [m for m in METHODS if m in pair]  # the two on screen, in the study's order
    absent = next(m for m in METHODS if m not in pair)
    with pytest.raises(UserError, match="answer every question"):
        pair_rating.guess_for(store, bo, view.item, {pair[0]: "A"})
    with pytest.raises(UserError, match="no response 'C'"):
        pair_rating.guess_for(store, bo, view.item, {pair[0]: "C", pair[1]: "A"})
    with pytest.raises(UserError, match="not asked"):
        pair_rating.guess_for(store, bo, view.item, {"Greedy": "A", pair[0]: "A", pair[1]: "B"})
    # An answer about the method that is not on screen is left out, like one answered before.
    stored = pair_rating.guess_for(store, bo, view.item, {pair[0]: "B", pair[1]: guessing.DONT_KNOW, absent: "A"})
    assert stored == 2
    got = {g.target_method: (g.n_responses, g.guessed_position, g.true_position) for g in store.guesses(sid)}
    assert got == {pair[0]: (2, 1, 0), pair[1]: (2, None, 1)}
    again, _ = pair_rating.open_for(store, bo, 1)
    assert again.guesses == []  # answered: not asked again
    revoted, _ = pair_rating.vote_then_next(store, bo, view.item, "a")
    assert revoted.item != view.item and revoted.guesses == []  # a new vote on the same pair asks nothing more


def test_next_leaves_the_question_and_coming_back_asks_it_again(store):
    sid = pair_study(store, targets=METHODS, n_items=2)
    cy = enrol(store, sid, "cy")
    view, _ = pair_rating.open_for(store, cy)
    pair_rating.vote_then_next(store, cy, view.item, "b")
    nxt, _ = pair_rating.open_for(store, cy, 2)
    assert nxt.guesses == []  # not voted on yet
    back, _ = pair_rating.open_for(store, cy, 1)
    assert back.item == view.item and len(back.guesses) == 2
    assert store.guesses(sid) == []


def test_a_rater_trying_both_answers_learns_nothing(store):
    """Attack: answer, then answer the other letters; and two raters, one always right and one always
    wrong. Every reply is the same, and only the first answer counts. ("each": every pair asks about
    both of its methods, so the two raters' replies line up item by item.)"""
    sid = pair_study(store, targets=METHODS, n_items=6)
    replies = {}
    for name, right in (("right", True), ("wrong", False)):
        who = enrol(store, sid, name)
        view, _ = pair_rating.open_for(store, who)
        seen = []
        while view is not None:
            after, message = pair_rating.vote_then_next(store, who, view.item, "a")
            assert after.item == view.item and len(after.guesses) == 2
            keys = {m: letter_of(store, who.rater_id, view.item, m) for m in after.guesses}
            first = {m: k if right else other(k) for m, k in keys.items()}
            flipped = {m: other(k) for m, k in first.items()}
            counts = [pair_rating.guess_for(store, who, view.item, a) for a in (first, flipped)]
            nxt, reply = pair_rating.guess_then_next(store, who, view.item, keys)
            shape = None if nxt is None else (nxt.index, nxt.total, nxt.rated_items, nxt.guesses, nxt.winner)
            seen.append((message, after.index, counts, reply, shape))
            view = nxt
        replies[name] = seen
    assert replies["right"] == replies["wrong"]
    assert [s[2] for s in replies["right"]] == [[2, 0]] * 6
    by_rater: dict[str, set[bool]] = {}
    for g in store.guesses(sid):
        by_rater.setdefault(g.rater, set()).add(g.guessed_position == g.true_position)
    assert by_rater == {"right": {True}, "wrong": {False}}  # the first answer stood


def test_the_blinding_index_after_close_with_chance_one_half(store, tmp_path, capsys):
    sid = pair_study(store, n_items=6)
    ann = enrol(store, sid, "ann")
    view, _ = pair_rating.open_for(store, ann)
    k = 0
    while view is not None:
        after, _ = pair_rating.vote_then_next(store, ann, view.item, "b")
        if after is not None and after.guesses:
            key = letter_of(store, ann.rater_id, view.item, "BS-4")
            answer = {0: key, 1: key, 2: key, 3: other(key)}[k]  # 3 right, 1 wrong
            after, _ = pair_rating.guess_then_next(store, ann, view.item, {"BS-4": answer})
            k += 1
        view = after
    with pytest.raises(UserError, match="once the study is closed"):
        blinding.closed_study_blinding(store, sid)
    open_csv = tmp_path / "open.csv"
    export.export_to_path(store, open_csv, study_id=sid)
    open_rows = [r for r in csv.DictReader(open_csv.open(encoding="utf-8", newline="")) if r["row_kind"] == "guess"]
    assert len(open_rows) == 4 and {r["true_label"] for r in open_rows} == {""}  # no key while open
    studies.close_study(store, sid)
    [row] = blinding.closed_study_blinding(store, sid).to_dict("records")
    assert row["chance"] == 0.5 and row["n"] == 4 and row["correct"] == 3
    assert row["index"] == pytest.approx(0.5)  # (3 right - 1 wrong) / 4 answers
    lines = pairwise_view(store, sid, public=False, n_resamples=20)["blinding"]
    assert len(lines) == 1 and "chance 50%" in lines[0]
    # The closed export's guess rows feed the CLI: n_responses 2, labels A/B, the same index.
    closed_csv = tmp_path / "closed.csv"
    export.export_to_path(store, closed_csv, study_id=sid)
    rows = [r for r in csv.DictReader(closed_csv.open(encoding="utf-8", newline="")) if r["row_kind"] == "guess"]
    assert {r["n_responses"] for r in rows} == {"2"} and {r["true_label"] for r in rows} <= {"A", "B"}
    capsys.readouterr()
    assert blinding.main([str(closed_csv), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)["studies"][str(sid)]["methods"]["BS-4"]
    assert result["chance"] == 0.5 and result["n"] == 4 and result["index"] == pytest.approx(0.5)


def test_create_study_takes_guess_targets_for_pairwise(store):
    prompts = [PromptSpec("Say hello.", "greeting", "en", False)]
    for value, expected in (("BS-4", ("BS-4",)), ("each", METHODS), (["TS-Temp", "BS-4"], ("TS-Temp", "BS-4"))):
        sid = studies.create_study(
            store, f"pairs {len(expected)}", prompts, methods=list(METHODS), design="pairwise", guess_methods=value
        )
        assert store.get_study(sid).guess_methods == expected
    with pytest.raises(UserError, match="not among"):
        studies.create_study(
            store, "q", prompts, methods=["BS-4", "TS-Temp"], design="pairwise", guess_methods="TS-Tilted"
        )
