"""Compiled decode (arena/engines/local/compiled.py) on a CPU, with a tiny random Llama model: the
same code the app runs on CUDA, where torch.compile also compiles (with inductor's C++ kernels
instead of CUDA graphs). Each compile of a shape costs tens of seconds on this CPU, so the module
compiles one shape (one row) once, and every test but the restart's reuses it."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import torch
from torch._dynamo.utils import counters
from transformers import LlamaConfig, LlamaForCausalLM

from arena import settings
from arena.engines.local import compiled, generate
from arena.engines.local.batching import generate_batch
from arena.engines.local.inputs import encode
from arena.model.llm import LoadedModel, tokenizer_only_model
from arena.runs.requests import RunRequest

PROMPT = "Explain the basic principles of quantum computing."
N = 8
CACHE_LEN = 48


def tiny_model(vocab: int) -> LlamaForCausalLM:
    """The same random weights in every process (the restart test builds it again)."""
    torch.manual_seed(0)
    config = LlamaConfig(
        vocab_size=vocab,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=2,
        num_key_value_heads=1,
        max_position_embeddings=64,
    )
    return LlamaForCausalLM(config).eval()


def tiny_lm(cache_dir: Path) -> LoadedModel:
    """The embedded model's tokenizer over a tiny random Llama model of its vocabulary, on the CPU."""
    base = tokenizer_only_model()
    vocab = base.logits_size
    return dataclasses.replace(
        base, model=tiny_model(vocab), name="tiny", context_length=64, cache_dir=str(cache_dir), compiled=None
    )


def compiled_regions(run) -> tuple[object, int]:
    """`run()`'s value, and how many compiled regions it entered (dynamo marks each in the profile)."""
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as prof:
        out = run()
    return out, sum(1 for e in prof.events() if e.name.startswith("Torch-Compiled Region"))


@pytest.fixture(scope="module")
def warm(tmp_path_factory):
    """A tiny model whose one-row decode is compiled (in this thread), inductor's caches in its folder."""
    cache = tmp_path_factory.mktemp("compiled_cache")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TORCHINDUCTOR_CACHE_DIR", str(cache / "compiled" / "inductor"))
        lm = tiny_lm(cache)
        state = compiled.attach(lm, [1], max_cache_len=CACHE_LEN)
        t = time.perf_counter()
        compiled.warm_up(lm, state)
        print(f"one shape compiled in {time.perf_counter() - t:.1f} s")
        assert state.error == "" and state.status == compiled.READY
        yield lm


def decode(lm: LoadedModel, method: str, seed: int) -> list[int]:
    req = RunRequest(PROMPT, [method], {}, N, seed)
    return generate.run_one(lm, method, encode(lm, req), None, N, seed).token_ids


@pytest.mark.parametrize("method, seed", [("Greedy", 0), ("TS-Temp", 3)])
def test_compiled_decode_gives_eager_decodes_tokens(warm, method, seed):
    """The runner's decode through the compiled forward (it runs: the profile shows its regions)
    against the same runner eager, same seed and dtype (float32)."""
    fast, regions = compiled_regions(lambda: decode(warm, method, seed))
    assert regions >= N - 1  # every step after the prefill
    state, warm.compiled = warm.compiled, None
    try:
        slow, eager_regions = compiled_regions(lambda: decode(warm, method, seed))
    finally:
        warm.compiled = state
    assert eager_regions == 0
    assert fast == slow and len(fast) > 0


def test_a_shape_not_compiled_decodes_eagerly_without_compiling(warm):
    """A request of a shape the warm-up did not compile (a batch of two) compiles nothing and runs
    eagerly, with the tokens a batch gives eagerly."""
    ids = [encode(warm, RunRequest(PROMPT, ["Greedy"], {}, N, 0)), encode(warm, RunRequest("Hi", ["Greedy"], {}, N, 0))]
    rows = [row[0].tolist() for row in ids]
    frames = counters["frames"]["total"]
    fast, regions = compiled_regions(lambda: generate_batch(warm, "Greedy", {}, rows, N, 1))
    assert counters["frames"]["total"] == frames and regions == 0
    state, warm.compiled = warm.compiled, None
    try:
        slow = generate_batch(warm, "Greedy", {}, rows, N, 1)
    finally:
        warm.compiled = state
    assert [r.token_ids for r in fast] == [r.token_ids for r in slow]


