"""Compare's grid (issue 25): every chosen method on each chosen model, through the runner's
multi-model path that `python -m decoders --models` takes. The dummy engine and stand-in models: no
model loads here (the browser test in tests/e2e/test_compare_grid_e2e.py runs the real ones)."""

from __future__ import annotations

import threading
from types import SimpleNamespace

import gradio as gr
import pytest
import torch

from arena.engines.dummy import DummyEngine
from arena.model import llm
from arena.runs import runner
from arena.runs.requests import RunRequest, run_order
from common.errors import UserError
from tests.support.stand_ins import stand_in
from ui import AppContext, compare
from ui.compare import form as cform
from ui.compare import grid as compare_grid
from ui.compare import handlers as compare_handlers
from ui.compare import timing as ctiming

PROMPT = "Name one colour of the sky."
METHODS = ["TS-Temp", "BS-4"]


@pytest.fixture
def dummy(monkeypatch):
    monkeypatch.setenv("ARENA_ENGINE", "dummy")
    loads: list[str] = []

    def load(setting):
        loads.append(setting)
        return stand_in(setting)

    return SimpleNamespace(loads=loads, load=load)


def test_the_choices_are_the_configured_model_then_the_other_installed_embedded_ones(monkeypatch):
    monkeypatch.setattr(llm, "package_folder", lambda package: "/installed")
    assert llm.model_choices("") == llm.model_choices("smollm2-135m") == ["smollm2-135m", "gemma-3-270m"]
    assert llm.model_choices("gemma-3-270m") == ["gemma-3-270m", "smollm2-135m"]
    assert llm.model_choices("org/other") == ["org/other", "smollm2-135m", "gemma-3-270m"]
    monkeypatch.setattr(llm, "package_folder", lambda package: None if "gemma" in package else "/installed")
    assert llm.model_choices("") == ["smollm2-135m"]  # Gemma not installed: not offered


def test_the_pickers_offer_each_model_with_its_int8_and_other_float_variant(monkeypatch):
    monkeypatch.setattr(llm, "package_folder", lambda package: "/installed")
    monkeypatch.setenv("ARENA_ENGINE", "dummy")
    from arena import engines

    monkeypatch.setattr(llm, "pick_device", lambda: torch.device("cuda"))
    assert llm.picker_variants() == ("fp32", "int8")  # on CUDA a plain load is bf16 already
    monkeypatch.setattr(llm, "pick_device", lambda: torch.device("cpu"))
    assert engines.model_choices("") == [
        "smollm2-135m",
        "smollm2-135m@bf16",
        "smollm2-135m@int8",
        "gemma-3-270m",
        "gemma-3-270m@bf16",
        "gemma-3-270m@int8",
    ]
    # a variant as the app's model comes first, and its base model is offered too, each precision once
    assert llm.with_variants(["gemma-3-270m@int8", "gemma-3-270m"], ["int8"]) == ["gemma-3-270m@int8", "gemma-3-270m"]
    assert llm.with_variants(["@int8", "smollm2-135m"], ["int8"]) == ["@int8", "smollm2-135m"]
    # the model cache keeps a variant apart from its float model, under any of its names
    assert llm.ModelCache.key("@int8") == llm.ModelCache.key("smollm2-135m@INT8") != llm.ModelCache.key("")
    monkeypatch.setenv("ARENA_ENGINE", "vllm")  # a server runs its own weights: no variants offered
    monkeypatch.setenv("ARENA_VLLM_SERVERS", "smollm2-135m=http://127.0.0.1:9")
    assert engines.model_choices("smollm2-135m") == ["smollm2-135m"]


def test_stream_models_runs_every_method_on_each_model_in_turn(dummy):
    req = RunRequest(PROMPT, METHODS, max_new_tokens=5, seed=3)
    events = list(runner.stream_models(["m-a", "m-b"], req, load=dummy.load))
    assert dummy.loads == ["m-a", "m-b"]
    finished = [(e.model, e.event.result) for e in events if e.event is not None and e.event.result is not None]
    assert [(m, r.method) for m, r in finished] == [
        ("m-a", "TS-Temp"),
        ("m-a", "BS-4"),
        ("m-b", "TS-Temp"),
        ("m-b", "BS-4"),
    ]
    # each model's cells are its own run: what run_methods gives on that model alone
    for name in ("m-a", "m-b"):
        alone = DummyEngine().run_methods(stand_in(name), req)
        assert [r.text for m, r in finished if m == name] == [r.text for r in alone]
    assert finished[0][1].text != finished[2][1].text  # the dummy writes differently per model
    # the CLI's path gives the same results
    runs = runner.run_models(["m-a", "m-b"], req, load=dummy.load)
    assert [(lm.name, [r.text for r in rs]) for lm, rs in runs] == [
        (name, [r.text for m, r in finished if m == name]) for name in ("m-a", "m-b")
    ]


