"""Compare tab: one prompt, any set of decoders side by side, streamed where possible, timed.

`build` lays the tab out and wires it. Every control for a decoder's parameters is generated from the
registry (form.py), so a new decoder file shows up here with no UI code. The handlers are handlers.py;
the timing table and chart timing.py; Stop stop.py; the grid of methods × models grid.py; "Run blind"
quick_blind.py; "Why this token?" token_view.py.
"""

from __future__ import annotations

import json
from functools import partial
from types import SimpleNamespace
from typing import Any

import gradio as gr

import decoders
from arena.engines import current, model_choices
from arena.inputs.prompts import SCENARIOS, TASK_SCENARIOS
from arena.model.hardware import hardware_banner
from arena.model.memory import DESCRIPTION as MEMORY_HELP
from arena.runs.requests import DEFAULT_MAX_NEW_TOKENS, MAX_NEW_TOKENS_RANGE, run_order
from common.messages import english, text

from .. import AppContext, admission
from ..handler import handler
from . import engine_hint, quick_blind, token_view
from . import grid as compare_grid
from . import handlers as h
from .form import (
    PRESETS,
    RAW_ONLY_NOTE,
    control_for,
    example_headers,
    example_samples,
    model_size_note,
    more_choices,
)
from .timing import TIMING_COLUMNS, timing_caveat


def build(ctx: AppContext) -> None:
    lm = ctx.model()
    banner = hardware_banner(lm.device)
    if banner:
        gr.Markdown(banner)
    engine = current()
    c = SimpleNamespace(names=decoders.names(), raw_only=not getattr(lm, "has_chat_template", True))
    # these lines are written again on load in the reader's language (h.on_page_texts)
    # the model line says how to get the faster engine where it would help (its last line: no new line)
    c.engine_hint = engine_hint.hint_for(engine.name, lm)
    c.model_line = gr.Markdown(engine.describe(lm) + engine_hint.hint_line(c.engine_hint), elem_id="compare-model-line")
    # a server's model is described by the server; no note for a model that is not small
    small = model_size_note(lm) if engine.in_process else ""
    c.size_note = gr.Markdown(small, elem_id="compare-model-note", visible=bool(small))
    # The grid (ui/compare/grid.py): the embedded models here, or those with a vLLM server.
    c.model_names = model_choices(getattr(lm, "label", lm.name))
    with gr.Row():
        with gr.Column(scale=3):
            _prompt_column(c)
        with gr.Column(scale=2):
            _methods_column(ctx, c)
    c.blind_panel = quick_blind.Panel.build()  # hidden until a blind run's outputs are all ready
    # The outputs come straight after Run (the settings below them), so what a run writes is on the
    # first screen, or one scroll away that Run makes itself (SCROLL_TO_OUTPUTS).
    _outputs(c, lm)
    _settings(c)
    _wire(ctx, c)


def _prompt_column(c: SimpleNamespace) -> None:
    c.prompt = gr.Textbox(label="Prompt", lines=4, placeholder="Ask a question, or paste a text to continue")
    c.lang_note = gr.Markdown("", visible=False, elem_id="compare-language-note")
    info = RAW_ONLY_NOTE if c.raw_only else None  # a base model: the prompt is always continued
    c.raw = gr.Checkbox(label="Raw continuation (no chat template)", value=c.raw_only, info=info)
    c.record = gr.Checkbox(label=token_view.RECORD_LABEL, value=False, info=token_view.RECORD_INFO)
    # Datasets, not gr.Examples: their samples are refreshed on each page load, greying out the prompts
    # of a study being rated (a click is mapped by index to the scenario on the server). Folded away:
    # open, the two tables are taller than a laptop's screen and pushed the outputs out of sight.
    with gr.Accordion(english("compare_examples"), open=False, elem_id="compare-examples-box"):
        # Text columns, not the prompt box and the checkbox: the headers and "raw" are then words in the
        # reader's language (refreshed on load); a click still sends only the row's index.
        c.scenarios = gr.Dataset(
            components=["textbox", "textbox"], samples=example_samples(None, SCENARIOS), type="index",
            headers=example_headers(), label=english("the_article_s_scenarios_zh"), elem_id="compare-examples",
        )  # fmt: skip
        c.tasks = gr.Dataset(
            components=["textbox", "textbox"], samples=example_samples(None, TASK_SCENARIOS), type="index",
            headers=example_headers(), label=english("compare_tasks_label"), elem_id="compare-task-examples",
        )  # fmt: skip


