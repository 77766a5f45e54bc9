"""The tilt: formula (a bias before the stock temperature warper), sign, prior construction."""

import pytest
import torch
from transformers import TemperatureLogitsWarper

from decoders.priors import ARTICLE_COMMON_TOKENS, PRIORS, build_prior, wordfreq_scores
from decoders.processors import TiltedLogitsProcessor


def fused_tilt(logits: torch.Tensor, temperature: float, alpha: float, prior: torch.Tensor) -> torch.Tensor:
    """The tilt as it was before it became a bias: temperature and penalty in one step, in float32."""
    return logits.float() / temperature - alpha * prior.float()


def tilt_chain(logits: torch.Tensor, temperature: float, alpha: float, prior: torch.Tensor) -> torch.Tensor:
    """What `generate(temperature=T, logits_processor=[tilt])` applies: the bias, then the stock warper."""
    return TemperatureLogitsWarper(temperature)(None, TiltedLogitsProcessor(temperature, alpha, prior)(None, logits))


def test_formula_on_a_toy_vocabulary():
    logits = torch.tensor([[2.0, 1.0, 0.0, -1.0]])
    prior = torch.tensor([1.0, 0.5, 0.0, -2.0])
    tilt = TiltedLogitsProcessor(temperature=0.5, alpha=0.2, prior=prior)
    # the bias alone: logits − λ·T·S = [2-0.1, 1-0.05, 0-0, -1+0.2]; no division by T
    assert torch.allclose(tilt(None, logits), torch.tensor([[1.9, 0.95, 0.0, -0.8]]))
    assert torch.allclose(tilt.bias, torch.tensor([-0.1, -0.05, 0.0, 0.2]))
    # then the stock warper: logits/T − λS = [4-0.2, 2-0.1, 0-0, -2+0.4]
    assert torch.allclose(tilt_chain(logits, 0.5, 0.2, prior), torch.tensor([[3.8, 1.9, 0.0, -1.6]]))


def test_zero_lambda_is_exactly_temperature_scaling():
    logits = torch.randn(3, 50)
    assert TiltedLogitsProcessor(0.7, 0.0, torch.randn(50))(None, logits) is logits
    assert torch.equal(tilt_chain(logits, 0.7, 0.0, torch.randn(50)), logits / 0.7)


@pytest.mark.parametrize("prior_name", PRIORS)
def test_bias_then_stock_temperature_equals_the_fused_formula_on_real_logits(lm, prior_name):
    """(logits − λ·T·S)/T against logits/T − λS, float32, on the embedded model's next-token logits
    for a few prompts and the range of T and λ the settings allow. The two differ by float rounding
    only: a few float32 ulps of the result, so within 1e-5 absolute at T ≥ 0.5 (1.9e-6 measured at
    T = 0.8) and within 1e-5 relative at T = 0.05, where logits/T reach several hundred."""
    prior = build_prior(lm.tokenizer, prior_name, lm.logits_size, lm.device, lm.cache_dir)
    prompts = ["The meaning of life is", "In that forgotten port, I walked", "def reverse(xs):"]
    with torch.inference_mode():
        logits = torch.cat(
            [lm.model(lm.tokenizer(p, return_tensors="pt").input_ids.to(lm.device)).logits[:, -1, :] for p in prompts]
        ).float()
    for temperature in (0.05, 0.2, 0.5, 0.8, 1.0, 2.0):
        for alpha in (0.01, 0.15, 1.0, 2.0):
            new, old = tilt_chain(logits, temperature, alpha, prior), fused_tilt(logits, temperature, alpha, prior)
            assert new.dtype == torch.float32
            diff = (new - old).abs()
            assert (diff / old.abs().clamp(min=1.0)).max().item() < 1e-5, (temperature, alpha)
            if temperature >= 0.5:
                assert diff.max().item() < 1e-5, (temperature, alpha, diff.max().item())


def test_the_bias_keeps_bfloat16_and_is_close_to_float32():
    torch.manual_seed(0)
    logits, prior = torch.randn(2, 300) * 5, torch.randn(300)
    tilt = TiltedLogitsProcessor(0.8, 0.3, prior)
    out = tilt(None, logits.bfloat16())
    assert out.dtype == torch.bfloat16
    assert torch.allclose(out.float(), tilt(None, logits), atol=0.1)  # bf16 keeps ~3 significant digits
    assert tilt(None, logits).dtype == torch.float32  # one processor serves both dtypes


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
    out = tilt_chain(logits, 1.0, 0.15, prior)
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
        probs = torch.softmax(tilt_chain(logits, 0.8, alpha, prior), dim=-1)
        masses.append(probs[0, frequent].sum().item())
    assert all(a > b for a, b in zip(masses, masses[1:])), masses


def test_the_vocabulary_fingerprint_is_hashed_once_per_tokenizer_and_again_after_added_tokens(lm):
    """Every TS-Tilted plan looks its prior up by the vocabulary's fingerprint; hashing 49k entries
    took ~0.1 s of every Compare run before it was kept per tokenizer."""
    import copy

    from decoders import priors

    tok = copy.deepcopy(lm.tokenizer)
    first = priors._vocab_fingerprint(tok)
    calls = []
    real = tok.get_vocab
    tok.get_vocab = lambda: calls.append(1) or real()
    assert priors._vocab_fingerprint(tok) == first and calls == []
    tok.add_tokens(["<arena-test-token>"])
    assert priors._vocab_fingerprint(tok) != first and calls == [1]
    assert priors._vocab_fingerprint(copy.deepcopy(lm.tokenizer)) == first  # a copy hashes to the same
