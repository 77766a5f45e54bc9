"""Security through every route the running app exposes, not only through the page.

A Gradio app answers every registered event handler over HTTP by its index (POST
/gradio_api/queue/join), whatever `api_visibility` says: "private" only hides a handler from the
API page and from `gradio_client`. So this test reads the handler list from /config (what a
browser gets) and calls each one itself, with empty, wrong and hostile inputs, in a fresh session
and in a session that has started rating. It then checks:

  * organizer actions (unlock/overview, create, resume, open/close/publish, invite/revoke, reveal,
    export, import, delete a study or a rater's ratings) answer only with the organizer password and
    change nothing without it;
  * no response reaches a rater with another rater's comment, name or invite code, a method name of
    a blind study, or the planted timing and seed numbers of its outputs (those numbers reach no
    route at all, the Results tab included, while the study is unpublished);
  * the rating handlers take an invite code, never a name: a name in the code box is refused with
    the one generic message, and a code opens only its own study;
  * files the server holds (the ratings database, the source) are not served by the file routes,
    and there is no run history (/gradio_api/runs) that would keep codes and scores.

Positive controls (the right password reveals the mapping once the study is closed, imports the
file and deletes a study) prove that the calls reach the handlers, so a passing sweep means
refused, not unreachable.
"""

from __future__ import annotations

import csv
import json
import re
import secrets
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

import decoders
from arena.access import invites
from arena.files import export
from arena.rating import blind
from arena.store.schema import skips
from common.errors import UserError
from tests.support.live_app import (
    API,
    DUMMY_ENGINE,
    ORGANIZER_PASSWORD,
    CallResult,
    GradioHTTP,
    LiveApp,
    dep_by_api_name,
    dep_by_trigger,
    dependency_tab,
    organizer_session,
    shared_app,
)
from tests.support.seeding import db_store, invite, seed_study
from ui.rate.view import form as rate_form

pytestmark = pytest.mark.timeout(900)

TOKEN = secrets.token_hex(4)
VICTIM = f"victim-{TOKEN}"
ATTACKER = f"mallory-{TOKEN}"
VICTIM_COMMENT = f"VICTIM-SECRET-{TOKEN}"
IMPORTED_RATER = f"imported-by-mallory-{TOKEN}"
# Numbers planted on the study's outputs; none may reach a rater.
PLANTED = dict(latency_ms=98765.4321, ttft_ms=12345.678, tokens_per_s=4321.987, seed=918273645, new_tokens=7)
OPEN_TABS = {"compare", "trace", "results"}  # open comparison and per-method results: method names belong there
GENERATING_TABS = {"compare", "trace"}  # their handlers run the model: called once per variant, to save time
SWEEP_THREADS = 4  # fresh sessions' calls at once (the app's default concurrency per handler is 4)
CODES: dict[str, str] = {}  # invite codes the `world` fixture hands out: "victim", "attacker", "other"


# Gradio's own input checks (a value outside a slider's range or a dropdown's choices) refuse a call
# before the handler runs: refused, nothing read or written, so no password message either.
GRADIO_INPUT_CHECK = re.compile(r"Value .* is (greater than maximum|less than minimum|not in the list of choices)")


def rating_values(scores: list[list[int]], comments: list[str | None]) -> list[Any]:
    """rate_submit's inputs after (code, session): each slot's rows (ui/rate/view.py form), then 8 comments."""
    return [*rate_form(scores, comments), None]  # no item named: the item on screen (ui/rate/once.py)


@pytest.fixture(scope="module")
def app(tmp_path_factory) -> LiveApp:
    """The shared app on the dummy engine (`DUMMY_ENGINE`): the sweep calls Compare's and the trace's
    handlers too, and what they generate is not what it tests (their answers are read for secrets)."""
    return shared_app(tmp_path_factory.getbasetemp(), DUMMY_ENGINE)


