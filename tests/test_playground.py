"""The playground standards: complete effective settings, and the same tokens as bare `generate`."""

import pytest
import torch
from transformers import LogitsProcessorList

import decoders
from decoders import DecodeContext, InvalidSettings

PLAYGROUND = ("Greedy", "Top-k", "Min-p", "Typical-p", "Repetition-Penalty", "N-gram-Block")
CTX = DecodeContext(tokenizer=None, device=torch.device("cpu"), logits_size=10, prompt_length=3, max_new_tokens=8)


@pytest.mark.parametrize("name", PLAYGROUND)
def test_registered_with_ranges(name):
    d = decoders.get(name)
    assert name in decoders.names() and d.description
    for p in d.params:
        assert p.kind in {"float", "int"} and p.minimum is not None and p.maximum is not None
        assert p.minimum <= p.default <= p.maximum
        with pytest.raises(InvalidSettings):
            d.resolve({p.name: p.maximum + 1})


@pytest.mark.parametrize("name", PLAYGROUND[1:])
def test_sampling_plans_spell_out_top_k(name):
    plan = decoders.get(name).plan(None, CTX)
    kwargs, eff = plan.generate_kwargs, plan.effective
    # generate would silently use top_k=50: the plan passes top_k itself and shows the value that runs
    assert "top_k" in kwargs and eff["top_k"] == kwargs["top_k"] and eff["top_p"] == kwargs["top_p"]
    assert eff["do_sample"] is True and eff["temperature"] == kwargs["temperature"]
    for key in ("min_p", "typical_p", "repetition_penalty", "no_repeat_ngram_size"):
        if key in kwargs:
            assert eff[key] == kwargs[key]


def test_greedy_plan_and_top_k_override():
    assert decoders.get("Greedy").plan(None, CTX).effective == {
        "method": "Greedy",
        "do_sample": False,
        "num_beams": 1,
        "max_new_tokens": 8,
        "processor_order": [],
    }
    assert decoders.get("Top-k").plan({"top_k": 5}, CTX).generate_kwargs["top_k"] == 5


# (decoder, its overrides, the bare generate kwargs a user would write for the same method)
EQUIVALENT = [
    ("Greedy", {}, dict(do_sample=False)),
    ("Top-k", {"top_k": 20, "temperature": 0.8}, dict(do_sample=True, top_k=20, temperature=0.8)),
    ("Min-p", {"min_p": 0.05}, dict(do_sample=True, min_p=0.05, top_k=0)),
    ("Typical-p", {"typical_p": 0.9}, dict(do_sample=True, typical_p=0.9, top_k=0)),
    (
        "Repetition-Penalty",
        {"repetition_penalty": 1.3},
        dict(do_sample=True, repetition_penalty=1.3, temperature=0.9, top_p=0.95),
    ),
    (
        "N-gram-Block",
        {"no_repeat_ngram_size": 2},
        dict(do_sample=True, no_repeat_ngram_size=2, temperature=0.9, top_p=0.95),
    ),
]


@pytest.mark.parametrize("name,overrides,bare", EQUIVALENT, ids=[e[0] for e in EQUIVALENT])
def test_same_tokens_as_bare_generate(lm, name, overrides, bare):
    from arena.engines.local.inputs import plan_for

    ids = lm.tokenizer("The library opened at nine, and the first visitor", return_tensors="pt")["input_ids"]
    common = dict(
        input_ids=ids, attention_mask=torch.ones_like(ids), max_new_tokens=8, pad_token_id=lm.tokenizer.pad_token_id
    )
    plan = plan_for(lm, name, overrides, ids.shape[1], 8)
    with torch.inference_mode():
        torch.manual_seed(5)
        expected = lm.model.generate(**common, **bare)
        torch.manual_seed(5)
        got = lm.model.generate(
            **common,
            logits_processor=LogitsProcessorList(plan.logits_processors),
            **{k: v for k, v in plan.generate_kwargs.items() if k != "max_new_tokens"},
        )
    assert got.tolist() == expected.tolist()
    assert got.shape[1] > ids.shape[1]


def test_greedy_through_the_runner_matches_bare_generate(lm):
    from arena.runs.requests import RunRequest
    from arena.runs.runner import run_methods

    prompt = "The capital of France is"
    (res,) = run_methods(lm, RunRequest(prompt, ["Greedy"], max_new_tokens=6, seed=0, raw=True))
    ids = lm.tokenizer(prompt, return_tensors="pt")["input_ids"]
    with torch.inference_mode():
        bare = lm.model.generate(
            input_ids=ids,
            attention_mask=torch.ones_like(ids),
            do_sample=False,
            max_new_tokens=6,
            pad_token_id=lm.tokenizer.pad_token_id,
        )
    assert res.token_ids == bare[0, ids.shape[1] :].tolist()[: len(res.token_ids)]
    assert res.settings["do_sample"] is False


def test_cli_accepts_every_registered_name(capsys):
    from decoders.__main__ import main

    every = ",".join(decoders.names())
    # max-new-tokens 0 fails *after* the method names were checked, before any model loads
    assert main(["hello", "--methods", every, "--max-new-tokens", "0"]) == 2
    err = capsys.readouterr().err
    assert "max_new_tokens" in err and "unknown method" not in err
    assert main(["hello", "--methods", every + ",Nope", "--max-new-tokens", "0"]) == 2
    assert "unknown method 'Nope'" in capsys.readouterr().err
    assert main(["--list"]) == 0
    listing = capsys.readouterr().out
    assert all(f"{n}:" in listing for n in decoders.names())
