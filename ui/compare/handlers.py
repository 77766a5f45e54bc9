"""Compare's handlers: module-level functions of plain values. The app's model comes in as `model` (a
callable: ctx.model), the method names as `names`; the runs are generators of the page's outputs
([status, *one box per method, timing, chart, last] and, for the grid, the grid). `build`
(ui/compare/__init__.py) wires them through ui/handler.py; tests call them with the dummy engine
(tests/test_compare_handlers.py).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import gradio as gr

from arena.engines import current as current_engine
from arena.inputs.prompts import SCENARIOS, TASK_SCENARIOS
from arena.model.llm import LoadedModel
from arena.model.llm import models as model_cache
from arena.runs.requests import MethodResult, RunRequest, run_order
from arena.runs.runner import load_on_compute, stream_methods, stream_models
from common.errors import UserError
from common.messages import text

from .. import admission
from ..i18n import language_of_request, reads, t
from . import grid as compare_grid
from . import quick_blind
from .engine_hint import hint_line
from .estimate_line import estimate_line
from .form import (
    RESERVED_PICKED,
    apply_preset,
    check_token_cap,
    example_headers,
    example_reserved,
    example_samples,
    language_note,
    make_request,
    model_size_note,
    more_choices,
    param_keys,
    preset_note,
    refusal,
    scenario_max_new,
)
from .stop import ask_stop, forget_stop, stoppable
from .timing import (
    BUSY_LABEL,
    STREAM_INTERVAL_S,
    WHOLE_NOTE,
    status_line,
    stopped_line,
    task_check_lines,
    timing_caveat,
    timing_figure,
    timing_frame,
    waiting_note,
    whole_methods,
)

Model = Callable[[], LoadedModel]


def on_methods(names: list[str], selected: list[str]) -> list[Any]:
    """Each method's column shown when it is chosen."""
    return [gr.update(visible=n in (selected or [])) for n in names]


def on_estimate(model_names: list[str], grid_on: bool, request: gr.Request, selected: Any, max_new: Any,
                chosen_models: Any) -> str:  # fmt: skip
    """The time line next to Run for the methods, models and max_new_tokens on the form now."""
    models = [m for m in model_names if m in (chosen_models or [])] if grid_on else []
    try:
        tokens = int(max_new)
    except (TypeError, ValueError):
        return ""
    return estimate_line(list(selected or []), models or model_names[:1], tokens, language_of_request(request))


def on_checks(names: list[str], state: Any) -> list[Any]:
    """After a run: the task checker's line under each output of a task prompt (evaluation/tasks)."""
    lines = task_check_lines(state, names)
    return [gr.update(value=lines[n], visible=bool(lines[n])) for n in names]


def on_preset(boxes: list[str], name: str | None, selected: list[str]) -> list[Any]:
    """A preset chooses its method, opens its settings and sets its controls (the others stay): the
    methods, the line under the presets, the settings box, each method's box (`boxes`: their methods),
    then every control."""
    keys = param_keys()
    if not name:
        return [gr.update()] * (3 + len(boxes) + len(keys))
    method, values = apply_preset(name)
    updates = [
        gr.update(value=values[p.name]) if m == method and p.name in values
        else (gr.update(value=p.default) if m == method else gr.update())
        for m, p in keys
    ]  # fmt: skip
    chosen = list(selected or [])
    if method not in chosen:
        chosen.append(method)
    opened = [gr.update(open=True) if m == method else gr.update() for m in boxes]
    return [gr.update(value=chosen), gr.update(value=preset_note(name)), gr.update(open=True), *opened, *updates]


def on_check(model: Model, request: gr.Request, prompt_text: Any, selected: Any, raw: Any, seed: Any, max_new: Any,
             record: Any, *values: Any) -> tuple[Any, bool, Any, Any]:  # fmt: skip
    """Before the run: a refusal is one line by Run (not an error over every box), and Run shows it is
    busy. (status, admitted, the Run button, the Stop button: active once a run is admitted). One step
    for all four: each step of the chain before the run is a round trip and a render of the page, about
    0.3 s of a visitor's wait on a 2-core host."""
    forget_stop(request)
    message = refusal(model(), prompt_text, selected, raw, seed, max_new, list(values))
    if message:
        return message, False, gr.update(), stop_ready(False)
    return t("Starting…"), True, gr.update(value=t(BUSY_LABEL), interactive=False), stop_ready(True)


