"""The new logits processors on small hand-computed vocabularies, and the adaptive tilt's plan."""

import math

import pytest
import torch
from transformers import LogitsProcessorList

import decoders
from decoders import DecodeContext
from decoders.adaptive import RecentRepetitionPenaltyLogitsProcessor
from decoders.processors import TiltedLogitsProcessor
from decoders.thresholds import DualThresholdLogitsWarper

NEG = -float("inf")


# -- adaptive tilt: recent-repetition penalty ------------------------------------------------------

def test_repetition_penalty_counts_only_generated_tokens_in_the_window():
    # prompt = [4, 4, 4, 4] (token 4 repeated, but it is the prompt); generated = [1, 1, 2, 1, 3]
    ids = torch.tensor([[4, 4, 4, 4, 1, 1, 2, 1, 3]])
    proc = RecentRepetitionPenaltyLogitsProcessor(window=5, penalty=0.5, prompt_length=4)
    out = proc(ids, torch.tensor([[1.0, 1.0, 1.0, 1.0, 1.0]]))
    # count(1) = 3 > 5 // 2 = 2 → 1 - 0.5; count(4) in the generated window = 0
    assert out.tolist() == [[1.0, 0.5, 1.0, 1.0, 1.0]]


def test_repetition_penalty_window_slides_and_is_per_row():
    proc = RecentRepetitionPenaltyLogitsProcessor(window=5, penalty=2.0, prompt_length=1)
    ids = torch.tensor([
        [0, 1, 1, 1, 2, 3, 4, 0],  # last 5 generated: 1, 2, 3, 4, 0 → nothing above 2
        [0, 3, 2, 3, 3, 0, 3, 1],  # last 5 generated: 3, 3, 0, 3, 1 → token 3 (x3)
    ])
    out = proc(ids, torch.zeros(2, 5))
    assert out.tolist() == [[0.0] * 5, [0.0, 0.0, 0.0, -2.0, 0.0]]


def test_repetition_penalty_needs_more_than_half_the_window():
    proc = RecentRepetitionPenaltyLogitsProcessor(window=4, penalty=1.0, prompt_length=0)
    twice = proc(torch.tensor([[2, 2, 0, 1]]), torch.zeros(1, 3))  # 2 is not more than 4 // 2
    thrice = proc(torch.tensor([[2, 2, 0, 2]]), torch.zeros(1, 3))
    assert twice.tolist() == [[0.0, 0.0, 0.0]] and thrice.tolist() == [[0.0, 0.0, -1.0]]
    # only two tokens generated so far: nothing can exceed the limit, the scores pass untouched
    short = RecentRepetitionPenaltyLogitsProcessor(window=5, penalty=1.0, prompt_length=3)
    scores = torch.randn(1, 6)
    assert short(torch.tensor([[5, 5, 5, 1, 1]]), scores) is scores


def test_adaptive_tilt_chain_hand_computed():
    """logits 0, prior S = [1, 0, -1, 0, 0], T = 0.5, λ = 0.1 → tilt [-0.1, 0, 0.1, 0, 0];
    generated [2, 2, 2] → token 2 repeated 3 > 2 times → minus 5·λ = 0.5."""
    chain = LogitsProcessorList([
        TiltedLogitsProcessor(0.5, 0.1, torch.tensor([1.0, 0.0, -1.0, 0.0, 0.0])),
        RecentRepetitionPenaltyLogitsProcessor(5, 5 * 0.1, prompt_length=2),
    ])
    out = chain(torch.tensor([[3, 3, 2, 2, 2]]), torch.zeros(1, 5))
    assert torch.allclose(out, torch.tensor([[-0.1, 0.0, -0.4, 0.0, 0.0]]))


