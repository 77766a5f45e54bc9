"""Measuring the blind against the running app (`python app.py`, over HTTP as a browser or a script
would call it): a rater of a study that asks "Which response do you think came from BS-4?" gets the
question only after scoring, and no route tells them (or anyone) whether they were right while the
study is open: the reply to a right and to a wrong answer is the same, every rating and Results
handler called from the rater's session is silent about it, the Organizer shows the index only once the
study is closed (the right password as the positive control), and the stakeholder page only once it is
published. The rating routes never name the model that wrote the study (docs/blinding.md, route 10).

The store behind it is tested on SQLite and PostgreSQL in tests/test_guesses.py; this file uses the
session's shared app (SQLite)."""

from __future__ import annotations

import json
import re
import secrets
import uuid
from typing import Any

import httpx
import pytest

from arena import studies
from arena.rating import blind, guessing
from tests.support.live_app import (
    ORGANIZER_PASSWORD,
    GradioHTTP,
    LiveApp,
    dep_by_api_name,
    dep_by_trigger,
    dependency_tab,
    shared_app,
)
from tests.support.seeding import db_store, invite_all
from ui.rate.view import SLOTS, RateView, form

pytestmark = pytest.mark.timeout(900)

TOKEN = secrets.token_hex(4)
METHODS = ("BS-4", "TS-Temp", "TS-Tilted")
MODEL = f"SecretModel-{TOKEN}"  # planted as the study's model: no rating route may name it
# What a reply would say if it told the rater how they did.
TELLTALE = re.compile(r"\b(correct|incorrect|right|wrong|recogni[sz]|blinding index|the blind)\b", re.IGNORECASE)


@pytest.fixture(scope="module")
def app(tmp_path_factory) -> LiveApp:
    return shared_app(tmp_path_factory.getbasetemp())


@pytest.fixture(scope="module")
def world(app: LiveApp):
    store = db_store(app.workdir)
    sid = store.create_study(
        f"Guessing study {TOKEN}",
        model=MODEL,
        methods=list(METHODS),
        settings={m: {} for m in METHODS},
        guess_methods=["BS-4"],
    )
    iids = store.add_items(sid, [{"prompt": f"Guess prompt {k} {TOKEN}", "scenario": "seeded"} for k in range(2)])
    for iid in iids:
        for m in METHODS:
            store.add_output(iid, m, 0, text=f"{m} text {iid} {TOKEN}", settings={}, seed=1, model=MODEL, new_tokens=4)
    codes = invite_all(store, sid, [f"ann-{TOKEN}", f"bo-{TOKEN}"])  # ann always picks BS-4, bo never
    client = GradioHTTP(app.url)
    yield dict(store=store, sid=sid, codes=codes, client=client)
    client.close()
    store.dispose()


def scores(n: int) -> list[Any]:
    return [*form([[4] * 3] * n), None]  # and no item named


def key_of(store, rater: str, item_public_id: str) -> str:
    item = store.item_by_public_id(item_public_id)
    methods = {o.id: o.method for o in store.outputs_for_item(item.id)}
    rid = store.find_rater(rater)
    [pos] = [p for p, oid in store.assignment(rid, item.id).items() if methods[oid] == "BS-4"]
    return blind.LABELS[pos]


def on_screen(store, rater: str, sid: int) -> str:
    """The public id of the item this rater saw last (the store records the order when it is shown)."""
    rid = store.find_rater(rater)
    shown = [i for i in store.items(sid) if store.assignment(rid, i.id)]
    return shown[-1].public_id


def layout_dep(client: GradioHTTP) -> int:
    comps = client.components()
    for i, d in enumerate(client.dependencies()):
        if d["outputs"] and comps[d["outputs"][0]]["props"].get("elem_id") == "rate-guess":
            return d.get("id", i)
    raise LookupError("no handler shows the guess question")


def reply_parts(result) -> dict[str, Any]:
    """What a reply shows besides the texts of the next item (whose order differs per rater)."""
    view = RateView.parse(result.data)
    # each slot's HTML has its letter in a heading: compare the bodies, whatever letter they got
    texts = sorted(re.sub(r"Response [A-H]", "Response ?", slot.text) for slot in view.slots)
    return {"progress": view.progress, "prompt": view.prompt, "status": view.status, "texts": texts}


