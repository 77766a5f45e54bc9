"""Compare's grid: every chosen method on each chosen model, one column per model, one row per method.

What the page shows as the run goes (`grid_views`) is computed here from the runner's model events
(`arena.runs.runner.stream_models`, the path `python -m decoders --models` takes), so tests can follow a
grid run without a browser; ui/compare/handlers.py only turns each view into component updates.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

import pandas as pd

from arena.rating import systems
from arena.runs.requests import MethodResult
from arena.runs.runner import ModelEvent

GRID_LABEL = "Outputs by model"
MODELS_LABEL = "Models"
MODELS_INFO = (
    "More than the app's own model: every chosen method runs on each chosen model in turn (outputs in "
    "a grid, a column per model); a model not in memory is loaded first (ARENA_MODELS_IN_MEMORY). "
    "MODEL@int8 is the same model with torchao int8 weights, @bf16 / @fp32 in that dtype: each cell's "
    "dtype says the precision it ran in"
)
WAITING = "…"
# A running cell's text goes to the page at most this often (its first text at once), as for one model.
STREAM_INTERVAL_S = 0.2


@dataclass
class GridView:
    """The grid as the page should show it now. `changed` is False for a tick (nothing new: Gradio
    still needs a yield to notice a client that left); `finished` when a cell has just finished (the
    timing table changes)."""

    status: str
    frame: pd.DataFrame
    done: list[tuple[str, MethodResult]] = field(default_factory=list)
    changed: bool = True
    finished: bool = False
    total: int = 0

    @property
    def complete(self) -> bool:
        return len(self.done) == self.total


def grid_frame(models: list[str], methods: list[str], texts: dict[tuple[str, str], str]) -> pd.DataFrame:
    """One row per method, one column per model; a cell not run yet shows WAITING."""
    rows = [[method, *(texts.get((model, method), WAITING) for model in models)] for method in methods]
    return pd.DataFrame(rows, columns=["method", *models])


def cell_text(result: MethodResult) -> str:
    """A finished cell: the output, then its timing on one line."""
    return (
        f"{result.text.strip()}\n— {result.new_tokens} tokens · TTFT {result.ttft_ms:.0f} ms · "
        f"{result.latency_ms:.0f} ms · {result.tokens_per_s:.1f} tok/s"
    )


def with_models(frame: pd.DataFrame, done: list[tuple[str, MethodResult]]) -> pd.DataFrame:
    """Compare's timing table (one row per result) with the model of each row as its first column."""
    out = frame.copy()
    out.insert(0, "model", [model for model, _ in done])
    return out


def bar_names(done: list[tuple[str, MethodResult]]) -> list[str]:
    """The timing chart's bars: "model · method"."""
    return [f"{model} · {result.method}" for model, result in done]


def stopped_line(done: int, total: int) -> str:
    return (
        f"**Stopped** after {done} of {total} cells; the timing of those is kept below."
        if done
        else (f"**Stopped** before any of the {total} cells finished, so there is no timing.")
    )


def grid_views(
    events: Iterable[ModelEvent],
    models: list[str],
    methods: list[str],
    head: str = "",
    interval_s: float = STREAM_INTERVAL_S,
) -> Iterator[GridView]:
    """Follow a grid run: a view per event that changes what the page shows (ticks give views with
    `changed=False`); a running cell's text at most every `interval_s`."""
    total = len(models) * len(methods)
    texts: dict[tuple[str, str], str] = {}
    done: list[tuple[str, MethodResult]] = []
    shown = 0.0
    running: tuple[str, str] | None = None
    for item in events:
        if item.event is None:  # the model loads before its first method
            status = f"Model {item.position} of {item.total}: {item.loading} {head}"
            yield GridView(status, grid_frame(models, methods, texts), list(done), total=total)
            continue
        event = item.event
        cell = (item.model, event.method)
        starting, running = cell != running, cell
        finished = event.result is not None
        text = cell_text(event.result) if event.result is not None else event.text
        if not (finished or starting):
            if text == texts.get(cell, ""):  # a tick
                yield GridView("", grid_frame(models, methods, texts), list(done), changed=False, total=total)
                continue
            if texts.get(cell) and time.perf_counter() - shown < interval_s:
                continue  # goes out with the next token, the next tick or the cell's end
        texts[cell], shown = text, time.perf_counter()
        if event.result is not None:
            done.append((item.model, event.result))
        if len(done) == total:
            status = f"Done: {len(methods)} methods × {len(models)} models. {head}"
        else:
            status = (
                f"Running **{event.method}** on **{item.model}** (model {item.position} of {item.total}, "
                f"method {event.position} of {event.total})… {head}"
            )
        yield GridView(status, grid_frame(models, methods, texts), list(done), finished=finished, total=total)


def grid_state(prompt: str, raw: bool, done: list[tuple[str, MethodResult]], total: int) -> dict[str, Any]:
    """Compare's `last` state after a grid run: each finished cell as a result named by its system,
    "MODEL · METHOD" (arena/rating/systems.py), so "Why this token?" lists every recorded cell and "Rate
    these blind" rates the cells as systems; `models` says which model wrote each (its tokenizer
    reads the recording), and `grid` how far the grid got (for Stop's line)."""
    results = [replace(result, method=systems.system_name(model, result.method)) for model, result in done]
    return {
        "prompt": prompt,
        "raw": raw,
        "results": results,
        "total": total,
        "models": {r.method: model for r, (model, _) in zip(results, done)},
        "grid": {"done": len(done), "total": total},
    }
