"""The organizer's progress and time left while a study generates (arena/runs/eta.py), on a fake clock."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
import torch

from arena import studies
from arena.engines.dummy import DummyEngine
from arena.rating.study_spec import StudySpec
from arena.runs.eta import GenerationEta


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_no_figure_before_the_first_output_then_one_from_its_measured_throughput():
    clock = Clock()
    eta = GenerationEta(clock=clock)
    eta.start(0, 6, {"TS-Temp": 6}, max_new_tokens=20)
    first = eta.snapshot()
    assert (first.done, first.total, first.seconds_left) == (0, 6, None)
    assert "measured once the first output is done" in first.line()
    clock.now += 4.0
    eta.finished("TS-Temp", [20])  # 5 tokens/s
    after = eta.snapshot()
    assert after.done == 1 and after.tokens_per_s == pytest.approx(5.0)
    assert after.seconds_left == pytest.approx(5 * 20 / 5.0)
    assert after.line() == "1 of 6 outputs · about 20 s left (5 tokens/s measured on this run so far)"


def test_it_moves_with_every_output_and_ends_at_zero():
    clock = Clock()
    eta = GenerationEta(clock=clock)
    eta.start(0, 4, {"TS-Temp": 4}, max_new_tokens=10)
    lefts = []
    for step in (2.0, 1.0, 1.0, 1.0):  # the first output pays the warm-up
        clock.now += step
        eta.finished("TS-Temp", [10])
        lefts.append(eta.snapshot().seconds_left)
    # 10 tok in 2 s (5/s): 3 x 10 / 5; then 20 tok in 3 s: 2 x 10 x 3 / 20; then 30 in 4 s; then done
    assert lefts == pytest.approx([6.0, 3.0, 40 / 30, 0.0])
    end = eta.snapshot()
    assert end.done == 4 and end.line() == "4 of 4 outputs · took 5 s at 8 tokens/s"


def test_short_outputs_are_expected_short_and_a_batch_counts_all_its_outputs():
    clock = Clock()
    eta = GenerationEta(clock=clock)
    eta.start(0, 10, {"TS-Temp": 10}, max_new_tokens=64)
    clock.now += 3.0
    eta.finished("TS-Temp", [8, 12, 10])  # a batch of 3 that stopped early: 30 tokens in 3 s
    snap = eta.snapshot()
    assert snap.done == 3 and snap.seconds_left == pytest.approx(7 * 10 / 10.0)  # 10 tokens each, not 64


def test_a_method_not_reached_yet_is_scaled_by_how_the_prior_compared_it():
    clock = Clock()
    eta = GenerationEta(prior={"TS-Temp": 40.0, "BS-4": 10.0}, clock=clock)
    eta.start(0, 4, {"TS-Temp": 2, "BS-4": 2}, max_new_tokens=10)
    before = eta.snapshot()  # nothing of this run yet: the prior alone, said to be so
    assert before.from_prior and before.seconds_left == pytest.approx(2 * 10 / 40 + 2 * 10 / 10)
    assert "from earlier Compare runs" in before.line()
    clock.now += 1.0
    eta.finished("TS-Temp", [10])  # 10 tokens/s here, a quarter of the prior's 40: BS-4 at 2.5
    assert eta.snapshot().seconds_left == pytest.approx(1 * 10 / 10 + 2 * 10 / 2.5)


def test_a_method_with_no_prior_runs_at_the_overall_rate_and_a_resumed_run_counts_what_was_stored():
    clock = Clock()
    eta = GenerationEta(prior={"TS-Temp": 40.0}, clock=clock)
    eta.start(5, 9, {"TS-Temp": 2, "Greedy": 2}, max_new_tokens=10)
    assert eta.snapshot().seconds_left is None  # Greedy has no prior: no figure made up
    clock.now += 2.0
    eta.finished("TS-Temp", [10])
    snap = eta.snapshot()
    assert snap.done == 6 and snap.seconds_left == pytest.approx(1 * 10 / 5 + 2 * 10 / 5)


@pytest.mark.parametrize("store", ["sqlite"], indirect=True)
def test_the_study_generator_feeds_it_from_the_first_output(store):
    lm = SimpleNamespace(name="stand-in", device=torch.device("cpu"), dtype_name="float32", context_length=2048)
    sid = studies.create_study(
        store,
        StudySpec(
            "estimate",
            [studies.PromptSpec(f"Say hi {k}.", "t", "en") for k in range(3)],
            methods=["TS-Temp", "Greedy"],
            max_new_tokens=6,
            base_seed=1,
        ),
        model=lm.name,
    )
    clock = Clock()
    eta = GenerationEta(clock=clock)
    seen = []

    def progress(done: int, total: int, what: str) -> None:
        clock.now += 1.0  # one fake second per piece of work
        seen.append((done, total, eta.snapshot()))

    report = studies.generate_study(store, lm, sid, progress=progress, engine=DummyEngine(), batch_size=2, eta=eta)
    assert report.complete and report.total == 6
    done = [d for d, _, _ in seen]
    assert done[0] == 0 and done[-1] == 6 and done == sorted(done)
    assert all(s.done == d for d, _, s in seen)  # the ETA counts what the store counts
    assert seen[0][2].seconds_left is None
    assert seen[1][2].done >= 1 and seen[1][2].seconds_left is not None  # from the first output
    assert seen[-1][2].seconds_left == 0.0 and "took" in seen[-1][2].line()


def test_a_slow_run_ends_with_its_real_speed_not_zero_tokens_per_s():
    """Issue 35: a 25-minute study run ended with "took 25 min at 0 tokens/s"."""
    from arena.runs.eta import Snapshot

    line = Snapshot(done=9, total=9, seconds_left=0.0, tokens_per_s=0.31, elapsed_s=1500.0).line()
    assert line == "9 of 9 outputs · took 25 min at 0.31 tokens/s"
    running = Snapshot(done=3, total=9, seconds_left=600.0, tokens_per_s=0.4).line()
    assert "(0.4 tokens/s measured on this run so far)" in running
