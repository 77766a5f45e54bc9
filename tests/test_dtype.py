"""Which dtype the model loads in: native bf16 only (fp16 on a T4, whose bf16 is emulated), fp32 on a
CPU without native bf16 or whose bf16 kernels are measured slower, ARENA_DTYPE forcing one; and the dtype shown and kept with every output."""

import math
from types import SimpleNamespace

import pytest
import torch

from arena.model.llm import BF16_MIN_SPEEDUP, bf16_matvec_speedup, cpu_has_native_bf16, pick_dtype
from common.errors import UserError

CUDA = torch.device("cuda")
CPU = torch.device("cpu")


@pytest.fixture
def gpu(monkeypatch):
    """Pretend a CUDA device with the given compute capability is there (the CPU build has none)."""

    def install(major: int, minor: int, name: str):
        monkeypatch.setattr(torch.version, "hip", None, raising=False)
        monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
        monkeypatch.setattr(torch.cuda, "current_device", lambda: 0)
        monkeypatch.setattr(
            torch.cuda, "get_device_properties", lambda *a, **k: SimpleNamespace(major=major, minor=minor, name=name)
        )
        # Emulated bf16 "works" on a T4: the default `is_bf16_supported()` would say yes.
        monkeypatch.setattr(torch.cuda, "_check_bf16_tensor_supported", lambda *a, **k: True, raising=False)

    monkeypatch.delenv("ARENA_DTYPE", raising=False)
    return install


def test_t4_gets_fp16_because_its_bf16_is_only_emulated(gpu):
    gpu(7, 5, "Tesla T4")
    assert torch.cuda.is_bf16_supported()  # what the old check asked: true through emulation
    assert pick_dtype(CUDA) == torch.float16


def test_a10g_gets_bf16(gpu):
    gpu(8, 6, "NVIDIA A10G")
    assert pick_dtype(CUDA) == torch.bfloat16


@pytest.mark.parametrize(
    "setting,expected",
    [
        ("float32", torch.float32),
        ("bfloat16", torch.bfloat16),
        ("float16", torch.float16),
        ("fp16", torch.float16),
        ("auto", torch.float16),
    ],
)
def test_arena_dtype_overrides_on_cuda(gpu, monkeypatch, setting, expected):
    gpu(7, 5, "Tesla T4")
    monkeypatch.setenv("ARENA_DTYPE", setting)
    assert pick_dtype(CUDA) == expected


AVX2 = "processor\t: 0\nflags\t\t: fpu sse sse2 avx avx2 fma\n"
AVX512_BF16 = "processor\t: 0\nflags\t\t: fpu sse avx2 avx512f avx512_bf16\n"
AMX = "processor\t: 0\nflags\t\t: fpu avx2 avx512f amx_tile amx_bf16 amx_int8\n"


def _never() -> float:
    raise AssertionError("the bf16 speed check ran where it has nothing to decide")


def test_cpu_auto_picks_bf16_only_where_native_and_measured_faster(monkeypatch):
    monkeypatch.delenv("ARENA_DTYPE", raising=False)
    fast, slow = (lambda: 1.8), (lambda: 0.8)  # an AMD EPYC's bf16 decode; this project's Intel machine's
    assert not cpu_has_native_bf16(AVX2) and pick_dtype(CPU, cpuinfo=AVX2, bf16_speedup=_never) == torch.float32
    assert (
        cpu_has_native_bf16(AVX512_BF16) and pick_dtype(CPU, cpuinfo=AVX512_BF16, bf16_speedup=fast) == torch.bfloat16
    )
    assert cpu_has_native_bf16(AMX) and pick_dtype(CPU, cpuinfo=AMX, bf16_speedup=fast) == torch.bfloat16
    # native instructions whose PyTorch kernels are slower than fp32's: fp32, faster and more precise
    assert pick_dtype(CPU, cpuinfo=AVX512_BF16, bf16_speedup=slow) == torch.float32
    assert pick_dtype(CPU, cpuinfo=AVX512_BF16, bf16_speedup=lambda: BF16_MIN_SPEEDUP) == torch.bfloat16


