"""Compare's handlers without a browser or a live app (ui/compare/handlers.py): module-level functions
of plain values, called with the dummy engine (ARENA_ENGINE=dummy) and a stand-in model and request.
The run is a generator of the page's outputs: [status, one box per method, timing, chart, last]."""

from __future__ import annotations

from types import SimpleNamespace

import gradio as gr
import pytest
import torch

import decoders
from arena.store import Store
from arena.studies import reserved
from common.errors import UserError
from ui.compare import handlers as h
from ui.compare.form import param_keys
from ui.handler import handler

NAMES = decoders.names()
MODELS = ["m-a", "m-b"]


def model(name: str = "m-a") -> SimpleNamespace:
    return SimpleNamespace(name=name, label=name, device=torch.device("cpu"), dtype_name="float32",
                           context_length=2048, tokenizer=None)  # fmt: skip


def request(session: str = "compare-unit") -> SimpleNamespace:
    return SimpleNamespace(session_hash=session, headers={}, client=SimpleNamespace(host="127.0.0.1"), cookies={})


def defaults() -> list:
    return [p.default for _, p in param_keys()]


@pytest.fixture(autouse=True)
def dummy(monkeypatch):
    monkeypatch.setenv("ARENA_ENGINE", "dummy")


def run(prompt: str, methods: list[str], session: str = "compare-unit", max_new: int = 6) -> list[list]:
    return list(h.on_run(model, NAMES, request(session), prompt, methods, False, 3, max_new, False, *defaults()))


def test_a_run_streams_then_ends_with_every_methods_timing():
    pages = run("Name a colour of the sea.", ["BS-4", "TS-Temp"])
    first, last = pages[0], pages[-1]
    assert first[1 + len(NAMES)]["visible"] is False  # a new run clears the last run's timing at once
    assert last[0]["value"].startswith("Done: 2 methods.") and "beam search last" in last[0]["value"]
    texts = {n: b["value"] for n, b in zip(NAMES, last[1 : 1 + len(NAMES)], strict=True)}
    assert texts["TS-Temp"] and texts["BS-4"] and not texts["Greedy"]
    timing, state = last[1 + len(NAMES)], last[-1]
    assert timing["visible"] is True and list(timing["value"]["method"]) == ["TS-Temp", "BS-4"]  # sampling first
    assert [r.method for r in state["results"]] == ["TS-Temp", "BS-4"] and state["total"] == 2
    streamed = [p for p in pages if p[0]["value"].startswith("Running **TS-Temp**")]
    assert streamed  # the status says which method runs, while it runs


def test_a_refusal_is_one_line_by_run_and_no_error(tmp_path):
    store = Store(f"sqlite:///{tmp_path / 'arena.db'}")
    sid = store.create_study("calm", methods=["TS-Temp", "Greedy"])
    store.add_items(sid, [{"prompt": "Describe the moon over a harbour in winter."}])
    reserved.protect(lambda: store)
    try:
        line, admitted, button, stop = h.on_check(model, request(), "Describe the moon over a harbour in winter.",
                                                  ["TS-Temp"], False, 0, 8, False, *defaults())  # fmt: skip
        assert "reserved for a blind rating study" in line and admitted is False and button == gr.update()
        assert stop["interactive"] is False  # nothing admitted: nothing to stop
        with pytest.raises(gr.Error):
            h.gate(admitted)
        line, admitted, button, stop = h.on_check(model, request(), "Another prompt", ["TS-Temp"], False, 0, 8,
                                                  False, *defaults())  # fmt: skip
        assert admitted is True and button["interactive"] is False and stop["interactive"] is True
    finally:
        reserved.protect(None)
        store.dispose()


def test_an_empty_prompt_is_refused_by_run_not_after_the_run_started():
    for empty in ("", "  \n", None):
        line, admitted, button, stop = h.on_check(model, request(), empty, ["TS-Temp"], False, 0, 8, False, *defaults())
        assert "the prompt is empty" in line and admitted is False and button == gr.update()
        assert stop["interactive"] is False


def test_bad_settings_are_the_inline_line_from_the_wired_run():
    wired = handler(h.on_run, model, NAMES)
    with pytest.raises(gr.Error) as err:
        list(wired(request(), "A prompt", [], False, 0, 8, False, *defaults()))
    assert "method" in err.value.message and err.value.print_exception is False
    with pytest.raises(UserError):  # unwired, the handler raises the error for people itself
        run("A prompt", [])


def test_stop_before_a_run_started_and_after_it_ended():
    line, button, timing, chart, generating = h.on_stop(request("never-ran"), {}, "Running…")
    assert "Stopped" in str(line) and button["interactive"] is True and generating is False
    state = {"results": [], "total": 2, "grid": {"done": 3, "total": 4}}
    assert h.on_stop(request("never-ran"), state, "Run")[0] == gr.update()  # nothing was running


def test_the_grid_runs_every_method_on_each_model(monkeypatch):
    monkeypatch.setattr(h, "load_on_compute", model)
    pages = list(
        h.on_run_models(
            model,
            NAMES,
            MODELS,
            True,
            request("grid"),
            "Name a fruit.",
            ["TS-Temp", "Greedy"],
            False,
            3,
            4,
            False,
            *defaults(),
            MODELS,
        )  # fmt: skip
    )
    grid = pages[-1][-1]["value"]  # one row per method, one column per model
    assert grid["method"].tolist() == ["TS-Temp", "Greedy"] and list(grid.columns) == ["method", *MODELS]
    assert all("tok/s" in grid[m].str.cat() for m in MODELS)  # every cell finished, with its timing
    state = pages[-1][-2]
    assert state["grid"]["done"] == state["grid"]["total"] == 4
    alone = list(h.on_run_models(model, NAMES, MODELS, True, request("alone"), "Name a fruit.", ["Greedy"], False,
                                 3, 4, False, *defaults(), MODELS[:1]))  # fmt: skip
    assert alone[-1][-1] == gr.update(value=None, visible=False)  # the app's model alone: no grid


def test_a_preset_chooses_its_method_and_sets_its_controls():
    boxes = [d.name for d in decoders.all_decoders()]
    out = h.on_preset(boxes, "Creative", ["BS-4"])
    assert out[0]["value"] == ["BS-4", "TS-Temp"] and "TS-Temp" in out[1]["value"]
    controls = out[3 + len(boxes) :]
    temps = [u for (m, p), u in zip(param_keys(), controls, strict=True) if m == "TS-Temp" and p.name == "temperature"]
    assert temps == [gr.update(value=1.1)]
    assert h.on_preset(boxes, None, []) == [gr.update()] * (3 + len(boxes) + len(param_keys()))