def test_a_model_not_in_memory_is_announced_before_it_loads(dummy, monkeypatch):
    monkeypatch.setattr(runner.models, "peek", lambda setting: None)
    monkeypatch.setattr(runner, "needs_conversion", lambda setting: setting == "m-b")
    said: list[str] = []
    events = list(
        runner.stream_models(["m-a", "m-b"], RunRequest(PROMPT, ["TS-Temp"], max_new_tokens=3), load=dummy.load)
    )
    loading = [(e.model, e.loading) for e in events if e.event is None]
    assert loading == [
        ("m-a", "loading m-a..."),
        ("m-b", "loading m-b: first use, converting its GGUF once (a few minutes)..."),
    ]
    runner.run_models(["m-a"], RunRequest(PROMPT, ["TS-Temp"], max_new_tokens=3), announce=said.append, load=dummy.load)
    assert said == ["loading m-a..."]


def test_stop_ends_the_running_model_and_the_next_one_never_starts(dummy):
    cancel = threading.Event()
    events = runner.stream_models(
        ["m-a", "m-b"], RunRequest(PROMPT, METHODS, max_new_tokens=8), cancel=cancel, load=dummy.load
    )
    first = next(e for e in events if e.event is not None and e.event.text)
    assert first.model == "m-a"
    cancel.set()
    assert list(events) == [] and dummy.loads == ["m-a"]


def test_grid_views_put_methods_in_rows_and_models_in_columns(dummy):
    req = RunRequest(PROMPT, METHODS, max_new_tokens=4, seed=0)
    order = run_order(METHODS)
    views = list(
        compare_grid.grid_views(runner.stream_models(["m-a", "m-b"], req, load=dummy.load), ["m-a", "m-b"], order)
    )
    last = views[-1]
    assert last.complete and last.status.startswith("Done: 2 methods × 2 models")
    frame = last.frame
    assert list(frame.columns) == ["method", "m-a", "m-b"] and list(frame["method"]) == order
    for model, result in last.done:
        cell = frame.loc[frame["method"] == result.method, model].item()
        assert cell.startswith(result.text.strip()) and f"{result.new_tokens} tokens" in cell
    assert [v.finished for v in views].count(True) == 4
    # a cell not run yet waits; the running one names its model and method
    early = next(v for v in views if v.changed and "Running" in v.status)
    assert "on **m-a**" in early.status and (early.frame["m-b"] == compare_grid.WAITING).all()


def test_the_token_cap_counts_every_model():
    req = RunRequest(PROMPT, METHODS, max_new_tokens=100)
    cform.check_token_cap(req, cap=400, models=2)
    with pytest.raises(UserError, match=r"2 methods × 3 models × 100 max_new_tokens = 600 tokens.*fewer models"):
        cform.check_token_cap(req, cap=400, models=3)


