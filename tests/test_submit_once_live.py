"""A Submit or a vote is applied once, to the item it names, against the running app on SQLite and
PostgreSQL (ui/rate/once.py). An API client that re-sends a submit after a lost reply (or a second tap
while the first one saves) sends the same values naming the same item; the server had moved on, and
the copy used to be stored on the next item, which the rater had not seen."""

from __future__ import annotations

import secrets
from typing import Any

import pytest

from arena.store import Store
from tests.support.live_app import GradioHTTP, dep_by_api_name, start_app
from tests.support.seeding import invite, seed_study
from tests.support.stores import BACKENDS, fresh_pg_url

pytestmark = pytest.mark.timeout(900)

TOKEN = secrets.token_hex(4)
METHODS = ("BS-4", "TS-Temp", "TS-Tilted")
SLOTS, DIMENSIONS = 8, 3


@pytest.fixture(scope="module", params=BACKENDS)
def world(request, tmp_path_factory):
    workdir = tmp_path_factory.mktemp(f"once-{request.param}")
    extra: dict[str, str] = {}
    drop = None
    if request.param == "postgresql":
        url, drop = fresh_pg_url()
        extra["DATABASE_URL"] = url
    else:
        url = f"sqlite:///{workdir / 'arena.db'}"
    store = Store(url)
    app = start_app(workdir, extra)
    client = GradioHTTP(app.url)
    try:
        yield store, client
    finally:
        client.close()
        app.kill()
        store.dispose()
        if drop is not None:
            drop()


def submit_data(code: str, score: int, item_for: int) -> list[Any]:
    """rate_submit's inputs: code, session, 8 x 3 radios (three responses scored), 8 comments, the item."""
    radios: list[Any] = [score] * (3 * DIMENSIONS) + [None] * ((SLOTS - 3) * DIMENSIONS)
    return [code, None, *radios, *[None] * SLOTS, item_for]


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