def test_the_bf16_speed_check_measures_a_ratio_on_this_cpu():
    ratio = bf16_matvec_speedup(rounds=3, matrices=4)
    assert math.isfinite(ratio) and ratio > 0


def test_arena_dtype_overrides_on_cpu_and_bad_values_are_refused(monkeypatch):
    monkeypatch.setenv("ARENA_DTYPE", "float32")
    assert pick_dtype(CPU, cpuinfo=AVX512_BF16, bf16_speedup=_never) == torch.float32
    monkeypatch.setenv("ARENA_DTYPE", "bfloat16")
    assert pick_dtype(CPU, cpuinfo=AVX2, bf16_speedup=_never) == torch.bfloat16
    monkeypatch.setenv("ARENA_DTYPE", "int8")
    with pytest.raises(UserError, match="ARENA_DTYPE"):
        pick_dtype(CPU)


def test_dtype_is_in_the_model_line_and_with_every_output(lm):
    from arena.runs.requests import RunRequest
    from arena.runs.runner import run_methods

    assert lm.dtype_name in lm.describe()
    (res,) = run_methods(lm, RunRequest("Hello", ["TS-Temp"], max_new_tokens=2, seed=0, raw=True))
    assert res.dtype == lm.dtype_name and res.public()["dtype"] == lm.dtype_name


def test_runner_equals_bare_generate_in_bf16(lm):
    """The one test in bf16 (the rest of the suite runs in the machine's default dtype): the runner
    gives bare `generate`'s tokens within one dtype."""
    import copy

    from arena.engines.local.inputs import encode
    from arena.model.llm import LoadedModel
    from arena.runs.requests import RunRequest
    from arena.runs.runner import run_methods

    model = copy.deepcopy(lm.model).to(torch.bfloat16)
    bf16 = LoadedModel(
        model=model,
        tokenizer=lm.tokenizer,
        name=lm.name + " (bf16 copy)",
        source=lm.source,
        device=lm.device,
        dtype=torch.bfloat16,
        context_length=lm.context_length,
        logits_size=lm.logits_size,
        cache_dir=lm.cache_dir,
    )
    req = RunRequest("Explain the basic principles of quantum computing.", ["TS-Temp"], max_new_tokens=6, seed=3)
    (ours,) = run_methods(bf16, req)
    ids = encode(bf16, req)
    with torch.inference_mode():
        torch.manual_seed(3)
        out = model.generate(
            input_ids=ids,
            attention_mask=torch.ones_like(ids),
            max_new_tokens=6,
            do_sample=True,
            temperature=0.9,
            top_p=0.95,
            pad_token_id=lm.tokenizer.pad_token_id,
        )
    new = out[0, ids.shape[1] :].tolist()
    eos = lm.tokenizer.eos_token_id
    expected = new[: new.index(eos) + 1] if eos in new else new
    assert ours.dtype == "bfloat16"
    assert ours.token_ids == expected


# ---- issue 36: the CPU's bf16 verdict is kept per CPU model, not timed again at every start ----------

EPYC = "processor\t: 0\nmodel name\t: AMD EPYC 7B13 64-Core Processor\nflags\t\t: fpu avx2 avx512f avx512_bf16\n"
XEON = (
    "processor\t: 0\nmodel name\t: Intel(R) Xeon(R) Platinum 8481C CPU @ 2.70GHz\nflags\t\t: fpu avx512f avx512_bf16\n"
)


def timings(*ratios: float):
    """A bf16 timer that answers `ratios` in turn (a busy host's noise), and counts its calls."""
    left = list(ratios)

    def timer() -> float:
        timer.calls += 1  # type: ignore[attr-defined]
        return left.pop(0)

    timer.calls = 0  # type: ignore[attr-defined]
    return timer


