"""The tilt: formula, sign, prior construction."""

import pytest
import torch

from decoders.priors import ARTICLE_COMMON_TOKENS, build_prior, wordfreq_scores
from decoders.processors import TiltedLogitsProcessor


def test_formula_on_a_toy_vocabulary():
    logits = torch.tensor([[2.0, 1.0, 0.0, -1.0]])
    prior = torch.tensor([1.0, 0.5, 0.0, -2.0])
    out = TiltedLogitsProcessor(temperature=0.5, alpha=0.2, prior=prior)(None, logits)
    # logits/T - λS = [4-0.2, 2-0.1, 0-0, -2+0.4]
    assert torch.allclose(out, torch.tensor([[3.8, 1.9, 0.0, -1.6]]))


def test_zero_lambda_is_exactly_temperature_scaling():
    logits = torch.randn(3, 50)
    out = TiltedLogitsProcessor(0.7, 0.0, torch.randn(50))(None, logits)
    assert torch.equal(out, logits / 0.7)


def test_wordfreq_prior_is_larger_for_frequent_words():
    s = wordfreq_scores(["the", " and", "serendipity", "xqzjv", ",", "\ufffd"])
    assert s[0] > s[2] and s[1] > s[2]
    # unknown text, punctuation and broken bytes are neutral
    assert s[3] == 0 and s[4] == 0 and s[5] == 0


def test_prior_is_dense_sized_to_logits_and_built_once(lm):
    a = build_prior(lm.tokenizer, "wordfreq", lm.logits_size, lm.device, lm.cache_dir)
    b = build_prior(lm.tokenizer, "wordfreq", lm.logits_size, lm.device, lm.cache_dir)
    assert a is b
    assert a.shape == (lm.logits_size,) and a.device.type == lm.device.type
    wider = build_prior(lm.tokenizer, "wordfreq", lm.logits_size + 64, lm.device, lm.cache_dir)
    assert wider.shape == (lm.logits_size + 64,) and torch.all(wider[-64:] == 0)
    the = lm.tokenizer.encode(" the", add_special_tokens=False)[0]
    rare = lm.tokenizer.encode(" serendipity", add_special_tokens=False)[0]
    assert a[the] > a[rare]
    assert a[lm.tokenizer.eos_token_id] == 0


def test_common_token_prior_penalises_the_article_list_by_two_alpha(lm):
    prior = build_prior(lm.tokenizer, "common-tokens", lm.logits_size)
    penalised = {lm.tokenizer.decode([i]) for i in torch.nonzero(prior).flatten().tolist()}
    assert {",", ".", " the", " and", " of", " to", " a"} <= penalised
    assert penalised <= {w for x in ARTICLE_COMMON_TOKENS for w in (x, " " + x)}
    logits = torch.zeros(1, lm.logits_size)
    out = TiltedLogitsProcessor(1.0, 0.15, prior)(None, logits)
    the = lm.tokenizer.encode(" the", add_special_tokens=False)[0]
    assert out[0, the].item() == pytest.approx(-0.3)


def test_raising_lambda_lowers_the_probability_of_frequent_tokens(lm):
    """The sign: more λ, less total probability on the most frequent tokens (real logits)."""
    prior = build_prior(lm.tokenizer, "wordfreq", lm.logits_size, lm.device, lm.cache_dir)
    frequent = torch.topk(prior, 200).indices
    ids = lm.tokenizer("The meaning of life is", return_tensors="pt").input_ids.to(lm.device)
    with torch.inference_mode():
        logits = lm.model(ids).logits[:, -1, :].float()
    masses = []
    for alpha in (0.0, 0.15, 0.5, 1.0):
        probs = torch.softmax(TiltedLogitsProcessor(0.8, alpha, prior)(ids, logits), dim=-1)
        masses.append(probs[0, frequent].sum().item())
    assert all(a > b for a, b in zip(masses, masses[1:])), masses
