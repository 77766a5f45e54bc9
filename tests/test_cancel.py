"""An abandoned run stops: Stop (a cancel event) or a client that leaves (the generator is closed)
ends generation at the next token, and the model's lock is free only after the generating thread
ended. Also Compare's order (sampling first, beam search last) and its token cap."""

import threading
import time

import pytest

from arena.errors import UserError
from arena.runner import Cancelled, RunRequest, run_methods, run_order, stream_methods

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
def test_stop_ends_the_run_within_a_second_and_then_frees_the_lock(lm, method):
    cancel = threading.Event()
    seen: list = []
    consumer = threading.Thread(
        target=lambda: seen.extend(
            stream_methods(lm, RunRequest(PROMPT, [method], max_new_tokens=1000, seed=0), cancel=cancel)
        ),
        daemon=True,
    )
    consumer.start()
    assert wait_until(lambda: generating_threads(), 60), "generation never started"
    # Mid-generation, past the prefill (one step, 4 beams x the prompt for BS-4, can take most of a
    # second on a loaded 2-core machine): sampled text is streaming / beam search is a few steps in.
    if method == "BS-4":
        time.sleep(2.0)
    else:
        assert wait_until(lambda: any(e.text.count(" ") >= 2 for e in seen), 60)
    cancel.set()
    # the generating thread sees the event at its next token (a stopping criterion) and ends
    assert wait_until(lambda: not generating_threads(), 1.0), "generation went on for over 1 s after Stop"
    consumer.join(timeout=5)
    assert not consumer.is_alive()
    assert not any(e.result is not None for e in seen)  # no half result is reported as a result
    assert lm.lock.acquire(timeout=0.1)
    lm.lock.release()


def test_a_client_that_leaves_closes_the_generator_and_generation_stops(lm):
    events = stream_methods(lm, RunRequest(PROMPT, ["TS-Temp"], max_new_tokens=1000, seed=0))
    first = next(e for e in events if e.text)  # tokens are flowing
    assert first.method == "TS-Temp"
    t = time.monotonic()
    events.close()  # what Gradio does with an abandoned generator
    assert time.monotonic() - t < 1.0
    assert wait_until(lambda: not generating_threads(), 1.0)
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
    from ui.compare import compare_token_cap, make_request, param_keys

    defaults = [p.default for _, p in param_keys()]
    monkeypatch.delenv("ARENA_COMPARE_MAX_TOKENS", raising=False)
    assert compare_token_cap() == 2048
    make_request("Hi", ["BS-4", "TS-Temp"], False, 0, 1024, defaults)  # 2048: allowed
    with pytest.raises(UserError, match="ARENA_COMPARE_MAX_TOKENS"):
        make_request("Hi", ["BS-4", "TS-Temp", "TS-Tilted"], False, 0, 1024, defaults)
    monkeypatch.setenv("ARENA_COMPARE_MAX_TOKENS", "100")
    with pytest.raises(UserError, match="over this app's limit of 100"):
        make_request("Hi", ["TS-Temp"], False, 0, 101, defaults)