def gate(admitted: bool) -> None:
    """No outputs and no toast: it only keeps a refused run from starting (the line is shown)."""
    if not admitted:
        raise gr.Error("refused", visible=False, print_exception=False)


def stop_ready(admitted: bool = False) -> Any:
    """Stop is active while a run it could stop is admitted, inactive otherwise (on_done turns it off)."""
    return gr.update(interactive=bool(admitted))


def on_done(model: Model, request: gr.Request) -> tuple[Any, str, Any]:
    """After a run (ended, stopped or failed): Run ready again, the timing caveat, Stop inactive."""
    caveat = timing_caveat(model().device, language_of_request(request))
    return gr.update(value=t("Run"), interactive=True), caveat, gr.update(interactive=False)


def on_run(model: Model, names: list[str], request: gr.Request, prompt_text: Any, selected: Any, raw: Any,
           seed: Any, max_new: Any, record: Any, *values: Any) -> Iterator[list[Any]]:  # fmt: skip
    """The run on the app's model: its status, each method's text as it streams (at most every
    STREAM_INTERVAL_S), the timing table and chart as each method ends, and the run for `last`."""
    admission.started(request)
    req = make_request(prompt_text, selected, raw, seed, max_new, list(values), record)
    order = run_order(list(req.methods))
    head = f"(seed {req.seed}, max {req.max_new_tokens} new tokens; sampling first, beam search last)"
    head += waiting_note(order)
    whole = whole_methods(order)
    with stoppable(request) as cancel:
        page = _Page(names, order, {n: f"Waiting: {WHOLE_NOTE}…" if n in whole else None for n in names}, cancel)
        page.note = f"Waiting for the model… {head}"
        # A new run clears the previous run's texts, timing and chart at once.
        yield page(gr.update(value=None, visible=False), gr.update(value=None, visible=False), page.state(req))
        shown, current = 0.0, ""  # when a running method's text was last sent, and which method runs
        for event in [] if cancel.is_set() else stream_methods(model(), req, cancel=cancel, ticks=True):
            method, finished = event.method, event.result is not None
            starting, current = method != current, method
            if not (finished or starting):
                if event.text == page.sent[method]:
                    yield page()  # a tick: Gradio notices a client that left only when we yield
                    continue
                # Text at most every STREAM_INTERVAL_S (a method's first text at once): each update is
                # server and browser CPU that the generating thread, on the same cores, lacks. What
                # waits goes out with the next token, the next tick or the method's end.
                if page.sent[method] and time.perf_counter() - shown < STREAM_INTERVAL_S:
                    continue
            if event.text != page.sent[method]:
                page.sent[method], shown = event.text, time.perf_counter()
            if event.result is not None:
                page.done.append(event.result)
            if len(page.done) == len(order):
                page.note = f"Done: {len(page.done)} methods. {head}"
            elif finished or starting:
                tail = f" {WHOLE_NOTE}." if method in whole else f" {head}"  # a whole method's turn: no wait note
                page.note = status_line(method, event.position, event.total) + tail
            # The table, chart and state only when a method ends (rebuilt on every token they cost more
            # than the token).
            yield page(*page.results(req)) if finished else page()
        yield page(*page.results(req)) if page.done else page()  # the last message carries the timing again


class _Page:
    """A run's page as it stands: every message repeats the status and every box's text (Gradio sends
    only the change): a bare update after a value lets a busy browser lose that value (seen under load:
    finished methods with a timing row and an empty box, a status stuck on "Waiting")."""

    def __init__(self, names: list[str], order: list[str], placeholders: dict[str, Any], cancel: Any) -> None:
        self.names, self.order, self.placeholders, self.cancel = names, order, placeholders, cancel
        self.sent: dict[str, str] = {n: "" for n in names}  # what the page shows now, per box
        self.done: list[MethodResult] = []
        self.note = ""

    def __call__(self, *timing: Any) -> list[Any]:
        boxes = [gr.update(value=self.sent[n], placeholder=self.placeholders[n]) for n in self.names]
        # after Stop, never a "Running…" that would overwrite the Stop handler's line
        stopped = self.cancel.is_set() and len(self.done) < len(self.order)
        line = stopped_line(self.done, len(self.order)) if stopped else self.note
        return [gr.update(value=line), *boxes, *(timing or (gr.update(), gr.update(), gr.update()))]

    def state(self, req: RunRequest) -> dict[str, Any]:
        return {"prompt": req.prompt, "raw": req.raw, "results": list(self.done), "total": len(self.order)}

    def results(self, req: RunRequest) -> list[Any]:
        return [
            gr.update(value=timing_frame(self.done), visible=True),
            gr.update(value=timing_figure(self.done), visible=True),
            self.state(req),
        ]