def test_the_question_comes_after_scoring_and_no_reply_says_whether_the_guess_was_right(app, world):
    client, store, sid = world["client"], world["store"], world["sid"]
    start, submit = dep_by_api_name(client, "rate_start"), dep_by_api_name(client, "rate_submit")
    answer = dep_by_api_name(client, "rate_guess")
    replies: dict[str, list[dict[str, Any]]] = {}
    raw_replies: list[str] = []
    sessions = {}
    for rater, code in world["codes"].items():
        session = sessions[rater] = uuid.uuid4().hex[:11]
        opened = client.call(start, [code, None], session_hash=session)
        assert opened.ok, opened.error
        early = client.call(answer, [code, None, "A", *[None] * (SLOTS - 1), None], session_hash=session)
        assert not early.ok and "score every response" in (early.error or ""), early.error
        replies[rater] = []
        for _ in range(2):
            saved = client.call(submit, [code, None, *scores(3)], session_hash=session)
            assert saved.ok and "One more question about this item" in saved.raw, saved.error
            raw_replies.append(saved.raw)
            item = on_screen(store, rater, sid)
            key = key_of(store, rater, item)
            picked = key if rater.startswith("ann") else next(c for c in "ABC" if c != key)
            shown = client.call(layout_dep(client), [None], session_hash=session)
            assert shown.ok and "Which response do you think came from BS-4?" in shown.raw, shown.error
            assert guessing.DONT_KNOW in shown.raw
            done = client.call(answer, [code, None, picked, *[None] * (SLOTS - 1), None], session_hash=session)
            assert done.ok, done.error
            raw_replies.append(done.raw)
            replies[rater].append(reply_parts(done))
    assert replies[f"ann-{TOKEN}"] == replies[f"bo-{TOKEN}"]
    assert replies[f"ann-{TOKEN}"][0]["status"] == "Thank you. Here is the next item."
    got = store.guesses(sid)
    assert sorted((g.rater, g.guessed_position == g.true_position) for g in got) == [
        (f"ann-{TOKEN}", True),
        (f"ann-{TOKEN}", True),
        (f"bo-{TOKEN}", False),
        (f"bo-{TOKEN}", False),
    ]
    for raw in raw_replies:
        assert not TELLTALE.search(raw.replace("One more question", "")), raw[:400]
        assert MODEL not in raw
    world["sessions"] = sessions


def value_for(comp: dict, code: str, sid: int) -> Any:
    props = comp.get("props", {})
    label = str(props.get("label", "")).lower()
    if comp["type"] == "textbox" and "invite code" in label:
        return code
    if comp["type"] == "state":
        return None
    if comp["type"] == "textbox" and props.get("type") == "password":
        return ""
    if comp["type"] == "dropdown":
        return [] if props.get("multiselect") else sid
    if comp["type"] == "radio":
        choices = props.get("choices") or []
        return choices[0][1] if choices and isinstance(choices[0], (list, tuple)) else (choices or [None])[0]
    if comp["type"] == "checkbox":
        return False
    return props.get("value")


def test_every_rating_and_results_route_is_silent_about_the_guesses_while_the_study_is_open(app, world):
    """From each rater's own session (after their guesses), call every handler of the Rate and Results
    tabs: none answers with a word about being right, the index, or the model."""
    client, sid = world["client"], world["sid"]
    config, comps = client.config(), client.components()
    calls = 0
    for rater, session in world.get("sessions", {}).items():
        for index, dep in enumerate(client.dependencies()):
            if dependency_tab(config, dep) not in ("rating", "results") or not (dep["inputs"] or dep["outputs"]):
                continue
            values = [value_for(comps[c], world["codes"][rater], sid) for c in dep["inputs"]]
            result = client.call(dep.get("id", index), values, session_hash=session)
            calls += 1
            text = result.raw.replace("One more question", "")
            assert not TELLTALE.search(text), (dep.get("api_name"), text[:400])
            assert MODEL not in result.raw, dep.get("api_name")
    assert calls >= 2 * 8, "the sweep reached too few handlers: did the previous test run?"
    page = httpx.get(f"{app.url}/present", params={"study": sid}, timeout=60, trust_env=False)
    assert page.status_code == 404 and "blind" not in page.text.lower()


def test_the_organizer_sees_the_index_only_once_the_study_is_closed(app, world):
    client, store, sid = world["client"], world["store"], world["sid"]
    session = uuid.uuid4().hex[:11]
    index_fn = dep_by_trigger(client, "Blinding index")
    no_pw = client.call(index_fn, ["", sid], session_hash=session)
    assert not no_pw.ok and "password" in (no_pw.error or "")
    early = client.call(index_fn, [ORGANIZER_PASSWORD, sid], session_hash=session)
    assert not early.ok and "once the study is closed" in (early.error or ""), early.error
    assert "BS-4 in" not in early.raw
    form_fn = dep_by_trigger(client, "Form check")
    busy = client.call(form_fn, [ORGANIZER_PASSWORD, sid], session_hash=session)
    assert not busy.ok and "raters have started rating" in (busy.error or ""), busy.error
    studies.close_study(store, sid)
    shown = client.call(index_fn, [ORGANIZER_PASSWORD, sid], session_hash=session)
    assert shown.ok, shown.error
    text = json.dumps(shown.data).replace("\\\\", "")  # the Markdown escapes (md_text) of "BS\\-4" etc.
    assert "picked BS-4 in 50% of their guesses (chance 33%)" in text, text[:600]
    form = client.call(form_fn, [ORGANIZER_PASSWORD, sid], session_hash=session)
    assert form.ok and "too few items" in form.raw, form.error  # two items: too few to check
    studies.publish_study(store, sid)
    page = httpx.get(f"{app.url}/present", params={"study": sid}, timeout=120, trust_env=False)
    assert page.status_code == 200 and "Was the blind kept?" in page.text
    assert "picked BS-4 in 50% of their guesses" in page.text
