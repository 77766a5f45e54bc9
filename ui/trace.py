"""Multi-arm trace tab: run Multi-Arm on one prompt and show what every arm did.

The plot has three rows sharing the loop-step axis: each arm's verifier score (hover shows the
token), each arm's position in its answer (it climbs one per token and drops at a backtrack, so
the line *is* the arm's path), and the arm weights. Backtracks are ✕ markers, prunes/copies ◆.
`run_trace`, `trace_figure`, `arms_frame` and `events_frame` are plain functions the tests call.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import gradio as gr
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from arena.model.llm import LoadedModel
from arena.model.zerogpu import friendly_error
from arena.runs import runner
from arena.runs.requests import RunRequest
from common.messages import english
from decoders.multiarm import MultiArmTrace
from decoders.multiarm.trace import ArmEvent, ArmStep

from . import AppContext, admission
from .handler import handler

METHOD = "Multi-Arm"
COLORS = ("#e45756", "#4c78a8", "#54a24b", "#b279a2", "#f58518")


@dataclass
class TraceRun:
    text: str
    trace: MultiArmTrace
    settings: dict[str, Any]
    result: dict[str, Any]  # the runner's MethodResult as plain data: timing, tokens, finish reason


def run_trace(
    lm: LoadedModel,
    prompt: str,
    raw: bool = False,
    max_new_tokens: Any = 48,
    seed: Any = 0,
    overrides: dict[str, Any] | None = None,
) -> TraceRun:
    """One Multi-Arm generation; its trace, answer text and effective settings. The generation runs
    in process (Multi-Arm drives the model step by step, whatever the engine setting), through
    `arena.runs.runner.run_trace`: admitted as Compare's run (a study's prompt is refused), then
    `LocalEngine.trace`, Compare's own warm-up, timed generation and result on the same plain-data
    GPU path (a ZeroGPU task there), under the model's lock."""
    out = runner.run_trace(
        lm, RunRequest(prompt, [METHOD], {METHOD: overrides} if overrides else {}, max_new_tokens, seed, raw)
    )
    return TraceRun(out["result"]["text"], trace_from_dict(out["trace"]), out["settings"], out["result"])


def trace_from_dict(d: dict[str, Any]) -> MultiArmTrace:
    """A MultiArmTrace back from `MultiArmTrace.as_dict()` (what comes out of a GPU task)."""
    d = dict(d)
    d["steps"] = [ArmStep(**s) for s in d.get("steps", [])]
    d["events"] = [ArmEvent(**e) for e in d.get("events", [])]
    return MultiArmTrace(**d)


def _token_text(tokenizer, token: int) -> str:
    return tokenizer.decode([token]) if tokenizer is not None else str(token)


def trace_figure(trace: MultiArmTrace, tokenizer=None) -> go.Figure:
    fig = make_subplots(
        rows=3,
        cols=1,
        shared_xaxes=True,
        vertical_spacing=0.06,
        row_heights=[0.45, 0.35, 0.2],
        subplot_titles=("verifier score per arm", "position in the arm's answer (its path)", "arm weight"),
    )
    for arm, name in enumerate(trace.arm_names):
        steps = [s for s in trace.steps if s.arm == arm]
        color = COLORS[arm % len(COLORS)]
        label = f"{name}{' (answer)' if trace.chosen == arm else ''}"
        hover = [
            f"{name} · step {s.step} · pos {s.position}<br>token {_token_text(tokenizer, s.token)!r}<br>"
            f"log p {s.logprob:.2f} · H {s.entropy:.2f} · T {s.temperature:.2f}"
            for s in steps
        ]
        x = [s.step for s in steps]
        fig.add_trace(
            go.Scatter(
                x=x,
                y=[s.score for s in steps],
                mode="lines+markers",
                name=label,
                legendgroup=name,
                line=dict(color=color),
                hovertext=hover,
                hoverinfo="text+y",
            ),
            1,
            1,
        )
        fig.add_trace(
            go.Scatter(
                x=x,
                y=[s.position for s in steps],
                mode="lines+markers",
                name=label,
                legendgroup=name,
                showlegend=False,
                line=dict(color=color, shape="hv"),
                hovertext=hover,
                hoverinfo="text",
            ),
            2,
            1,
        )
        fig.add_trace(
            go.Scatter(
                x=x,
                y=[s.weight for s in steps],
                mode="lines",
                name=label,
                legendgroup=name,
                showlegend=False,
                line=dict(color=color),
            ),
            3,
            1,
        )
        _add_events(fig, trace, arm, name, color)
    fig.update_layout(
        height=640, margin=dict(l=40, r=10, t=40, b=30), hovermode="closest", legend=dict(orientation="h", y=-0.08)
    )
    return fig


