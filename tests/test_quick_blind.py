"""Compare's "Run blind" (ui/quick_blind.py): rated as A, B, C before the reveal, Arena style.

The attack: everything the server sends to the browser, from Run blind until the scores are saved, as
Gradio itself serialises it (`Blocks.postprocess_data`: server-side State stays on the server), must
carry no method name, and no output text in a box named for its method. A submit with a score missing
reveals nothing; a full one writes the scores first, then reveals the mapping the store holds.
"""

from __future__ import annotations

import asyncio
import json
from concurrent.futures import ThreadPoolExecutor
from types import SimpleNamespace

import gradio as gr
import pytest
import torch
from gradio.state_holder import SessionState

from arena.studies import quick
from common.errors import UserError
from ui import AppContext, compare, quick_blind
from ui.safe import md_text

PROMPT = "Describe a quiet harbour at dawn."
METHODS = ["TS-Temp", "BS-4", "TS-Tilted"]
REQUEST = SimpleNamespace(session_hash="blind-test", headers={}, client=SimpleNamespace(host="127.0.0.1"))


def lm():
    return SimpleNamespace(
        name="stand-in",
        device=torch.device("cpu"),
        dtype_name="float32",
        context_length=2048,
        model=torch.nn.Linear(2, 2),
    )


@pytest.fixture
def app(monkeypatch, store):
    monkeypatch.setenv("ARENA_ENGINE", "dummy")
    model = lm()
    with gr.Blocks() as demo:
        compare.build(AppContext(model=lambda: model, extras={"store": store}))
    fns = {f.fn.__name__: f for f in demo.fns.values() if f.fn is not None}
    return SimpleNamespace(demo=demo, fns=fns, state=SessionState(demo), store=store)


def sent(app, name: str, values) -> str:
    """What Gradio sends to the browser for these return values of handler `name`, as JSON text."""
    # in a thread of its own: another test in the run may have left an event loop running in this one
    with ThreadPoolExecutor(1) as pool:
        data = pool.submit(asyncio.run, app.demo.postprocess_data(app.fns[name], list(values), app.state)).result()
    return json.dumps(data, default=str)


def blind_run(app, methods=METHODS):
    values = [p.default for _, p in compare.param_keys()]
    updates = list(app.fns["blind_run"].fn(REQUEST, PROMPT, methods, False, 7, 6, False, *values))
    sealed = next(u[-1] for u in reversed(updates) if isinstance(u[-1], dict))
    return updates, sealed


def leaks(text: str) -> list[str]:
    """The method names in `text`, also when escaped for Markdown or JSON ("TS\\-Temp")."""
    plain = text.replace("\\", "")
    return [m for m in METHODS if m in plain]


def test_nothing_sent_before_the_submit_names_a_method_and_the_reveal_comes_after_the_scores(app):
    updates, sealed = blind_run(app)
    texts = [r.text for r in sealed["results"]]
    assert len(texts) == 3 and all(texts)
    for update in updates:  # the run: status, named boxes, timing, chart, `last`, `sealed`
        wire = sent(app, "blind_run", update)
        assert not leaks(wire), wire
        assert not any(t in wire for t in texts)  # no text in any named box, either
    assert updates[-1][-2] is not sealed and not updates[0][-2]["results"]  # `last`: no results for other tools

    ready = app.fns["on_ready"].fn(REQUEST, sealed)
    wire = sent(app, "on_ready", ready)
    assert not leaks(wire), wire
    state = ready[-(len(compare.decoders.names()) + 4)]  # [..., status, sealed, last, *boxes, timing, chart]
    assert state["code"] and state["item"]
    assert state["code"] not in wire  # the quick study's code stays in server-side state
    shown = [t for t in texts if t.split()[0] in wire]
    assert len(shown) == 3  # the three texts, as A, B and C

    slots = quick_blind.MAX_RESPONSES * 3
    partial = [4, 3, 5] * 2 + [None] * (slots - 6)  # C not scored
    refused = app.fns["on_submit"].fn(REQUEST, state, *partial)
    wire = sent(app, "on_submit", refused)
    assert not leaks(wire), wire
    with pytest.raises(UserError, match="score every response"):
        quick.reveal_own(app.store, state["code"])  # straight at the library: still sealed

    scores = [4, 3, 5, 2, 2, 1, 5, "Can't judge", 4] + [None] * (slots - 9)
    revealed = app.fns["on_submit"].fn(REQUEST, state, *scores)
    names = compare.decoders.names()
    table = revealed[-1]["value"]
    boxes = {n: b["value"] for n, b in zip(names, revealed[2 : 2 + len(names)], strict=True)}
    wire = sent(app, "on_submit", revealed)  # (Gradio consumes the updates it serialises)
    assert set(leaks(wire)) == set(METHODS)  # now the reveal and the named boxes
    truth = quick.reveal_own(app.store, state["code"])
    assert [r.label for r in truth] == ["A", "B", "C"] and {r.method for r in truth} == set(METHODS)
    assert [r.scores["coherence"] for r in truth] == [4, 2, 5]
    assert truth[2].scores["informativeness"] is None  # can't judge
    for r in truth:
        assert f"| {r.label} | **{md_text(r.method)}** |" in table
    by_method = {r.method: r.text for r in sealed["results"]}
    assert {n: v for n, v in boxes.items() if n in by_method} == by_method


def test_the_reveal_is_only_for_a_quick_studys_own_rater(app):
    _, sealed = blind_run(app, METHODS[:2])
    state = app.fns["on_ready"].fn(REQUEST, sealed)[-(len(compare.decoders.names()) + 4)]
    with pytest.raises(UserError, match="score every response"):
        quick.reveal_own(app.store, state["code"])
    with pytest.raises(UserError):
        quick.reveal_own(app.store, "not-a-code")


def test_one_method_is_shown_at_once_with_the_reason(app):
    _, sealed = blind_run(app, ["TS-Temp"])
    ready = app.fns["on_ready"].fn(REQUEST, sealed)
    wire = sent(app, "on_ready", ready)
    assert "No blind rating" in wire and "at least two" in wire
    assert sealed["results"][0].text in wire  # shown in its named box
