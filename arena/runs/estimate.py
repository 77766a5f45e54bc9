"""How long a study's generation will take on this machine, from measured throughput.

Throughput (new tokens per second of wall time, per model and method) comes from what this process
measured: every Compare run records its methods (`record`), and stored outputs of the same model
that carry a latency (`from_outputs`) fill in the rest. Nothing is guessed from hardware names. With
no measurement at all the estimate says so instead of inventing a number.

The estimate is for generating one output at a time; study generation batches prompts of one method
(arena/studies/), which is usually faster, so "about" is an upper-side figure.
"""

from __future__ import annotations

import math
import statistics
import threading
from collections.abc import Mapping, Sequence

import pandas as pd

from common.messages import text

_measured: dict[tuple[str, str], float] = {}
_lock = threading.Lock()


def record(model: str, method: str, tokens_per_s: float | None) -> None:
    """Remember the latest measured throughput of `method` on `model` (e.g. after a Compare run)."""
    if tokens_per_s is not None and math.isfinite(tokens_per_s) and tokens_per_s > 0:
        with _lock:
            _measured[(model, method)] = float(tokens_per_s)


def measured(model: str) -> dict[str, float]:
    with _lock:
        return {m: v for (name, m), v in _measured.items() if name == model}


def from_outputs(outputs: pd.DataFrame, model: str) -> dict[str, float]:
    """Per method: stored tokens / stored latency over this model's timed outputs."""
    if outputs is None or outputs.empty or "latency_ms" not in outputs:
        return {}
    o = outputs[(outputs["model"] == model)]
    lat = pd.to_numeric(o["latency_ms"], errors="coerce")
    tok = pd.to_numeric(o["new_tokens"], errors="coerce")
    ok = o[lat.notna() & tok.notna() & (lat > 0)]
    out = {}
    for method, g in ok.groupby("method"):
        seconds = pd.to_numeric(g["latency_ms"]).sum() / 1000
        if seconds > 0:
            out[str(method)] = float(pd.to_numeric(g["new_tokens"]).sum() / seconds)
    return out


def estimate_seconds(
    n_prompts: int, slots: Sequence[tuple[str, int]], max_new_tokens: int, throughput: Mapping[str, float]
) -> tuple[float | None, list[str]]:
    """(seconds, methods without a measurement) to generate n_prompts x slots outputs of up to
    max_new_tokens each, one at a time. A method never measured gets the slowest measured rate;
    None when nothing was measured."""
    if not throughput:
        return None, sorted({m for m, _ in slots})
    fallback = min(throughput.values())
    total, guessed = 0.0, set()
    for method, _ in slots:
        rate = throughput.get(method)
        if rate is None:
            rate = fallback
            guessed.add(method)
        total += n_prompts * max_new_tokens / rate
    return total, sorted(guessed)


def describe(
    n_prompts: int,
    slots: Sequence[tuple[str, int]],
    max_new_tokens: int,
    throughput: Mapping[str, float],
    attention: int = 0,
    lang: str = "en",
) -> str:
    """ "N prompts × M methods = K outputs, about T min on this machine" (one line, plain text, in `lang`).
    `attention`: attention items creation adds (arena/rating/attention.py); each has the same slots as a
    prompt, so they count among the outputs, but their responses are written, not generated, so they
    take no time."""
    methods = list(dict.fromkeys(m for m, _ in slots))
    k = (n_prompts + attention) * len(slots)
    fixed = attention * len(slots)
    head = (
        text("chart_prompts", lang, n=n_prompts)
        + (text("estimate_attention", lang, n=attention) if attention else "")
        + text("estimate_methods", lang, n=len(methods))
        + (text("estimate_slots", lang, n=len(slots)) if len(slots) != len(methods) else "")
        + text("estimate_outputs", lang, n=k)
        + (text("estimate_fixed", lang, n=fixed) if attention else "")
    )
    seconds, guessed = estimate_seconds(n_prompts, slots, max_new_tokens, throughput)
    if seconds is None:
        return head + text("estimate_unmeasured", lang)
    rate = statistics.median(throughput.values())
    when = (
        text("estimate_minutes", lang, n=f"{seconds / 60:.0f}")
        if seconds >= 90
        else text("estimate_seconds", lang, n=max(1, round(seconds)))
    )
    note = text("estimate_guessed", lang, methods=", ".join(guessed)) if guessed else ""
    return head + text("estimate_time", lang, when=when, max_new=max_new_tokens, rate=f"{rate:.0f}", note=note)
