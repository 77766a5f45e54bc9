"""Compare tab: one prompt, any set of decoders side by side, streamed where possible, timed.

Every control for a decoder's parameters is generated from the registry, so a new decoder file
shows up here with no UI code. The pure helpers (`make_request`, `timing_frame`, `timing_figure`,
`apply_preset`) are what the tests call.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import gradio as gr
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

import decoders
from arena import language
from arena.engines import current, model_choices
from arena.hardware import hardware_banner
from arena.llm import models as model_cache
from arena.memory import DESCRIPTION as MEMORY_HELP
from arena.memory import GROWTH_LABEL, PEAK_LABEL
from arena.prompts import SCENARIOS, TASK_SCENARIOS
from arena.requests import (
    DEFAULT_MAX_NEW_TOKENS,
    MAX_NEW_TOKENS_RANGE,
    MethodResult,
    RunRequest,
    run_order,
    validate_request,
)
from arena.runner import load_on_compute, stream_methods, stream_models
from arena.settings import current as current_settings
from arena.studies import reserved
from arena.zerogpu import friendly_error
from common.errors import UserError
from common.messages import english
from decoders import Param
from evaluation.tasks.views import verdict_line

from . import AppContext, admission, compare_grid, quick_blind, token_view
from .i18n import reads, t
from .safe import md_text

# The article's presets: (method, settings). Choosing one selects that method and sets its controls.
PRESETS: dict[str, tuple[str, dict[str, Any]]] = {
    "Creative": ("TS-Temp", {"temperature": 1.1}),
    "Balanced": ("TS-Tilted", {"temperature": 0.8, "alpha": 0.1}),
    "Precise": ("BS-4", {"length_penalty": 0.8}),
}

TIMING_COLUMNS = [
    "method",
    "new tokens",
    "TTFT (ms)",
    "latency (ms)",
    "tokens/s",
    PEAK_LABEL,
    GROWTH_LABEL,
    "seed",
    "finish",
    "dtype",
    "settings",
]
# A running method's text goes to the page at most this often (its first text at once).
STREAM_INTERVAL_S = 0.2
# Below this many parameters the Compare tab says what not to expect from the model.
SMALL_MODEL_PARAMS = 1_000_000_000


def compare_token_cap() -> int:
    """The most max_new_tokens x methods one anonymous Compare run may ask for (ARENA_COMPARE_MAX_TOKENS)."""
    return current_settings().compare_max_tokens


def check_token_cap(req: RunRequest, cap: int | None = None, models: int = 1) -> None:
    cap = compare_token_cap() if cap is None else cap
    total = req.max_new_tokens * len(req.methods) * models
    if total > cap:
        times = f"{len(req.methods)} methods × {models} models" if models > 1 else f"{len(req.methods)} methods"
        raise UserError(
            f"{times} × {req.max_new_tokens} max_new_tokens = {total:,} tokens, over this "
            f"app's limit of {cap:,} per Compare run (ARENA_COMPARE_MAX_TOKENS); choose fewer methods"
            + (", fewer models" if models > 1 else "")
            + " or fewer tokens"
        )


def status_line(method: str, position: int, total: int) -> str:
    return f"Running **{method}**, {position} of {total}…"


RESERVED_EXAMPLE = "🔒 in a study being rated: not available here until it is published"
RESERVED_PICKED = english("compare_reserved_picked")
BUSY_LABEL = "Running…"
WHOLE_NOTE = "beam search runs last and arrives whole"


def timing_caveat(device: Any) -> str:
    """The line under the timing table: one run, on this machine, under its load of the moment."""
    try:
        load = f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"
    except (OSError, AttributeError):
        load = "its load unknown"
    return (
        f"*One run on this machine ({device}; {load} just now): timings move from run to run and with "
        "the load. Compare methods within one run; steady figures come from `python -m evaluation.benchmark`.*"
    )


def whole_methods(methods: list[str]) -> list[str]:
    """The chosen methods that cannot stream (beam search): they run last and arrive whole."""
    return [m for m in methods if not decoders.get(m).streams]


def waiting_note(methods: list[str]) -> str:
    """The status line's note while the streaming methods run and a whole-output method waits."""
    whole = whole_methods(methods)
    return f" {', '.join(whole)}: {WHOLE_NOTE}." if whole else ""


