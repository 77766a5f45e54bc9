"""Precision variants of a model setting (`NAME@int8`, `@int8-dynamic`, `@bf16`, `@fp32`, arena/llm.py):
parsing, one-line refusals (exit 2 in the CLIs, the vLLM engine refusing), and the embedded model
loaded as `@int8` -- torchao-quantized linear layers -- generating, with "int8" recorded on its outputs.
How far int8 moves the model's choices is a benchmark figure (benchmarks/bench_precision.py), not a test."""

from __future__ import annotations

import pytest
import torch

from arena.errors import UserError
from arena.llm import LoadedModel, load_model, refuse_variant, split_variant, tokenizer_only_model


@pytest.mark.parametrize(
    "setting, expected",
    [
        ("gemma-3-270m@int8", ("gemma-3-270m", "int8")),
        ("@int8", ("", "int8")),  # the default model
        ("default@INT8-dynamic", ("default", "int8-dynamic")),
        ("HuggingFaceTB/SmolLM2-135M-Instruct@bf16", ("HuggingFaceTB/SmolLM2-135M-Instruct", "bf16")),
        (" model@fp32 ", ("model", "fp32")),
        ("HuggingFaceTB/SmolLM2-135M-Instruct", ("HuggingFaceTB/SmolLM2-135M-Instruct", "")),
        ("", ("", "")),
        (None, ("", "")),
        ("org@team/model", ("org@team/model", "")),  # an "@" before a "/" is part of the name
    ],
)
def test_a_setting_splits_into_model_and_variant(setting, expected):
    assert split_variant(setting) == expected


def test_an_existing_path_with_an_at_sign_is_a_path_not_a_variant(tmp_path):
    path = tmp_path / "model@int8"
    path.mkdir()
    assert split_variant(str(path)) == (str(path), "")


@pytest.mark.parametrize("setting", ["gemma-3-270m@int4", "@", "x@gptq", "x@int8 dynamic"])
def test_an_unknown_variant_is_refused_with_the_known_ones(setting):
    with pytest.raises(UserError, match=r"unknown model variant .*@fp32, @bf16, @int8, @int8-dynamic"):
        split_variant(setting)


def test_the_clis_refuse_an_unknown_variant_with_one_line_and_exit_2(capsys):
    from decoders.__main__ import main as decoders_main
    from evaluation.benchmark import main as benchmark_main

    assert decoders_main(["Hello", "--model", "default@int4"]) == 2
    assert benchmark_main(["--model", "default@int4", "--limit", "1", "--no-progress"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and all("unknown model variant @int4" in line for line in err)


def test_the_vllm_engine_refuses_every_variant_before_anything_runs(lm):
    from arena.engines.vllm import VllmEngine
    from arena.engines.vllm.__main__ import main as vllm_main
    from arena.runner import RunRequest

    with pytest.raises(UserError, match="@int8 is torchao quantization in the transformers engine"):
        refuse_variant("int8", "vllm")
    with pytest.raises(UserError, match=r"vllm serve --dtype bfloat16"):
        refuse_variant("bf16", "vllm")
    refuse_variant("", "vllm")  # no variant: nothing to refuse
    with pytest.raises(UserError, match="@int8-dynamic"):
        tokenizer_only_model("@int8-dynamic")
    assert vllm_main(["model-folder", "--model", "@int8"]) == 2

    # the app's in-process copy of the model says int8; a server at an address nobody listens on is
    # never asked, the refusal comes first
    quantized = LoadedModel(**{**{k: v for k, v in vars(lm).items() if k not in ("lock", "warmed")}, "variant": "int8"})
    engine = VllmEngine("http://127.0.0.1:9", timeout_s=1)
    with pytest.raises(UserError, match="@int8 is torchao quantization"):
        list(engine.stream_methods(quantized, RunRequest("Hello", ["TS-Temp"], max_new_tokens=2, seed=0, raw=True)))
    with pytest.raises(UserError, match="@int8 is torchao quantization"):
        engine.check(quantized, ["TS-Temp"])


@pytest.fixture(scope="module")
def lm_int8():
    return load_model("@int8", dtype="float32")


def test_the_int8_variant_quantizes_with_torchao_and_its_outputs_record_int8(lm_int8):
    from arena.requests import output_fields
    from arena.runner import RunRequest, run_methods

    down = lm_int8.model.model.layers[0].mlp.down_proj.weight
    assert type(down).__module__.startswith("torchao") and type(down).__name__ == "Int8Tensor"
    assert lm_int8.variant == "int8" and lm_int8.precision == "int8" and lm_int8.dtype == torch.float32
    assert lm_int8.name.endswith("@int8")
    assert "int8 (torchao weight-only, quantized from float32)" in lm_int8.describe()
    (res,) = run_methods(lm_int8, RunRequest("Hello", ["TS-Temp"], max_new_tokens=3, seed=0, raw=True))
    assert res.new_tokens >= 1 and res.text
    assert res.dtype == "int8" and res.public()["dtype"] == "int8"
    assert output_fields(res)["settings"]["dtype"] == "int8"


def test_a_float_variant_picks_the_load_dtype_over_the_dtype_setting():
    bf16 = load_model("@bf16", dtype="float32")
    assert bf16.dtype == torch.bfloat16 and bf16.precision == "bfloat16" and bf16.name.endswith("@bf16")
