"""The CUDA path on a CPU machine: what `generate` is given on CUDA (a static KV cache, never a
compile inside a request: compiled decode comes from the background warm-up, tests/test_compiled_decode.py), checked with a stand-in model on a device that says "cuda"; and that our
processors, streaming and beam search give bare `generate`'s tokens under a static cache, checked
for real on the CPU (benchmarks/gpu_check.sh measures the GPU itself)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from types import SimpleNamespace

import pytest
import torch

from arena.engines.local import batching, generate
from arena.engines.local.device import compile_mode, device_generate_kwargs
from arena.engines.local.inputs import encode, plan_for
from arena.runs.requests import RunRequest
from arena.runs.runner import run_methods
from common.errors import UserError

PROMPT = "Explain the basic principles of quantum computing."
N = 10


class RecordingModel:
    """Stands in for a model on CUDA: records what `generate` was given and returns the prompt plus
    two tokens."""

    def __init__(self) -> None:
        self.calls: list[dict] = []

    def generate(self, input_ids, **kwargs):
        self.calls.append(kwargs)
        return torch.cat([input_ids, torch.full((input_ids.shape[0], 2), 5)], dim=1)


def cuda_stand_in() -> SimpleNamespace:
    tokenizer = SimpleNamespace(pad_token_id=0, eos_token_id=2, decode=lambda ids, **_: " ".join(map(str, ids)))
    return SimpleNamespace(
        model=RecordingModel(),
        tokenizer=tokenizer,
        device=torch.device("cuda"),
        logits_size=32,
        cache_dir="/nonexistent",
    )


def test_cuda_gets_a_static_cache_and_never_compiles_in_the_request(monkeypatch):
    for value in ("", "1", "0"):
        monkeypatch.setenv("ARENA_COMPILE", value)
        assert device_generate_kwargs(torch.device("cuda")) == {
            "cache_implementation": "static",
            "disable_compile": True,
        }
    assert device_generate_kwargs(torch.device("cuda", 1))["cache_implementation"] == "static"
    assert device_generate_kwargs(torch.device("cpu")) == {}


@pytest.mark.parametrize(
    "value, mode",
    [("", "auto"), ("auto", "auto"), ("1", "on"), ("true", "on"), ("on", "on"), ("0", "off"), ("no", "off")],
)
def test_arena_compile_reads_auto_on_and_off(monkeypatch, value, mode):
    monkeypatch.setenv("ARENA_COMPILE", value)
    assert compile_mode() == mode


def test_arena_compile_refuses_a_value_it_cannot_read(monkeypatch):
    monkeypatch.setenv("ARENA_COMPILE", "sometimes")
    with pytest.raises(UserError, match="ARENA_COMPILE"):
        compile_mode()


@pytest.mark.parametrize("method", ["TS-Temp", "BS-4"])  # TS-Tilted's plan puts its prior on the device itself
def test_the_runner_passes_the_static_cache_on_cuda(monkeypatch, method):
    monkeypatch.delenv("ARENA_COMPILE", raising=False)
    lm = cuda_stand_in()
    ids = torch.tensor([[1, 3, 4]])
    plan = plan_for(lm, method, None, ids.shape[1], 4)
    generate.generate_once(lm, plan, ids, list(plan.logits_processors))
    (kwargs,) = lm.model.calls
    assert kwargs["cache_implementation"] == "static" and kwargs["disable_compile"] is True
    for key, value in plan.generate_kwargs.items():  # the method's own settings are all still there
        assert kwargs[key] == value


def test_study_batches_pass_the_static_cache_on_cuda(monkeypatch):
    monkeypatch.setenv("ARENA_COMPILE", "1")
    lm = cuda_stand_in()
    lm.device = torch.device("cpu")  # gpu_batch moves its tensors to the device: asked as if it were CUDA
    asked = []
    monkeypatch.setattr(
        batching,
        "device_generate_kwargs",
        lambda device: asked.append(device) or device_generate_kwargs(torch.device("cuda")),
    )
    monkeypatch.setattr(batching, "lookup", lambda key: lm)
    rows = batching.gpu_batch("stand-in", "TS-Temp", None, [[1, 3, 4], [7]], 4, seed=1)
    assert len(rows) == 2 and asked == [lm.device]
    (kwargs,) = lm.model.calls
    assert kwargs["cache_implementation"] == "static" and kwargs["disable_compile"] is True


def test_a_method_setting_wins_over_the_device_default(monkeypatch):
    lm = cuda_stand_in()
    ids = torch.tensor([[1, 3, 4]])
    plan = plan_for(lm, "TS-Temp", None, ids.shape[1], 4)
    plan.generate_kwargs["cache_implementation"] = "dynamic"
    generate.generate_once(lm, plan, ids, [])
    assert lm.model.calls[0]["cache_implementation"] == "dynamic"


STATIC = {"cache_implementation": "static"}


@pytest.mark.parametrize(
    "method, seed, bare",
    [
        ("TS-Temp", 3, dict(do_sample=True, temperature=0.9, top_p=0.95)),
        ("BS-4", 0, dict(num_beams=4, length_penalty=1.0, early_stopping=True, no_repeat_ngram_size=3)),
    ],
)
def test_under_a_static_cache_the_runner_gives_bare_generates_tokens(lm, monkeypatch, method, seed, bare):
    """What the CUDA path changes, run for real on the CPU: the runner's static-cache decode (its
    processors, first-token clock and stopping criterion included) against bare `generate` with the
    same static cache."""
    monkeypatch.setattr(generate, "device_generate_kwargs", lambda device: dict(STATIC))
    req = RunRequest(PROMPT, [method], {}, N, seed)
    ids = encode(lm, req)
    with torch.inference_mode():
        torch.manual_seed(seed)
        out = lm.model.generate(input_ids=ids, attention_mask=torch.ones_like(ids), max_new_tokens=N, **STATIC, **bare)
    expected = out[0, ids.shape[1] :].tolist()
    eos = lm.tokenizer.eos_token_id
    expected = expected[: expected.index(eos) + 1] if eos in expected else expected
    (result,) = run_methods(lm, req)
    assert result.token_ids == expected


def test_gpu_check_parses():
    """The GPU check cannot run here (no GPU): `bash -n` at least reads every line of it."""
    root = Path(__file__).resolve().parents[1]
    done = subprocess.run(["bash", "-n", str(root / "benchmarks" / "gpu_check.sh")], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


@pytest.mark.skipif(torch.cuda.is_available(), reason="with CUDA the script measures for minutes")
def test_gpu_check_skips_cleanly_without_cuda(tmp_path):
    root = Path(__file__).resolve().parents[1]
    done = subprocess.run(
        ["bash", str(root / "benchmarks" / "gpu_check.sh"), "gemma-3-270m"],  # the second model's form
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "OUT": str(tmp_path / "out")},
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "skipped, no CUDA device" in done.stdout and "unmeasured" in done.stdout
    assert not list((tmp_path / "out").iterdir())  # nothing measured, nothing written
