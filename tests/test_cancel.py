"""An abandoned run stops: Stop (a cancel event) or a client that leaves (the generator is closed)
ends generation at the next token, and the model's lock is free only after the generating thread
ended. Also Compare's order (sampling first, beam search last) and its token cap."""

import threading
import time

import pytest

from arena.runs.requests import Cancelled, RunRequest, run_order
from arena.runs.runner import run_methods, stream_methods
from common.errors import UserError

PROMPT = "Write a long story about a lighthouse keeper and the sea."


def generating_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith("generate-") and t.is_alive()]


def wait_until(predicate, timeout: float) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.01)
    return predicate()


@pytest.mark.parametrize("method", ["TS-Temp", "BS-4"])
def test_stop_ends_the_run_at_the_next_step_and_then_frees_the_lock(lm, method):
    """Counted in model steps, not seconds: on a loaded 2-core machine one BS-4 step (4 beams) can
    take over a second, and what Stop promises is the next token."""
    cancel = threading.Event()
    seen: list = []
    steps: list[bool] = []  # one entry per forward pass: was Stop already pressed?
    hook = lm.model.register_forward_hook(lambda *_: steps.append(cancel.is_set()))
    consumer = threading.Thread(
        target=lambda: seen.extend(
            stream_methods(lm, RunRequest(PROMPT, [method], max_new_tokens=1000, seed=0), cancel=cancel)
        ),
        daemon=True,
    )
    try:
        consumer.start()
        assert wait_until(lambda: generating_threads(), 60), "generation never started"
        # Mid-generation, past the prefill: sampled text is streaming / beam search is a few steps in.
        if method == "BS-4":
            assert wait_until(lambda: len(steps) >= 4, 120)
        else:
            assert wait_until(lambda: any(e.text.count(" ") >= 2 for e in seen), 60)
        cancel.set()
        # the generating thread sees the event at its next token (a stopping criterion) and ends
        assert wait_until(lambda: not generating_threads(), 120), "generation went on after Stop"
    finally:
        hook.remove()
    # the step in flight when Stop came may finish; no step starts after the one that sees the event
    assert sum(steps) <= 1, f"{sum(steps)} model steps ran after Stop"
    consumer.join(timeout=60)
    assert not consumer.is_alive()
    assert not any(e.result is not None for e in seen)  # no half result is reported as a result
    assert lm.lock.acquire(timeout=1)
    lm.lock.release()


def test_a_client_that_leaves_closes_the_generator_and_generation_stops(lm):
    """Counted in model steps, as Stop is: close() returns once generation has ended."""
    closed = threading.Event()
    steps: list[bool] = []  # one entry per forward pass: was the generator already being closed?
    hook = lm.model.register_forward_hook(lambda *_: steps.append(closed.is_set()))
    try:
        events = stream_methods(lm, RunRequest(PROMPT, ["TS-Temp"], max_new_tokens=1000, seed=0))
        first = next(e for e in events if e.text)  # tokens are flowing
        assert first.method == "TS-Temp"
        closed.set()
        events.close()  # what Gradio does with an abandoned generator
        assert not generating_threads()  # close() waited for the generating thread
        after = sum(steps)
    finally:
        hook.remove()
    assert after <= 1, f"{after} model steps ran after the client left"
    assert lm.lock.acquire(timeout=0.1)
    lm.lock.release()


def test_a_cancelled_run_raises_and_a_normal_run_is_unchanged(lm):
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(Cancelled):
        run_methods(lm, RunRequest(PROMPT, ["TS-Temp"], max_new_tokens=4, seed=0), cancel=cancel)
    plain = run_methods(lm, RunRequest(PROMPT, ["TS-Temp"], max_new_tokens=4, seed=0))
    watched = run_methods(lm, RunRequest(PROMPT, ["TS-Temp"], max_new_tokens=4, seed=0), cancel=threading.Event())
    assert plain[0].token_ids == watched[0].token_ids


def test_sampling_runs_first_and_beam_search_last(lm):
    assert run_order(["BS-4", "TS-Temp", "TS-Tilted"]) == ["TS-Temp", "TS-Tilted", "BS-4"]
    events = list(stream_methods(lm, RunRequest("Hi", ["BS-4", "TS-Temp"], max_new_tokens=2, seed=0, raw=True)))
    starts = [(e.method, e.position, e.total) for e in events if e.result is None and e.text == ""]
    assert starts == [("TS-Temp", 1, 2), ("BS-4", 2, 2)]
    assert [e.result.method for e in events if e.result is not None] == ["TS-Temp", "BS-4"]


def test_compare_caps_max_new_tokens_times_methods(monkeypatch):
    from ui.compare.form import compare_token_cap, make_request, param_keys

    defaults = [p.default for _, p in param_keys()]
    monkeypatch.delenv("ARENA_COMPARE_MAX_TOKENS", raising=False)
    assert compare_token_cap() == 2048
    make_request("Hi", ["BS-4", "TS-Temp"], False, 0, 1024, defaults)  # 2048: allowed
    with pytest.raises(UserError, match="ARENA_COMPARE_MAX_TOKENS"):
        make_request("Hi", ["BS-4", "TS-Temp", "TS-Tilted"], False, 0, 1024, defaults)
    monkeypatch.setenv("ARENA_COMPARE_MAX_TOKENS", "100")
    with pytest.raises(UserError, match="over this app's limit of 100"):
        make_request("Hi", ["TS-Temp"], False, 0, 101, defaults)
