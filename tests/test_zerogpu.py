"""Hugging Face Spaces: the ZeroGPU path under the real `spaces` package's CUDA emulation (in its own
process, see tests/support/zerogpu_emulation.py), the GPU-task sizing, the quota message, and the banners
that keep a Space from failing silently (CPU fallback, ratings on a disk that a restart wipes)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from arena.model import hardware
from arena.model import zerogpu as gpu

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def emulation():
    pytest.importorskip("spaces", reason="spaces is in requirements-dev.txt")
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in {"DATABASE_URL", "ARENA_DB_PATH", "SPACES_ZERO_GPU", "ARENA_DTYPE"}
    }
    env["PYTHONPATH"] = str(ROOT)
    proc = subprocess.run(
        [sys.executable, str(ROOT / "tests" / "support" / "zerogpu_emulation.py")],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=1500,
    )
    tail = "\n".join(proc.stderr.splitlines()[-40:])
    assert proc.returncode == 0, f"the ZeroGPU emulation run failed:\n{tail}"
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_zero_gpu_startup_compare_study_trace_and_perplexity(emulation):
    r = emulation
    # startup: the model went onto the (emulated) GPU, was packed, and is unusable outside a task
    assert r["device"].startswith("cuda") and r["packed_bytes"] > 100_000_000
    assert r["offloaded_outside_task"] is True
    assert r["dtype"] in r["model_line"] and r["dtype"] == "bfloat16"  # sm_90: native bf16
    # one Compare, streamed out of a generator GPU task: sampling first, beam search last
    assert [c["method"] for c in r["compare"]] == ["TS-Temp", "TS-Tilted", "BS-4"]
    assert all(c["dtype"] == r["dtype"] for c in r["compare"])
    # Beam search runs through its task without failing, but under this CPU emulation (spaces 0.51.3)
    # transformers' beam search returns an empty sequence -- a bare `model.generate(num_beams=4)` in a
    # task does too -- so only the sampled methods' tokens are checked here; on a GPU it decodes.
    assert all(c["new_tokens"] >= 1 for c in r["compare"] if c["method"] != "BS-4")
    assert r["compare_streamed_tokens"] >= 2
    assert r["same_tokens_streamed_and_whole"] is True
    # one study item, one trace, one perplexity call
    assert r["study_generated"] == 1
    assert r["trace_arms"] == 3
    assert all(0 < p < 1e6 for p in r["perplexity"].values())
    # every task asked for a duration from its size, never the old fixed 120 s (180 s after scaling)
    assert r["scheduled_durations"] and all(10 <= d <= 60 for d in r["scheduled_durations"])
    # SPACE_ID set, no DATABASE_URL: the storage banner is on
    assert "DATABASE_URL" in r["storage_banner"]
    # hf_oauth: true (the README's metadata): the app starts with Gradio's real sign-in routes and a
    # sign-in button on each rating page (the main page's Rate tab and /rate)
    assert r["oauth_routes"] == ["/login/callback", "/login/huggingface", "/logout"]
    assert r["sign_in_buttons"] == 2


def test_duration_grows_with_tokens_and_methods_and_is_capped():
    assert gpu.duration_s(128, 1) < gpu.duration_s(128, 3) < gpu.duration_s(1024, 3)
    assert gpu.duration_s(128, 3, beams=1) > gpu.duration_s(128, 3)
    assert gpu.duration_s(1, 1) >= 10
    assert gpu.duration_s(1024, 8) == gpu.duration_cap_s() <= 120
    # Compare's defaults (3 methods x 128 tokens) ask for well under a visitor's daily minutes
    assert gpu.duration_s(128, 3, beams=1) <= 60


def test_quota_refusal_tells_the_visitor_to_sign_in():
    import gradio as gr

    refused = gr.Error(
        "You have exceeded your ZeroGPU quota (30s requested vs. 0s left). Try again in 1:00:00.",
        title="ZeroGPU quota exceeded",
    )
    message = gpu.friendly_error(refused)
    assert message and "sign in" in message.lower() and "exceeded your ZeroGPU quota" in message
    assert gpu.friendly_error(gr.Error("No GPU was available", title="ZeroGPU client error")) is None
    assert gpu.friendly_error(ValueError("unrelated")) is None


def test_space_without_database_url_shows_the_storage_banner(monkeypatch):
    monkeypatch.setenv("SPACE_ID", "someone/decoding-arena")
    monkeypatch.delenv("DATABASE_URL", raising=False)
    banner = hardware.storage_banner()
    assert "stored on this Space's disk and are lost when it restarts; set DATABASE_URL" in banner
    monkeypatch.setenv("DATABASE_URL", "postgresql://db.example/arena")
    assert hardware.storage_banner() == ""
    monkeypatch.delenv("SPACE_ID")
    monkeypatch.delenv("DATABASE_URL")
    assert hardware.storage_banner() == ""  # not a Space: the README explains the local default


def test_a_gpu_machine_running_on_the_cpu_gets_a_banner_and_a_warning(monkeypatch, caplog):
    monkeypatch.delenv("SPACES_ZERO_GPU", raising=False)
    monkeypatch.setenv("NVIDIA_VISIBLE_DEVICES", "all")
    banner = hardware.hardware_banner(torch.device("cpu"))
    assert "GPU" in banner and "CPU" in banner
    assert hardware.hardware_banner(torch.device("cuda")) == ""
    with caplog.at_level("WARNING"):
        hardware.warn_cpu_fallback(torch.device("cpu"))
    assert any("runs on the CPU" in rec.message for rec in caplog.records)
    monkeypatch.setenv("NVIDIA_VISIBLE_DEVICES", "void")
    monkeypatch.setattr(hardware, "Path", lambda *_: Path("/nonexistent/nvidia"))
    assert hardware.hardware_banner(torch.device("cpu")) == ""


def test_gpu_tasks_take_and_return_plain_data(lm):
    """In-process, the same GPU functions run unchanged; what they return is lists, dicts, numbers."""
    from arena.engines.local.tasks import gpu_run, gpu_trace
    from arena.model.zerogpu import find_unplain
    from evaluation.perplexity import gpu_scores

    ids = lm.tokenizer("Once upon a time")["input_ids"]
    assert find_unplain(gpu_run(lm.key, ["TS-Temp"], {}, ids, 0, 2, "Once upon a time")) is None
    assert find_unplain(gpu_trace(lm.key, ids, None, 0, 2, "Once upon a time")) is None
    assert find_unplain(gpu_scores(lm.key, [(ids, ids[:2])])) is None
