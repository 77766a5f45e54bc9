"""Every answer is applied once, to the item it names (ui/rate/once.py), at the handler level: for each
kind of request that answers an item (the one Submit, for every rubric, a pairwise vote, the blind
question in both designs, Skip and Flag in both), a copy of one applied already (an API client
re-sending after a lost reply, a second tap while the first one saves, a late retry) names the item it
was for, gets the page as it is now and "saved already", and writes nothing, least of all on the next
item, which the rater had not seen. Each attack first shows that the copy would have landed there: the
next item is in the state the copy could be applied to. The same over HTTP against a live app:
tests/test_submit_once_live.py; with a phone's double tap in a real browser:
tests/e2e/test_double_tap_e2e.py."""

from __future__ import annotations

from types import SimpleNamespace

import gradio as gr
import pytest

from arena.access import invites
from arena.rating import guessing
from arena.store import Store
from common.rubric import Rubric
from ui import AppContext, rate
from ui.rate import handlers as h
from ui.rate import once, pairwise
from ui.rate.view import SLOTS
from ui.rate.view import form as rate_form

METHODS = ["BS-4", "TS-Temp", "TS-Tilted"]
RUBRIC = Rubric.from_dict(
    {"dimensions": [{"name": "quality", "low": 1, "high": 10}, {"name": "fun", "low": 1, "high": 7}]}
)


def request() -> SimpleNamespace:
    return SimpleNamespace(headers={"accept-language": "en-US"}, client=SimpleNamespace(host="203.0.113.5"), cookies={})


@pytest.fixture
def store(tmp_path):
    s = Store(f"sqlite:///{tmp_path / 'arena.db'}")
    yield s
    s.dispose()


def study(store: Store, design: str = "scores", guess: tuple[str, ...] = (), rubric: Rubric | None = None) -> str:
    """A study of 3 items, 3 methods, and one rater's invite code."""
    sid = store.create_study(
        f"once {design}", methods=METHODS, model="m", design=design, guess_methods=list(guess), rubric=rubric,
        settings={m: {} for m in METHODS},
    )  # fmt: skip
    for iid in store.add_items(sid, [{"prompt": f"prompt {k}", "scenario": "s"} for k in range(3)]):
        for k, m in enumerate(METHODS):
            store.add_output(iid, m, 0, text=f"{m} text {k} of {iid}", settings={}, seed=1, model="m", new_tokens=4)
    [made] = invites.invite(store, sid, ["ann"])
    return made.code


def form(score: int) -> list:
    """The Submit's values for the default rubric: three responses scored, then the comments."""
    return rate_form([[score] * 3] * 3)


def rubric_form(quality: int, fun: int) -> list:
    """The Submit's values for RUBRIC: the two questions answered for three responses, then the comments."""
    return rate_form([[quality, fun]] * 3)


def item_at(sess: dict) -> int:
    return int(sess["index"])


def sid_of(store: Store, code: str) -> int:
    return invites.resolve(store, code).study_id


def rated(store: Store, code: str) -> list[int]:
    """The places (from 0) of the items with a stored rating, one entry per rating row."""
    sid = sid_of(store, code)
    ordinal = {i.id: i.ordinal for i in store.items(sid)}
    return sorted(ordinal[int(i)] for i in store.ratings_frame(sid).item_id)


@pytest.mark.parametrize("rubric", [None, RUBRIC], ids=["default 1-5", "1-10 and 1-7"])
def test_one_submit_rates_every_rubric_and_a_resent_one_is_not_stored_on_the_next_item(store, rubric):
    """Issue 46: the default study and a 1-10 study go through the one Submit handler. Before, the
    rubric's own Submit (`rate_submit_rubric`, issue 44) took no item position, so a re-sent one was
    saved on the next item."""
    code = study(store, rubric=rubric)
    values = form(5) if rubric is None else rubric_form(10, 6)
    first = h.on_start(store, code, {}, request()).rate
    saved = h.on_submit(store, request(), code, first.session, *values, item_at(first.session))
    assert item_at(saved.session) == 2 and saved.status.startswith("Saved")
    again = h.on_submit(store, request(), code, saved.session, *values, 1)  # the same request, re-sent
    assert again.status == once.ALREADY and item_at(again.session) == 2
    assert all(v is None for s in again.slots for v in s.scores)  # the next item, as it is: nothing on it
    assert rated(store, code) == [0, 0, 0]
    frame = store.ratings_frame(sid_of(store, code))
    assert set(frame["coherence" if rubric is None else "quality"]) == {5 if rubric is None else 10}
    # the positive control: naming the item on screen saves it
    h.on_submit(store, request(), code, again.session, *values, 2)
    assert rated(store, code) == [0, 0, 0, 1, 1, 1]


def test_a_resent_vote_is_not_stored_on_the_next_pair(store):
    code = study(store, design="pairwise")
    enrolment = invites.resolve(store, code)
    sess = pairwise.start(store, enrolment)[2]
    voted = pairwise.on_vote(store, "a", code, sess, [], "", request(), 1)
    assert item_at(voted.session) == 2
    again = pairwise.on_vote(store, "b", code, voted.session, [], "", request(), 1)
    assert (
        again.status == once.ALREADY and item_at(again.session) == 2 and again.session["item"] == voted.session["item"]
    )
    [vote] = store.votes(enrolment.study_id)
    assert vote.winner == "a"  # not replaced by the copy either