def test_adaptive_tilt_plan(lm):
    ctx = DecodeContext(tokenizer=lm.tokenizer, device=lm.device, logits_size=lm.logits_size, prompt_length=11,
                        max_new_tokens=16, cache_dir=lm.cache_dir)
    plan = decoders.get("TS-Tilted-Adaptive").plan({"prior": "common-tokens", "history_window": 6}, ctx)
    tilt, repeat = plan.logits_processors
    assert isinstance(tilt, TiltedLogitsProcessor) and isinstance(repeat, RecentRepetitionPenaltyLogitsProcessor)
    assert tilt.temperature == 0.8 and tilt.alpha == 0.1  # the article's AdaptiveTiltedSampler defaults
    assert repeat.window == 6 and repeat.prompt_length == 11 and repeat.penalty == pytest.approx(0.5)
    assert plan.generate_kwargs["temperature"] == 1.0 and plan.generate_kwargs["top_k"] == 50
    assert plan.effective["repeat_penalty"] == pytest.approx(0.5) and plan.effective["top_k"] == 50


def test_adaptive_tilt_generates_through_the_runner(lm):
    from arena.runner import RunRequest, run_methods

    (res,) = run_methods(lm, RunRequest("Once upon a time", ["TS-Tilted-Adaptive"], max_new_tokens=6, seed=1, raw=True))
    assert 1 <= res.new_tokens <= 6 and res.settings["history_window"] == 5


# -- dual threshold ---------------------------------------------------------------------------------

def test_dual_threshold_article_example():
    # softmax(4,3,2,1,0) = .636 .234 .086 .032 .012: the 0.95 nucleus is {4, 3, 2} (mass .957).
    # mean 3, population std √(2/3) = .816 → only 4 > 3.816 stays.
    out = DualThresholdLogitsWarper(0.95)(None, torch.tensor([[4.0, 3.0, 2.0, 1.0, 0.0]]))
    assert out.tolist() == [[4.0, NEG, NEG, NEG, NEG]]


def test_dual_threshold_keeps_two_when_a_long_tail_is_in_the_nucleus():
    # exp: 54.6, 54.6, 2.72 ×5, ~0 → p(1) = .0221 each; the two lowest 1s fall in the removed 5%
    # tail (cumulative .022, .044 ≤ .05), -6 too. Nucleus {4, 4, 1, 1, 1}: mean 2.2,
    # variance (2·1.8² + 3·1.2²)/5 = 2.16, std 1.47 → threshold 3.67: both 4s stay.
    logits = torch.tensor([[4.0, 4.0, 1.0, 1.0, 1.0, 1.0, 1.0, -6.0]])
    out = DualThresholdLogitsWarper(0.95)(None, logits)
    assert out.tolist() == [[4.0, 4.0] + [NEG] * 6]


def test_dual_threshold_flat_distribution_keeps_the_argmax():
    # all equal: std = 0 and no logit is > mean; the top token is kept so sampling stays defined
    out = DualThresholdLogitsWarper(0.95)(None, torch.full((1, 5), 2.0))
    assert torch.isfinite(out).sum().item() == 1


def test_dual_threshold_is_row_wise_and_matches_a_reference():
    torch.manual_seed(0)
    logits = torch.randn(6, 40) * 3
    out = DualThresholdLogitsWarper(0.9)(None, logits)
    for row, got in zip(logits.tolist(), out.tolist()):
        probs = [math.exp(x) for x in row]
        total = sum(probs)
        order = sorted(range(len(row)), key=lambda i: -row[i])
        nucleus, mass = [], 0.0
        for i in order:  # the smallest top set with mass ≥ p
            nucleus.append(i)
            mass += probs[i] / total
            if mass >= 0.9:
                break
        vals = [row[i] for i in nucleus]
        mean = sum(vals) / len(vals)
        std = math.sqrt(sum((v - mean) ** 2 for v in vals) / len(vals))
        expected = {i for i in nucleus if row[i] > mean + std} | {order[0]}
        assert {i for i, v in enumerate(got) if v != NEG} == expected


def test_dual_threshold_plan_orders_temperature_first():
    ctx = DecodeContext(tokenizer=None, device=torch.device("cpu"), logits_size=5)
    plan = decoders.get("Dual-Threshold").plan({"temperature": 0.5}, ctx)
    temp, dual = plan.logits_processors
    assert temp.temperature == 0.5 and isinstance(dual, DualThresholdLogitsWarper) and dual.top_p == 0.95
    assert plan.generate_kwargs == {"do_sample": True, "temperature": 1.0, "top_p": 1.0, "top_k": 0, "max_new_tokens": 128}
    assert plan.effective["temperature"] == 0.5 and plan.effective["top_k"] == 0
