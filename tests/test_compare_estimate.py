"""The time line next to Compare's Run (ui/compare/estimate_line.py): from this process's measured
rates, one method after another, summed over the chosen models; honest when nothing was measured."""

from __future__ import annotations

import pytest

from arena.runs import estimate
from ui.compare.estimate_line import estimate_line


@pytest.fixture(autouse=True)
def fresh_rates(monkeypatch):
    monkeypatch.setattr(estimate, "_measured", {})


def test_nothing_measured_says_so_and_gives_no_number():
    line = estimate_line(["BS-4", "TS-Temp", "TS-Tilted"], ["m"], 128)
    assert line.startswith("3 methods × up to 128 new tokens: not timed on this machine yet")
    assert "About" not in line


def test_the_time_is_tokens_over_each_methods_own_rate():
    estimate.record("m", "TS-Temp", 10.0)
    estimate.record("m", "BS-4", 2.0)
    # 100/10 + 100/2 = 60 s
    line = estimate_line(["TS-Temp", "BS-4"], ["m"], 100)
    assert line.startswith("**About 60 s** for 2 methods × up to 100 new tokens (measured here: 6 tokens/s)")
    assert "not timed yet" not in line


def test_an_unmeasured_method_counts_at_the_slowest_rate_and_is_named():
    estimate.record("m", "TS-Temp", 10.0)
    estimate.record("m", "BS-4", 2.0)
    line = estimate_line(["TS-Temp", "Greedy"], ["m"], 100)  # 10 s + 50 s
    assert line.startswith("**About 60 s**") and "Greedy not timed yet, counted at the slowest rate" in line


def test_models_add_up_and_minutes_past_ninety_seconds():
    estimate.record("a", "TS-Temp", 1.0)
    estimate.record("b", "TS-Temp", 0.5)
    line = estimate_line(["TS-Temp"], ["a", "b"], 60)  # 60 s + 120 s = 3 min
    assert line.startswith("**About 3 min** for 1 method × 2 models × up to 60 new tokens")
    unseen = estimate_line(["TS-Temp"], ["a", "c"], 60)  # c never ran: the slowest rate seen (1/s)
    assert unseen.startswith("**About 2 min**") and "TS-Temp not timed yet" in unseen


def test_chinese_and_nothing_chosen():
    estimate.record("m", "TS-Temp", 4.0)
    assert estimate_line(["TS-Temp"], ["m"], 8, "zh").startswith("**约 2 秒**：1 种方法 × 最多 8 个新 token")
    assert estimate_line([], ["m"], 8) == ""