def stopped_line(done: list[MethodResult], total: int) -> str:
    """The status after Stop: what finished (its timing stays in the table) and what did not."""
    kept = ", ".join(r.method for r in done)
    return f"**Stopped** after {len(done)} of {total} methods" + (
        f"; the timing of {kept} is kept below." if done else "; no method had finished, so there is no timing."
    )


def refusal(lm: Any, prompt: Any, selected: Any, raw: Any, seed: Any, max_new: Any, values: list[Any]) -> str:
    """Why Run would be refused (bad settings, over the token cap, a prompt reserved for a study), as
    one line for the page; "" when it would run. The run itself checks again (API callers get an error)."""
    try:
        req = make_request(prompt, selected, raw, seed, max_new, values)
        reserved.admit(lm, req.prompt, req.raw)
    except UserError as exc:
        return f"⚠ {md_text(exc)}"
    return ""


def example_samples(lm: Any, scenarios: Any) -> list[list[Any]]:
    """The example list as Compare shows it now: a prompt of a study being rated is greyed out (its
    text replaced by a note; it would only be refused), every other one as it is. Same length and
    order as `scenarios`, so a click's index still names its scenario."""
    return [[RESERVED_EXAMPLE, sc.raw] if example_reserved(lm, sc) else [sc.prompt, sc.raw] for sc in scenarios]


def language_note(lm: Any, prompt: Any) -> str:
    """The line under the prompt for a mostly-Chinese prompt on an English-only model (arena/language.py), else ""."""
    if not language.model_warning(str(prompt or ""), lm):
        return ""
    return f"⚠ {language.short_name(lm)} {t(language.MODEL_WARNING)}"


