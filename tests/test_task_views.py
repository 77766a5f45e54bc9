"""The tasks in the UI: Compare's check line under each output of a task prompt, and Results' task
success next to the human scores and perplexity of a study built from the task prompts."""

from __future__ import annotations

import pandas as pd
import pytest

from arena.inputs.prompts import SCENARIOS, TASK_SCENARIOS
from arena.runs.requests import MethodResult
from evaluation.tasks import sandbox, views
from tests.support.seeding import rate_every_output, seed_study
from ui import results as tab
from ui.compare import timing as ctiming

MATH_ZH = next(s.prompt for s in TASK_SCENARIOS if s.key == "math-cylinder" and s.language == "zh")
CODE_EN = next(s.prompt for s in TASK_SCENARIOS if s.key == "code-indices" and s.language == "en")
RIGHT_CODE = "```python\ndef f(lst, t):\n    return [i for i, x in enumerate(lst) if x > t]\n```"


def _result(method: str, text: str) -> MethodResult:
    return MethodResult(method, text, 3, 1.0, 10.0, 300.0, {}, 0, 5)


def test_compare_shows_a_check_line_only_for_task_prompts():
    state = {"prompt": MATH_ZH, "raw": False, "results": [_result("BS-4", "24π + 30 cm²"), _result("Greedy", "91.23")]}
    lines = ctiming.task_check_lines(state, ["BS-4", "Greedy", "TS-Temp"])
    assert lines["BS-4"].startswith("math-cylinder check: ✓ pass — final value '24π + 30'")
    assert lines["Greedy"].startswith("math-cylinder check: ✗ fail — final value '91.23'") and lines["TS-Temp"] == ""
    other = {"prompt": SCENARIOS[0].prompt, "results": [_result("BS-4", "105.4")]}
    assert ctiming.task_check_lines(other, ["BS-4"]) == {"BS-4": ""}
    assert ctiming.task_check_lines([], ["BS-4"]) == {"BS-4": ""}  # before any run


def test_the_check_line_is_plain_text_even_when_the_output_is_markup():
    line = views.verdict_line(MATH_ZH, "<img src=x onerror=alert(1)> = 105.4 cm²")
    assert "✓ pass" in line  # shown in a Textbox (ui/compare/__init__.py), never rendered as HTML


def test_success_by_method_counts_only_task_prompts():
    outputs = pd.DataFrame(
        [
            (1, MATH_ZH, "A", "105.4 cm²"),
            (2, MATH_ZH, "B", "91.23 cm²"),
            (3, "Tell me a story.", "A", "Once"),
            (4, MATH_ZH, "A", "no idea"),
        ],
        columns=["output_id", "prompt", "method", "text"],
    )
    s = views.success_by_method(outputs).set_index("method")
    assert (s.loc["A", "task_outputs"], s.loc["A", "task_successes"]) == (2, 1)
    assert (s.loc["B", "task_outputs"], s.loc["B", "task_successes"]) == (1, 0)
    table = pd.DataFrame({"method": ["A", "B", "C"], "coherence ↑": ["3"] * 3, "PPL ↓": ["9"] * 3})
    shown = views.with_task_success(table, outputs)
    assert list(shown.columns) == ["method", "coherence ↑", views.SUCCESS_COLUMN, "PPL ↓"]
    assert shown[views.SUCCESS_COLUMN].tolist() == ["1/2 · 50% [9%–91%]", "0/1 · 0% [0%–79%]", "–"]
    plain = outputs[outputs["prompt"] != MATH_ZH]
    assert views.with_task_success(table, plain) is table  # no task prompts: the table as it was


@pytest.mark.skipif(not sandbox.availability()[0], reason="the code check needs the sandbox")
def test_results_show_task_success_next_to_human_scores_and_perplexity(store):
    study, _ = seed_study(
        store,
        "Tasks pilot",
        [MATH_ZH, CODE_EN, SCENARIOS[0].prompt],
        [
            {"BS-4": "24π + 30 ≈ 105.40 cm²", "TS-Temp": "91.23 cm²"},
            {"BS-4": RIGHT_CODE, "TS-Temp": "def f(lst, t):\n    return lst"},
            {"BS-4": "Qubits.", "TS-Temp": "Superposition."},
        ],
    )
    outputs = store.outputs_frame(study)
    ids = {f"{m}-{i}": int(o) for i, (m, o) in enumerate(zip(outputs["method"], outputs["output_id"]))}
    rate_every_output(store, ids, [("ann", 3)])
    table = tab.compute_view(store, study, public=False)["table"].set_index("method")
    assert table.loc["BS-4", views.SUCCESS_COLUMN] == "2/2 · 100% [34%–100%]"
    assert table.loc["TS-Temp", views.SUCCESS_COLUMN] == "0/2 · 0% [0%–66%]"
    columns = list(table.columns)
    assert columns.index(views.SUCCESS_COLUMN) == columns.index("PPL ↓") - 1
    assert any(c.startswith("coherence") for c in columns[: columns.index(views.SUCCESS_COLUMN)])
