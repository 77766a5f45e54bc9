"""Run the app's GPU paths under the real `spaces` package's ZeroGPU emulation, on a CPU.

Run as a script in its own process (it patches torch globally): `python tests/support/zerogpu_emulation.py`.
tests/test_zerogpu.py does, and checks the JSON line it prints last.

What is real: `spaces` 0.51.3 as on a ZeroGPU Space -- `import spaces` patches torch (CUDA appears
available, tensors moved to "cuda" become emulated CUDA tensors), the app loads its model onto that
"cuda" device at startup, `spaces.zero.startup()` (what `demo.launch()` runs on ZeroGPU) packs every
weight to disk, after which any use of the model outside a GPU task fails ("Cannot apply function ...
on disk-offloaded Tensor"). Each `spaces.GPU` call pickles its arguments into a forked worker process
and pickles the result back.

What is emulated, because there is neither a GPU nor the ZeroGPU scheduler here:
  * the scheduler API (`client.schedule/allow/release/startup_report`): a task is granted at once;
    the requested duration is recorded and must be a number of seconds from the duration callable;
  * in the worker, `torch.init` / `torch.move` / `torch.unpatch`: instead of moving the packed
    weights to a real GPU, they are read back from the pack file into CPU memory and the emulation
    stays on (in every thread), so tensors still report device cuda:0 and mixing them with CPU
    tensors still raises, as on a GPU;
  * known limit: transformers' beam search returns an empty sequence under this emulation (a bare
    `model.generate(num_beams=4)` inside a task does too), so beam search is run, not checked;
  * a few attributes the CPU torch build lacks (`torch.version.cuda`, `torch._C._cuda_init`, a
    picklable `torch.cuda._is_in_bad_fork`).
Everything that crosses the process boundary is also checked to be plain data (no tensor, no
model): on a real ZeroGPU Space a CUDA tensor returned from a task cannot be unpickled.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import threading
import time
from pathlib import Path
from types import SimpleNamespace

TMP = Path(tempfile.mkdtemp(prefix="zerogpu-emulation-"))
(TMP / "cgroup").write_text("0::/emulated\n")
os.environ.update(
    {
        "SPACES_ZERO_GPU": "true",
        "SPACES_ZERO_DEVICE_API_URL": "http://127.0.0.1:9",  # never reached: the scheduler is emulated
        "ZEROGPU_OFFLOAD_DIR": str(TMP / "tensors"),
        "ZEROGPU_PROC_SELF_CGROUP_PATH": str(TMP / "cgroup"),
    }
)
os.environ.setdefault("ARENA_DB_PATH", str(TMP / "arena.db"))
os.environ.setdefault("SPACE_ID", "tests/zerogpu-emulation")
# What a Space gets, with `hf_oauth: true` in its README (the Hub is never contacted at start: Gradio's
# OAuth client reads the provider's metadata on the first sign-in).
for name, value in (
    ("SYSTEM", "spaces"),  # with SPACE_ID, what makes Gradio take this for a Space (gradio.utils.get_space)
    ("OAUTH_CLIENT_ID", "emulated-client-id"),
    ("OAUTH_CLIENT_SECRET", "emulated-client-secret"),
    ("OAUTH_SCOPES", "openid profile"),
    ("OPENID_PROVIDER_URL", "https://huggingface.co"),
):
    os.environ.setdefault(name, value)

import torch  # noqa: E402

# -- what the CPU build of torch lacks ---------------------------------------------------------------
if not torch.version.cuda:
    torch.version.cuda = "12.8"


def _no_cuda(*args, **kwargs):
    raise RuntimeError("low-level CUDA reached in the ZeroGPU emulation (CPU torch build)")


def _not_in_bad_fork() -> bool:
    return False


torch.cuda._is_in_bad_fork = _not_in_bad_fork  # the CPU build's is a lambda, which cannot be pickled
if not hasattr(torch._C, "_cuda_init"):
    torch._C._cuda_init = _no_cuda

import spaces  # noqa: E402,F401  # before anything touches CUDA, as app.py does
import spaces.zero as zero  # noqa: E402
import spaces.zero.client as client  # noqa: E402
import spaces.zero.torch as ztorch  # noqa: E402
import spaces.zero.wrappers as wrappers  # noqa: E402
from spaces.zero.torch import patching  # noqa: E402

# -- plain data only across the boundary -------------------------------------------------------------
from arena.model.zerogpu import find_unplain  # noqa: E402  (no torch or CUDA at its import)


class BoundaryError(Exception):
    pass


_OriginalOk = wrappers.OkResult


class CheckedOk(_OriginalOk):
    """What a task returns (or yields), checked in the worker before it is pickled back."""

    def __init__(self, value):
        bad = find_unplain(value, "task result")
        if bad:
            print(f"BOUNDARY: {bad}", file=sys.stderr, flush=True)
            raise __import__("pickle").PicklingError(f"not plain data: {bad}")
        super().__init__(value)


wrappers.OkResult = CheckedOk
SCHEDULED: list[dict] = []
_static_duration = wrappers.static_duration


def checked_static_duration(duration, *args, **kwargs):
    bad = find_unplain(list(args), "task arguments") or find_unplain(dict(kwargs), "task keyword arguments")
    if bad:
        raise BoundaryError(bad)
    seconds = _static_duration(duration, *args, **kwargs)
    if not isinstance(seconds, (int, float)) or not 0 < seconds <= 120:
        raise BoundaryError(f"duration {seconds!r} is not a number of seconds in (0, 120]")
    SCHEDULED.append({"duration": seconds})
    return seconds


wrappers.static_duration = checked_static_duration

# -- the scheduler, granted at once -----------------------------------------------------------------
client.schedule = lambda **kw: SimpleNamespace(
    allowToken="emulated", nvidiaIndex=0, nvidiaUUID="GPU-emulated", idle=True
)
client.release = lambda *args, **kwargs: None
client.allow = lambda *args, **kwargs: None
client.startup_report = lambda *args, **kwargs: None


# -- in the worker: weights back from the pack file into CPU memory, emulation kept on ----------------
def _worker_init(nvidia_uuid: str) -> None:
    run = threading.Thread.run

    def run_with_emulation(self):  # TorchFunctionModes are per thread
        ztorch.enter_mode()
        run(self)

    threading.Thread.run = run_with_emulation


def _worker_move(callback=None) -> None:
    for pack in patching.tensor_packs:
        data = Path(pack.path()).read_bytes()
        offset = 0
        for meta, size, aligned in [*(t for batch in pack.batches for t in batch), *pack.big_tensors]:
            raw = torch.frombuffer(bytearray(data[offset : offset + size]), dtype=torch.uint8) if size else None
            tensor = (
                raw.view(meta.dtype).as_strided(meta.shape, meta.stride())
                if raw is not None
                else torch.empty_like(meta)
            )
            for fake in pack.fakes[meta]:
                patching.cuda_aliases[fake] = tensor
            offset += aligned


ztorch.unpatch = lambda: None
ztorch.init = _worker_init
ztorch.move = _worker_move


def step(name: str, fn, report: dict):
    t = time.perf_counter()
    value = fn()
    report["steps"][name] = round(time.perf_counter() - t, 1)
    print(f"ok: {name} ({report['steps'][name]} s)", file=sys.stderr, flush=True)
    return value


def main() -> int:
    report: dict = {"steps": {}}
    import gradio as gr
    import pandas as pd

    import app  # noqa: F401  # the app module, as the Space runs it
    from arena.model import hardware
    from arena.model import zerogpu as gpu
    from arena.model.llm import get_default_model
    from arena.runs.requests import RunRequest
    from arena.runs.runner import run_methods, stream_methods
    from arena.store import get_store
    from arena.studies import PromptSpec, StudySpec, create_study, generate_study
    from evaluation.perplexity import score_outputs
    from ui.trace import run_trace

    assert gpu.on_zero_gpu()
    lm = step("load model", get_default_model, report)
    report["model_line"] = lm.describe()
    report["device"] = str(lm.device)
    report["dtype"] = lm.dtype_name
    demo = step("build app", lambda: app.build_app(), report)
    # hf_oauth: true: Gradio's real sign-in routes (not the mock), for the raters' sign-in button
    report["oauth_routes"] = sorted(
        r.path
        for r in demo.app.routes
        if getattr(r, "path", "") in ("/login/huggingface", "/login/callback", "/logout")
    )
    report["sign_in_buttons"] = sum(1 for b in demo.blocks.values() if isinstance(b, gr.LoginButton))
    packed = step("startup (pack)", zero.startup, report)
    del packed
    report["packed_bytes"] = int(ztorch.size())

    # The emulation is effective: the model is unusable outside a GPU task now.
    try:
        with torch.inference_mode():
            lm.model(input_ids=torch.tensor([[1, 2]], device=lm.device))
        report["offloaded_outside_task"] = False
    except Exception as exc:  # noqa: BLE001
        report["offloaded_outside_task"] = "disk-offloaded" in str(exc)

    prompt = "Once upon a time"
    req = RunRequest(prompt, ["BS-4", "TS-Temp", "TS-Tilted"], max_new_tokens=3, seed=0, raw=True)
    events = step("compare (stream)", lambda: list(stream_methods(lm, req)), report)
    results = [e.result for e in events if e.result is not None]
    report["compare"] = [
        {"method": r.method, "new_tokens": r.new_tokens, "dtype": r.dtype, "text": r.text} for r in results
    ]
    report["compare_streamed_tokens"] = sum(1 for e in events if e.result is None and e.text)

    again = step(
        "compare (whole)",
        lambda: run_methods(lm, RunRequest(prompt, ["TS-Temp"], max_new_tokens=3, seed=0, raw=True)),
        report,
    )
    report["same_tokens_streamed_and_whole"] = again[0].token_ids == next(
        r.token_ids for r in results if r.method == "TS-Temp"
    )

    store = get_store()
    study = create_study(
        store,
        StudySpec(
            "emulation check", [PromptSpec(prompt, raw=True)], methods=["TS-Temp"], max_new_tokens=3, base_seed=7
        ),
    )
    gen = step("study item", lambda: generate_study(store, lm, study), report)
    report["study_generated"] = int(gen.generated)

    # Not the study's prompt: the app refuses a prompt of an unpublished study in the trace tab too.
    trace = step("trace", lambda: run_trace(lm, "The sea was calm that", raw=True, max_new_tokens=3, seed=0), report)
    report["trace_arms"] = len(trace.trace.arm_names)

    frame = pd.DataFrame(
        {
            "output_id": [1, 2],
            "prompt": [prompt, prompt],
            "text": [" there was a cat", results[1].text],
            "raw": [True, True],
        }
    )
    scores = step("perplexity", lambda: score_outputs(lm, frame), report)
    report["perplexity"] = {int(k): round(v.ppl, 3) for k, v in scores.items()}
    report["scheduled_durations"] = [s["duration"] for s in SCHEDULED]
    report["storage_banner"] = hardware.storage_banner()
    report["hardware_banner"] = hardware.hardware_banner(lm.device)
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
