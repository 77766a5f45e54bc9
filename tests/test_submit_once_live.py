"""Every answer is applied once, to the item it names, against the running app
(ui/rate/once.py): the one Submit (the default rubric's and another), a pairwise vote, the blind question's
answer in both designs, and Skip. An API client that re-sends a request after a lost reply (or a second
tap while the first one saves, or a late retry) sends the same values naming the same item; the server
had moved on, and the copy used to be stored on the next item, which the rater had not seen. The same
at the handler level: tests/test_submit_once.py. The check is the session's, not the database's,
so the run's live database is enough (tests/support/stores.py LIVE_BACKENDS)."""

from __future__ import annotations

import secrets
from typing import Any

import pytest

from arena.rating import guessing
from arena.store import Store
from common.rubric import Rubric
from tests.support.live_app import DUMMY_ENGINE, GradioHTTP, dep_by_api_name, shared_app
from tests.support.seeding import invite, seed_study
from tests.support.stores import LIVE_BACKENDS
from ui.rate.view import form

pytestmark = pytest.mark.timeout(900)

TOKEN = secrets.token_hex(4)
METHODS = ("BS-4", "TS-Temp", "TS-Tilted")
SLOTS = 8
RUBRIC = Rubric.from_dict(
    {"dimensions": [{"name": "quality", "low": 1, "high": 10}, {"name": "fun", "low": 1, "high": 7}]}
)


@pytest.fixture(scope="module", params=LIVE_BACKENDS)
def world(request, tmp_path_factory):
    """The shared dummy-engine app (nothing here is generated), the one the browser tests that create
    studies use on the same database: this module's study and raters have names of their own."""
    app = shared_app(tmp_path_factory.getbasetemp(), DUMMY_ENGINE, db=request.param)
    store = Store(app.db_url)
    client = GradioHTTP(app.url)
    try:
        yield store, client
    finally:
        client.close()
        store.dispose()


def submit_data(code: str, score: int, item_for: int) -> list[Any]:
    """rate_submit's inputs: code, session, each slot's rows (three responses scored on the default
    rubric), 8 comments, the item."""
    return [code, None, *form([[score] * 3] * 3), item_for]


def texts(n: int) -> list[dict[str, str]]:
    return [{m: f"{m} answer {k} {TOKEN}" for m in METHODS} for k in range(n)]


def test_a_resent_submit_is_not_stored_on_the_next_item(world):
    store, client = world
    sid, items = seed_study(store, f"Once {TOKEN}", [f"Prompt {k} {TOKEN}" for k in range(2)], texts(2))
    code, session = invite(store, sid, f"once-{TOKEN}"), secrets.token_hex(6)
    start, submit = dep_by_api_name(client, "rate_start"), dep_by_api_name(client, "rate_submit")
    assert client.call(start, [code, None], session_hash=session).ok
    rater = f"once-{TOKEN}"

    first = client.call(submit, submit_data(code, 5, 1), session_hash=session)
    assert first.ok, first.error
    again = client.call(submit, submit_data(code, 5, 1), session_hash=session)  # the same request, re-sent
    assert again.ok, again.error
    assert "saved already" in again.raw and "Item 2 of 2" in again.raw  # item 2 is on screen, untouched
    rated = store.ratings_frame(sid)
    assert len(rated) == 3 and set(rated.item_id) == {items[0]} and set(rated.rater) == {rater}

    last = client.call(submit, submit_data(code, 2, 2), session_hash=session)
    assert last.ok and "rated all 2 items" in last.raw
    # a tap after the last item: no error, nothing stored
    after = client.call(submit, submit_data(code, 2, 2), session_hash=session)
    assert after.ok, after.error
    assert "saved already" in after.raw
    assert len(store.ratings_frame(sid)) == 6


def test_a_resent_vote_is_not_stored_on_the_next_pair(world):
    store, client = world
    sid = store.create_study(
        f"Pair once {TOKEN}", model="m", methods=list(METHODS), settings={m: {} for m in METHODS}, design="pairwise"
    )
    iids = store.add_items(sid, [{"prompt": f"Pair prompt {k} {TOKEN}", "scenario": "seeded"} for k in range(3)])
    for iid in iids:
        for m in METHODS:
            store.add_output(iid, m, 0, text=f"{m} says {iid} {TOKEN}", settings={}, seed=1, model="m", new_tokens=4)
    code, session = invite(store, sid, f"pair-once-{TOKEN}"), secrets.token_hex(6)
    start, vote = dep_by_api_name(client, "rate_start"), dep_by_api_name(client, "pair_vote_a")
    assert client.call(start, [code, None], session_hash=session).ok
    for position in (1, 1, 2, 3, 3):  # the first and the last vote sent twice
        reply = client.call(vote, [code, None, [], "", position], session_hash=session)
        assert reply.ok, reply.error  # no red "Error", after the last pair either
    assert len(store.votes(sid)) == 3
    assert "saved already" in reply.raw