def on_run_models(model: Model, names: list[str], model_names: list[str], grid_on: bool, request: gr.Request,
                  prompt_text: Any, selected: Any, raw: Any, seed: Any, max_new: Any, record: Any,
                  *values_and_models: Any) -> Iterator[list[Any]]:  # fmt: skip
    """Run on the app's model alone (`on_run`, the grid hidden), or the grid: every method on each chosen
    model. The models box is the last input, so API callers' inputs keep their places."""
    *values, chosen = values_and_models
    chosen = [m for m in model_names if m in (chosen or [])]
    if chosen == model_names[:1] or not grid_on:
        for out in on_run(model, names, request, prompt_text, selected, raw, seed, max_new, record, *values):
            yield [*out, gr.update(value=None, visible=False)]
        return
    admission.started(request)
    if not chosen:
        raise UserError("choose at least one model")
    req = make_request(prompt_text, selected, raw, seed, max_new, list(values), record)
    check_token_cap(req, models=len(chosen))
    yield from _grid_run(model, names, model_names, chosen, req, request)


def _grid_run(model: Model, names: list[str], model_names: list[str], chosen: list[str], req: RunRequest,
              request: Any) -> Iterator[list[Any]]:  # fmt: skip
    order = run_order(list(req.methods))
    head = f"(seed {req.seed}, max {req.max_new_tokens} new tokens; one model at a time)"
    keep = [gr.update(value="", placeholder=f"See {compare_grid.GRID_LABEL} below") for _ in names]
    total = len(chosen) * len(order)
    hidden = [gr.update(value=None, visible=False), gr.update(value=None, visible=False)]

    def load(setting: str | None) -> LoadedModel:
        return model() if setting == model_names[0] else load_on_compute(setting)

    with stoppable(request) as cancel:
        status, frame = f"Waiting for the model… {head}", compare_grid.grid_frame(chosen, order, {})
        state = compare_grid.grid_state(req.prompt, req.raw, [], total)
        yield [gr.update(value=status), *keep, *hidden, state, gr.update(value=frame, visible=True)]
        view = None
        for view in compare_grid.grid_views(stream_models(chosen, req, cancel=cancel, ticks=True, load=load),
                                            chosen, order, head):  # fmt: skip
            if view.changed:
                status, frame = view.status, view.frame
            timing = _grid_timing(req, view) if view.changed and view.finished else [gr.update()] * 3
            yield _grid_page(view, cancel, total, status, keep, timing, frame)
        timing = _grid_timing(req, view) if view is not None and view.done else [gr.update()] * 3
        yield _grid_page(view, cancel, total, status, keep, timing, frame)


def _grid_page(
    view: Any, cancel: Any, total: int, status: str, keep: list[Any], timing: list[Any], frame: Any
) -> list[Any]:
    # status and grid in every message, as on_run's page does, for the same reason
    done = len(view.done) if view is not None else 0
    stopped = cancel.is_set() and (view is None or not view.complete)
    line = compare_grid.stopped_line(done, total) if stopped else status
    return [gr.update(value=line), *keep, *timing, gr.update(value=frame, visible=True)]


def _grid_timing(req: RunRequest, view: Any) -> list[Any]:
    results = [r for _, r in view.done]
    return [
        gr.update(value=compare_grid.with_models(timing_frame(results), view.done), visible=True),
        gr.update(value=timing_figure(results, compare_grid.bar_names(view.done)), visible=True),
        compare_grid.grid_state(req.prompt, req.raw, view.done, view.total),
    ]


def tokenizer_of(model: Model, model_names: list[str], name: str | None) -> Any:
    """The tokenizer that reads a grid cell's recording: the app's model's, or the cell's model's while
    it is still in memory (the model cache never loads one for this)."""
    if not name or name == model_names[0]:
        return model().tokenizer
    found = model_cache.peek(name)
    if found is None:
        raise UserError(f"{name} has left memory since this run (ARENA_MODELS_IN_MEMORY): run again")
    return found.tokenizer


