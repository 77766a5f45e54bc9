"""Run decoders on the tasks and score them: success rate with a 95% interval per method × task.

For every task, language and sample k, all methods run on the task's prompt with seed base + k
(one `generate` call: each method gets `torch.manual_seed(seed)` right before it). A deterministic
method (BS-4, Greedy) runs once per language: more seeds would only repeat its output, and counting
repeats as samples would narrow its interval for nothing. Each output is checked by the task's
checker.

The interval is Wilson's over the runs of a cell, i.e. over seeds and the two languages' prompts.
It speaks about this model on these prompts under this decoder's sampling, not about math, code or
summaries in general: two prompts per task are two items, not a sample of tasks.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import decoders

from . import Task
from .generate import generate
from .stats import wilson
from .verdict import Verdict

PRESET = "preset"  # in --methods: each task's own decoder (Math-Arms, Code-Stabilizer, Length-Aware)

ProgressFn = Callable[[int, int, str], None]


@dataclass
class TaskRun:
    method: str
    task: str
    language: str
    seed: int
    preset: bool  # the method is this task's own configuration
    text: str
    verdict: Verdict
    latency_ms: float
    new_tokens: int
    finish_reason: str

    def as_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["verdict"] = self.verdict.as_dict()
        return out


def methods_for(task: Task, methods: Sequence[str]) -> list[str]:
    """The decoders to run on `task`: `preset` becomes the task's own, duplicates dropped."""
    return list(dict.fromkeys(task.preset if m == PRESET else m for m in methods))


def parse_methods(spec: str | None, default: str = f"{PRESET},Greedy,TS-Temp") -> list[str]:
    """'preset,Greedy,TS-Temp' -> names, each checked against the registry ('preset' allowed)."""
    items = [s.strip() for s in (spec if spec is not None else default).split(",") if s.strip()]
    decoders.parse_methods([m for m in items if m != PRESET] or ["Greedy"])  # unknown names and repeats
    if not items:
        raise decoders.InvalidSettings("choose at least one method")
    if len(set(items)) != len(items):
        raise decoders.InvalidSettings(f"a method is listed twice: {', '.join(items)}")
    return items


def plan(
    tasks: Sequence[Task], methods: Sequence[str], languages: Sequence[str], samples: int, base_seed: int
) -> list[tuple[Task, str, int, list[str]]]:
    """(task, language, seed, methods) for each generate call, deterministic methods only at k = 0."""
    calls = []
    for task in tasks:
        chosen = methods_for(task, methods)
        for language in languages:
            for k in range(samples):
                names = [m for m in chosen if k == 0 or decoders.get(m).stochastic]
                if names:
                    calls.append((task, language, base_seed + k, names))
    return calls


def run(
    lm: Any,
    tasks: Sequence[Task],
    methods: Sequence[str],
    languages: Sequence[str],
    samples: int,
    base_seed: int = 0,
    max_new_tokens: int | None = None,
    progress: ProgressFn | None = None,
) -> list[TaskRun]:
    calls = plan(tasks, methods, languages, samples, base_seed)
    runs: list[TaskRun] = []
    for i, (task, language, seed, names) in enumerate(calls):
        if progress is not None:
            progress(i, len(calls), f"{task.id}/{language} seed {seed}: {', '.join(names)}")
        results = generate(lm, task.prompts()[language], names, seed, max_new_tokens or task.max_new_tokens)
        for r in results:
            runs.append(
                TaskRun(
                    r.method,
                    task.id,
                    language,
                    seed,
                    r.method == task.preset,
                    r.text,
                    task.check(r.text),
                    r.latency_ms,
                    r.new_tokens,
                    r.finish_reason,
                )
            )
    if progress is not None:
        progress(len(calls), len(calls), "done")
    return runs


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0  # a cell has at least one run


def summarize(runs: Sequence[TaskRun]) -> list[dict[str, Any]]:
    """One cell per (method, task), in the order they first ran."""
    cells: dict[tuple[str, str], list[TaskRun]] = {}
    for r in runs:
        cells.setdefault((r.method, r.task), []).append(r)
    out = []
    for (method, task), group in cells.items():
        checked = [r for r in group if r.verdict.success is not None]
        k = sum(1 for r in checked if r.verdict.success)
        lo, hi = wilson(k, len(checked)) if checked else (None, None)  # None, not NaN: the output is JSON
        failures = Counter(r.verdict.kind for r in checked if not r.verdict.success)
        examples: dict[str, str] = {}
        for r in checked:
            if not r.verdict.success:
                examples.setdefault(r.verdict.kind, r.verdict.reason)
        by_language = {}
        for language in dict.fromkeys(r.language for r in group):
            mine = [r for r in checked if r.language == language]
            by_language[language] = f"{sum(1 for r in mine if r.verdict.success)}/{len(mine)}"
        out.append(
            {
                "method": method,
                "task": task,
                "preset": group[0].preset,
                "runs": len(group),
                "checked": len(checked),
                "successes": k,
                "success_rate": k / len(checked) if checked else None,
                "ci95": [lo, hi],
                "by_language": by_language,
                "distinct_outputs": len({r.text for r in group}),
                "latency_ms_mean": _mean([r.latency_ms for r in group]),
                "new_tokens_mean": _mean([float(r.new_tokens) for r in group]),
                "failures": [
                    {"kind": kind, "count": count, "example": examples[kind]} for kind, count in failures.most_common()
                ],
                "not_checked": len(group) - len(checked),
            }
        )
    return out


def _pct(x: float | None) -> str:
    return "–" if x is None or x != x else f"{x:.0%}"


def table(cells: Sequence[dict[str, Any]]) -> str:
    """The cells as aligned text, one line each, with their failure reasons counted."""
    rows = [("method", "task", "success", "rate [95% CI]", "latency ms", "tokens", "failures")]
    for c in cells:
        lo, hi = c["ci95"]
        fails = ", ".join(f"{f['kind']} ×{f['count']}" for f in c["failures"]) or "–"
        if c["not_checked"]:
            fails += f"; not checked ×{c['not_checked']}"
        rows.append(
            (
                c["method"] + (" *" if c["preset"] else ""),
                c["task"],
                f"{c['successes']}/{c['checked']}",
                f"{_pct(c['success_rate'])} [{_pct(lo)}–{_pct(hi)}]",
                f"{c['latency_ms_mean']:.0f}",
                f"{c['new_tokens_mean']:.1f}",
                fails,
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(6)]
    lines = [
        "  ".join(r[i].ljust(widths[i]) if i < 2 else r[i].rjust(widths[i]) for i in range(6)) + "  " + r[6]
        for r in rows
    ]
    lines.insert(1, "-" * len(lines[0]))
    lines.append("* = the task's own preset (the article's configuration)")
    return "\n".join(lines)