def own_study(store: Store, name: str, design: str = "scores", **kwargs: Any) -> tuple[int, list[int], str]:
    """A study of 2 items with `kwargs` (a rubric, the blind question), and one rater's code."""
    sid = store.create_study(
        f"{name} {TOKEN}", model="m", methods=list(METHODS), settings={m: {} for m in METHODS}, design=design, **kwargs
    )
    iids = store.add_items(sid, [{"prompt": f"{name} prompt {k} {TOKEN}", "scenario": "seeded"} for k in range(2)])
    for iid in iids:
        for m in METHODS:
            store.add_output(iid, m, 0, text=f"{m} on {iid} {TOKEN}", settings={}, seed=1, model="m", new_tokens=4)
    return sid, iids, invite(store, sid, f"{name.lower().replace(' ', '-')}-{TOKEN}")


def rubric_data(code: str, item_for: int) -> list[Any]:
    """rate_submit's inputs for RUBRIC: code, session, each slot's rows (two questions for three
    responses), 8 comments, the item."""
    return [code, None, *form([[9, 6]] * 3), item_for]


def test_a_resent_rubric_submit_is_not_stored_on_the_next_item(world):
    store, client = world
    sid, iids, code = own_study(store, "Rubric once", rubric=RUBRIC)
    session = secrets.token_hex(6)
    start, submit = dep_by_api_name(client, "rate_start"), dep_by_api_name(client, "rate_submit")
    assert client.call(start, [code, None], session_hash=session).ok
    first = client.call(submit, rubric_data(code, 1), session_hash=session)
    assert first.ok and "Item 2 of 2" in first.raw, first.error
    again = client.call(submit, rubric_data(code, 1), session_hash=session)  # re-sent
    assert again.ok and "saved already" in again.raw and "Item 2 of 2" in again.raw, again.error
    rated = store.ratings_frame(sid)
    assert len(rated) == 3 and set(rated.item_id) == {iids[0]}


def test_a_late_answer_to_the_blind_question_is_not_stored_on_the_next_item(world):
    """Both designs: item 1 answered, item 2 scored (its question pending), then a late retry of item 1's
    answer: it used to become item 2's."""
    store, client = world
    start = dep_by_api_name(client, "rate_start")
    sid, iids, code = own_study(store, "Guess once", guess_methods=["BS-4"])
    session = secrets.token_hex(6)
    submit, answer = dep_by_api_name(client, "rate_submit"), dep_by_api_name(client, "rate_guess")
    assert client.call(start, [code, None], session_hash=session).ok
    picks = ["A", *[None] * (SLOTS - 1)]
    for data in (submit_data(code, 4, 1), [code, None, *picks, 1], submit_data(code, 3, 2)):
        reply = client.call(submit if len(data) > SLOTS + 3 else answer, data, session_hash=session)
        assert reply.ok, reply.error
    late = client.call(answer, [code, None, *picks, 1], session_hash=session)
    assert late.ok and "saved already" in late.raw, late.error
    assert [g.item_id for g in store.guesses(sid)] == [iids[0]]

    sid, iids, code = own_study(store, "Pair guess once", design="pairwise", guess_methods=["BS-4"])
    session = secrets.token_hex(6)
    vote, answer = dep_by_api_name(client, "pair_vote_a"), dep_by_api_name(client, "pair_guess")
    assert client.call(start, [code, None], session_hash=session).ok
    picks = [guessing.DONT_KNOW, *[None] * 7]
    for dep, data in (
        (vote, [code, None, [], "", 1]),
        (answer, [code, None, *picks, 1]),
        (vote, [code, None, [], "", 2]),
    ):
        reply = client.call(dep, data, session_hash=session)
        assert reply.ok, reply.error
    late = client.call(answer, [code, None, *picks, 1], session_hash=session)
    assert late.ok and "saved already" in late.raw, late.error
    rid = store.find_rater(f"pair-guess-once-{TOKEN}")
    assert store.pair_answered(rid, iids[0]) and not store.pair_answered(rid, iids[1])


def test_a_resent_skip_does_not_skip_the_next_item(world):
    store, client = world
    sid, iids, code = own_study(store, "Skip once")
    session = secrets.token_hex(6)
    start, skip = dep_by_api_name(client, "rate_start"), dep_by_api_name(client, "rate_skip")
    assert client.call(start, [code, None], session_hash=session).ok
    for _ in range(2):  # the same request twice
        reply = client.call(skip, [code, None, "language", "", 1], session_hash=session)
        assert reply.ok and "Item 2 of 2" in reply.raw, reply.error
    assert "saved already" in reply.raw
    assert [s.item_id for s in store.skips(sid)] == [iids[0]]
