"""Temperature decay and warm-up: exact temperatures, the processors' arithmetic, the plans."""

import pytest
import torch

import decoders
from decoders import DecodeContext
from decoders.processors import TemperatureDecayLogitsWarper, WarmupTemperatureLogitsWarper

PROMPT = 7


def ids_after(t: int) -> torch.Tensor:
    """input_ids holding the prompt plus t generated tokens."""
    return torch.zeros(1, PROMPT + t, dtype=torch.long)


@pytest.mark.parametrize("gamma", [1.0, 1.5, 1.8])
def test_decay_exact_values_at_start_middle_end(gamma):
    length, t_max, t_min = 256, 0.85, 0.1
    decay = TemperatureDecayLogitsWarper(t_max, gamma, length, PROMPT, t_min)
    assert decay.temperature(0) == t_max
    assert decay.temperature(length // 2) == pytest.approx(t_max * 0.5**gamma)
    assert decay.temperature(length) == t_min  # (1 - L/L)^γ = 0, clamped to the floor
    # the article's example numbers (0.62 at t=128) do not follow from its formula
    assert decay.temperature(128) != pytest.approx(0.62, abs=0.01)


def test_decay_divides_the_logits_by_the_temperature_of_the_current_step():
    decay = TemperatureDecayLogitsWarper(t_max=0.8, gamma=1.0, max_new_tokens=4, prompt_length=PROMPT, t_min=0.05)
    scores = torch.tensor([[2.0, -1.0, 0.0, 0.5, 1.0]])
    # t = 0: T = 0.8; t = 2: T = 0.4; t = 4: T = max(0.05, 0) = 0.05
    assert torch.allclose(decay(ids_after(0), scores), scores / 0.8)
    assert torch.allclose(decay(ids_after(2), scores), torch.tensor([[5.0, -2.5, 0.0, 1.25, 2.5]]))
    assert torch.allclose(decay(ids_after(4), scores), scores / 0.05)


def test_decay_below_the_floor_and_gamma_zero():
    flat = TemperatureDecayLogitsWarper(0.7, 0.0, 10, 0)
    assert {flat.temperature(t) for t in range(11)} == {0.7}  # x^0 = 1 everywhere, incl. 0^0
    steep = TemperatureDecayLogitsWarper(1.0, 3.0, 10, 0, t_min=0.2)
    assert steep.temperature(9) == 0.2 and steep.temperature(1) == pytest.approx(0.9**3)


def test_decay_refuses_zero_temperatures():
    with pytest.raises(ValueError):
        TemperatureDecayLogitsWarper(0.8, 1.5, 10, 0, t_min=0.0)
    with pytest.raises(ValueError):
        TemperatureDecayLogitsWarper(0.8, 1.5, 0, 0)


def test_warmup_switches_after_k_generated_tokens_only():
    warm = WarmupTemperatureLogitsWarper(warm_temperature=0.9, warm_tokens=3, temperature=0.7, prompt_length=PROMPT)
    scores = torch.tensor([[0.9, 1.8, -0.9, 0.0, 0.45]])
    for t in range(3):
        assert torch.allclose(warm(ids_after(t), scores), torch.tensor([[1.0, 2.0, -1.0, 0.0, 0.5]]))
    for t in (3, 4, 50):
        assert torch.allclose(warm(ids_after(t), scores), scores / 0.7)
    # a long prompt does not count as warm-up: only generated tokens do
    assert warm.temperature(0) == 0.9 and warm.temperature(3) == 0.7


def test_schedule_plans_apply_temperature_once_and_show_it():
    ctx = DecodeContext(
        tokenizer=None, device=torch.device("cpu"), logits_size=5, prompt_length=PROMPT, max_new_tokens=64
    )
    decay = decoders.get("TS-Decay").plan({"gamma": 1.2}, ctx)
    assert decay.generate_kwargs["temperature"] == 1.0 and decay.generate_kwargs["top_k"] == 0
    assert isinstance(decay.logits_processors[0], TemperatureDecayLogitsWarper)
    assert decay.logits_processors[0].length == 64 and decay.logits_processors[0].prompt_length == PROMPT
    assert decay.effective["gamma"] == 1.2 and "64" in decay.effective["temperature"]
    warm = decoders.get("TS-Warmup").plan({"warm_tokens": 5}, ctx)
    assert warm.logits_processors[0].warm_tokens == 5 and warm.effective["top_k"] == 0
    assert warm.generate_kwargs["temperature"] == 1.0


def test_constant_schedules_sample_like_plain_temperature(lm):
    """With warm-up T = T and γ = 0 the schedules are a constant temperature: the tokens must be
    those of bare generate(temperature=T) with the same seed."""
    from transformers import LogitsProcessorList

    from arena.engines.local.inputs import plan_for

    ids = lm.tokenizer("The old harbour was quiet, and", return_tensors="pt")["input_ids"]
    mask = torch.ones_like(ids)
    with torch.inference_mode():
        torch.manual_seed(3)
        bare = lm.model.generate(
            input_ids=ids,
            attention_mask=mask,
            do_sample=True,
            temperature=0.7,
            top_k=0,
            max_new_tokens=8,
            pad_token_id=lm.tokenizer.pad_token_id,
        )
        for name, overrides in (
            ("TS-Warmup", {"warm_temperature": 0.7, "temperature": 0.7}),
            ("TS-Decay", {"t_max": 0.7, "gamma": 0.0}),
        ):
            plan = plan_for(lm, name, overrides, ids.shape[1], 8)
            torch.manual_seed(3)
            out = lm.model.generate(
                input_ids=ids,
                attention_mask=mask,
                pad_token_id=lm.tokenizer.pad_token_id,
                logits_processor=LogitsProcessorList(plan.logits_processors),
                **plan.generate_kwargs,
            )
            assert out.tolist() == bare.tolist(), name
