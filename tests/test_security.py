"""Security through every route the running app exposes, not only through the page.

A Gradio app answers every registered event handler over HTTP by its index (POST
/gradio_api/queue/join), whatever `api_visibility` says: "private" only hides a handler from the
API page and from `gradio_client`. So this test reads the handler list from /config (what a
browser gets) and calls each one itself, with empty, wrong and hostile inputs, in a fresh session
and in a session that has started rating. It then checks:

  * organizer actions (unlock/overview, create, resume, reveal, export, import, delete a study or a
    rater's ratings) answer only with the organizer password and change nothing without it;
  * no response reaches a rater with another rater's comment, a method name of a blind study, or
    the planted timing and seed numbers of its outputs;
  * files the server holds (the ratings database, the source) are not served by the file routes.

Positive controls (the right password reveals the mapping, imports the file and deletes a study)
prove that the calls reach the handlers, so a passing sweep means refused, not unreachable.
"""

from __future__ import annotations

import csv
import json
import secrets
import uuid
from pathlib import Path
from typing import Any

import httpx
import pytest

import decoders
from arena import export
from live_app import API, ORGANIZER_PASSWORD, CallResult, GradioHTTP, LiveApp, dependency_tab, shared_app
from seeding import db_store, seed_study

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


def dep_by_api_name(client: GradioHTTP, name: str) -> int:
    for i, d in enumerate(client.dependencies()):
        if d.get("api_name") == name:
            return d.get("id", i)
    raise AssertionError(f"the app has no handler named {name!r}")


def dep_by_trigger(client: GradioHTTP, label: str) -> int:
    comps = client.components()
    for i, d in enumerate(client.dependencies()):
        for target in d.get("targets", []):
            props = comps.get(target[0], {}).get("props", {})
            if label in (props.get("value"), props.get("label")):
                return d.get("id", i)
    raise AssertionError(f"no handler triggered by {label!r}")


def rating_values(scores: list[list[int]], comments: list[str | None]) -> list[Any]:
    """rate_submit's inputs after (name, session): 8 slots x 3 radios, then 8 comments."""
    slots = 8
    radios: list[Any] = [None] * (3 * slots)
    notes: list[Any] = [None] * slots
    for k, triple in enumerate(scores):
        radios[3 * k:3 * k + 3] = triple
        notes[k] = comments[k]
    return radios + notes


@pytest.fixture(scope="module")
def app(tmp_path_factory) -> LiveApp:
    return shared_app(tmp_path_factory.getbasetemp())


