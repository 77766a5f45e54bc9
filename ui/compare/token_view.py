"""Compare's "Why this token?" panel: for a method and a step of the last run, what each processor
did to the candidates, and the token drawn (or, for beam search, the beams at that step).

It reads the run Compare just showed, recorded while it generated (decoders/recording.py), when
"Record why each token was chosen" was ticked. The data is arena/runs/token_view.py's; `step_view` and
`step_figure` are the plain functions the tests call; `build` only wires them to the page.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import gradio as gr
import pandas as pd
import plotly.graph_objects as go

from arena.runs import token_view
from common.errors import UserError
from common.messages import english

from .. import AppContext

RECORD_LABEL = "Record why each token was chosen"
RECORD_INFO = english("compare_record_info")
STAGE_COLORS = ("#9d9d9d", "#e45756", "#4c78a8", "#f58518", "#54a24b", "#b279a2", "#72b7b2")
WORDS = ("the", "的")


@dataclass
class StepView:
    heading: str  # Markdown: the step, the token drawn and the text so far
    frame: pd.DataFrame  # candidates (sampling) or beams (beam search)
    figure: go.Figure | None  # candidates' probabilities per stage; None for beams
    shift: pd.DataFrame | None  # "the" / "的" before and after each processor, over the run


def recordings(state: Any) -> dict[str, dict[str, Any]]:
    """method -> recording, from Compare's `last` state (empty when the run did not record)."""
    results = state.get("results", []) if isinstance(state, dict) else []
    return token_view.recorded(results)


def step_figure(frame: pd.DataFrame, stages: list[str]) -> go.Figure:
    """Grouped bars: for each candidate, its probability after each stage (the model's own first)."""
    fig = go.Figure()
    labels = [f"{t} ◀" if d else t for t, d in zip(frame["token"], frame[token_view.CHOSEN])]
    for i, stage in enumerate(stages):
        fig.add_trace(go.Bar(x=labels, y=frame[stage], name=stage, marker_color=STAGE_COLORS[i % len(STAGE_COLORS)]))
    fig.update_layout(
        barmode="group",
        height=340,
        yaxis_title="probability (%)",
        legend=dict(orientation="h", y=1.12),
        margin=dict(l=40, r=10, t=40, b=60),
    )
    return fig


def step_view(state: Any, method: str | None, step: Any, tokenizer: Any) -> StepView:
    """What the panel shows for `method` at `step` of the last run."""
    records = recordings(state)
    if not records:
        raise UserError(f'this run was not recorded: tick "{RECORD_LABEL}" and run again')
    if method not in records:
        raise UserError(f"choose one of the recorded methods: {', '.join(records)}")
    record = records[method]
    if record.get("kind") == "none":
        raise UserError(record["why"])
    token_view.step_of(record, step)  # refuses a step out of range, in words
    i = int(step)
    if record["kind"] == "beams":
        frame = token_view.beams_frame(record, tokenizer, i)
        heading = (
            f"**{method}, step {i}**: the running beams, best first, with their cumulative log-probability "
            "(beam search keeps these and extends each one; the answer is the best finished beam)."
        )
        return StepView(heading, frame, None, None)
    frame = token_view.candidates_frame(record, tokenizer, i)
    stages = list(record["stages"])
    drawn = frame[frame[token_view.CHOSEN] != ""].iloc[0]
    so_far = tokenizer.decode([t["chosen"] for t in record["steps"][:i]], skip_special_tokens=True)
    heading = (
        f"**{method}, step {i}**: drew **{drawn['token']}** with {drawn[stages[-1]]:.2f}% after the last "
        f"processor ({stages[-1]}); the model alone gave it {drawn[stages[0]]:.2f}%. "
        f"Probabilities in %, one column per processor in the order they ran. Text so far: "
        f"“{so_far[-160:]}”"
    )
    return StepView(heading, frame, step_figure(frame, stages), token_view.shift(record, tokenizer, WORDS))


def tokenizer_for(state: Any, method: str | None, tokenizer_of: Callable[[str | None], Any]) -> Any:
    """The tokenizer that reads `method`'s recording: a grid cell's model's (the state's `models`
    names it; ui/compare/grid.py), else the app's (`tokenizer_of(None)`)."""
    models = state.get("models") if isinstance(state, dict) else None
    return tokenizer_of((models or {}).get(method))


def build(
    ctx: AppContext, last: gr.State, run_event: Any, tokenizer_of: Callable[[str | None], Any] | None = None
) -> None:
    """The panel under Compare's timing; filled when a recorded run ends. A grid run's recorded
    cells are listed as "MODEL · METHOD", each read with its model's tokenizer (`tokenizer_of`)."""
    tokenizer_of = tokenizer_of or (lambda model: ctx.model().tokenizer)
    with gr.Accordion("Why this token?", open=False, visible=False) as panel:
        gr.Markdown(
            "Pick a method and a step of the run above: its top candidates before and after each "
            "processor (tilt, temperature, top-k, top-p, min-p) and the token drawn, from that same run."
        )
        with gr.Row():
            method = gr.Dropdown(choices=[], label="Method (model · method after a grid run)", interactive=True)
            step = gr.Slider(0, 1, value=0, step=1, label="Step (generated token number, from 0)")
        heading = gr.Markdown("")
        figure = gr.Plot(label="Candidates after each processor", visible=False)
        table = gr.Dataframe(label="Candidates", interactive=False, visible=False, wrap=True)
        shift = gr.Dataframe(
            label="“the” and “的” over the whole run: mean probability (%) where they were candidates",
            interactive=False,
            visible=False,
        )

    def show(state, chosen, at):
        try:
            view = step_view(state, chosen, at, tokenizer_for(state, chosen, tokenizer_of))
        except UserError as exc:
            return (
                gr.update(value=f"*{exc}*"),
                gr.update(visible=False),
                gr.update(visible=False),
                gr.update(visible=False),
            )
        return (
            gr.update(value=view.heading),
            gr.update(value=view.figure, visible=view.figure is not None),
            gr.update(value=view.frame, visible=True),
            gr.update(value=view.shift, visible=view.shift is not None),
        )

    def on_done(state):
        records = recordings(state)
        if not records:
            return [gr.update(visible=False), gr.update(), gr.update()] + [gr.update()] * 4
        first = next(iter(records))
        n = max(token_view.steps_of(records[first]), 1)
        return [
            gr.update(visible=True),
            gr.update(choices=list(records), value=first),
            gr.update(maximum=n - 1, value=0),
            *show(state, first, 0),
        ]

    def on_method(state, chosen):
        records = recordings(state)
        n = max(token_view.steps_of(records.get(chosen)), 1)
        return [gr.update(maximum=n - 1, value=0), *show(state, chosen, 0)]

    outputs = [heading, figure, table, shift]
    run_event.then(on_done, last, [panel, method, step, *outputs], api_visibility="private")
    method.input(on_method, [last, method], [step, *outputs], api_visibility="private")
    step.change(show, [last, method, step], outputs, api_visibility="private")