def scenario_max_new(lm: Any, scenario: Any, selected: Any) -> int:
    """max_new_tokens for a picked scenario: its language's default on this model's tokenizer
    (a Chinese one needs more tokens for the same text), within the Compare cap for the chosen methods."""
    wanted = language.max_new_tokens_for(scenario.language, getattr(lm, "tokenizer", None))
    count = len(selected) if isinstance(selected, (list, tuple)) and selected else 1
    return max(1, min(wanted, compare_token_cap() // count))


def example_reserved(lm: Any, scenario: Any) -> bool:
    try:
        reserved.admit(lm, scenario.prompt, scenario.raw)
    except UserError:
        return True
    return False


# Stop: one cancel event per browser session's running Compare (a threading.Event cannot live in gr.State).
_cancels: dict[str, threading.Event] = {}
_cancels_lock = threading.Lock()
# Stop pressed while a run still waited for its turn: that run ends as soon as it starts. Stop never
# uses Gradio's job cancel: cancelling a running job raced with the job's last message, and a busy
# browser then showed "Error" over the status, every box, the table and the chart (seen in CI).
_stop_asked: set[str] = set()


def session_of(request: Any) -> str:
    return getattr(request, "session_hash", None) or "anonymous"


def ask_stop(request: Any, waiting: bool) -> threading.Event | None:
    """Stop for this browser session: the running run's cancel event, set (generation ends at the next
    token), or None when none is generating; a run still `waiting` for its turn then ends when it starts."""
    session = session_of(request)
    with _cancels_lock:
        cancel = _cancels.get(session)
        if cancel is None and waiting:
            _stop_asked.add(session)
    if cancel is not None:
        cancel.set()
    return cancel


def forget_stop(request: Any) -> None:
    """A new Run: a Stop pressed before it (for a run that had ended meanwhile) does not stop it."""
    with _cancels_lock:
        _stop_asked.discard(session_of(request))


@contextmanager
def stoppable(request: Any) -> Iterator[threading.Event]:
    """A Compare run's cancel event, registered for this browser session (Stop sets it, as does the
    run's end or a client that left: generation ends at the next token), with errors as one toast."""
    session = session_of(request)
    cancel = threading.Event()
    with _cancels_lock:
        _cancels[session] = cancel
        if session in _stop_asked:  # Stop came while this run waited for its turn
            _stop_asked.discard(session)
            cancel.set()
    try:
        yield cancel
    except UserError as exc:
        raise gr.Error(str(exc), print_exception=False) from None
    except gr.Error as exc:
        message = friendly_error(exc)
        if message:
            raise gr.Error(message, print_exception=False) from None
        raise
    finally:
        cancel.set()
        with _cancels_lock:
            if _cancels.get(session) is cancel:
                del _cancels[session]


def param_keys() -> list[tuple[str, Param]]:
    """Every (decoder name, param) pair, in the order the controls are built."""
    return [(d.name, p) for d in decoders.all_decoders() for p in d.params]


def make_request(
    prompt: str,
    methods: list[str],
    raw: bool,
    seed: Any,
    max_new_tokens: Any,
    values: list[Any],
    record: bool = False,
) -> RunRequest:
    """A validated RunRequest from the raw control values (one per `param_keys()` entry)."""
    keys = param_keys()
    if len(values) != len(keys):
        raise UserError("the settings form is out of date; reload the page")
    settings: dict[str, dict[str, Any]] = {}
    for (method, param), value in zip(keys, values):
        if method in (methods or []) and value is not None and value != param.default:
            settings.setdefault(method, {})[param.name] = value
    seed_value = None if seed in (None, "") else seed
    req = validate_request(
        RunRequest(prompt or "", list(methods or []), settings, max_new_tokens, seed_value, bool(raw), bool(record))
    )
    check_token_cap(req)
    return req


def apply_preset(name: str) -> tuple[str, dict[str, Any]]:
    if name not in PRESETS:
        raise UserError(f"unknown preset {name!r}; choose one of {', '.join(PRESETS)}")
    return PRESETS[name]


def preset_note(name: str) -> str:
    """What a preset set, in words, for the line under the presets (Markdown)."""
    method, values = apply_preset(name)
    d = decoders.get(method)
    set_ = ", ".join(f"{_label(d, k)} = {v}" for k, v in values.items())
    rest = ", ".join(f"{p.label or p.name} = {p.default}" for p in d.params if p.name not in values)
    return (
        f"**{name}** set **{method}**: {set_}"
        + (f"; its other settings are back to their defaults ({rest})" if rest else "")
        + f". See Settings › {method}; change any slider there and the run uses that instead."
    )


def _label(d, name: str) -> str:
    return next((p.label or p.name for p in d.params if p.name == name), name)


def settings_text(settings: dict[str, Any] | None) -> str:
    """A method's effective settings as one compact cell: "temperature=1.1, top_p=0.95"."""
    if not settings:
        return "defaults"
    return ", ".join(
        f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}"
        for k, v in settings.items()
        if k not in ("dtype", "batch_size")
    )


RAW_ONLY_NOTE = "This is a base model without a chat template: every prompt is continued as raw text."


def model_size_note(lm) -> str:
    """One line when the model is small: what it will do badly (a 135M model and a Chinese prompt)."""
    try:
        n = sum(p.numel() for p in lm.model.parameters())
    except Exception:
        return ""
    if not n or n >= SMALL_MODEL_PARAMS:
        return ""
    size = f"{n / 1e6:.0f}M" if n < 1e9 else f"{n / 1e9:.1f}B"
    return (
        f"*{lm.name.split(' ')[0]} has {size} parameters: expect weak Chinese and reasoning, and off-topic "
        "answers to hard prompts; it is here to compare decoding methods, not models.*"
    )


def _or_na(value: float | None) -> float | str:
    return "n/a" if value is None else value


def timing_frame(results: list[MethodResult]) -> pd.DataFrame:
    rows = [
        [
            r.method,
            r.new_tokens,
            round(r.ttft_ms, 1),
            round(r.latency_ms, 1),
            round(r.tokens_per_s, 2),
            _or_na(r.peak_mem_mb),
            _or_na(r.peak_mem_growth_mb),
            r.seed,
            r.finish_reason,
            r.dtype or "n/a",
            settings_text(r.settings),
        ]
        for r in results
    ]
    return pd.DataFrame(rows, columns=TIMING_COLUMNS)


def timing_figure(results: list[MethodResult], names: list[str] | None = None) -> go.Figure:
    """Latency and throughput bars, one per result, named by `names` (default: the methods)."""
    fig = make_subplots(rows=1, cols=2, subplot_titles=("latency (ms)", "throughput (generated tokens/s)"))
    names = [r.method for r in results] if names is None else names
    fig.add_trace(go.Bar(x=names, y=[r.latency_ms for r in results], name="latency", marker_color="#4c78a8"), 1, 1)
    fig.add_trace(go.Bar(x=names, y=[r.tokens_per_s for r in results], name="tokens/s", marker_color="#f58518"), 1, 2)
    fig.update_layout(height=320, showlegend=False, margin=dict(l=30, r=10, t=40, b=30))
    return fig


def task_check_lines(state: Any, names: list[str]) -> dict[str, str]:
    """After a run (the session's `last` state): the task checker's line for each method's output
    when the prompt is one of article 003's task prompts (evaluation/tasks), "" otherwise."""
    state = state if isinstance(state, dict) else {}
    texts = {r.method: r.text for r in state.get("results", [])}
    return {n: verdict_line(state.get("prompt", ""), texts[n]) if n in texts else "" for n in names}


def _control(param: Param) -> gr.components.Component:
    label = param.label or param.name
    if param.kind == "bool":
        return gr.Checkbox(value=param.default, label=label, info=param.help or None)
    if param.kind == "choice":
        return gr.Dropdown(choices=list(param.choices), value=param.default, label=label, info=param.help or None)
    if param.kind == "text":
        return gr.Textbox(value=param.default, label=label, info=param.help or None, lines=3, max_lines=8)
    if param.minimum is None or param.maximum is None:  # a slider needs both ends
        return gr.Number(value=param.default, label=label, info=param.help or None)
    return gr.Slider(
        minimum=param.minimum,
        maximum=param.maximum,
        value=param.default,
        step=param.step or (1 if param.kind == "int" else 0.01),
        label=label,
        info=param.help or None,
    )


def build(ctx: AppContext) -> None:
    all_names = decoders.names()
    lm = ctx.model()
    banner = hardware_banner(lm.device)
    if banner:
        gr.Markdown(banner)

    engine = current()
    gr.Markdown(engine.describe(lm))
    raw_only = not getattr(lm, "has_chat_template", True)  # a base model: the prompt is always continued
    if engine.in_process:  # a server's model is described by the server
        small = model_size_note(lm)
        if small:
            gr.Markdown(small, elem_id="compare-model-note")
    with gr.Row():
        with gr.Column(scale=3):
            prompt = gr.Textbox(label="Prompt", lines=4, placeholder="Ask a question, or paste a text to continue")
            lang_note = gr.Markdown("", visible=False, elem_id="compare-language-note")
            raw_box = gr.Checkbox(
                label="Raw continuation (no chat template)",
                value=raw_only,
                info=RAW_ONLY_NOTE if raw_only else None,
            )
            record_box = gr.Checkbox(label=token_view.RECORD_LABEL, value=False, info=token_view.RECORD_INFO)
            # Datasets, not gr.Examples: their samples are refreshed on each page load, greying out the
            # prompts of a study being rated (a click is mapped by index to the scenario on the server).
            scenario_list = gr.Dataset(
                components=[prompt, raw_box],
                samples=[[s.prompt, s.raw] for s in SCENARIOS],
                type="index",
                label="The article's scenarios (zh and en)",
                elem_id="compare-examples",
            )
            task_list = gr.Dataset(
                components=[prompt, raw_box],
                samples=[[s.prompt, s.raw] for s in TASK_SCENARIOS],
                type="index",
                label=english("compare_tasks_label"),
                elem_id="compare-task-examples",
            )
        with gr.Column(scale=2):
            methods = gr.CheckboxGroup(choices=all_names, value=list(decoders.DEFAULT_METHODS), label="Methods")
            # The grid (ui/compare_grid.py): the embedded models here, or those with a vLLM server.
            model_names = model_choices(getattr(lm, "label", lm.name))
            models_box = gr.CheckboxGroup(
                choices=model_names,
                value=[model_names[0]],
                label=compare_grid.MODELS_LABEL,
                info=compare_grid.MODELS_INFO,
                visible=len(model_names) > 1,
                elem_id="compare-models",
            )
            preset = gr.Radio(
                choices=list(PRESETS),
                value=None,
                label="Article presets",
                info="Creative: TS-Temp T=1.1 · Balanced: TS-Tilted T=0.8 λ=0.1 · Precise: BS-4 length penalty 0.8",
            )
            preset_line = gr.Markdown("", elem_id="compare-preset-note")
            with gr.Row():
                run = gr.Button("Run", variant="primary", elem_id="compare-run")
                stop = gr.Button("Stop", variant="stop", elem_id="compare-stop")
                blind_run = gr.Button(quick_blind.BUTTON, elem_id="compare-run-blind")
                rate = gr.Button("Rate these blind", visible=bool(ctx.extras.get("quick_rate")))
            status = gr.Markdown("", elem_id="compare-status")  # by Run, so a run is seen to start
    blind_panel = quick_blind.Panel.build()  # hidden until a blind run's outputs are all ready
    method_boxes: dict[str, gr.Accordion] = {}
    with gr.Accordion("Settings", open=False) as settings_box:
        with gr.Row():
            seed = gr.Number(value=0, precision=0, label="Seed (torch.manual_seed before each method; empty = random)")
            lo, hi = MAX_NEW_TOKENS_RANGE
            max_new = gr.Slider(lo, hi, value=DEFAULT_MAX_NEW_TOKENS, step=1, label="max_new_tokens")
        controls: list[gr.components.Component] = []
        for d in decoders.all_decoders():
            # The title names the method only: the description's numbers are the defaults, and a preset
            # or a slider can change them (the sliders always show what a run will use).
            with gr.Accordion(f"{d.name} settings", open=False) as box:
                method_boxes[d.name] = box
                gr.Markdown(f"{d.description} *(described at its default settings)*")
                with gr.Row():
                    controls.extend(_control(p) for p in d.params)
    boxes: dict[str, gr.Textbox] = {}
    columns: dict[str, gr.Column] = {}
    checks: dict[str, gr.Textbox] = {}
    with gr.Row(equal_height=True):
        for name in all_names:
            with gr.Column(min_width=320, visible=name in decoders.DEFAULT_METHODS) as columns[name]:
                # Textbox, not Markdown/HTML: model output is shown as text and can never run as markup.
                boxes[name] = gr.Textbox(label=name, lines=12, interactive=False)
                # A task prompt's automatic check (evaluation/tasks); quotes model text, so text too.
                checks[name] = gr.Textbox(label=f"{name}: task check", lines=2, interactive=False, visible=False)
    # Textboxes' values, not markup: a Dataframe cell is shown as text.
    grid = gr.Dataframe(label=compare_grid.GRID_LABEL, interactive=False, wrap=True, visible=False)
    # Hidden until a method has finished (no empty table or plot; see ui/results.py).
    timing = gr.Dataframe(headers=TIMING_COLUMNS, label="Timing", interactive=False, visible=False)
    caveat = gr.Markdown(timing_caveat(lm.device), elem_id="compare-timing-caveat")
    gr.Markdown(f"*Memory columns:* {MEMORY_HELP}.")
    chart = gr.Plot(label="Latency and throughput", visible=False)
    last = gr.State([])  # server-side: this session's last run (prompt, raw, results), for "Rate these blind"

    keys = param_keys()

    def on_methods(selected: list[str]):
        return [gr.update(visible=n in (selected or [])) for n in all_names]

    def on_checks(state):
        lines = task_check_lines(state, all_names)
        return [gr.update(value=lines[n], visible=bool(lines[n])) for n in all_names]

    def on_preset(name: str | None, selected: list[str]):
        if not name:
            return [gr.update()] * (3 + len(method_boxes) + len(controls))
        method, values = apply_preset(name)
        updates = [
            gr.update(value=values[p.name])
            if m == method and p.name in values
            else (gr.update(value=p.default) if m == method else gr.update())
            for m, p in keys
        ]
        chosen = list(selected or [])
        if method not in chosen:
            chosen.append(method)
        opened = [gr.update(open=True) if m == method else gr.update() for m in method_boxes]
        return [gr.update(value=chosen), gr.update(value=preset_note(name)), gr.update(open=True)] + opened + updates

    def on_run(
        request: gr.Request, prompt_text, selected, raw, seed_value, max_new_value, record, *values
    ) -> Iterator[list]:
        admission.started(request)
        try:
            req = make_request(prompt_text, selected, raw, seed_value, max_new_value, list(values), record)
        except UserError as exc:
            raise gr.Error(str(exc), print_exception=False) from None
        order = run_order(list(req.methods))
        texts = {n: "" for n in all_names}
        done: list[MethodResult] = []
        whole = whole_methods(order)
        head = f"(seed {req.seed}, max {req.max_new_tokens} new tokens; sampling first, beam search last)"
        head += waiting_note(order)
        with stoppable(request) as cancel:
            # A box that waits for a whole output says why it is empty.
            placeholders = {n: f"Waiting: {WHOLE_NOTE}…" if n in whole else None for n in all_names}
            sent = dict(texts)  # what the page shows now, per box
            note = f"Waiting for the model… {head}"

            def page(*timing: Any) -> list:
                """Every message repeats the status and every box's text (Gradio sends only the change):
                a bare update after a value lets a busy browser lose that value (seen under load:
                finished methods with a timing row and an empty box, a status stuck on "Waiting")."""
                boxes_now = [gr.update(value=sent[n], placeholder=placeholders[n]) for n in all_names]
                # after Stop, never a "Running…" that would overwrite the Stop handler's line
                stopped = cancel.is_set() and len(done) < len(order)
                return (
                    [gr.update(value=stopped_line(done, len(order)) if stopped else note)]
                    + boxes_now
                    + list(timing or (gr.update(), gr.update(), gr.update()))
                )

            def results_now() -> list:
                return [
                    gr.update(value=timing_frame(done), visible=True),
                    gr.update(value=timing_figure(done), visible=True),
                    {"prompt": req.prompt, "raw": req.raw, "results": list(done), "total": len(order)},
                ]

            # A new run clears the previous run's texts, timing and chart at once.
            yield page(
                gr.update(value=None, visible=False),
                gr.update(value=None, visible=False),
                {"prompt": req.prompt, "raw": req.raw, "results": [], "total": len(order)},
            )
            shown = 0.0  # when a running method's text was last sent
            current = ""
            for event in [] if cancel.is_set() else stream_methods(ctx.model(), req, cancel=cancel, ticks=True):
                method, finished = event.method, event.result is not None
                starting, current = method != current, method
                texts[method] = event.text
                if not (finished or starting):
                    if texts[method] == sent[method]:
                        yield page()  # a tick: Gradio notices a client that left only when we yield
                        continue
                    # Text at most every STREAM_INTERVAL_S (a method's first text at once): each update
                    # is server and browser CPU that the generating thread, on the same cores, lacks.
                    # What waits goes out with the next token, the next tick or the method's end.
                    if sent[method] and time.perf_counter() - shown < STREAM_INTERVAL_S:
                        continue
                if texts[method] != sent[method]:
                    sent[method], shown = texts[method], time.perf_counter()
                if event.result is not None:
                    done.append(event.result)
                if len(done) == len(order):
                    note = f"Done: {len(done)} methods. {head}"
                elif finished or starting:
                    note = status_line(method, event.position, event.total) + f" {head}"
                    if method in whole:  # its turn now: the note about waiting is done
                        note = status_line(method, event.position, event.total) + f" {WHOLE_NOTE}."
                # The table, chart and state only when a method ends (rebuilt on every token they
                # cost more than the token).
                yield page(*results_now()) if finished else page()
            # The last message carries the timing again too.
            yield page(*results_now()) if done else page()

    def on_run_models(
        request: gr.Request, prompt_text, selected, raw, seed_value, max_new_value, record, *values_and_models
    ) -> Iterator[list]:
        """Run on the app's model alone (as above), or the grid: every method on each chosen model.
        The models box is the last input, so API callers' inputs keep their places."""
        *values, chosen = values_and_models
        chosen = [m for m in model_names if m in (chosen or [])]
        if chosen == model_names[:1] or not models_box.visible:
            for out in on_run(request, prompt_text, selected, raw, seed_value, max_new_value, record, *values):
                yield [*out, gr.update(value=None, visible=False)]
            return
        admission.started(request)
        try:
            if not chosen:
                raise UserError("choose at least one model")
            req = make_request(prompt_text, selected, raw, seed_value, max_new_value, list(values), record)
            check_token_cap(req, models=len(chosen))
        except UserError as exc:
            raise gr.Error(str(exc), print_exception=False) from None
        order = run_order(list(req.methods))
        head = f"(seed {req.seed}, max {req.max_new_tokens} new tokens; one model at a time)"
        keep = [gr.update(value="", placeholder=f"See {compare_grid.GRID_LABEL} below") for _ in all_names]
        view = None

        def load(setting: str | None):
            return ctx.model() if setting == model_names[0] else load_on_compute(setting)

        with stoppable(request) as cancel:
            yield (
                [gr.update(value=f"Waiting for the model… {head}")]
                + keep
                + [gr.update(value=None, visible=False), gr.update(value=None, visible=False)]
                + [compare_grid.grid_state(req.prompt, req.raw, [], len(chosen) * len(order))]
                + [gr.update(value=compare_grid.grid_frame(chosen, order, {}), visible=True)]
            )
            events = stream_models(chosen, req, cancel=cancel, ticks=True, load=load)
            total = len(chosen) * len(order)
            status, frame = f"Waiting for the model… {head}", compare_grid.grid_frame(chosen, order, {})

            def grid_page(*timing: Any) -> list:
                # status and grid in every message, as on_run's page() does, for the same reason
                done = len(view.done) if view is not None else 0
                stopped = cancel.is_set() and (view is None or not view.complete)
                line = compare_grid.stopped_line(done, total) if stopped else status
                timing = timing or (gr.update(), gr.update(), gr.update())
                return [gr.update(value=line)] + keep + list(timing) + [gr.update(value=frame, visible=True)]

            def timing_now() -> list:
                assert view is not None
                results = [r for _, r in view.done]
                return [
                    gr.update(value=compare_grid.with_models(timing_frame(results), view.done), visible=True),
                    gr.update(value=timing_figure(results, compare_grid.bar_names(view.done)), visible=True),
                    compare_grid.grid_state(req.prompt, req.raw, view.done, view.total),
                ]

            for view in compare_grid.grid_views(events, chosen, order, head):
                if not view.changed:
                    yield grid_page()
                    continue
                status, frame = view.status, view.frame
                yield grid_page(*timing_now()) if view.finished else grid_page()
            yield grid_page(*timing_now()) if view is not None and view.done else grid_page()

    def tokenizer_of(model: str | None) -> Any:
        """The tokenizer that reads a grid cell's recording: the app's model's, or the cell's model's
        while it is still in memory (the model cache never loads one for this)."""
        if not model or model == model_names[0]:
            return ctx.model().tokenizer
        found = model_cache.peek(model)
        if found is None:
            raise UserError(f"{model} has left memory since this run (ARENA_MODELS_IN_MEMORY): run again")
        return found.tokenizer

    def on_stop(request: gr.Request, state: Any, run_label: Any):
        """Stop ends the run on screen too: "Stopped", the timing of what finished, Run ready again."""
        waiting = reads(run_label, BUSY_LABEL)
        cancel = ask_stop(request, waiting)
        if cancel is None:  # not generating: still waiting for its turn (it ends when it starts), or nothing to stop
            return (
                t("**Stopped** before it started.") if waiting else gr.update(),
                gr.update(value=t("Run"), interactive=True),
                gr.update(),
                gr.update(),
                False,
            )
        state = state if isinstance(state, dict) else {}
        if state.get("grid"):  # the grid keeps its cells and timing on the page
            line = compare_grid.stopped_line(state["grid"]["done"], state["grid"]["total"])
            return line, gr.update(value="Run", interactive=True), gr.update(), gr.update(), True
        if state.get("blind"):  # its outputs stay sealed: no timing that would name them
            return (quick_blind.STOPPED, gr.update(value="Run", interactive=True), gr.update(), gr.update(), True)
        done = list(state.get("results") or [])
        total = int(state.get("total") or len(done))
        return (
            stopped_line(done, total),
            gr.update(value=t("Run"), interactive=True),
            gr.update(value=timing_frame(done), visible=True) if done else gr.update(),
            gr.update(value=timing_figure(done), visible=True) if done else gr.update(),
            True,
        )

    def unless_generating(generating: bool):
        # No outputs, no toast: Gradio's job cancel is only for a run still waiting in the queue.
        if generating:
            raise gr.Error("ends itself", visible=False, print_exception=False)

    def on_check(request: gr.Request, prompt_text, selected, raw, seed_value, max_new_value, record, *values):
        """Before the run: a refusal is one line by Run (not an error over every box), and Run shows
        it is busy."""
        forget_stop(request)
        message = refusal(ctx.model(), prompt_text, selected, raw, seed_value, max_new_value, list(values))
        if message:
            return message, False, gr.update()
        return t("Starting…"), True, gr.update(value=t(BUSY_LABEL), interactive=False)

    def gate(admitted: bool):
        # No outputs and no toast: it only keeps a refused run from starting (the line is shown).
        if not admitted:
            raise gr.Error("refused", visible=False, print_exception=False)

    def on_done():
        return gr.update(value=t("Run"), interactive=True), timing_caveat(ctx.model().device)

    def on_example(examples: Sequence[Any]):
        def pick(index: Any, selected: Any):
            try:
                scenario = examples[int(index)]
            except (TypeError, ValueError, IndexError):
                return gr.update(), gr.update(), gr.update(), gr.update()
            lm_now = ctx.model()
            if example_reserved(lm_now, scenario):
                return gr.update(), gr.update(), t(RESERVED_PICKED), gr.update()
            return scenario.prompt, scenario.raw or raw_only, "", scenario_max_new(lm_now, scenario, selected)

        return pick

    def refresh_examples():
        lm_now = ctx.model()
        return (
            gr.update(samples=example_samples(lm_now, SCENARIOS)),
            gr.update(samples=example_samples(lm_now, TASK_SCENARIOS)),
        )

    methods.change(on_methods, methods, list(columns.values()), api_visibility="private")
    preset.change(
        on_preset,
        [preset, methods],
        [methods, preset_line, settings_box] + list(method_boxes.values()) + controls,
        api_visibility="private",
    )
    run_inputs = [prompt, methods, raw_box, seed, max_new, record_box, *controls]
    admitted = gr.State(False)
    private: dict[str, Any] = dict(api_visibility="private")
    checked = run.click(
        on_check, run_inputs, [status, admitted, run], show_progress="hidden", queue=False, **private
    ).then(gate, [admitted], None, show_progress="hidden", queue=False, **private)
    run_event = checked.success(
        on_run_models,
        [*run_inputs, models_box],
        [status] + list(boxes.values()) + [timing, chart, last, grid],
        api_name="compare",
        concurrency_limit=1,  # one generation at a time on the device, so timings are not shared
        concurrency_id=admission.GENERATION,
        validator=admission.validator(len(run_inputs) + 1),  # one run per tab, a bounded wait (ui/admission.py)
    )
    for button in (run, blind_run):  # a new run's task checks replace the last one's
        button.click(
            lambda: [gr.update(value="", visible=False)] * len(all_names),
            None,
            list(checks.values()),
            api_visibility="private",
        )
    run_event.then(on_checks, last, list(checks.values()), api_visibility="private")
    token_view.build(ctx, last, run_event, tokenizer_of)
    run_event.then(on_done, None, [run, caveat], **private)
    # "Run blind": the same run, checked and admitted the same way, with nothing naming a method sent.
    blind_event = (
        blind_run.click(on_check, run_inputs, [status, admitted, run], show_progress="hidden", queue=False, **private)
        .then(gate, [admitted], None, show_progress="hidden", queue=False, **private)
        .success(
            quick_blind.masked(on_run, len(all_names)),
            run_inputs,
            [status] + list(boxes.values()) + [timing, chart, last, blind_panel.sealed],
            concurrency_limit=1,
            concurrency_id=admission.GENERATION,
            validator=admission.validator(len(run_inputs)),
            **private,
        )
    )
    blind_event.then(on_done, None, [run, caveat], **private)

    def shown(results: list[MethodResult]) -> list[Any]:
        texts = {r.method: r.text for r in results}
        return [gr.update(value=texts.get(n, ""), placeholder=None) for n in all_names] + [
            gr.update(value=timing_frame(results), visible=bool(results)),
            gr.update(value=timing_figure(results), visible=bool(results)),
        ]

    quick_blind.wire(
        ctx, blind_panel, blind_event, status, last, shown, [*boxes.values(), timing, chart], run, blind_run
    )
    # Stop sets this session's cancel event: a generating run ends at the next token and sends its last
    # message itself; only a run still waiting in the queue is cancelled as a Gradio job.
    generating = gr.State(False)
    (
        stop.click(on_stop, [last, run], [status, run, timing, chart, generating], **private)
        .then(unless_generating, [generating], None, show_progress="hidden", queue=False, **private)
        .success(None, None, None, cancels=[run_event, blind_event], queue=False, **private)
    )
    picked = [prompt, raw_box, status, max_new]
    scenario_list.click(on_example(SCENARIOS), [scenario_list, methods], picked, **private)
    task_list.click(on_example(TASK_SCENARIOS), [task_list, methods], picked, **private)

    def on_prompt(text: Any):
        # Hidden, not emptied: Gradio puts a translated text back when the language is switched.
        note = language_note(ctx.model(), text)
        return gr.update(value=note, visible=bool(note))

    prompt.change(on_prompt, prompt, lang_note, queue=False, show_progress="hidden", **private)
    ctx.extras.setdefault("loaders", []).append((refresh_examples, [], [scenario_list, task_list]))
    quick = ctx.extras.get("quick_rate")
    if quick is not None:
        quick(rate, prompt, raw_box, last)