def _methods_column(ctx: AppContext, c: SimpleNamespace) -> None:
    # A newcomer sees the article's three methods and Run on the first screen; every other registered
    # decoder is one click away under "More methods". The run reads `c.methods`, one hidden box of
    # every method, which the two visible boxes fill: API callers keep sending one list of methods.
    article = list(decoders.DEFAULT_METHODS)
    c.methods = gr.CheckboxGroup(choices=c.names, value=article, label="Methods", visible=False)
    c.article = gr.CheckboxGroup(
        choices=article, value=article, label=english("the_article_s_methods"), elem_id="compare-methods"
    )
    others = [n for n in c.names if n not in article]
    with gr.Accordion(english("more_methods"), open=False, elem_id="compare-more-methods"):
        c.more = gr.CheckboxGroup(
            choices=more_choices(others), value=[], label=english("more_methods"), info=english("compare_more_methods_info"),
            show_label=False,
        )  # fmt: skip
    grid_on = len(c.model_names) > 1
    with gr.Accordion(english("compare_more_models"), open=False, visible=grid_on, elem_id="compare-more-models"):
        c.models = gr.CheckboxGroup(
            choices=c.model_names, value=[c.model_names[0]], label=compare_grid.MODELS_LABEL,
            info=compare_grid.MODELS_INFO, visible=grid_on, elem_id="compare-models",
        )  # fmt: skip
    c.preset = gr.Radio(
        choices=list(PRESETS), value=None, label="Article presets", info=english("compare_presets_info"),
    )  # fmt: skip
    c.preset_line = gr.Markdown("", elem_id="compare-preset-note")
    with gr.Row():
        c.run = gr.Button("Run", variant="primary", elem_id="compare-run")
        # Inactive until a run is admitted (nothing to stop before): on_check turns it on, on_done off.
        c.stop = gr.Button("Stop", variant="stop", elem_id="compare-stop", interactive=False)
        c.blind_run = gr.Button(quick_blind.BUTTON, elem_id="compare-run-blind")
        c.rate = gr.Button("Send these to the Rate tab", visible=bool(ctx.extras.get("quick_rate")))
    c.estimate = gr.Markdown("", elem_id="compare-estimate")  # how long Run will take, before it starts
    c.status = gr.Markdown("", elem_id="compare-status")  # by Run, so a run is seen to start


def _settings(c: SimpleNamespace) -> None:
    c.method_boxes, c.controls = {}, []
    with gr.Accordion("Settings", open=False) as c.settings_box:
        with gr.Row():
            c.seed = gr.Number(
                value=0, precision=0, label="Seed (torch.manual_seed before each method; empty = random)"
            )
            lo, hi = MAX_NEW_TOKENS_RANGE
            c.max_new = gr.Slider(lo, hi, value=DEFAULT_MAX_NEW_TOKENS, step=1, label="max_new_tokens")
        for d in decoders.all_decoders():
            # The title names the method only: the description's numbers are the defaults, and a preset
            # or a slider can change them (the sliders always show what a run will use).
            with gr.Accordion(f"{d.name} settings", open=False) as box:
                c.method_boxes[d.name] = box
                gr.Markdown(f"{d.description} *(described at its default settings)*")
                with gr.Row():
                    c.controls.extend(control_for(p) for p in d.params)


def _outputs(c: SimpleNamespace, lm: Any) -> None:
    c.boxes, c.columns, c.checks = {}, {}, {}
    # The columns in the order the methods run (sampling first, beam search last and whole), so the
    # first text to arrive is the first box, also where a phone stacks them; the dicts keep the
    # registry's order, which is the handlers' output order.
    with gr.Row(equal_height=True, elem_id="compare-outputs"):
        for name in run_order(c.names):
            with gr.Column(min_width=320, visible=name in decoders.DEFAULT_METHODS) as c.columns[name]:
                # Textbox, not Markdown/HTML: model output is shown as text and can never run as markup.
                # A fixed height (it scrolls inside): a growing box would push the next ones, and the
                # first text Run brought into view, out of sight.
                c.boxes[name] = gr.Textbox(label=name, lines=12, max_lines=12, interactive=False)
                # A task prompt's automatic check (evaluation/tasks); quotes model text, so text too.
                c.checks[name] = gr.Textbox(label=f"{name}: task check", lines=2, interactive=False, visible=False)
    c.boxes, c.columns, c.checks = ({n: d[n] for n in c.names} for d in (c.boxes, c.columns, c.checks))
    # Textboxes' values, not markup: a Dataframe cell is shown as text.
    c.grid = gr.Dataframe(label=compare_grid.GRID_LABEL, interactive=False, wrap=True, visible=False)
    # Hidden until a method has finished (no empty table or plot; see ui/results.py).
    c.timing = gr.Dataframe(headers=TIMING_COLUMNS, label="Timing", interactive=False, visible=False)
    c.caveat = gr.Markdown(timing_caveat(lm.device), elem_id="compare-timing-caveat")
    c.memory_note = gr.Markdown(text("compare_memory_note", help=MEMORY_HELP))
    c.chart = gr.Plot(label="Latency and throughput", visible=False)
    c.last = gr.State([])  # server-side: this session's last run (prompt, raw, results), for "Send these …"


