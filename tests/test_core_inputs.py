"""Bad input gets a clear error: parameters, methods, prompts, model paths, the CLI."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import decoders
from arena.inputs.prompts import clean_prompt, encode_prompt
from arena.model.llm import resolve_source
from arena.runs.requests import RunRequest, validate_request
from common.errors import UserError
from ui.compare.form import PRESETS, apply_preset, make_request, param_keys
from ui.compare.timing import timing_frame

ROOT = Path(__file__).resolve().parents[1]


def test_registry_has_the_article_three_with_their_defaults():
    assert decoders.names()[:3] == ["BS-4", "TS-Temp", "TS-Tilted"]
    assert decoders.get("BS-4").defaults() == {
        "num_beams": 4,
        "length_penalty": 1.0,
        "early_stopping": True,
        "no_repeat_ngram_size": 3,
    }
    temp = decoders.get("TS-Temp").defaults()
    assert (temp["temperature"], temp["top_p"]) == (0.9, 0.95)
    tilt = decoders.get("TS-Tilted").defaults()
    assert (tilt["temperature"], tilt["alpha"]) == (0.8, 0.15)
    for d in decoders.all_decoders():
        assert d.description and all(p.describe_range() for p in d.params)


@pytest.mark.parametrize(
    "method,overrides,fragment",
    [
        ("TS-Temp", {"temperature": 0}, "≥"),
        ("TS-Temp", {"temperature": "hot"}, "must be a number"),
        ("TS-Temp", {"top_p": float("nan")}, "finite"),
        ("BS-4", {"num_beams": 2.5}, "whole number"),
        ("BS-4", {"early_stopping": "maybe"}, "true or false"),
        ("TS-Tilted", {"prior": "zipf"}, "one of"),
        ("TS-Tilted", {"beta": 1}, "no parameter 'beta'"),
    ],
)
def test_bad_parameters_are_refused(method, overrides, fragment):
    with pytest.raises(UserError, match=fragment):
        decoders.get(method).resolve(overrides)


@pytest.mark.parametrize(
    "kwargs,fragment",
    [
        (dict(methods=["BS-5"]), "unknown method"),
        (dict(methods=[]), "at least one"),
        (dict(methods=["BS-4", "BS-4"]), "twice"),
        (dict(max_new_tokens=0), "between 1 and 1024"),
        (dict(max_new_tokens=1025), "between 1 and 1024"),
        (dict(max_new_tokens="many"), "whole number"),
        (dict(seed=-1), "seed"),
        (dict(seed="abc"), "seed"),
        (dict(settings={"TS-Temp": {"temperature": 1}}, methods=["BS-4"]), "not being run"),
    ],
)
def test_bad_requests_are_refused(kwargs, fragment):
    base = dict(prompt="hi", methods=["BS-4"], settings={}, max_new_tokens=8, seed=0)
    base.update(kwargs)
    with pytest.raises(UserError, match=fragment):
        validate_request(RunRequest(**base))


@pytest.mark.parametrize("prompt", ["", "   \n\t", "\x00\x01\x02", None, 12])
def test_empty_prompts_are_refused(prompt):
    with pytest.raises(UserError):
        clean_prompt(prompt)


def test_control_characters_are_dropped_but_text_kept():
    assert clean_prompt("a\x00b\tc\nd 😀 量子") == "ab\tc\nd 😀 量子"


def test_prompt_longer_than_context_is_refused(lm):
    with pytest.raises(UserError, match="allows at most"):
        encode_prompt(lm.tokenizer, "word " * 400, True, lm.device, context_length=256, max_new_tokens=128)


def test_model_settings(tmp_path):
    assert resolve_source("") == ("embedded", "smollm2-135m")
    with pytest.raises(UserError, match="does not exist"):
        resolve_source("/no/such/model.gguf")
    with pytest.raises(UserError, match="does not exist"):
        resolve_source("./missing-folder/")
    (tmp_path / "notes.txt").write_text("x")
    with pytest.raises(UserError, match="not a .gguf"):
        resolve_source(str(tmp_path / "notes.txt"))
    with pytest.raises(UserError, match="no config.json"):
        resolve_source(str(tmp_path))
    assert resolve_source("HuggingFaceTB/SmolLM2-135M-Instruct") == ("hub", "HuggingFaceTB/SmolLM2-135M-Instruct")


def test_compare_form_builds_a_request_and_presets_set_article_values():
    keys = param_keys()
    values = [p.default for _, p in keys]
    i = next(i for i, (m, p) in enumerate(keys) if m == "TS-Tilted" and p.name == "alpha")
    values[i] = 0.3
    req = make_request("hello", ["TS-Tilted", "BS-4"], False, 3, 16, values)
    assert req.settings == {"TS-Tilted": {"alpha": 0.3}} and req.seed == 3 and req.max_new_tokens == 16
    with pytest.raises(UserError):
        make_request("hello", ["TS-Tilted"], False, 3, 2000, values)
    assert apply_preset("Creative") == ("TS-Temp", {"temperature": 1.1})
    assert apply_preset("Precise") == ("BS-4", {"length_penalty": 0.8})
    assert PRESETS["Balanced"] == ("TS-Tilted", {"temperature": 0.8, "alpha": 0.1})
    assert list(timing_frame([]).columns)[:5] == ["method", "new tokens", "TTFT (ms)", "latency (ms)", "tokens/s"]


def run_cli(*args, timeout=600):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run(
        [sys.executable, "-m", "decoders", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout
    )


@pytest.mark.parametrize(
    "args",
    [
        [" "],
        ["hi", "--methods", "BS-4,Nope"],
        ["hi", "--max-new-tokens", "x"],
        ["hi", "--set", "TS-Temp.temperature=-1"],
        ["hi", "--set", "garbage"],
        ["hi", "--model", "/does/not/exist.gguf"],
        ["hi", "--bogus-flag"],
    ],
)
def test_cli_bad_input_exits_2_without_traceback(args):
    proc = run_cli(*args)
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr and proc.stderr.startswith(("error:", "usage:"))


def test_cli_json_has_three_non_empty_outputs_with_timing():
    proc = run_cli(
        "Name three colours.", "--methods", "BS-4,TS-Temp,TS-Tilted", "--max-new-tokens", "6", "--seed", "1", "--json"
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert {"model", "device", "results"} <= out.keys()
    assert [r["method"] for r in out["results"]] == ["BS-4", "TS-Temp", "TS-Tilted"]
    for r in out["results"]:
        assert r["text"].strip()
        assert 0 < r["new_tokens"] <= 6
        assert 0 < r["ttft_ms"] <= r["latency_ms"]
        assert r["tokens_per_s"] > 0 and r["seed"] == 1
        assert r["settings"]["method"] == r["method"]
