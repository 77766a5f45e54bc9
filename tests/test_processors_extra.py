"""Our logits processors on small hand-computed vocabularies, what every one of them promises
(input dtype kept, documented with an example through `generate`), and the adaptive tilt's plan."""

import inspect
import math

import pytest
import torch
from transformers import LogitsProcessor, LogitsProcessorList, TemperatureLogitsWarper

import decoders
from decoders import DecodeContext, processors
from decoders.priors import build_prior
from decoders.processors import (
    DualThresholdLogitsWarper,
    LengthAwareTemperatureLogitsWarper,
    RecentRepetitionPenaltyLogitsProcessor,
    TemperatureDecayLogitsWarper,
    TiltedLogitsProcessor,
    WarmupTemperatureLogitsWarper,
)

NEG = -float("inf")
PROCESSOR_CLASSES = sorted(
    (
        obj
        for obj in vars(processors).values()
        if isinstance(obj, type) and issubclass(obj, LogitsProcessor) and obj.__module__ == processors.__name__
    ),
    key=lambda cls: cls.__name__,
)


# -- what every processor promises ----------------------------------------------------------------


def test_all_processors_live_in_one_module():
    assert [cls.__name__ for cls in PROCESSOR_CLASSES] == sorted(processors.__all__)
    assert len(PROCESSOR_CLASSES) == 6


@pytest.mark.parametrize("cls", PROCESSOR_CLASSES, ids=lambda cls: cls.__name__)
def test_every_processor_documents_formula_args_and_a_generate_example(cls):
    doc = inspect.getdoc(cls)
    assert "Args:" in doc and "Examples:" in doc and "model.generate(" in doc and ">>> " in doc
    assert "=" in doc.split("Args:")[0]  # the formula comes before the arguments
    for name in list(inspect.signature(cls.__init__).parameters)[1:]:
        assert f"{name} (`" in doc.split("Args:")[1].split("Examples:")[0], f"{cls.__name__}: {name} undocumented"


VOCAB = 40
IDS = torch.tensor([[3, 3, 7, 7, 7, 1, 7, 2], [0, 5, 5, 9, 5, 5, 1, 5]])  # prompt of 2; 7 and 5 repeat


def processor_under_test(cls):
    torch.manual_seed(1)
    made = {
        TiltedLogitsProcessor: lambda: TiltedLogitsProcessor(0.8, 0.3, torch.randn(VOCAB)),
        RecentRepetitionPenaltyLogitsProcessor: lambda: RecentRepetitionPenaltyLogitsProcessor(5, 1.5, prompt_length=2),
        TemperatureDecayLogitsWarper: lambda: TemperatureDecayLogitsWarper(0.9, 1.5, 16, prompt_length=2),
        WarmupTemperatureLogitsWarper: lambda: WarmupTemperatureLogitsWarper(1.3, 8, 0.7, prompt_length=2),
        DualThresholdLogitsWarper: lambda: DualThresholdLogitsWarper(0.9),
        LengthAwareTemperatureLogitsWarper: lambda: LengthAwareTemperatureLogitsWarper(
            0.75, 0.45, 10, prompt_length=2, token_lengths=torch.arange(VOCAB).float() % 3
        ),
    }
    return made[cls]()


@pytest.mark.parametrize("cls", PROCESSOR_CLASSES, ids=lambda cls: cls.__name__)
def test_every_processor_keeps_bfloat16_and_agrees_with_float32(cls):
    """bf16 scores in, bf16 scores out; the values are those of the same input in float32, up to
    bf16's precision (-inf exactly where float32 has it)."""
    proc = processor_under_test(cls)
    torch.manual_seed(2)
    scores = (torch.randn(2, VOCAB) * 4).bfloat16()
    out = proc(IDS, scores)
    assert out.dtype == torch.bfloat16 and out.shape == scores.shape
    reference = proc(IDS, scores.float())
    assert reference.dtype == torch.float32
    assert not torch.equal(reference, scores.float())  # the processor did something to these scores
    torch.testing.assert_close(out.float(), reference, rtol=1e-2, atol=1e-2)


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
    ids = torch.tensor(
        [
            [0, 1, 1, 1, 2, 3, 4, 0],  # last 5 generated: 1, 2, 3, 4, 0 → nothing above 2
            [0, 3, 2, 3, 3, 0, 3, 1],  # last 5 generated: 3, 3, 0, 3, 1 → token 3 (x3)
        ]
    )
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
    """logits 0, prior S = [1, 0, -1, 0, 0], T = 0.5, λ = 0.1 → bias −λ·T·S = [-0.05, 0, 0.05, 0, 0],
    /T → [-0.1, 0, 0.1, 0, 0]; generated [2, 2, 2] → token 2 repeated 3 > 2 times → minus 5·λ = 0.5."""
    chain = LogitsProcessorList(
        [
            TiltedLogitsProcessor(0.5, 0.1, torch.tensor([1.0, 0.0, -1.0, 0.0, 0.0])),
            TemperatureLogitsWarper(0.5),
            RecentRepetitionPenaltyLogitsProcessor(5, 5 * 0.1, prompt_length=2),
        ]
    )
    out = chain(torch.tensor([[3, 3, 2, 2, 2]]), torch.zeros(1, 5))
    assert torch.allclose(out, torch.tensor([[-0.1, 0.0, -0.4, 0.0, 0.0]]))