def one_progress(c: SimpleNamespace) -> dict[str, Any]:
    """A run's progress drawn once, on the status line that says which method runs: not again over
    every box, table and chart it updates (four bars, one over the language note). Gradio's timer text
    is hidden by CSS (ui/assets.py)."""
    return dict(show_progress="minimal", show_progress_on=[c.status])


# After Run: when the first output box is not wholly on screen, the status line goes to the top with
# the outputs under it, so the first streamed text is seen arriving. (Not the least scroll that shows
# the box: the status line grows by a few lines once the run starts and would push it back down.)
SCROLL_TO_OUTPUTS = """() => {
  const status = document.querySelector('#compare-status');
  const first = [...document.querySelectorAll('#compare-outputs textarea')].find((t) => t.offsetParent !== null);
  if (!status || !first) return;
  const box = first.getBoundingClientRect();
  if (box.top >= 0 && box.bottom + 80 <= window.innerHeight) return;
  window.scrollBy({top: status.getBoundingClientRect().top - 8, left: 0, behavior: 'instant'});
}"""


def _wire(ctx: AppContext, c: SimpleNamespace) -> None:
    private: dict[str, Any] = dict(api_visibility="private")
    boxes = list(c.boxes.values())
    c.methods.change(handler(h.on_methods, c.names), c.methods, list(c.columns.values()), **private)
    # The two visible boxes fill the hidden one in the browser (a list of output values: one, a list); what
    # else sets it (a preset) is shown in them.
    for box in (c.article, c.more):
        box.input(None, [c.article, c.more], c.methods, js="(a, b) => [[...a, ...b]]", **private)
    # ... and split back into the two boxes in the browser too: a round trip here raced the rater's next
    # click (its late answer re-ticked a box just unticked on a busy server: CI saw it).
    article = json.dumps(list(decoders.DEFAULT_METHODS))
    split = (
        f"(m) => {{ const a = {article}; return [m.filter((x) => a.includes(x)), m.filter((x) => !a.includes(x))]; }}"
    )
    c.methods.change(None, c.methods, [c.article, c.more], js=split, **private)
    _wire_estimate(ctx, c)
    preset_outputs = [c.methods, c.preset_line, c.settings_box, *c.method_boxes.values(), *c.controls]
    c.preset.change(handler(h.on_preset, list(c.method_boxes)), [c.preset, c.methods], preset_outputs, **private)
    inputs = [c.prompt, c.methods, c.raw, c.seed, c.max_new, c.record, *c.controls]
    admitted = gr.State(False)
    check, gate = handler(h.on_check, ctx.model), dict(show_progress="hidden", queue=False, **private)
    run_event = (
        c.run.click(check, inputs, [c.status, admitted, c.run, c.stop], **gate)
        .then(h.gate, [admitted], None, **gate)
        .success(
            handler(h.on_run_models, ctx.model, c.names, c.model_names, c.models.visible), [*inputs, c.models],
            [c.status, *boxes, c.timing, c.chart, c.last, c.grid], api_name="compare", api_visibility="undocumented", **one_progress(c),
            concurrency_limit=1,  # one generation at a time on the device, so timings are not shared
            concurrency_id=admission.GENERATION,
            validator=admission.validator(len(inputs) + 1),  # one run per tab, a bounded wait (ui/admission.py)
        )
    )  # fmt: skip
    for button in (c.run, c.blind_run):  # a new run's task checks replace the last one's
        button.click(  # unqueued: no queue join and event stream beside the run's own on every click
            lambda: [gr.update(value="", visible=False)] * len(c.names),
            None,
            list(c.checks.values()),
            queue=False,
            **private,
        )
    quiet = dict(show_progress="hidden", **private)  # the run's own progress is the status line's (one_progress)
    run_event.then(handler(h.on_checks, c.names), c.last, list(c.checks.values()), **quiet)
    token_view.build(ctx, c.last, run_event, partial(h.tokenizer_of, ctx.model, c.model_names))
    done = handler(h.on_done, ctx.model)
    run_event.then(done, None, [c.run, c.caveat, c.stop], **quiet).then(**c.estimate_event)
    # "Run blind": the same run, checked and admitted the same way, with nothing naming a method sent.
    blind_event = (
        c.blind_run.click(check, inputs, [c.status, admitted, c.run, c.stop], **gate)
        .then(h.gate, [admitted], None, **gate)
        .success(
            quick_blind.masked(handler(h.on_run, ctx.model, c.names), len(c.names)), inputs,
            [c.status, *boxes, c.timing, c.chart, c.last, c.blind_panel.sealed], **one_progress(c),
            concurrency_limit=1, concurrency_id=admission.GENERATION, validator=admission.validator(len(inputs)),
            **private,
        )
    )  # fmt: skip
    blind_event.then(done, None, [c.run, c.caveat, c.stop], **quiet).then(**c.estimate_event)
    shown = partial(h.shown, c.names)  # called by quick_blind, not by Gradio
    quick_blind.wire(ctx, c.blind_panel, blind_event, c.status, c.last, shown, [*boxes, c.timing, c.chart], c.run,
                     c.blind_run)  # fmt: skip
    _wire_stop_and_examples(ctx, c, run_event, blind_event)
    # Run brings the outputs into view (a phone's Run is a screen above them); in the browser only.
    c.run.click(None, None, None, js=SCROLL_TO_OUTPUTS, queue=False, **private)


