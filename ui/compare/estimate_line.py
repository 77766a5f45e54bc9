"""The line next to Compare's Run: how long the chosen run will take on this machine, before it starts.

The rates are what this process measured (arena/runs/estimate.py: every finished method records its
tokens/s under its model's label), so the line is honest from the first run on; before any run it says
that nothing was timed yet rather than guess from hardware names. Compare runs one method at a time,
which is what `estimate_seconds` assumes, and a run of several models is the sum over the models.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence

from arena.runs import estimate
from arena.runs.eta import duration, speed
from common.messages import text


def _what(n_methods: int, n_models: int, lang: str) -> str:
    what = text("compare_estimate_methods", lang, n=n_methods, s="s" if n_methods != 1 else "")
    return what + (text("compare_estimate_models", lang, n=n_models) if n_models > 1 else "")


def estimate_line(methods: Sequence[str], models: Sequence[str], max_new_tokens: int, lang: str = "en") -> str:
    """ "**About 40 s** for 3 methods × up to 128 new tokens (measured here: 9 tokens/s)", or the line
    saying that this machine has not timed the model yet. `models` are the chosen models' labels (the
    app's own first); an unmeasured method or model counts at the slowest rate measured."""
    methods, models = list(dict.fromkeys(methods)), list(dict.fromkeys(models))
    if not methods or not models:
        return ""
    what = _what(len(methods), len(models), lang)
    rates = {m: estimate.measured(m) for m in models}
    pooled = [r for by_method in rates.values() for r in by_method.values()]
    if not pooled:
        return text("compare_estimate_unmeasured", lang, what=what, tokens=max_new_tokens)
    slowest = {"": min(pooled)}  # a model never run here: every method at the slowest rate seen
    total, guessed = 0.0, set()
    for model in models:
        seconds, missing = estimate.estimate_seconds(
            1, [(m, 1) for m in methods], max_new_tokens, rates[model] or slowest
        )
        total += seconds or 0.0
        guessed |= set(methods) if not rates[model] else set(missing)
    note = text("compare_estimate_guessed", lang, methods=", ".join(sorted(guessed))) if guessed else ""
    return text(
        "compare_estimate", lang, when=duration(total, lang), what=what, tokens=max_new_tokens,
        rate=speed(statistics.median(pooled)), guessed=note,
    )  # fmt: skip