def test_a_request_during_the_warm_up_decodes_eagerly(tmp_path, monkeypatch):
    """While the background warm-up has not compiled anything (held on an event here), requests
    decode eagerly at once and the model line says so; a failed warm-up leaves decode eager."""
    monkeypatch.setenv("ARENA_COMPILE", "1")  # `auto` compiles on CUDA only
    lm = tiny_lm(tmp_path)
    gate, held = threading.Event(), threading.Event()

    def hold() -> None:
        held.set()
        gate.wait(60)
        raise RuntimeError("stopped by the test")

    state = compiled.start(lm, [1], max_cache_len=CACHE_LEN, before=hold)
    assert state is not None and state.thread is not None and held.wait(10)
    assert "compiling" in lm.describe() and compiled.compiled_kwargs(lm) == {}
    frames = counters["frames"]["total"]
    t = time.perf_counter()
    tokens, regions = compiled_regions(lambda: decode(lm, "Greedy", 0))
    took = time.perf_counter() - t
    assert regions == 0 and counters["frames"]["total"] == frames and len(tokens) > 0
    assert took < 10, took  # a compile costs tens of seconds here; an eager decode of 8 tokens, milliseconds
    gate.set()
    state.thread.join(10)
    assert "compiling failed: RuntimeError: stopped by the test" in state.status and compiled.compiled_kwargs(lm) == {}


def test_arena_compile_wants_a_gpu_that_stays_up(monkeypatch):
    cuda, cpu = torch.device("cuda"), torch.device("cpu")
    assert compiled.wanted(cuda, "auto") and not compiled.wanted(cpu, "auto")
    assert compiled.wanted(cpu, "on") and not compiled.wanted(cuda, "off")
    monkeypatch.setattr(compiled, "on_zero_gpu", lambda: True)
    assert not compiled.wanted(cuda, "auto")
    with settings.override(compile="0"):
        assert not compiled.wanted(cuda)


def test_the_model_line_says_compiled(warm):
    assert warm.describe().endswith("· decode compiled")


RESTART = """
import json, sys
from torch._dynamo.utils import counters
from arena.engines.local import compiled
sys.path.insert(0, "tests")
from test_compiled_decode import CACHE_LEN, tiny_lm
lm = tiny_lm(sys.argv[1])
compiled.warm_up(lm, compiled.attach(lm, [1], max_cache_len=CACHE_LEN))
print(json.dumps({"error": lm.compiled.error, **counters["inductor"]}))
"""


def start_in_a_fresh_process(cache_dir: Path) -> dict:
    """The app's start in its own process: warm the one-row shape with `cache_dir` as the cache
    folder; inductor's counters of that process."""
    env = {k: v for k, v in os.environ.items() if k != "TORCHINDUCTOR_CACHE_DIR"}  # the cache folder's own
    done = subprocess.run(
        [sys.executable, "-c", RESTART, str(cache_dir)],
        capture_output=True,
        text=True,
        timeout=240,
        env=env,
        cwd=Path(__file__).resolve().parents[1],
    )
    assert done.returncode == 0, done.stderr[-3000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found["error"] == "", found
    return found


def test_a_restart_compiles_nothing_new(tmp_path):
    """A first start compiles (graph cache misses) and keeps its artifacts; a restart, a fresh
    process on the same cache folder, warms the same shape from them: inductor's graph cache hits,
    and misses (a compile) never. Both starts are fresh processes, as the app's are (a test
    process's own torch state, from the tests before it, could change inductor's keys)."""
    first = start_in_a_fresh_process(tmp_path)
    assert first.get("fxgraph_cache_miss", 0) >= 1, first  # an empty folder compiles: the test can fail
    saved = tmp_path / "compiled" / compiled.ARTIFACTS
    assert saved.is_file() and saved.stat().st_size > 0
    again = start_in_a_fresh_process(tmp_path)
    assert again.get("fxgraph_cache_hit", 0) >= 1 and again.get("fxgraph_cache_miss", 0) == 0, again
