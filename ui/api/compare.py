"""Compare in the Python API: a prompt and method names in, each method's text and timing row out.

The page's own path: the same check before the run (`form.refusal`: settings, the token cap, a
prompt reserved for a study), then the page's run (`handlers.on_run`), whose last message carries
the results; they are returned as plain data instead of the boxes' updates. Admission (one run per
session, `ARENA_COMPARE_PER_ADDRESS`, `ARENA_COMPARE_QUEUE`) is the page's validator, which
ui/api/__init__.py puts on this endpoint as the page puts it on Run.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import gradio as gr

import decoders
from arena.model.llm import LoadedModel
from arena.runs.requests import DEFAULT_MAX_NEW_TOKENS, MethodResult
from common.errors import UserError

from ..compare import handlers as h
from ..compare.form import param_keys, refusal
from ..compare.timing import timing_frame
from .plain import plain_text

Model = Callable[[], LoadedModel]


def control_values(settings: Any) -> list[Any]:
    """The page's settings form filled from `settings` ({method: {parameter: value}}), defaults elsewhere."""
    if settings is None:
        settings = {}
    if not isinstance(settings, dict) or not all(isinstance(v, dict) for v in settings.values()):
        raise UserError('settings must map a method to its parameters, e.g. {"TS-Temp": {"temperature": 0.7}}')
    keys = param_keys()
    known = {(m, p.name) for m, p in keys}
    unknown = [f"{m}.{p}" for m, given in settings.items() for p in given if (m, p) not in known]
    if unknown:
        raise UserError(f"no such setting: {', '.join(sorted(unknown))}")
    return [settings.get(m, {}).get(p.name, p.default) for m, p in keys]


def result_rows(results: list[MethodResult]) -> list[dict[str, Any]]:
    """The timing table as the page shows it, one row per method, numbers as numbers."""
    return [{str(k): v for k, v in row.items()} for row in timing_frame(results).to_dict("records")]


def compare(
    model: Model,
    names: list[str],
    request: gr.Request,
    prompt: str,
    methods: list[str] | None = None,
    max_new_tokens: int = DEFAULT_MAX_NEW_TOKENS,
    seed: int | None = None,
    raw: bool = False,
    settings: dict[str, dict[str, float]] | None = None,
) -> dict[str, Any]:
    """Run `methods` on `prompt` (the app's model, one after another as on the page) and return each
    method's text, the timing rows (TTFT, latency, tokens/s, peak memory...) and the status line.
    No methods: the article's three (BS-4, TS-Temp, TS-Tilted); no seed: a fresh one, in the rows."""
    methods = list(decoders.DEFAULT_METHODS) if methods in (None, []) else methods
    values = control_values(settings)
    max_new = DEFAULT_MAX_NEW_TOKENS if max_new_tokens in (None, "") else max_new_tokens
    why = refusal(model(), prompt, methods, raw, seed, max_new, values)
    if why:
        raise UserError(plain_text(why.removeprefix("⚠ ")))
    last: dict[str, Any] = {}
    status = ""
    for message in h.on_run(model, names, request, prompt, methods, raw, seed, max_new, False, *values):
        status = update_value(message[0], status)
        state = message[-1]
        if isinstance(state, dict) and "results" in state:
            last = state
    results: list[MethodResult] = list(last.get("results") or [])
    return {
        "texts": {r.method: r.text for r in results},
        "timing": result_rows(results),
        "status": plain_text(status),
    }


def update_value(update: Any, before: str) -> str:
    """The value a message sets (a `gr.update` dict), or what was there before."""
    if isinstance(update, dict) and "value" in update:
        return str(update["value"] or "")
    return before
