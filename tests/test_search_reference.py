"""Contrastive search and DoLa, our own step loops (decoders/contrastive.py, decoders/dola.py), against the
token ids transformers 4.55.4 produced for them on the embedded model in float32, recorded by
tests/data/search_refs/make_refs.py (4.55 is the last release that had both in `generate`)."""

import json
from pathlib import Path

import pytest
import torch

from decoders.contrastive import ContrastiveSearch
from decoders.dola import DoLaDecoding

REFS = json.loads((Path(__file__).parent / "data" / "search_refs" / "search_refs.json").read_text())


def ids_of(c: dict) -> str:
    return f"{c['method']}-{'-'.join(str(v) for v in c['settings'].values())}-{c['prompt_ids'][:2]}"


def loop_for(model, c: dict):
    s = c["settings"]
    if c["method"] == "Contrastive":
        return ContrastiveSearch(model, s["penalty_alpha"], s["top_k"], eos_token_id=2), []
    from transformers import RepetitionPenaltyLogitsProcessor

    rep = [RepetitionPenaltyLogitsProcessor(s["repetition_penalty"])] if s["repetition_penalty"] != 1.0 else []
    return DoLaDecoding(model, s["dola_layers"], eos_token_id=2), rep


def test_the_reference_is_4_55_and_not_greedy():
    assert REFS["transformers"] == "4.55.4" and REFS["dtype"] == "float32"
    greedy = {tuple(c["prompt_ids"]): c["output_ids"] for c in REFS["cases"] if c["method"] == "Greedy"}
    others = [c for c in REFS["cases"] if c["method"] != "Greedy"]
    differ = sum(c["output_ids"] != greedy[tuple(c["prompt_ids"])] for c in others)
    assert differ >= len(others) - 2  # the methods are really not greedy decoding on these prompts


def test_this_transformers_gives_4_55s_greedy_tokens(lm_fp32):
    """The model itself is the same under both versions (what the fixtures rest on)."""
    for c in (c for c in REFS["cases"] if c["method"] == "Greedy"):
        ids = torch.tensor([c["prompt_ids"]])
        with torch.inference_mode():
            out = lm_fp32.model.generate(
                ids,
                attention_mask=torch.ones_like(ids),
                do_sample=False,
                max_new_tokens=REFS["max_new_tokens"],
                pad_token_id=2,
            )
        assert out[0, ids.shape[1] :].tolist()[: len(c["output_ids"])] == c["output_ids"]


@pytest.mark.parametrize("c", [c for c in REFS["cases"] if c["method"] != "Greedy"], ids=ids_of)
def test_same_tokens_as_transformers_4_55(lm_fp32, c):
    loop, processors = loop_for(lm_fp32.model, c)
    ids = torch.tensor([c["prompt_ids"]])
    with torch.inference_mode():
        out = loop(
            ids, attention_mask=torch.ones_like(ids), logits_processor=processors, max_new_tokens=REFS["max_new_tokens"]
        )
    assert out[0, ids.shape[1] :].tolist() == c["output_ids"]
