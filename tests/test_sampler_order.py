"""The processor order: every plan reports the order that runs, the token view's stages are that order
(the same run recorded), the temperature can go first or last where the decoder offers it, and ε, η and
top-H give the same tokens as transformers' `generate` with its own keywords."""

import pytest
import torch
from transformers import EpsilonLogitsWarper, LogitsProcessorList, TemperatureLogitsWarper

import decoders
from arena.runs.runner import RunRequest, run_methods
from decoders import DecodeContext

PROMPT = "The library opened at nine, and the first visitor"
CTX = DecodeContext(tokenizer=None, device=torch.device("cpu"), logits_size=10, prompt_length=3, max_new_tokens=8)


def recorded(lm, method, overrides=None, tokens=3):
    (res,) = run_methods(
        lm,
        RunRequest(PROMPT, [method], {method: overrides or {}}, max_new_tokens=tokens, seed=3, raw=True, record=True),
    )
    return res


SKIP = {"Multi-Arm", "Math-Arms", "Code-Stabilizer", "Routed", "Assisted", "Prompt-Lookup"}


@pytest.mark.parametrize("name", [n for n in decoders.names() if n not in SKIP])
def test_the_token_views_stages_are_the_reported_order(lm, name):
    """For every decoder the token view can watch: the stages recorded from the run, after "model", are
    exactly `processor_order` from its plan (the order shown in Compare and stored with the output)."""
    res = recorded(lm, name)
    order = res.settings["processor_order"]
    if res.record["kind"] == "beams":
        assert res.record["stages"][1:] == order
    elif name in ("Contrastive", "DoLa"):
        assert res.record["kind"] == "sampling" and res.record["steps"]
    else:
        assert res.record["stages"][1:] == order, name


def test_temperature_position_changes_the_order_and_the_tokens(lm):
    first = recorded(lm, "Epsilon", {"temperature": 0.5, "epsilon": 0.01}, tokens=12)
    last = recorded(lm, "Epsilon", {"temperature": 0.5, "epsilon": 0.01, "temperature_position": "last"}, tokens=12)
    assert first.settings["processor_order"] == ["temperature 0.5", "ε-cutoff 0.01"]
    assert last.settings["processor_order"] == ["ε-cutoff 0.01", "temperature 0.5"]
    assert last.record["stages"] == ["model", "ε-cutoff 0.01", "temperature 0.5"]
    # the cut sees other probabilities, so what it keeps differs at some step
    kept = lambda r: [sum(1 for p in s["probs"][1] if p > 0) for s in r.record["steps"]]  # noqa: E731
    assert kept(first) != kept(last)


def test_xtc_defaults_to_llama_cpp_order_and_min_p_keeps_transformers():
    xtc = decoders.get("XTC").plan({"temperature": 0.7}, CTX)
    assert xtc.effective["processor_order"] == ["XTC 0.1 (p=0.5)", "temperature 0.7"]
    assert decoders.get("Min-p").plan({"temperature": 0.7}, CTX).effective["processor_order"] == [
        "temperature 0.7",
        "min-p 0.1",
    ]


# (decoder, overrides, the bare generate kwargs a user would write)
EQUIVALENT = [
    ("Epsilon", {"epsilon": 3e-3, "temperature": 0.8}, dict(epsilon_cutoff=3e-3, temperature=0.8)),
    ("Eta", {"eta": 2e-3}, dict(eta_cutoff=2e-3)),
    ("Top-H", {"top_h": 0.5, "temperature": 1.2}, dict(top_h=0.5, temperature=1.2)),
]


@pytest.mark.parametrize("name,overrides,bare", EQUIVALENT, ids=[e[0] for e in EQUIVALENT])
def test_same_tokens_as_transformers_generate(lm, name, overrides, bare):
    """Through the runner (as Compare and the CLI run it) against bare `generate` with transformers'
    own keywords, same seed, the model's own dtype."""
    (res,) = run_methods(lm, RunRequest(PROMPT, [name], {name: overrides}, max_new_tokens=10, seed=5, raw=True))
    ids = lm.tokenizer(PROMPT, return_tensors="pt")["input_ids"].to(lm.device)
    with torch.inference_mode():
        torch.manual_seed(5)
        out = lm.model.generate(
            input_ids=ids,
            attention_mask=torch.ones_like(ids),
            do_sample=True,
            top_k=0,
            max_new_tokens=10,
            pad_token_id=lm.tokenizer.pad_token_id,
            **bare,
        )
    assert res.token_ids == out[0, ids.shape[1] :].tolist()[: len(res.token_ids)]


def test_temperature_last_is_the_cut_then_the_warper(lm):
    """ "last" is the two transformers processors in that order, nothing else."""
    (res,) = run_methods(
        lm,
        RunRequest(
            PROMPT,
            ["Epsilon"],
            {"Epsilon": {"epsilon": 3e-3, "temperature": 0.6, "temperature_position": "last"}},
            max_new_tokens=10,
            seed=2,
            raw=True,
        ),
    )
    ids = lm.tokenizer(PROMPT, return_tensors="pt")["input_ids"].to(lm.device)
    chain = LogitsProcessorList([EpsilonLogitsWarper(3e-3), TemperatureLogitsWarper(0.6)])
    with torch.inference_mode():
        torch.manual_seed(2)
        out = lm.model.generate(
            input_ids=ids,
            attention_mask=torch.ones_like(ids),
            do_sample=True,
            top_k=0,
            max_new_tokens=10,
            logits_processor=chain,
            pad_token_id=lm.tokenizer.pad_token_id,
        )
    assert res.token_ids == out[0, ids.shape[1] :].tolist()[: len(res.token_ids)]


def test_contrastive_records_its_candidates_for_the_token_view(lm):
    from arena.runs.token_view import candidates_frame

    res = recorded(lm, "Contrastive", tokens=4)
    frame = candidates_frame(res.record, lm.tokenizer, 0)
    assert {"max cos similarity", "contrastive score"} <= set(frame.columns)
    scored = frame[frame["contrastive score"].notna()]
    assert len(scored) == 4  # k = 4 candidates
    assert frame.loc[frame["drawn"] != "", "contrastive score"].iloc[0] == scored["contrastive score"].max()
    assert [s["chosen"] for s in res.record["steps"]] == res.token_ids[: len(res.record["steps"])]