def _wire_estimate(ctx: AppContext, c: SimpleNamespace) -> None:
    """The time line next to Run: on load, whenever methods, models or max_new_tokens change, and after
    a run (which is when this machine's rates are measured)."""
    c.estimate_event = dict(
        fn=handler(h.on_estimate, c.model_names, c.models.visible),
        inputs=[c.methods, c.max_new, c.models],
        outputs=c.estimate, queue=False, show_progress="hidden", api_visibility="private",
    )  # fmt: skip
    for box in (c.methods, c.max_new, c.models):
        box.change(**c.estimate_event)
    ctx.extras.setdefault("loaders", []).append((c.estimate_event["fn"], c.estimate_event["inputs"], [c.estimate]))


def _wire_stop_and_examples(ctx: AppContext, c: SimpleNamespace, run_event: Any, blind_event: Any) -> None:
    private: dict[str, Any] = dict(api_visibility="private")
    # Stop sets this session's cancel event: a generating run ends at the next token and sends its last
    # message itself; only a run still waiting in the queue is cancelled as a Gradio job.
    generating = gr.State(False)
    (
        # queue=False: Stop's line changes at once, not after whatever waits in the queue (issue 35)
        c.stop.click(
            h.on_stop, [c.last, c.run], [c.status, c.run, c.timing, c.chart, generating], queue=False, **private
        )
        .then(h.unless_generating, [generating], None, show_progress="hidden", queue=False, **private)
        .success(None, None, None, cancels=[run_event, blind_event], queue=False, **private)
    )
    # pressed once, nothing more to stop: inactive at once (a run it cancelled in the queue has no on_done)
    c.stop.click(h.stop_ready, None, c.stop, queue=False, show_progress="hidden", **private)
    picked = [c.prompt, c.raw, c.status, c.max_new]
    for dataset, examples in ((c.scenarios, SCENARIOS), (c.tasks, TASK_SCENARIOS)):
        pick = handler(h.on_example, ctx.model, examples, c.raw_only)
        dataset.click(pick, [dataset, c.methods], picked, **private)
    c.prompt.change(
        handler(h.on_prompt, ctx.model), c.prompt, c.lang_note, queue=False, show_progress="hidden", **private
    )
    refresh = handler(h.refresh_examples, ctx.model)
    ctx.extras.setdefault("loaders", []).append((refresh, [], [c.scenarios, c.tasks]))
    # What the server writes with values in it (or a method's name), in the reader's language on load.
    others = [n for n in c.names if n not in decoders.DEFAULT_METHODS]
    texts = handler(h.on_page_texts, ctx.model, others, c.engine_hint)
    outputs = [c.model_line, c.size_note, c.preset, c.caveat, c.memory_note, c.more]
    ctx.extras["loaders"].append((texts, [], outputs))
    quick = ctx.extras.get("quick_rate")
    if quick is not None:
        quick(c.rate, c.prompt, c.raw, c.last)
