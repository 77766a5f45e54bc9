"""What the Compare and Results tabs show of the tasks: plain data and plain text, no Gradio.

* Compare: `verdict_line(prompt, text)`, one line under an output when the prompt is one of the
  task prompts (exactly, as the examples fill it in), "" otherwise.
* Results: `success_by_method(outputs)` over a study's outputs whose prompt is a task prompt, and
  `with_task_success(table, outputs)`, the per-method table with a "task success" column.

Verdicts are cached by (task, text): a sandboxed code check costs a fraction of a second, and the
Results tab recomputes on every filter change.
"""

from __future__ import annotations

import threading

import pandas as pd

from common.messages import english

from . import TASKS, scenario_for
from .stats import wilson
from .verdict import Verdict

SUCCESS_COLUMN = english("column_task_success")


_cache: dict[tuple[str, str], Verdict] = {}
_cache_lock = threading.Lock()
CACHE_SIZE = 4096


def _verdict(task_id: str, text: str) -> Verdict:
    with _cache_lock:
        known = _cache.get((task_id, text))
    if known is not None:
        return known
    verdict = TASKS[task_id].check(text)
    if verdict.success is not None:  # "not checked" (no sandbox yet) is asked again next time
        with _cache_lock:
            if len(_cache) >= CACHE_SIZE:
                _cache.clear()
            _cache[(task_id, text)] = verdict
    return verdict


def verdict_for(prompt: object, text: object) -> Verdict | None:
    """The task checker's verdict on `text` when `prompt` is a task prompt, else None."""
    scenario = scenario_for(prompt)
    if scenario is None or not isinstance(text, str):
        return None
    return _verdict(scenario.key, text)


def verdict_line(prompt: object, text: object) -> str:
    """ "math-cylinder check: ✓ pass — final value …" (plain text, shown as text, never as markup)."""
    v = verdict_for(prompt, text)
    if v is None:
        return ""
    scenario = scenario_for(prompt)
    assert scenario is not None
    return f"{scenario.key} check: {v.mark} — {v.reason}"


def success_by_method(outputs: pd.DataFrame) -> pd.DataFrame:
    """Per method, over outputs of task prompts: outputs, successes, rate and its 95% Wilson interval.
    Outputs that could not be checked (no sandbox) are counted apart and left out of the rate."""
    columns = ["method", "task_outputs", "task_successes", "task_not_checked", "task_success", "ci_low", "ci_high"]
    if outputs.empty or not {"prompt", "text", "method"} <= set(outputs.columns):
        return pd.DataFrame(columns=columns)
    rows = []
    for method, group in outputs.drop_duplicates("output_id").groupby("method", sort=False):
        verdicts = [verdict_for(p, t if isinstance(t, str) else "") for p, t in zip(group["prompt"], group["text"])]
        found = [v for v in verdicts if v is not None]
        if not found:
            continue
        checked = [v for v in found if v.success is not None]
        k = sum(1 for v in checked if v.success)
        lo, hi = wilson(k, len(checked))
        rate = k / len(checked) if checked else float("nan")
        rows.append([method, len(found), k, len(found) - len(checked), rate, lo, hi])
    return pd.DataFrame(rows, columns=columns)


def with_task_success(table: pd.DataFrame, outputs: pd.DataFrame) -> pd.DataFrame:
    """The Results table with "task success" ("3/8 · 38% [14–69]") before its perplexity column,
    when the study has outputs of task prompts; the table unchanged otherwise."""
    success = success_by_method(outputs)
    if success.empty or table.empty or "method" not in table.columns:
        return table
    cells = {}
    for _, s in success.iterrows():
        checked = int(s["task_outputs"] - s["task_not_checked"])
        if checked == 0:
            cells[s["method"]] = english("results_not_checked")
            continue
        cells[s["method"]] = (
            f"{int(s['task_successes'])}/{checked} · {s['task_success']:.0%} [{s['ci_low']:.0%}–{s['ci_high']:.0%}]"
        )
    out = table.copy()
    where = next((i for i, c in enumerate(out.columns) if str(c).startswith("PPL")), len(out.columns))
    out.insert(where, SUCCESS_COLUMN, [cells.get(m, "–") for m in out["method"]])
    return out