def _add_events(fig: go.Figure, trace: MultiArmTrace, arm: int, name: str, color: str) -> None:
    """An arm's backtracks and copies, marked on its path (the middle row)."""
    for kind, symbol in (("backtrack", "x"), ("copy", "diamond")):
        events = [e for e in trace.events if e.arm == arm and e.kind == kind]
        if not events:
            continue
        fig.add_trace(
            go.Scatter(
                x=[e.step for e in events],
                y=[e.position for e in events],
                mode="markers",
                name=f"{name} {kind}",
                legendgroup=name,
                marker=dict(symbol=symbol, size=13, color=color, line=dict(width=2, color="black")),
                hovertext=[e.reason for e in events],
                hoverinfo="text",
            ),
            2,
            1,
        )


def arms_frame(trace: MultiArmTrace, tokenizer=None) -> pd.DataFrame:
    rows = []
    for arm, name in enumerate(trace.arm_names):
        path = trace.paths[arm] if arm < len(trace.paths) else []
        rows.append(
            {
                "arm": name,
                "answer": "yes" if trace.chosen == arm else "",
                "mean score": round(trace.mean_scores[arm], 3) if arm < len(trace.mean_scores) else None,
                "backtracks": sum(1 for e in trace.events if e.arm == arm and e.kind == "backtrack"),
                "pruned": sum(1 for e in trace.events if e.arm == arm and e.kind == "copy"),
                "tokens": len(path),
                "text": tokenizer.decode(path, skip_special_tokens=True) if tokenizer is not None else str(path),
            }
        )
    return pd.DataFrame(rows)


def events_frame(trace: MultiArmTrace) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {"step": e.step, "arm": trace.arm_names[e.arm], "event": e.kind, "to position": e.position, "why": e.reason}
            for e in trace.events
        ],
        columns=["step", "arm", "event", "to position", "why"],
    )


def on_run(
    model: Callable[[], Any], request: gr.Request, prompt_text: Any, raw: Any, seed: Any, max_new: Any
) -> tuple[Any, ...]:
    """The trace of one Multi-Arm run: the answer, the arms over the loop steps, the arms and the events."""
    admission.started(request)
    lm = model()
    try:
        result = run_trace(lm, prompt_text or "", bool(raw), max_new, None if seed in (None, "") else seed)
    except gr.Error as exc:
        message = friendly_error(exc)  # ZeroGPU's quota and duration errors, in words
        if message:
            raise gr.Error(message, print_exception=False) from None
        raise
    return (
        result.text,
        gr.update(value=trace_figure(result.trace, lm.tokenizer), visible=True),
        gr.update(value=arms_frame(result.trace, lm.tokenizer), visible=True),
        gr.update(value=events_frame(result.trace), visible=True),
    )


def build(ctx: AppContext) -> None:
    gr.Markdown(english("trace_intro"))
    with gr.Row():
        with gr.Column(scale=3):
            prompt = gr.Textbox(label="Prompt", lines=3, placeholder="A question or a text to continue")
            raw = gr.Checkbox(label="Raw continuation (no chat template)", value=False)
        with gr.Column(scale=1):
            seed = gr.Number(value=0, precision=0, label="Seed")
            max_new = gr.Slider(1, 256, value=48, step=1, label="max_new_tokens")
            run = gr.Button("Trace", variant="primary")
    answer = gr.Textbox(label="Answer (the arm with the highest mean score)", lines=4, interactive=False)
    # Hidden until a trace has run (no empty plot or tables).
    plot = gr.Plot(label="Arms over the loop steps", visible=False)
    arms = gr.Dataframe(label="Arms", interactive=False, wrap=True, visible=False)
    events = gr.Dataframe(label="Backtracks and prunes", interactive=False, wrap=True, visible=False)

    run.click(
        handler(on_run, ctx.model),
        [prompt, raw, seed, max_new],
        [answer, plot, arms, events],
        api_name="multiarm_trace",
        api_visibility="undocumented",
        concurrency_limit=1,
        concurrency_id=admission.GENERATION,
        validator=admission.validator(4),  # as Compare's: one run per tab, a bounded wait
    )