def test_tilted_plan_is_the_bias_then_generates_own_temperature(lm):
    ctx = DecodeContext(
        tokenizer=lm.tokenizer,
        device=lm.device,
        logits_size=lm.logits_size,
        prompt_length=4,
        max_new_tokens=16,
        cache_dir=lm.cache_dir,
    )
    plan = decoders.get("TS-Tilted").plan({"temperature": 0.7, "alpha": 0.4}, ctx)
    (tilt,) = plan.logits_processors
    assert isinstance(tilt, TiltedLogitsProcessor) and (tilt.temperature, tilt.alpha) == (0.7, 0.4)
    assert plan.generate_kwargs["temperature"] == 0.7  # generate's stock TemperatureLogitsWarper, after the bias
    assert plan.effective["temperature"] == 0.7 and plan.effective["alpha"] == 0.4


def test_adaptive_tilt_plan(lm):
    ctx = DecodeContext(
        tokenizer=lm.tokenizer,
        device=lm.device,
        logits_size=lm.logits_size,
        prompt_length=11,
        max_new_tokens=16,
        cache_dir=lm.cache_dir,
    )
    plan = decoders.get("TS-Tilted-Adaptive").plan({"prior": "common-tokens", "history_window": 6}, ctx)
    tilt, temperature, repeat = plan.logits_processors
    assert isinstance(tilt, TiltedLogitsProcessor) and isinstance(repeat, RecentRepetitionPenaltyLogitsProcessor)
    assert type(temperature) is TemperatureLogitsWarper and temperature.temperature == 0.8
    assert tilt.temperature == 0.8 and tilt.alpha == 0.1  # the article's AdaptiveTiltedSampler defaults
    assert repeat.window == 6 and repeat.prompt_length == 11 and repeat.penalty == pytest.approx(0.5)
    assert plan.generate_kwargs["temperature"] == 1.0 and plan.generate_kwargs["top_k"] == 50
    assert plan.effective["repeat_penalty"] == pytest.approx(0.5) and plan.effective["top_k"] == 50
    # the chain is the article's logits/T − λS − 5λ·[repeated], as the fused tilt gave it
    prior = build_prior(lm.tokenizer, "common-tokens", lm.logits_size, lm.device, lm.cache_dir)
    torch.manual_seed(0)
    logits = torch.randn(2, lm.logits_size) * 5
    ids = torch.randint(0, lm.logits_size, (2, 11))
    ids = torch.cat([ids, torch.tensor([[9, 9, 9, 9], [9, 8, 7, 6]])], dim=1)  # 9 fills 4 of the last 6 in row 0
    expected = logits / 0.8 - 0.1 * prior
    expected[0, 9] -= 0.5
    got = LogitsProcessorList(plan.logits_processors)(ids, logits)
    assert (got - expected).abs().max().item() < 1e-5


def test_adaptive_tilt_generates_through_the_runner(lm):
    from arena.runs.requests import RunRequest
    from arena.runs.runner import run_methods

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
    assert plan.generate_kwargs == {
        "do_sample": True,
        "temperature": 1.0,
        "top_p": 1.0,
        "top_k": 0,
        "max_new_tokens": 128,
    }
    assert plan.effective["temperature"] == 0.5 and plan.effective["top_k"] == 0