def test_the_compare_tab_runs_the_grid_on_two_models(dummy, monkeypatch, tmp_path):
    """The whole Compare handler as Gradio calls it: one model keeps the old run, two give the grid."""
    from arena.store import Store

    store = Store(f"sqlite:///{tmp_path / 'g.db'}")
    app_model = stand_in("smollm2-135m")
    monkeypatch.setattr(compare, "model_choices", lambda default: [default, "gemma-3-270m"])
    monkeypatch.setattr(compare_handlers, "load_on_compute", dummy.load)
    with gr.Blocks() as demo:
        compare.build(AppContext(model=lambda: app_model, extras={"store": store}))
    run = next(f for f in demo.fns.values() if f.api_name == "compare")
    values = [p.default for _, p in cform.param_keys()]
    request = SimpleNamespace(session_hash="g")

    one = list(run.fn(request, PROMPT, METHODS, False, 5, 6, False, *values, ["smollm2-135m"]))
    assert one[0][-1]["visible"] is False  # a grid left from an earlier run goes
    *_, state, _grid = one[-1]
    assert [r.method for r in state["results"]] == METHODS and dummy.loads == []  # the old one-model run

    updates = list(run.fn(request, PROMPT, METHODS, False, 5, 6, False, *values, ["smollm2-135m", "gemma-3-270m"]))
    status, *_boxes, timing, _chart, state, grid = updates[-1]
    assert "Done: 2 methods × 2 models" in status["value"] and dummy.loads == ["gemma-3-270m"]
    frame = grid["value"]
    assert list(frame.columns) == ["method", "smollm2-135m", "gemma-3-270m"]
    table = timing["value"]
    assert list(table["model"]) == ["smollm2-135m"] * 2 + ["gemma-3-270m"] * 2
    expected = DummyEngine().run_methods(
        stand_in("gemma-3-270m"), RunRequest(PROMPT, METHODS, max_new_tokens=6, seed=5)
    )
    for r in expected:
        assert frame.loc[frame["method"] == r.method, "gemma-3-270m"].item().startswith(r.text)
    # the cells, named by system, for "Why this token?" and "Send these to the Rate tab"
    assert [r.method for r in state["results"]] == [f"{m} · {r}" for m, r in zip(table["model"], table["method"])]
    assert state["models"]["gemma-3-270m · BS-4"] == "gemma-3-270m" and state["grid"] == {"done": 4, "total": 4}
    assert list(_chart["value"].data[0].x) == [f"{m} · {r}" for m, r in zip(table["model"], table["method"])]
    with pytest.raises(gr.Error, match="choose at least one model"):
        list(run.fn(request, PROMPT, METHODS, False, 5, 6, False, *values, []))


def test_stop_in_the_grid_keeps_the_finished_cells_and_says_so(dummy, monkeypatch, tmp_path):
    from arena.store import Store

    store = Store(f"sqlite:///{tmp_path / 's.db'}")
    monkeypatch.setattr(compare, "model_choices", lambda default: [default, "gemma-3-270m"])
    monkeypatch.setattr(compare_handlers, "load_on_compute", dummy.load)
    with gr.Blocks() as demo:
        compare.build(AppContext(model=lambda: stand_in("smollm2-135m"), extras={"store": store}))
    run = next(f for f in demo.fns.values() if f.api_name == "compare")
    stop = next(f for f in demo.fns.values() if getattr(f.fn, "__name__", None) == "on_stop")
    values = [p.default for _, p in cform.param_keys()]
    request = SimpleNamespace(session_hash="stop-grid")
    updates = run.fn(request, PROMPT, METHODS, False, 5, 6, False, *values, ["smollm2-135m", "gemma-3-270m"])
    state = None
    for update in updates:
        if isinstance(update[-2], dict) and update[-2].get("grid", {}).get("done") == 1:  # [.., last, grid]
            state = update[-2]
            break
    assert state is not None
    line, run_button, *_ = stop.fn(request, state, ctiming.BUSY_LABEL)
    assert line.startswith("**Stopped** after 1 of 4 cells") and run_button["interactive"] is True
    rest = list(updates)
    assert rest[-1][0]["value"].startswith("**Stopped** after 1 of 4 cells") and dummy.loads == []


def test_rate_these_blind_after_a_grid_rates_its_cells_as_systems(dummy, tmp_path):
    """The grid's `last` state feeds "Send these to the Rate tab": each cell is a response, stored with the
    model that wrote it, shown as a letter, and revealed as "MODEL · METHOD" after the scores."""
    from arena.rating import blind
    from arena.store import Store
    from arena.studies import quick

    store = Store(f"sqlite:///{tmp_path / 'q.db'}")
    req = RunRequest(PROMPT, METHODS, max_new_tokens=4, seed=2)
    order = run_order(METHODS)
    *_, last = compare_grid.grid_views(
        runner.stream_models(["m-a", "m-b"], req, load=dummy.load), ["m-a", "m-b"], order
    )
    state = compare_grid.grid_state(req.prompt, req.raw, last.done, last.total)
    sid, code = quick.create(store, "app model", state["prompt"], state["results"], state["raw"], "client-g")
    outputs = store.outputs_frame(sid)
    assert sorted(zip(outputs["method"], outputs["model"])) == sorted((f"{m} · {r.method}", m) for m, r in last.done)
    view, _ = blind.open_item(store, quick.QUICK_RATER, sid)
    assert sorted(r.label for r in view.responses) == ["A", "B", "C", "D"] and "m-a" not in repr(view)
    scores = {r.label: {"coherence": 4, "informativeness": 3, "naturalness": 5} for r in view.responses}
    blind.submit(store, quick.QUICK_RATER, view.item, scores, {})
    assert {r.method for r in quick.reveal_own(store, code)} == set(state["models"])
    store.dispose()


