"""Prompt-Lookup gives exactly the model's greedy tokens, with fewer forward passes where the output
copies from the prompt (float32, where a several-token verification pass and one-token steps agree)."""

from __future__ import annotations

import pytest
import torch

import decoders
from arena.runner import RunRequest, run_methods

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
