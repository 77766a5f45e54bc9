"""Article 003's three end-to-end tasks (§5), each with its own decoder preset and an automatic
checker that says what it checks: `python -m evaluation.tasks` (docs/tasks.md).

    math-cylinder   the half cylinder's surface area, 24π + 30 ≈ 105.40 cm²   preset Math-Arms
    code-indices    indices of the elements above a threshold, run in a sandbox  preset Code-Stabilizer
    summary-paper   ≤200 characters of a 2800-character paper, key facts kept     preset Length-Aware

The prompts (zh and en) are `arena.inputs.prompts.TASK_SCENARIOS`; a checker takes an answer's text and
returns a `Verdict` (success, reason, kind).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from arena.inputs.prompts import TASK_SCENARIOS, Scenario
from common.errors import UserError

from . import code_task, math_task, summary_task
from .verdict import Verdict


@dataclass(frozen=True)
class Task:
    id: str
    title: str
    preset: str  # the registered decoder with the article's configuration for this task
    max_new_tokens: int  # default for the benchmark
    check: Callable[[str], Verdict]
    checks: str  # what the checker checks, in one line

    def prompts(self) -> dict[str, str]:
        """The task's prompt per language."""
        return {s.language: s.prompt for s in TASK_SCENARIOS if s.key == self.id}


TASKS: dict[str, Task] = {
    t.id: t
    for t in (
        Task(
            "math-cylinder",
            "half a cylinder's surface area",
            "Math-Arms",
            256,
            math_task.check,
            "the final number within 0.5% of 24π + 30 ≈ 105.40 (cm²; π forms accepted); not the working",
        ),
        Task(
            "code-indices",
            "indices above a threshold",
            "Code-Stabilizer",
            192,
            code_task.check,
            "the first function that parses, run in a sandbox on 7 tests (the empty list included); not style",
        ),
        Task(
            "summary-paper",
            "a 200-character summary",
            "Length-Aware",
            256,
            summary_task.check,
            "≤200 characters, the water saving + 3 of 5 key facts, no invented figures; not fluency",
        ),
    )
}


def get(task_id: object) -> Task:
    if not isinstance(task_id, str) or task_id not in TASKS:
        raise UserError(f"unknown task {task_id!r}; the tasks are {', '.join(TASKS)}")
    return TASKS[task_id]


def check(task_id: object, text: object) -> Verdict:
    """The task's verdict on one answer."""
    task = get(task_id)
    if not isinstance(text, str):
        raise UserError(f"an answer's text must be a string, got {type(text).__name__}")
    return task.check(text)


def _normal(prompt: str) -> str:
    return prompt.replace("\r\n", "\n").strip()


_BY_PROMPT: dict[str, Scenario] = {_normal(s.prompt): s for s in TASK_SCENARIOS}


def scenario_for(prompt: object) -> Scenario | None:
    """The task scenario whose prompt this is (exactly, up to surrounding whitespace), or None."""
    return _BY_PROMPT.get(_normal(prompt)) if isinstance(prompt, str) else None


__all__ = ["TASKS", "Task", "Verdict", "check", "get", "scenario_for"]


def task_list(ids: str | None) -> list[Task]:
    """The tasks a comma-separated list of ids names (None: all), each once, in the order given."""
    if ids is None:
        return list(TASKS.values())
    chosen = [s.strip() for s in ids.split(",") if s.strip()]
    if not chosen:
        raise UserError("choose at least one task")
    unknown = [t for t in chosen if t not in TASKS]
    if unknown:
        raise UserError(f"unknown task {unknown[0]!r}; the tasks are {', '.join(TASKS)}")
    return [TASKS[t] for t in dict.fromkeys(chosen)]