def test_the_cpu_verdict_is_kept_per_cpu_model_so_a_busy_start_cannot_flip_it(tmp_path, monkeypatch):
    from arena.model import bf16_verdicts

    monkeypatch.delenv("ARENA_DTYPE", raising=False)
    monkeypatch.setattr(bf16_verdicts, "host_busy", lambda: False)
    noisy = timings(1.8, 0.6)  # a quiet first start, then a start whose timing the load spoiled
    assert pick_dtype(CPU, cpuinfo=EPYC, bf16_speedup=noisy, verdicts=tmp_path) == torch.bfloat16
    assert pick_dtype(CPU, cpuinfo=EPYC, bf16_speedup=noisy, verdicts=tmp_path) == torch.bfloat16
    assert noisy.calls == 1  # the second start read the kept verdict
    # Another CPU model has its own verdict.
    assert pick_dtype(CPU, cpuinfo=XEON, bf16_speedup=timings(0.7), verdicts=tmp_path) == torch.float32
    assert pick_dtype(CPU, cpuinfo=EPYC, bf16_speedup=_never, verdicts=tmp_path) == torch.bfloat16


def test_the_verdict_is_measured_again_on_demand(tmp_path, monkeypatch):
    from arena import settings
    from arena.model import bf16_verdicts

    monkeypatch.delenv("ARENA_DTYPE", raising=False)
    monkeypatch.setattr(bf16_verdicts, "host_busy", lambda: False)
    assert pick_dtype(CPU, cpuinfo=EPYC, bf16_speedup=timings(1.8), verdicts=tmp_path) == torch.bfloat16
    with settings.override(dtype_remeasure="1"):
        assert pick_dtype(CPU, cpuinfo=EPYC, bf16_speedup=timings(0.7), verdicts=tmp_path) == torch.float32
    assert pick_dtype(CPU, cpuinfo=EPYC, bf16_speedup=_never, verdicts=tmp_path) == torch.float32  # the new one kept


def test_a_busy_host_is_not_timed_and_loads_fp32_until_a_quiet_start(tmp_path, monkeypatch):
    from arena import settings
    from arena.model import bf16_verdicts
    from arena.model.llm import cpu_dtype_choice

    monkeypatch.delenv("ARENA_DTYPE", raising=False)
    monkeypatch.setattr(bf16_verdicts, "host_busy", lambda: True)
    dtype, why = cpu_dtype_choice(CPU, cpuinfo=EPYC, bf16_speedup=_never, verdicts=tmp_path)
    assert dtype == torch.float32 and "busy" in why, why
    with settings.override(dtype_remeasure="1"):  # the operator asks: timed whatever the load, and kept
        assert pick_dtype(CPU, cpuinfo=EPYC, bf16_speedup=timings(1.8), verdicts=tmp_path) == torch.bfloat16
    assert pick_dtype(CPU, cpuinfo=EPYC, bf16_speedup=_never, verdicts=tmp_path) == torch.bfloat16  # busy, but kept


def test_the_model_line_says_why_auto_chose_its_dtype(tmp_path, monkeypatch):
    from arena.model import bf16_verdicts
    from arena.model.llm import cpu_dtype_choice

    monkeypatch.delenv("ARENA_DTYPE", raising=False)
    monkeypatch.setattr(bf16_verdicts, "host_busy", lambda: False)
    cpu_dtype_choice(CPU, cpuinfo=EPYC, bf16_speedup=timings(1.8), verdicts=tmp_path)
    dtype, why = cpu_dtype_choice(CPU, cpuinfo=EPYC, bf16_speedup=_never, verdicts=tmp_path)
    assert dtype == torch.bfloat16 and "1.80x" in why and "cached" in why, why
    assert cpu_dtype_choice(CPU, cpuinfo=AVX2, bf16_speedup=_never)[1] == "auto: no native bf16 in the CPU flags"
    from arena.model.llm import LoadedModel

    shown = SimpleNamespace(name="m", device=CPU, precision_line="bfloat16", dtype_reason=why, compiled=None)
    assert why in LoadedModel.describe(shown)  # type: ignore[arg-type]  # describe reads these five only
