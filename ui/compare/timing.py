"""Compare's timing table and chart, its status lines, and a task prompt's automatic checks."""

from __future__ import annotations

import os
from typing import Any

import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

import decoders
from arena.model.memory import GROWTH_LABEL, PEAK_LABEL
from arena.runs.requests import MethodResult
from common.messages import text
from decoders.order import ORDER_KEY, order_text
from evaluation.tasks.views import verdict_line

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
    "processor order",
    "settings",
]
BUSY_LABEL = "Running…"
WHOLE_NOTE = "beam search runs last and arrives whole"
# A running method's text goes to the page at most this often (its first text at once).
STREAM_INTERVAL_S = 0.2


def status_line(method: str, position: int, total: int) -> str:
    return f"Running **{method}**, {position} of {total}…"


def timing_caveat(device: Any, lang: str = "en") -> str:
    """The line under the timing table: one run, on this machine, under its load of the moment."""
    try:
        load = text("compare_load_average", lang, load=f"{os.getloadavg()[0]:.1f}", cores=os.cpu_count())
    except (OSError, AttributeError):
        load = text("compare_load_unknown", lang)
    return text("compare_timing_caveat", lang, device=device, load=load)


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


def settings_text(settings: dict[str, Any] | None) -> str:
    """A method's effective settings as one compact cell: "temperature=1.1, top_p=0.95"."""
    if not settings:
        return "defaults"
    return ", ".join(
        f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}"
        for k, v in settings.items()
        if k not in ("dtype", "batch_size", ORDER_KEY)
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
            order_text((r.settings or {}).get(ORDER_KEY)),
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