def on_stop(request: gr.Request, state: Any, run_label: Any) -> tuple[Any, ...]:
    """Stop ends the run on screen too: "Stopped", the timing of what finished, Run ready again.
    (status, Run, timing, chart, generating)"""
    waiting = reads(run_label, BUSY_LABEL)
    if ask_stop(request, waiting) is None:  # not generating: waiting for its turn (it ends when it starts), or nothing
        line = t("**Stopped** before it started.") if waiting else gr.update()
        return line, gr.update(value=t("Run"), interactive=True), gr.update(), gr.update(), False
    state = state if isinstance(state, dict) else {}
    if state.get("grid"):  # the grid keeps its cells and timing on the page
        line = compare_grid.stopped_line(state["grid"]["done"], state["grid"]["total"])
        return line, gr.update(value="Run", interactive=True), gr.update(), gr.update(), True
    if state.get("blind"):  # its outputs stay sealed: no timing that would name them
        return quick_blind.STOPPED, gr.update(value="Run", interactive=True), gr.update(), gr.update(), True
    done = list(state.get("results") or [])
    total = int(state.get("total") or len(done))
    kept = [gr.update(value=f(done), visible=True) if done else gr.update() for f in (timing_frame, timing_figure)]
    return stopped_line(done, total), gr.update(value=t("Run"), interactive=True), *kept, True


def unless_generating(generating: bool) -> None:
    """No outputs, no toast: Gradio's job cancel is only for a run still waiting in the queue."""
    if generating:
        raise gr.Error("ends itself", visible=False, print_exception=False)


def on_example(model: Model, examples: Sequence[Any], raw_only: bool, index: Any, selected: Any) -> tuple[Any, ...]:
    """A picked example: its prompt, raw flag and max_new_tokens, or the line saying it is reserved.
    (prompt, raw, status, max_new_tokens)"""
    try:
        scenario = examples[int(index)]
    except (TypeError, ValueError, IndexError):
        return gr.update(), gr.update(), gr.update(), gr.update()
    lm = model()
    if example_reserved(lm, scenario):
        return gr.update(), gr.update(), t(RESERVED_PICKED), gr.update()
    return scenario.prompt, scenario.raw or raw_only, "", scenario_max_new(lm, scenario, selected)


def on_page_texts(model: Model, others: list[str], hint: str, request: gr.Request) -> tuple[Any, ...]:
    """On page load, in the reader's language: the model line (with how to get the faster engine,
    `hint`: ui/compare/engine_hint.py's message id or ""), the small model's note, the presets' line,
    the timing caveat, the memory note and "More methods" (`others`) with their groups."""
    lang, lm = language_of_request(request), model()
    return (
        current_engine().describe(lm, lang) + hint_line(hint, lang),
        model_size_note(lm, lang),
        gr.update(info=text("compare_presets_info", lang)),
        timing_caveat(lm.device, lang),
        text("compare_memory_note", lang, help=text("memory_description", lang)),
        # built in English: only a Chinese reader's choices are sent again (a new list of choices
        # arriving after a quick first click would undo it)
        gr.update(choices=more_choices(others, lang)) if lang == "zh" else gr.update(),
    )


def refresh_examples(model: Model, request: gr.Request) -> tuple[Any, ...]:
    """On page load: the examples, a study's prompts greyed out, in the reader's language."""
    lm, lang = model(), language_of_request(request)
    return tuple(
        gr.update(samples=example_samples(lm, examples, lang), headers=example_headers(lang))
        for examples in (SCENARIOS, TASK_SCENARIOS)
    )


def on_prompt(model: Model, text: Any) -> Any:
    """The language note under the prompt. Hidden, not emptied: Gradio puts a translated text back
    when the language is switched."""
    note = language_note(model(), text)
    return gr.update(value=note, visible=bool(note))


def shown(names: list[str], results: list[MethodResult]) -> list[Any]:
    """A blind run revealed: each method's text in its box, the timing table and chart."""
    texts = {r.method: r.text for r in results}
    return [gr.update(value=texts.get(n, ""), placeholder=None) for n in names] + [
        gr.update(value=timing_frame(results), visible=bool(results)),
        gr.update(value=timing_figure(results), visible=bool(results)),
    ]