def test_the_grid_refuses_a_study_prompt_before_any_model_writes(dummy, tmp_path):
    """An attack through the grid: a study's prompt with two models ticked. Every model's run is
    admitted as Compare's, so the first is refused and nothing is generated or loaded after it."""
    from arena.store import Store
    from arena.studies import reserved

    store = Store(f"sqlite:///{tmp_path / 'r.db'}")
    sid = store.create_study("open one", methods=["TS-Temp", "Greedy"])
    secret = "Describe the lighthouse keeper's last winter in four lines."
    store.add_items(sid, [{"prompt": secret, "raw": False}])
    reserved.protect(lambda: store)
    try:
        events: list = []
        with pytest.raises(UserError, match="reserved"):
            req = RunRequest(secret, METHODS, max_new_tokens=5)
            for event in runner.stream_models(["m-a", "m-b"], req, load=dummy.load):
                events.append(event)
        assert not [e for e in events if e.event is not None and e.event.text]  # no output text came out
        assert "m-b" not in dummy.loads  # the second model never started
        dummy.loads.clear()
        # a disguised copy (doubled spaces, full-width letters) is the same prompt
        disguised = "Describe  the lighthouse keeper's last winter in four lines．"
        with pytest.raises(UserError, match="reserved"):
            list(runner.stream_models(["m-b"], RunRequest(disguised, METHODS, max_new_tokens=5), load=dummy.load))
        assert dummy.loads in ([], ["m-b"])
    finally:
        reserved.protect(None)
        store.dispose()


def test_stop_before_a_run_starts_ends_it_when_its_turn_comes_and_a_new_run_forgets_it(dummy, tmp_path):
    """Stop never cancels a generating job through Gradio (that raced with the job's last message and
    showed "Error" over every box): a generating run ends itself; a run still waiting ends at its start."""
    from arena.store import Store

    store = Store(f"sqlite:///{tmp_path / 's.db'}")
    with gr.Blocks() as demo:
        compare.build(AppContext(model=lambda: stand_in("smollm2-135m"), extras={"store": store}))
    fns = list(demo.fns.values())
    run = next(f for f in fns if f.api_name == "compare")
    stop = next(f for f in fns if getattr(f.fn, "__name__", None) == "on_stop")
    check = next(f for f in fns if getattr(f.fn, "__name__", None) == "on_check")
    assert not stop.cancels  # the Stop click itself cancels no job
    cancelling = [f for f in fns if f.cancels]
    assert len(cancelling) == 1 and cancelling[0].fn is None  # the step after the guard
    guard = next(f for f in fns if getattr(f.fn, "__name__", None) == "unless_generating")
    with pytest.raises(gr.Error):
        guard.fn(True)  # a generating run: the job cancel does not fire
    guard.fn(False)

    values = [p.default for _, p in cform.param_keys()]
    request = SimpleNamespace(session_hash="stop-waiting")
    *_, generating = stop.fn(request, [], ctiming.BUSY_LABEL)  # pressed while the run waits its turn
    assert generating is False
    updates = list(run.fn(request, PROMPT, METHODS, False, 5, 6, False, *values, ["smollm2-135m"]))
    assert updates[-1][0]["value"].startswith("**Stopped** after 0 of 2 methods")

    stop.fn(request, [], ctiming.BUSY_LABEL)
    check.fn(request, PROMPT, METHODS, False, 5, 6, False, *values)  # Run pressed again: the old Stop is void
    updates = list(run.fn(request, PROMPT, METHODS, False, 5, 6, False, *values, ["smollm2-135m"]))
    assert "Stopped" not in str(updates[-1][0]["value"])


def test_stop_answers_at_once_outside_the_queue(dummy, monkeypatch, tmp_path):
    """Issue 35: Stop's line still read "Running TS-Temp, 1 of 3…" 11 s after it was pressed: its handler
    waited in the queue behind the run. It runs outside the queue (it only sets the session's cancel event)."""
    from arena.store import Store

    store = Store(f"sqlite:///{tmp_path / 's.db'}")
    monkeypatch.setattr(compare, "model_choices", lambda default: [default, "gemma-3-270m"])
    monkeypatch.setattr(compare_handlers, "load_on_compute", dummy.load)
    with gr.Blocks() as demo:
        compare.build(AppContext(model=lambda: stand_in("smollm2-135m"), extras={"store": store}))
    stop = next(f for f in demo.fns.values() if f.fn is not None and f.fn.__name__ == "on_stop")
    assert stop.queue is False
    store.dispose()
