"""Measuring the blind in pairwise studies, on SQLite and PostgreSQL: "If one of these came from
METHOD, which one?" comes after every vote, for every target, on every pair (whether METHOD is on
screen or not: the panel and every reply are the same, so the question says nothing about the pair),
is answered A, B or don't know; only answers on a pair holding METHOD are stored (n_responses 2), never
saying whether they were right, and feed the blinding index (chance 1/2), the export and its CLI once
the study is closed."""

from __future__ import annotations

import csv
import json
import re

import pytest

from arena import studies
from arena.access import invites
from arena.files import export
from arena.inputs.prompts import PromptSpec
from arena.rating import guessing, pair_rating
from arena.rating.study_spec import StudySpec
from arena.store import Store
from common.errors import UserError
from evaluation import blinding
from evaluation.pairwise_view import pairwise_view
from ui.rate import pairwise

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


def test_the_question_comes_after_every_vote_and_only_answers_on_target_pairs_are_stored(store, tmp_path):
    sid = pair_study(store)
    ann = enrol(store, sid, "ann")
    view, _ = pair_rating.open_for(store, ann)
    held, not_held = 0, 0
    while view is not None:
        assert view.guesses == []  # nothing is asked before the vote
        with pytest.raises(UserError, match="vote on this pair first"):
            pair_rating.guess_for(store, ann, view.item, {"BS-4": "A"})
        after, message = pair_rating.vote_then_next(store, ann, view.item, "a")
        # Asked on every pair, BS-4 on screen or not.
        assert after is not None and after.item == view.item and after.guesses == ["BS-4"]
        assert after.winner == "a" and message == ""  # the vote is stored before the question
        assert store.vote_of(ann.rater_id, store.item_by_public_id(view.item).id).winner == "a"
        if "BS-4" in shown_methods(store, ann.rater_id, view.item):
            held += 1
        else:
            not_held += 1
        assert pair_rating.guess_for(store, ann, view.item, {"BS-4": "A"}) is None  # no count comes back
        again, _ = pair_rating.open_for(store, ann, after.index)
        assert again.guesses == []  # answered: not asked again, pair with BS-4 or not
        revoted, _ = pair_rating.vote_then_next(store, ann, view.item, "b")
        assert revoted is None or (revoted.item != view.item and revoted.guesses == [])
        view = revoted
    assert (held, not_held) == (4, 2)  # three methods: 4 of each block's 6 pairs hold BS-4
    # Only the 4 answers on pairs holding BS-4 reach the store, the index and the export.
    rows = store.guesses(sid)
    assert len(rows) == 4 and {(g.target_method, g.n_responses) for g in rows} == {("BS-4", 2)}
    assert all(g.true_position is not None for g in rows)
    studies.close_study(store, sid)
    [row] = blinding.closed_study_blinding(store, sid).to_dict("records")
    assert row["n"] == 4 and row["chance"] == 0.5
    closed_csv = tmp_path / "closed.csv"
    export.export_to_path(store, closed_csv, study_id=sid)
    exported = [r for r in csv.DictReader(closed_csv.open(encoding="utf-8", newline="")) if r["row_kind"] == "guess"]
    assert len(exported) == 4 and {r["true_label"] for r in exported} <= {"A", "B"}


def test_each_method_asks_about_all_of_them_and_stores_the_two_on_screen(store):
    sid = pair_study(store, targets=METHODS, n_items=2)
    bo = enrol(store, sid, "bo")
    view, _ = pair_rating.open_for(store, bo)
    after, _ = pair_rating.vote_then_next(store, bo, view.item, "tie")
    pair = shown_methods(store, bo.rater_id, view.item)
    assert after.guesses == list(METHODS)  # every target, in the study's order, whatever the pair
    absent = next(m for m in METHODS if m not in pair)
    with pytest.raises(UserError, match="answer every question"):
        pair_rating.guess_for(store, bo, view.item, {pair[0]: "A", pair[1]: "B"})
    with pytest.raises(UserError, match="no response 'C'"):
        pair_rating.guess_for(store, bo, view.item, {pair[0]: "C", pair[1]: "A", absent: "A"})
    with pytest.raises(UserError, match="not asked"):
        pair_rating.guess_for(store, bo, view.item, {"Greedy": "A", pair[0]: "A", pair[1]: "B", absent: "A"})
    assert store.guesses(sid) == [] and not store.pair_answered(bo.rater_id, store.item_by_public_id(view.item).id)
    # The answer about the method that is not on screen is taken, and not stored.
    pair_rating.guess_for(store, bo, view.item, {pair[0]: "B", pair[1]: guessing.DONT_KNOW, absent: "A"})
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
    assert back.item == view.item and back.guesses == list(METHODS)
    assert store.guesses(sid) == []


def panel_of(store: Store):
    """The rating tab's pairwise panel, built in a Blocks: `start` and the handlers by api name."""
    import gradio as gr

    with gr.Blocks() as demo:
        code = gr.Textbox()
        panel = pairwise.build(store, code)
    return panel, {f.api_name: f.fn for f in demo.fns.values() if f.api_name}


def looks(values) -> list:
    """What the rater sees of the panel's values (session, progress, prompt, texts A and B, reasons,
    note, status, vote row, question box, radios, item position), less what belongs to the item on screen (the
    session's item id, the numbers in the progress line, the prompt and the two texts)."""
    seen = []
    for k, v in enumerate(values):
        if k in (0, 2, 3, 4):
            continue
        if k == 1:
            v = re.sub(r"\d+", "N", str(v))  # the item's number and how many are judged so far
        if type(v) is int:
            v = "N"  # the item's position for the page's keyboard help: its number again
        if hasattr(v, "get_config") or hasattr(v, "visible"):
            v = tuple(getattr(v, a, None) for a in ("visible", "label", "value", "choices"))
        seen.append(v)
    return seen