@pytest.fixture(scope="module")
def world(app: LiveApp, tmp_path_factory):
    """A blind study, rated by the victim with a secret comment; and a forged import file."""
    store = db_store(app.workdir)
    texts = {"BS-4": f"first answer {TOKEN}", "TS-Temp": f"second answer {TOKEN}", "TS-Tilted": f"third answer {TOKEN}"}
    sid, _ = seed_study(store, f"Security study {TOKEN}", [f"Security prompt {TOKEN}"], [texts], **PLANTED)
    client = GradioHTTP(app.url)
    start, submit = dep_by_api_name(client, "rate_start"), dep_by_api_name(client, "rate_submit")
    victim_session = uuid.uuid4().hex[:11]
    opened = client.call(start, [VICTIM, sid, None], session_hash=victim_session)
    assert opened.ok, opened.error
    done = client.call(submit, [VICTIM, None, *rating_values([[5, 4, 3]] * 3, [VICTIM_COMMENT] * 3)],
                       session_hash=victim_session)
    assert done.ok and "Saved" in json.dumps(done.data), done.error
    victim_rows = store.ratings_frame(sid)
    assert len(victim_rows) == 3 and set(victim_rows["comment"]) == {VICTIM_COMMENT}

    # A well-formed export whose rater is someone new: importing it would add a rating.
    folder = tmp_path_factory.mktemp("forged")
    path = folder / "ratings.csv"
    export.export_to_path(store, path, "csv", study_id=sid)
    with path.open(newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    for row in rows:
        row["rater"] = IMPORTED_RATER
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    uploaded = httpx.post(f"{app.url}{API}/upload", files={"files": ("ratings.csv", path.read_bytes(), "text/csv")},
                          timeout=60, trust_env=False)
    uploaded.raise_for_status()
    file_data = {"path": uploaded.json()[0], "orig_name": "ratings.csv", "meta": {"_type": "gradio.FileData"}}
    yield dict(store=store, sid=sid, client=client, file_data=file_data, victim_session=victim_session)
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


def inputs_for(client: GradioHTTP, dep: dict, variant: str, sid: int, file_data: dict,
               known: dict[int, list[Any]] | None = None) -> list[Any]:
    """Values for a handler's inputs: what a fresh page sends ("defaults") or hostile ones. Dropdowns
    get what the session was offered (Gradio refuses other values before the handler runs),
    preferring the study under attack, or every choice where several may be picked."""
    comps = client.components()
    values: list[Any] = []
    for cid in dep["inputs"]:
        comp = comps[cid]
        kind, props = comp["type"], comp.get("props", {})
        default = props.get("value")
        if kind == "slider":
            values.append(props.get("minimum", default))  # keeps any generation to a token or so
        elif kind == "state":
            values.append(None)  # state comes from the server-side session, whatever is sent
        elif kind == "textbox" and props.get("type") == "password":
            values.append("" if variant == "defaults" else "wrong-" + secrets.token_hex(3))
        elif variant == "defaults":
            values.append(default)
        elif kind == "textbox":
            values.append(ATTACKER)
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
    # A rater's name or code is their only credential (it opens their ratings), so it is a secret too.
    found = [s for s in (VICTIM_COMMENT, IMPORTED_RATER, VICTIM) if s in text]
    if with_methods:
        for name in ("latency_ms", "ttft_ms", "tokens_per_s"):
            if repr(PLANTED[name]) in text:
                found.append(f"{name}={PLANTED[name]}")
        if str(PLANTED["seed"]) in text:
            found.append("seed")
        found += [m for m in decoders.names() if m in text]
    return found


def test_every_route_refuses_organizer_actions_and_leaks_nothing(app: LiveApp, world):
    client: GradioHTTP = world["client"]
    store = world["store"]
    sid = world["sid"]
    config = client.config()
    deps = client.dependencies()
    assert len(deps) >= 10, "the app exposes fewer handlers than expected: did the config change?"
    before = dict(studies=len(store.list_studies()), ratings=store.count_ratings(),
                  victim=store.ratings_frame(sid).sort_values("output_id").to_dict("records"))

    # A rater's session that has legitimately opened the study, to call handlers "from inside".
    attacker_session = uuid.uuid4().hex[:11]
    opened = client.call(dep_by_api_name(client, "rate_start"), [ATTACKER, sid, None], session_hash=attacker_session)
    assert opened.ok and f"first answer {TOKEN}" in opened.raw, "positive control: a rater sees the texts"
    assert not secrets_in(opened.raw, with_methods=True)

    organizer_calls = 0
    calls = 0
    problems: list[str] = []
    known: dict[str, dict[int, list[Any]]] = {}  # session -> dropdown choices offered to it
    # Two rounds: the first lets list-refreshing handlers offer their choices to the session, the
    # second picks from them, as a curious rater clicking through every tab would.
    for round_ in (1, 2):
        for index, dep in enumerate(deps):
            fn = dep.get("id", index)
            tab = dependency_tab(config, dep)
            if dep.get("api_visibility") == "private" and not dep.get("inputs") and not dep.get("outputs"):
                continue  # a pure front-end event: nothing runs on the server
            variants = ["defaults", "hostile"] if round_ == 1 else ["hostile"]
            for variant in variants:
                sessions = [uuid.uuid4().hex[:11]] if tab in GENERATING_TABS else [uuid.uuid4().hex[:11], attacker_session]
                for session in sessions:
                    offered = known.setdefault(session, {})
                    result: CallResult = client.call(
                        fn, inputs_for(client, dep, variant, sid, world["file_data"], offered), session_hash=session)
                    learn_choices(dep, result, offered)
                    calls += 1
                    where = (f"handler {fn} ({dep.get('api_name')}, tab {tab}, {variant}, round {round_}, "
                             f"{'rater session' if session == attacker_session else 'fresh session'})")
                    leaked = secrets_in(result.raw, with_methods=tab not in OPEN_TABS)
                    if leaked:
                        problems.append(f"{where} leaked {leaked}: {result.raw[:300]}")
                    if tab == "organizer":
                        organizer_calls += 1
                        if result.ok:
                            problems.append(f"{where} answered without the organizer password: {result.raw[:300]}")
                        elif "password" not in (result.error or ""):
                            problems.append(f"{where} refused without saying why: {result.error!r}")
    assert not problems, "\n".join(problems)
    assert organizer_calls >= 8 * 3, f"only {organizer_calls} organizer calls were made: are its handlers all found?"

    after_victim = store.ratings_frame(sid).sort_values("output_id").to_dict("records")
    assert after_victim == before["victim"], "a forged call changed the victim's ratings"
    assert len(store.list_studies()) == before["studies"], "a forged call created a study"
    assert store.find_rater(IMPORTED_RATER) is None, "a forged import went through"
    print(f"\nsecurity sweep: {len(deps)} handlers, {calls} forged calls, {organizer_calls} organizer calls refused")


def test_the_right_password_opens_the_same_routes(app: LiveApp, world):
    """Positive control for the sweep: with the password, reveal shows the methods and import imports."""
    client: GradioHTTP = world["client"]
    session = uuid.uuid4().hex[:11]
    unlocked = client.call(dep_by_trigger(client, "Organizer password"), [ORGANIZER_PASSWORD], session_hash=session)
    assert unlocked.ok and "Unlocked" in unlocked.raw, unlocked.error
    reveal = client.call(dep_by_trigger(client, "Reveal the blind mapping"), [ORGANIZER_PASSWORD, world["sid"]],
                         session_hash=session)
    assert reveal.ok, reveal.error
    assert all(m in reveal.raw for m in ("BS-4", "TS-Temp", "TS-Tilted")) and VICTIM in reveal.raw
    imported = client.call(dep_by_trigger(client, "Import"), [ORGANIZER_PASSWORD, world["file_data"]], session_hash=session)
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
    assert done.ok and f"Deleted study #{doomed}" in done.raw, done.error
    assert store.get_study(doomed) is None and len(store.list_studies()) == n_studies - 1
    assert store.ratings_frame(world["sid"]).sort_values("output_id").to_dict("records") == kept


def test_api_page_lists_no_organizer_or_internal_handler(app: LiveApp):
    """What gradio_client and the API page offer: the rating and comparison endpoints, nothing else."""
    from gradio_client import Client

    info = httpx.get(f"{app.url}{API}/info", timeout=60, trust_env=False).json()
    named = set(info.get("named_endpoints", {}))
    assert "/rate_submit" in named and "/rate_start" in named
    client = Client(app.url, verbose=False)
    listed = client.view_api(print_info=False, return_format="dict")
    offered = set(listed["named_endpoints"]) | set(map(str, listed["unnamed_endpoints"]))
    config = httpx.get(f"{app.url}/config", timeout=60, trust_env=False).json()
    for index, dep in enumerate(config["dependencies"]):
        if dependency_tab(config, dep) == "organizer":
            assert f"/{dep.get('api_name')}" not in offered, f"organizer handler {dep.get('api_name')} is offered by the API"
    client.close()


@pytest.mark.parametrize("prefix", [f"{API}/file=", "/file=", f"{API}/file/"])
def test_file_routes_do_not_serve_the_database_or_the_source(app: LiveApp, prefix: str):
    for target in (app.workdir / "arena.db", Path(__file__).resolve().parents[1] / "app.py", Path("/etc/passwd")):
        r = httpx.get(f"{app.url}{prefix}{target}", timeout=30, trust_env=False)
        assert r.status_code in (403, 404), f"{prefix}{target} answered {r.status_code}"
        assert b"SQLite format" not in r.content[:32]