def test_a_late_guess_is_not_stored_as_the_next_items_answer(store):
    """1-5 design: the rater answers item 1's question, scores item 2 (whose question is now pending), and
    a late retry of item 1's answer arrives: it used to be item 2's answer."""
    code = study(store, guess=("BS-4",))
    enrolment = invites.resolve(store, code)
    first = h.on_start(store, code, {}, request()).rate
    asked = h.on_submit(store, request(), code, first.session, *form(4), 1)
    assert asked.guess_ask and item_at(asked.session) == 1
    picks = ["A", *[None] * (SLOTS - 1)]
    second = h.on_guess(store, request(), code, asked.session, *picks, 1)
    scored = h.on_submit(store, request(), code, second.session, *form(3), 2)
    assert scored.guess_ask and item_at(scored.session) == 2  # item 2's question: a copy could land here
    late = h.on_guess(store, request(), code, scored.session, *picks, 1)
    assert late.status == once.ALREADY and item_at(late.session) == 2 and late.guess_ask  # still asked
    assert [g.item_ordinal for g in store.guesses(enrolment.study_id)] == [0]


def test_a_late_pairwise_answer_is_not_stored_on_the_next_pair(store):
    code = study(store, design="pairwise", guess=("BS-4",))
    enrolment = invites.resolve(store, code)
    sess = pairwise.start(store, enrolment)[2]
    asked = pairwise.on_vote(store, "a", code, sess, [], "", request(), 1)
    assert asked.asked == ("BS-4",) and item_at(asked.session) == 1
    answer = [guessing.DONT_KNOW, *[None] * (pairwise.ASKED_MAX - 1)]
    second = pairwise.on_guess(store, request(), code, asked.session, *answer, 1)
    on_two = pairwise.on_vote(store, "b", code, second.session, [], "", request(), 2)
    assert on_two.asked and item_at(on_two.session) == 2  # pair 2's question: a copy could land here
    late = pairwise.on_guess(store, request(), code, on_two.session, *answer, 1)
    assert late.status == once.ALREADY and late.asked == ("BS-4",) and item_at(late.session) == 2
    items = {i.ordinal: i.id for i in store.items(enrolment.study_id)}
    assert not store.pair_answered(enrolment.rater_id, items[1])


def test_a_resent_skip_does_not_skip_the_next_item(store):
    for design in ("scores", "pairwise"):
        code = study(store, design=design)
        enrolment = invites.resolve(store, code)
        if design == "scores":
            sess = h.on_start(store, code, {}, request()).rate.session
            skip = h.on_skip
        else:
            sess = pairwise.start(store, enrolment)[2]
            skip = pairwise.on_skip
        *values, reason, note = skip(store, code, sess, "language", "", request(), 1)
        moved = values[0]
        assert item_at(moved) == 2 and reason is None
        *values, _, _ = skip(store, code, moved, "language", "", request(), 1)  # re-sent
        assert item_at(values[0]) == 2 and once.ALREADY in values
        assert [s.item_ordinal for s in store.skips(enrolment.study_id)] == [0], design


def test_a_flag_that_raced_a_submit_flags_nothing_and_keeps_its_note(store):
    for design in ("scores", "pairwise"):
        code = study(store, design=design)
        enrolment = invites.resolve(store, code)
        if design == "scores":
            sess = h.on_start(store, code, {}, request()).rate.session
            moved = h.on_submit(store, request(), code, sess, *form(4), 1).session
            flag = h.on_flag
        else:
            sess = pairwise.start(store, enrolment)[2]
            moved = pairwise.on_vote(store, "a", code, sess, [], "", request(), 1).session
            flag = pairwise.on_flag
        status, note = flag(store, code, moved, "Response A", "broken", "cut off", request(), 1)
        assert "Nothing was flagged" in status and note == "cut off"
        assert store.flags(enrolment.study_id) == [], design
        status, note = flag(store, code, moved, "Response A", "broken", "cut off", request(), 2)
        assert status.startswith("Flagged") and note == ""
        assert [f.item_ordinal for f in store.flags(enrolment.study_id)] == [1], design


def test_every_request_that_answers_an_item_names_it(store):
    """Wiring: the page sends the hidden position as the last input of every Rate-tab request that
    answers an item, so the promise holds from the page as from a client."""
    with gr.Blocks() as demo:
        rate.build(AppContext(model=lambda: None, extras={"store": store}))
    fns = {f.api_name: f for f in demo.fns.values() if f.api_name}
    answering = [
        "rate_submit", "rate_guess", "rate_skip", "rate_flag",
        "pair_vote_a", "pair_vote_b", "pair_vote_tie", "pair_vote_bothbad", "pair_guess", "pair_skip", "pair_flag",
    ]  # fmt: skip
    assert "rate_submit_rubric" not in fns  # one Submit for every rubric (issue 46)
    for name in answering:
        last = fns[name].inputs[-1]
        assert isinstance(last, gr.Number) and last.elem_id in ("rate-item-for", "pair-item-for"), name
    # and every position-bearing output is what these requests send back: each reply sets it
    for name in answering:
        if not name.endswith("_flag"):  # a flag stays on its item: it sets nothing but the status
            assert any(getattr(o, "elem_id", None) in ("rate-item-for", "pair-item-for") for o in fns[name].outputs), (
                name
            )