@pytest.fixture(scope="module")
def world(app: LiveApp, tmp_path_factory):
    """A blind study, rated by the victim with a secret comment; the attacker enrolled in it too (and
    in a second study); and a forged import file."""
    store = db_store(app.workdir)
    texts = {"BS-4": f"first answer {TOKEN}", "TS-Temp": f"second answer {TOKEN}", "TS-Tilted": f"third answer {TOKEN}"}
    sid, _ = seed_study(store, f"Security study {TOKEN}", [f"Security prompt {TOKEN}"], [texts], **PLANTED)
    other_texts = {m: f"other study {m} {TOKEN}" for m in texts}
    other, _ = seed_study(store, f"Other study {TOKEN}", [f"Other prompt {TOKEN}"], [other_texts])
    CODES.update(
        victim=invite(store, sid, VICTIM), attacker=invite(store, sid, ATTACKER), other=invite(store, other, ATTACKER)
    )
    client = GradioHTTP(app.url)
    start, submit = dep_by_api_name(client, "rate_start"), dep_by_api_name(client, "rate_submit")
    victim_session = uuid.uuid4().hex[:11]
    opened = client.call(start, [CODES["victim"], None], session_hash=victim_session)
    assert opened.ok, opened.error
    done = client.call(
        submit,
        [CODES["victim"], None, *rating_values([[5, 4, 3]] * 3, [VICTIM_COMMENT] * 3)],
        session_hash=victim_session,
    )
    assert done.ok and "Saved" in json.dumps(done.data), done.error
    victim_rows = store.ratings_frame(sid)
    assert len(victim_rows) == 3 and set(victim_rows["comment"]) == {VICTIM_COMMENT}

    # A well-formed export whose rater is someone new: importing it would add a rating.
    folder = tmp_path_factory.mktemp("forged")
    path = folder / "ratings.csv"
    with path.open("w", newline="", encoding="utf-8") as f:  # whole (an open study's export is sealed: no import)
        export.write_export(export.export_rows(store, sid, server_copy=True), "csv", f)
    with path.open(newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    for row in rows:
        row["rater"] = IMPORTED_RATER
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    # Uploads need an organizer session (ui/web.py): the organizer uploads the file that the sweep's
    # forged import calls then name, as a rater would who had learnt its path.
    organizer = GradioHTTP(app.url)
    organizer_session(organizer)
    uploaded = organizer.http.post(
        f"{app.url}{API}/upload", files={"files": ("ratings.csv", path.read_bytes(), "text/csv")}
    )
    organizer.close()
    uploaded.raise_for_status()
    file_data = {"path": uploaded.json()[0], "orig_name": "ratings.csv", "meta": {"_type": "gradio.FileData"}}
    yield dict(store=store, sid=sid, other=other, client=client, file_data=file_data, victim_session=victim_session)
    client.close()
    store.dispose()


def _choice_values(choices: Any) -> list[Any]:
    out = []
    for c in choices or []:
        out.append(c[1] if isinstance(c, (list, tuple)) and len(c) == 2 else c)
    return out


def learn_choices(dep: dict, result: CallResult, known: dict[int, list[Any]]) -> None:
    """Remember dropdown choices a handler's updates set in this session (as a browser would)."""
    if not result.ok or not result.data:
        return
    for cid, value in zip(dep["outputs"], result.data):
        if isinstance(value, dict) and "choices" in value:
            known[cid] = _choice_values(value["choices"])


def is_code_box(comp: dict) -> bool:
    """The Rate tab's invite code box (a password-type textbox, like the organizer password)."""
    props = comp.get("props", {})
    return comp["type"] == "textbox" and "invite code" in str(props.get("label", "")).lower()


def is_password_box(comp: dict) -> bool:
    return comp["type"] == "textbox" and comp.get("props", {}).get("type") == "password" and not is_code_box(comp)


def inputs_for(
    client: GradioHTTP, dep: dict, variant: str, sid: int, file_data: dict, known: dict[int, list[Any]] | None = None
) -> list[Any]:
    """Values for a handler's inputs: what a fresh page sends ("defaults") or hostile ones. Dropdowns
    get what the session was offered (Gradio refuses other values before the handler runs),
    preferring the study under attack, or every choice where several may be picked. The invite code
    box gets the attacker's own code ("hostile": the handlers run as that rater) or the attacker's
    name ("name": a name is not a code)."""
    comps = client.components()
    values: list[Any] = []
    for cid in dep["inputs"]:
        comp = comps[cid]
        kind, props = comp["type"], comp.get("props", {})
        default = props.get("value")
        if is_code_box(comp):
            values.append({"defaults": default, "hostile": CODES["attacker"], "name": ATTACKER}[variant])
        elif kind == "slider":
            values.append(props.get("minimum", default))  # keeps any generation to a token or so
        elif kind == "state":
            values.append(None)  # state comes from the server-side session, whatever is sent
        elif kind == "textbox" and props.get("type") == "password":
            values.append("" if variant == "defaults" else "wrong-" + secrets.token_hex(3))
        elif variant == "defaults":
            values.append(default)
        elif kind == "textbox":
            values.append(ATTACKER)
        elif kind == "number" and str(props.get("elem_id") or "").endswith("item-for"):
            # the position of the item on screen: left out (the item on screen), as gradio_client sends
            # it; naming a wrong one is refused as a repeat (tests/test_submit_once.py)
            values.append(None)
        elif kind == "number":
            values.append(sid)
        elif kind == "dropdown":
            offered = (known or {}).get(cid) or _choice_values(props.get("choices"))
            if props.get("multiselect"):
                values.append(list(offered))
            elif sid in offered or props.get("allow_custom_value"):
                values.append(sid)
            else:
                values.append(offered[0] if offered else None)
        elif kind == "radio":
            choices = _choice_values(props.get("choices"))
            values.append(choices[0] if choices else None)
        elif kind == "file":
            values.append(file_data)
        else:
            values.append(default)
    return values


def secrets_in(text: str, with_methods: bool) -> list[str]:
    """Secrets found in `text`. `with_methods`: also method names and the outputs' own timing and
    seed, which a blind route must not carry (the open Compare and Results tabs show them by design)."""
    # A rater's code is their only credential (it opens their ratings), so it is a secret, and so
    # is another rater's name.
    found = [s for s in (VICTIM_COMMENT, IMPORTED_RATER, VICTIM, CODES.get("victim")) if s and s in text]
    # The study is unpublished: its own numbers reach no route, not even the open tabs'.
    for name in ("latency_ms", "ttft_ms", "tokens_per_s"):
        if repr(PLANTED[name]) in text:
            found.append(f"{name}={PLANTED[name]}")
    if str(PLANTED["seed"]) in text:
        found.append("seed")
    if with_methods:
        found += [m for m in decoders.names() if m in text]
    return found


@dataclass
class Planned:
    """One call of the sweep: a handler, the values it gets, and the session it is made in."""

    fn: int
    dep: dict
    tab: str | None
    variant: str
    session: str
    convenience: bool


def on_page_load(dep: dict) -> bool:
    """A handler the page runs as it loads, with no input: nothing a caller sends reaches it."""
    return [t[1] for t in dep.get("targets", [])] == ["load"] and not dep.get("inputs")


def test_every_route_refuses_organizer_actions_and_leaks_nothing(app: LiveApp, world):
    client: GradioHTTP = world["client"]
    store = world["store"]
    sid = world["sid"]
    config = client.config()
    deps = client.dependencies()
    assert len(deps) >= 10, "the app exposes fewer handlers than expected: did the config change?"
    before = dict(
        studies=len(store.list_studies()),
        ratings=store.count_ratings(),
        victim=store.ratings_frame(sid).sort_values("output_id").to_dict("records"),
    )

    # A rater's session that has legitimately opened the study, to call handlers "from inside".
    attacker_session = uuid.uuid4().hex[:11]
    opened = client.call(
        dep_by_api_name(client, "rate_start"), [CODES["attacker"], None], session_hash=attacker_session
    )
    assert opened.ok and f"first answer {TOKEN}" in opened.raw, "positive control: a rater sees the texts"
    assert not secrets_in(opened.raw, with_methods=True)
    comps = client.components()

    organizer_calls = 0
    name_refusals = 0
    calls = 0
    problems: list[str] = []
    known: dict[str, dict[int, list[Any]]] = {}  # session -> dropdown choices offered to it

    def call(planned: Planned) -> CallResult:
        offered = known.setdefault(planned.session, {})
        result = client.call(
            planned.fn,
            inputs_for(client, planned.dep, planned.variant, sid, world["file_data"], offered),
            session_hash=planned.session,
        )
        learn_choices(planned.dep, result, offered)
        return result

    study_names = [s.name for s in store.list_studies() if TOKEN in s.name]  # this test's own, with its token
    assert study_names
    # Two rounds: the first lets list-refreshing handlers offer their choices to the session, the
    # second picks from them, as a curious rater clicking through every tab would. Only the rater's
    # session learns choices: a fresh session's round-2 call would send what its round-1 hostile call
    # sent, so round 2 is the rater's session alone (the generating tabs', fresh only, run once).
    for round_ in (1, 2):
        sweep: list[Planned] = []
        for index, dep in enumerate(deps):
            fn = dep.get("id", index)
            tab = dependency_tab(config, dep)
            if not dep.get("backend_fn", True) or (
                dep.get("api_visibility") == "private" and not dep.get("inputs") and not dep.get("outputs")
            ):
                continue  # a pure front-end event (a download made in the browser, say): nothing runs on the server
            takes_code = any(is_code_box(comps[c]) for c in dep.get("inputs", []))
            variants = ["defaults", "hostile"] if round_ == 1 else ["hostile"]
            if takes_code and round_ == 1:
                variants.append("name")
            # Pasting prompts or uploading a file switches the organizer's prompt source: the only
            # organizer handlers without the password. They read nothing stored and write only that radio.
            convenience = tab == "organizer" and not any(is_password_box(comps[c]) for c in dep.get("inputs", []))
            if convenience and on_page_load(dep):
                # the tables' first values in the reader's language: fixed placeholders, checked below
                assert all(comps[c]["type"] == "dataframe" for c in dep["outputs"]), dep
            elif convenience:
                assert [comps[c]["type"] for c in dep["outputs"]] == ["radio"] and len(dep["inputs"]) == 1, dep
            for variant in variants:
                if round_ == 2:
                    sessions = [] if tab in GENERATING_TABS else [attacker_session]
                else:
                    sessions = (
                        [uuid.uuid4().hex[:11]] if tab in GENERATING_TABS else [uuid.uuid4().hex[:11], attacker_session]
                    )
                sweep += [Planned(fn, dep, tab, variant, session, convenience) for session in sessions]
        # The rater's session clicks through in order, in this thread (each call may change what the
        # session holds, and what it is offered next); the fresh sessions' calls, each a visitor of its
        # own, run beside it on SWEEP_THREADS threads: the app answers several at once, as it does for
        # its visitors (the sweep took 116 s of CI one call after another).
        with ThreadPoolExecutor(SWEEP_THREADS) as pool:
            beside = {id(p): pool.submit(call, p) for p in sweep if p.session != attacker_session}
            in_order = {id(p): call(p) for p in sweep if p.session == attacker_session}
            results = [in_order[id(p)] if id(p) in in_order else beside[id(p)].result() for p in sweep]
        for planned, result in zip(sweep, results, strict=True):
            fn, dep, tab, variant = planned.fn, planned.dep, planned.tab, planned.variant
            session, convenience = planned.session, planned.convenience
            calls += 1
            where = (
                f"handler {fn} ({dep.get('api_name')}, tab {tab}, {variant}, round {round_}, "
                f"{'rater session' if session == attacker_session else 'fresh session'})"
            )
            leaked = secrets_in(result.raw, with_methods=tab not in OPEN_TABS)
            if leaked:
                problems.append(f"{where} leaked {leaked}: {result.raw[:300]}")
            if variant == "name":
                name_refusals += 1
                # in a fresh session Previous/Next/Submit first ask for Start; in the rater's, the code fails
                # the pairwise panel keeps its own session: the 1-5 rater has none there either
                fresh_session = session != attacker_session or str(dep.get("api_name") or "").startswith("pair_")
                expected = [invites.INVALID] + (["press Start"] if fresh_session else [])
                if result.ok or not any(e in (result.error or "") for e in expected):
                    problems.append(f"{where} took a name instead of an invite code: {result.raw[:300]}")
            if convenience and on_page_load(dep) and any(name in result.raw for name in study_names):
                problems.append(f"{where} showed a stored study without the password: {result.raw[:300]}")
            if tab == "organizer" and not convenience:
                organizer_calls += 1
                outputs = [comps[c]["type"] for c in dep.get("outputs", [])]
                if (
                    result.ok
                    and outputs == ["markdown"]
                    and "password" in json.dumps(result.data)
                    and "outputs" not in json.dumps(result.data)
                ):
                    continue  # the Create preview answers with a line asking for the password
                if result.ok:
                    problems.append(f"{where} answered without the organizer password: {result.raw[:300]}")
                elif "password" not in (result.error or "") and not GRADIO_INPUT_CHECK.search(result.error or ""):
                    problems.append(f"{where} refused without saying why: {result.error!r}")
    assert not problems, "\n".join(problems)
    assert organizer_calls >= 14 * 3, f"only {organizer_calls} organizer calls were made: are its handlers all found?"
    assert name_refusals >= 2 * 4, f"only {name_refusals} rating calls with a name: are the rating handlers found?"

    after_victim = store.ratings_frame(sid).sort_values("output_id").to_dict("records")
    assert after_victim == before["victim"], "a forged call changed the victim's ratings"
    assert len(store.list_studies()) == before["studies"], "a forged call created a study"
    assert store.find_rater(IMPORTED_RATER) is None, "a forged import went through"
    # Skip and Flag act for the code's own rater only: whatever the sweep skipped or flagged is the
    # attacker's own (the victim has none), and a skipped item's ratings would have been refused.
    assert {s.rater for s in store.skips(sid)} <= {ATTACKER} and {f.rater for f in store.flags(sid)} <= {ATTACKER}
    assert any(s.rater == ATTACKER for s in store.skips(sid)), "the sweep's Skip did not run as the attacker"
    # Undo the attacker's own skip, so the tests below meet a rater whose item is still to rate.
    with store.write() as conn:
        conn.execute(skips.delete())
    print(f"\nsecurity sweep: {len(deps)} handlers, {calls} forged calls, {organizer_calls} organizer calls refused")


def test_a_code_opens_only_its_own_study(app: LiveApp, world):
    """The code names the study: a session that opened one study cannot go on with another study's
    code, another study's code shows only that study, and the library refuses an item of another
    study for a code. A revoked code gets the generic message."""
    client: GradioHTTP = world["client"]
    store = world["store"]
    start, submit = dep_by_api_name(client, "rate_start"), dep_by_api_name(client, "rate_submit")
    moves = [dep_by_api_name(client, "rate_next"), dep_by_api_name(client, "rate_previous")]
    before = store.count_ratings()

    other_session = uuid.uuid4().hex[:11]
    other = client.call(start, [CODES["other"], None], session_hash=other_session)
    assert other.ok and f"other study TS-Temp {TOKEN}" in other.raw, other.error
    assert f"answer {TOKEN}" not in other.raw and not secrets_in(other.raw, with_methods=False)

    session = uuid.uuid4().hex[:11]
    opened = client.call(start, [CODES["attacker"], None], session_hash=session)
    assert opened.ok and f"first answer {TOKEN}" in opened.raw, opened.error
    for fn, data in [
        (submit, [CODES["other"], None, *rating_values([[1, 1, 1]] * 3, [None] * 3)]),
        *[(m, [CODES["other"], None]) for m in moves],
    ]:
        swapped = client.call(fn, data, session_hash=session)
        assert not swapped.ok and "code changed" in (swapped.error or ""), swapped.error
        assert not secrets_in(swapped.raw, with_methods=True)

    item = store.items(world["sid"])[0].public_id
    with pytest.raises(UserError, match="unknown item"):
        blind.submit_slots_with_code(store, CODES["other"], item, [[1, 1, 1]] * 3 + [[None] * 3] * 5, [None] * 8)
    with pytest.raises(UserError) as refused:
        blind.submit_slots_with_code(store, ATTACKER, item, [[1, 1, 1]] * 3 + [[None] * 3] * 5, [None] * 8)
    assert str(refused.value) == invites.INVALID

    revoked = invite(store, world["other"], f"revoked-{TOKEN}")
    assert invites.revoke(store, world["other"], f"revoked-{TOKEN}")
    shut = client.call(start, [revoked, None])
    assert not shut.ok and invites.INVALID in (shut.error or ""), shut.error
    assert store.count_ratings() == before


def test_no_run_history_keeps_codes_or_scores(app: LiveApp):
    """Gradio's run history would keep every call's inputs (invite codes, scores) in the browser and
    offer them at /gradio_api/runs: the app turns it off."""
    config = httpx.get(f"{app.url}/config", timeout=60, trust_env=False).json()
    assert config.get("run_history") is False
    for path in (f"{API}/runs", f"{API}/runs/"):
        r = httpx.get(f"{app.url}{path}", timeout=30, trust_env=False)
        assert r.status_code == 404, f"{path} answered {r.status_code}"
    r = httpx.post(f"{app.url}{API}/run-history/connect", json={}, timeout=30, trust_env=False)
    assert r.status_code in (404, 405), r.status_code


def test_the_right_password_opens_the_same_routes(app: LiveApp, world):
    """Positive control for the sweep: with the password, reveal shows the methods (once the study is
    closed: until then the organizer is blind too) and import imports."""
    client: GradioHTTP = world["client"]
    session = uuid.uuid4().hex[:11]
    unlocked = client.call(dep_by_trigger(client, "Organizer password"), [ORGANIZER_PASSWORD], session_hash=session)
    assert unlocked.ok and "Unlocked" in unlocked.raw, unlocked.error
    reveal_fn = dep_by_trigger(client, "Reveal the blind mapping")
    early = client.call(reveal_fn, [ORGANIZER_PASSWORD, world["sid"]], session_hash=session)
    assert not early.ok and "close" in (early.error or ""), early.error
    assert not secrets_in(early.raw, with_methods=True)
    closed = client.call(
        dep_by_trigger(client, "Close rating"), [ORGANIZER_PASSWORD, world["sid"]], session_hash=session
    )
    assert closed.ok and world["store"].get_study(world["sid"]).state == "closed", closed.error
    reveal = client.call(reveal_fn, [ORGANIZER_PASSWORD, world["sid"]], session_hash=session)
    assert reveal.ok, reveal.error
    assert all(m in reveal.raw for m in ("BS-4", "TS-Temp", "TS-Tilted")) and VICTIM in reveal.raw
    imported = client.call(
        dep_by_trigger(client, "Import"), [ORGANIZER_PASSWORD, world["file_data"]], session_hash=session
    )
    assert imported.ok, imported.error
    assert world["store"].find_rater(IMPORTED_RATER) is not None


def test_the_right_password_and_name_delete_over_http(app: LiveApp, world):
    """Positive control for the delete routes: refused without the exact name, done with it, and the
    study under attack (and everything else) untouched."""
    client: GradioHTTP = world["client"]
    store = world["store"]
    name = f"Throwaway {TOKEN}"
    texts = {"BS-4": "one", "TS-Temp": "two", "TS-Tilted": "three"}
    doomed, _ = seed_study(store, name, ["Throwaway prompt"], [texts])
    kept = store.ratings_frame(world["sid"]).sort_values("output_id").to_dict("records")
    n_studies = len(store.list_studies())
    session = uuid.uuid4().hex[:11]
    delete = dep_by_trigger(client, "Delete this study")
    wrong = client.call(delete, [ORGANIZER_PASSWORD, doomed, name + "?", None], session_hash=session)
    assert not wrong.ok and "exact name" in (wrong.error or ""), wrong.error
    done = client.call(delete, [ORGANIZER_PASSWORD, doomed, name, None], session_hash=session)
    # the message is Markdown with its punctuation escaped (md_text): read it without the backslashes
    assert done.ok and f"Deleted study #{doomed}" in done.raw.replace("\\\\", ""), done.error
    assert store.get_study(doomed) is None and len(store.list_studies()) == n_studies - 1
    assert store.ratings_frame(world["sid"]).sort_values("output_id").to_dict("records") == kept


def test_api_page_lists_no_organizer_or_internal_handler(app: LiveApp):
    """What gradio_client and the API page offer: the Python API's endpoints (ui/api/), no page handler;
    the organizer's two behind the password (tests/test_python_api_live.py attacks them)."""
    from gradio_client import Client

    from ui import api

    info = httpx.get(f"{app.url}{API}/info", timeout=60, trust_env=False).json()
    named = set(info.get("named_endpoints", {}))
    assert named == {f"/{n}" for n in api.NAMES}
    client = Client(app.url, verbose=False)
    listed = client.view_api(print_info=False, return_format="dict")
    offered = set(listed["named_endpoints"]) | set(map(str, listed["unnamed_endpoints"]))
    config = httpx.get(f"{app.url}/config", timeout=60, trust_env=False).json()
    for index, dep in enumerate(config["dependencies"]):
        if dependency_tab(config, dep) == "organizer":
            assert f"/{dep.get('api_name')}" not in offered, (
                f"organizer handler {dep.get('api_name')} is offered by the API"
            )
    client.close()


@pytest.mark.parametrize("prefix", [f"{API}/file=", "/file=", f"{API}/file/"])
def test_file_routes_do_not_serve_the_database_or_the_source(app: LiveApp, prefix: str):
    for target in (app.workdir / "arena.db", Path(__file__).resolve().parents[1] / "app.py", Path("/etc/passwd")):
        r = httpx.get(f"{app.url}{prefix}{target}", timeout=30, trust_env=False)
        assert r.status_code in (403, 404), f"{prefix}{target} answered {r.status_code}"
        assert b"SQLite format" not in r.content[:32]