def test_the_question_is_the_same_on_pairs_with_and_without_the_target(store):
    """Attack (issue: a question only on the pairs holding METHOD tells which pairs do, and by
    elimination what the two other methods look like): through the panel's own handlers, a rater votes
    and answers on every pair; the panel after the vote (its presence, wording, choices) and the
    reply to the answer, right, wrong or don't know, are the same whether BS-4 is on screen or not."""
    sid = pair_study(store, n_items=6)
    [made] = invites.invite(store, sid, ["ann"])
    ann = invites.resolve(store, made.code)
    panel, fns = panel_of(store)
    assert [c[0] for c in panel.outputs[12].choices] == ["A", "B", guessing.DONT_KNOW]  # the question's choices
    values = pairwise.start(store, ann)
    sess = values[2]
    by_pair: dict[bool, list] = {True: [], False: []}
    answers = ["A", "B", guessing.DONT_KNOW]
    k = 0
    while "item" in sess:
        item = sess["item"]
        held = "BS-4" in shown_methods(store, ann.rater_id, item)
        asked = fns["pair_vote_a"](made.code, sess, [], "", None)
        sess = asked[0]
        assert sess["item"] == item and asked[9].visible and not asked[8].visible  # the question, no vote buttons
        assert asked[10].label == "If one of these came from BS-4, which one?"
        assert asked[10].choices == [] and not asked[11].visible  # the update keeps the choices as built
        replied = fns["pair_guess"](None, made.code, sess, answers[k % 3], *[None] * 7)
        sess = replied[0]
        if "item" in sess:
            by_pair[held].append((answers[k % 3], looks(asked), looks(replied)))
        k += 1
    assert by_pair[True] and by_pair[False]
    seen = {(a, repr(b), repr(c)) for pairs in by_pair.values() for a, b, c in pairs}
    for answer in answers:  # one look per answer given, the same on pairs with and without BS-4
        assert len({(b, c) for a, b, c in seen if a == answer}) <= 1
    assert len({b for _, b, _ in seen}) == 1  # the question's panel: one look on every pair
    assert len({c for _, _, c in seen}) == 1  # the reply: one look whatever the pair and the answer
    assert len(store.guesses(sid)) == 4  # the answers on the four pairs holding BS-4


def test_a_rater_trying_both_answers_learns_nothing(store):
    """Attack: answer, then answer the other letters; and two raters, one always right and one always
    wrong. Every reply is the same, and only the first answer counts. ("each": every pair asks about
    all three methods.)"""
    sid = pair_study(store, targets=METHODS, n_items=6)
    replies = {}
    for name, right in (("right", True), ("wrong", False)):
        who = enrol(store, sid, name)
        view, _ = pair_rating.open_for(store, who)
        seen = []
        while view is not None:
            after, message = pair_rating.vote_then_next(store, who, view.item, "a")
            assert after.item == view.item and after.guesses == list(METHODS)
            pair = shown_methods(store, who.rater_id, view.item)
            keys = {m: letter_of(store, who.rater_id, view.item, m) if m in pair else "A" for m in after.guesses}
            first = {m: k if right else other(k) for m, k in keys.items()}
            flipped = {m: other(k) for m, k in first.items()}
            results = [pair_rating.guess_for(store, who, view.item, a) for a in (first, flipped)]
            nxt, reply = pair_rating.guess_then_next(store, who, view.item, keys)
            shape = None if nxt is None else (nxt.index, nxt.total, nxt.rated_items, nxt.guesses, nxt.winner)
            seen.append((message, after.index, results, reply, shape))
            view = nxt
        replies[name] = seen
    assert replies["right"] == replies["wrong"]
    assert [s[2] for s in replies["right"]] == [[None, None]] * 6
    by_rater: dict[str, set[bool]] = {}
    for g in store.guesses(sid):
        by_rater.setdefault(g.rater, set()).add(g.guessed_position == g.true_position)
    assert by_rater == {"right": {True}, "wrong": {False}}  # the first answer stood
    assert len(store.guesses(sid)) == 2 * 6 * 2  # two raters, six pairs, the two methods on screen


def test_the_blinding_index_after_close_with_chance_one_half(store, tmp_path, capsys):
    sid = pair_study(store, n_items=6)
    ann = enrol(store, sid, "ann")
    view, _ = pair_rating.open_for(store, ann)
    k = 0
    while view is not None:
        after, _ = pair_rating.vote_then_next(store, ann, view.item, "b")
        assert after.item == view.item and after.guesses == ["BS-4"]  # every pair asks
        if "BS-4" in shown_methods(store, ann.rater_id, view.item):
            key = letter_of(store, ann.rater_id, view.item, "BS-4")
            answer = {0: key, 1: key, 2: key, 3: other(key)}[k]  # 3 right, 1 wrong
            k += 1
        else:
            answer = "A"  # BS-4 is not on screen: taken, not counted
        view, _ = pair_rating.guess_then_next(store, ann, view.item, {"BS-4": answer})
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
            store,
            StudySpec(f"pairs {len(expected)}", prompts, methods=list(METHODS), design="pairwise", guess_methods=value),
        )
        assert store.get_study(sid).guess_methods == expected
    with pytest.raises(UserError, match="not among"):
        studies.create_study(
            store, StudySpec("q", prompts, methods=["BS-4", "TS-Temp"], design="pairwise", guess_methods="TS-Tilted")
        )
