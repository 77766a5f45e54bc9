"""Precision variants of a model setting (`NAME@int8`, `@int8-dynamic`, `@bf16`, `@fp32`, arena/model/llm.py):
parsing, one-line refusals (exit 2 in the CLIs, the vLLM engine refusing), and the embedded model
loaded as `@int8` -- torchao-quantized linear layers -- generating, with "int8" recorded on its outputs.
How far int8 moves the model's choices is a benchmark figure (benchmarks/bench_precision.py), not a test."""

from __future__ import annotations

import json

import pytest
import torch

from arena.model.llm import LoadedModel, load_model, refuse_variant, split_variant, tokenizer_only_model
from arena.rating.study_spec import StudySpec
from common.errors import UserError


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
    from arena.runs.requests import RunRequest

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
    from arena.runs.requests import RunRequest, output_fields
    from arena.runs.runner import run_methods

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


def test_a_grid_and_a_study_over_a_model_and_its_int8_variant_record_each_ones_precision(lm, lm_int8, tmp_path):
    """What Compare's grid and the Organizer's picker run for `smollm2-135m` and `smollm2-135m@int8`:
    every output records the precision it ran in, the grid's recorded cells open in "Why this
    token?" with their own model's tokenizer, and a study stores each system's dtype."""
    from arena import studies
    from arena.runs import runner
    from arena.runs.requests import RunRequest
    from arena.store import Store
    from ui.compare import grid as compare_grid
    from ui.compare import token_view

    loaded = {"smollm2-135m": lm, "smollm2-135m@int8": lm_int8}
    req = RunRequest("Hello", ["TS-Temp"], max_new_tokens=3, seed=0, raw=True, record=True)
    events = runner.stream_models(list(loaded), req, load=loaded.__getitem__)
    *_, last = compare_grid.grid_views(events, list(loaded), ["TS-Temp"])
    state = compare_grid.grid_state(req.prompt, req.raw, last.done, last.total)
    assert {r.method: r.dtype for r in state["results"]} == {
        "smollm2-135m · TS-Temp": lm.precision,
        "smollm2-135m@int8 · TS-Temp": "int8",
    }
    cell = "smollm2-135m@int8 · TS-Temp"
    tokenizer = token_view.tokenizer_for(state, cell, lambda model: loaded[model or "smollm2-135m"].tokenizer)
    view = token_view.step_view(state, cell, 0, tokenizer)
    assert view.heading.startswith(f"**{cell}, step 0**: drew") and not view.frame.empty

    store = Store(f"sqlite:///{tmp_path / 'precision.db'}")
    sid = studies.create_study(store, StudySpec("precisions", [studies.PromptSpec("Hello", raw=True)], methods=["TS-Temp"], models=list(loaded), max_new_tokens=3, base_seed=0))  # fmt: skip
    assert studies.generate_study(store, lm, sid, load=loaded.__getitem__).complete
    outputs = store.outputs_for_item(store.items(sid)[0].id)
    stored = {o.method: (o.model, json.loads(o.settings)["dtype"]) for o in outputs}
    assert stored == {
        "smollm2-135m · TS-Temp": (lm.name, lm.precision),
        "smollm2-135m@int8 · TS-Temp": (lm_int8.name, "int8"),
    }
    store.dispose()
