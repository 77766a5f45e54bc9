"""Continuation perplexity: batched equals one at a time, only continuation tokens count."""

import math

import pytest
import torch

from evaluation.heldout import load_heldout
from evaluation.perplexity import ItemScore, continuation_scores, corpus_ppl, encode_pair, loop_scores, score_texts

PAIRS = [
    ("The cat sat on the", " mat and looked at the door."),
    ("Once upon a time, in a small village by the sea, there lived", " an old fisherman."),
    ("In the beginning", " God created the heaven and the earth."),
]


def test_corpus_ppl_is_token_weighted():
    a, b = ItemScore(nll=2.0, tokens=1), ItemScore(nll=3.0, tokens=4)
    assert corpus_ppl([a, b]) == pytest.approx(math.exp(5 / 5))
    assert a.ppl == pytest.approx(math.exp(2.0)) and b.ppl == pytest.approx(math.exp(0.75))
    assert math.isnan(corpus_ppl([ItemScore(0.0, 0)]))


def test_batched_equals_one_at_a_time(lm_fp32):
    """An fp32 check: in bf16 a padded batch rounds differently from a batch of one (see the next test)."""
    lm = lm_fp32
    pairs = [encode_pair(lm, p, c) for p, c in PAIRS]
    batched = continuation_scores(lm, pairs, batch_size=8)
    single = continuation_scores(lm, pairs, batch_size=1)
    loop = loop_scores(lm, pairs)  # the model's own loss, one forward per item
    for b, s, l, (_, cont) in zip(batched, single, loop, pairs):
        assert b.tokens == s.tokens == l.tokens == len(cont)
        assert b.nll == pytest.approx(s.nll, rel=1e-4)
        assert b.nll == pytest.approx(l.nll, rel=1e-4)
    assert corpus_ppl(batched) == pytest.approx(corpus_ppl(loop), rel=1e-4)


def test_scores_in_the_default_dtype_are_close_to_float32(lm, lm_fp32):
    """Perplexity in the model's own dtype (bf16 where the CPU has it natively) is what Results shows,
    labelled with that dtype; batched there it stays within a few percent of float32's."""
    pairs = [encode_pair(lm, p, c) for p, c in PAIRS]
    ours = continuation_scores(lm, pairs, batch_size=8)
    reference = continuation_scores(lm_fp32, pairs, batch_size=8)
    assert corpus_ppl(ours) == pytest.approx(corpus_ppl(reference), rel=3e-2)
    for a, b in zip(ours, reference):
        assert a.tokens == b.tokens and a.nll == pytest.approx(b.nll, rel=5e-2)


def test_only_the_continuation_is_scored_by_hand(lm):
    prompt, cont = encode_pair(lm, *PAIRS[0])
    ids = torch.tensor([prompt + cont])
    with torch.no_grad():
        logp = torch.log_softmax(lm.model(input_ids=ids).logits[0].float(), dim=-1)
    nll = -sum(float(logp[len(prompt) - 1 + i, t]) for i, t in enumerate(cont))
    [score] = continuation_scores(lm, [(prompt, cont)])
    assert score.nll == pytest.approx(nll, rel=1e-4)
    # the prompt is context: another prompt changes the continuation's score
    [other] = score_texts(lm, ["Completely unrelated words:"], [PAIRS[0][1]])
    assert other.tokens == score.tokens and abs(other.nll - score.nll) > 1e-3


def test_empty_continuation_and_empty_prompt(lm):
    empty, no_prompt = score_texts(lm, ["Hello", ""], ["", " world"])
    assert empty.tokens == 0 and math.isnan(empty.ppl)
    assert no_prompt.tokens >= 1 and math.isfinite(no_prompt.ppl)  # scored after BOS/EOS


def test_heldout_set_is_split_into_prompt_and_continuation():
    items = load_heldout("en")
    assert 900 <= len(items) <= 1100
    assert all(i.prompt and i.continuation.startswith(" ") for i in items)
    zh = load_heldout("zh", limit=5)
    assert len(zh) == 5 and all(i.language == "zh" for i in zh)
