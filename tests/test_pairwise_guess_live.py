"""The pairwise blind question against the running app, over HTTP as a script would call it: a rater
who votes on every pair of a study that asks about BS-4 gets the same question, in the same words and
with the same choices, on the pairs that hold BS-4 and on those that do not, and the same reply to
every answer; so neither the question nor the replies say which pairs held BS-4 (arena/rating/pair_rating.py).
The store behind it, on SQLite and PostgreSQL: tests/test_pairwise_guess.py."""

from __future__ import annotations

import json
import re
import secrets

import pytest

from tests.support.live_app import GradioHTTP, LiveApp, dep_by_api_name, shared_app
from tests.support.seeding import db_store, invite_all

pytestmark = pytest.mark.timeout(900)

TOKEN = secrets.token_hex(4)
METHODS = ("BS-4", "TS-Temp", "TS-Tilted")
ITEMS = 6  # two blocks of the three pairs: some pairs hold BS-4, some do not


@pytest.fixture(scope="module")
def app(tmp_path_factory) -> LiveApp:
    return shared_app(tmp_path_factory.getbasetemp())


def _normalised(data: object, texts: list[str]) -> str:
    """A reply's values without what differs by item anyway: the prompt and response texts, and the
    numbers (progress, item id)."""
    raw = json.dumps(data, ensure_ascii=False, sort_keys=True)
    for t in sorted(texts, key=len, reverse=True):
        raw = raw.replace(t, "TEXT")
    return re.sub(r"\d+", "N", raw)


def test_the_question_and_every_reply_are_the_same_on_pairs_with_and_without_the_target(app):
    store = db_store(app.workdir)
    sid = store.create_study(
        f"Pair guess {TOKEN}",
        model="m",
        methods=list(METHODS),
        settings={m: {} for m in METHODS},
        guess_methods=["BS-4"],
        design="pairwise",
    )
    iids = store.add_items(sid, [{"prompt": f"Pair prompt {k} {TOKEN}", "scenario": "seeded"} for k in range(ITEMS)])
    texts = [f"Pair prompt {k} {TOKEN}" for k in range(ITEMS)]
    for iid in iids:
        for m in METHODS:
            texts.append(f"{m} says {iid} {TOKEN}")
            store.add_output(iid, m, 0, text=texts[-1], settings={}, seed=1, model="m", new_tokens=4)
    [(rater, code)] = invite_all(store, sid, [f"pg-{TOKEN}"]).items()
    client = GradioHTTP(app.url)
    try:
        session = secrets.token_hex(6)
        opened = client.call(dep_by_api_name(client, "rate_start"), [code, None], session_hash=session)
        assert opened.ok, opened.error
        vote, guess = dep_by_api_name(client, "pair_vote_a"), dep_by_api_name(client, "pair_guess")
        after_vote: dict[bool, set[str]] = {True: set(), False: set()}
        after_answer: set[str] = set()
        rid = store.find_rater(rater)
        for k in range(ITEMS):
            voted = client.call(vote, [code, None, [], "", None], session_hash=session)
            assert voted.ok, voted.error
            assert "If one of these came from BS-4, which one?" in voted.raw
            [item] = [i for i in store.items(sid) if store.vote_of(rid, i.id) and not store.pair_answered(rid, i.id)]
            methods = {o.id: o.method for o in store.outputs_for_item(item.id)}
            holds = "BS-4" in {methods[o] for o in store.assignment(rid, item.id).values()}
            after_vote[holds].add(_normalised(voted.data, texts))
            answered = client.call(guess, [code, None, "AB"[k % 2], *[None] * 7, k + 1], session_hash=session)
            assert answered.ok, answered.error
            after_answer.add(_normalised(answered.data, texts))
        assert after_vote[True] and after_vote[False], "the schedule gave only one kind of pair"
        assert after_vote[True] == after_vote[False] and len(after_vote[True]) == 1
        # every answer got the same reply (the last one says the study is done: a reply of its own)
        assert len(after_answer) <= 2
        held = sum(1 for g in store.guesses(sid))
        assert 0 < held < ITEMS  # only the pairs that held BS-4 reached the index
    finally:
        client.close()
        store.dispose()
