"""Temperature schedules (article 003): the temperature depends on how many tokens exist.

Both processors *apply* the temperature (divide the logits by T(t)); the decoders that use them
call `generate(temperature=1.0, ...)`, so the temperature is applied exactly once and before
`generate`'s own top-k / top-p warpers (which run after custom processors).

t is the number of tokens generated so far (0 when choosing the first new token), computed as
`input_ids.shape[1] - prompt_length`.
"""

from __future__ import annotations

import torch
from transformers import LogitsProcessor


class TemperatureDecayLogitsWarper(LogitsProcessor):
    r"""Temperature decaying over the answer (article 003, §4.4):

        T(t) = max(T_min, T_max · (1 - t/L)^γ),   L = max_new_tokens
        logits' = logits / T(t)

    γ > 1 decays fast early and flattens later; the article suggests γ≈1.5 (math 1.2, poetry 1.8).
    T_min > 0 keeps the division finite at t = L. (The article's worked example — L=256,
    T_max=0.85 giving T=0.62 at t=128 — does not follow from its own formula, which gives
    0.85·0.5^1.5 ≈ 0.30; this class follows the formula.)

    Example (T_max=0.8, γ=1, L=4, after 2 generated tokens: T = 0.8·0.5 = 0.4):
        >>> w = TemperatureDecayLogitsWarper(0.8, 1.0, max_new_tokens=4, prompt_length=1)
        >>> w(torch.tensor([[5, 6, 7]]), torch.tensor([[0.4, -0.8]]))
        tensor([[ 1., -2.]])
    """

    def __init__(self, t_max: float, gamma: float, max_new_tokens: int, prompt_length: int, t_min: float = 0.05):
        if not t_max > 0 or not t_min > 0:
            raise ValueError(f"temperatures must be > 0, got t_max={t_max}, t_min={t_min}")
        if max_new_tokens < 1:
            raise ValueError(f"max_new_tokens must be ≥ 1, got {max_new_tokens}")
        self.t_max, self.gamma, self.t_min = float(t_max), float(gamma), float(t_min)
        self.length, self.prompt_length = int(max_new_tokens), int(prompt_length)

    def temperature(self, t: int) -> float:
        progress = min(max(t, 0), self.length) / self.length
        return max(self.t_min, self.t_max * (1.0 - progress) ** self.gamma)

    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> torch.FloatTensor:
        return scores / self.temperature(input_ids.shape[1] - self.prompt_length)


class WarmupTemperatureLogitsWarper(LogitsProcessor):
    r"""Sampling warm-up (article 003, §2.3): a higher temperature for the first k tokens.

        T(t) = T_warm  if t < k  else  T
        logits' = logits / T(t)

    The article: "first 3–5 tokens at T≈0.9, then T≈0.7".

    Example (k=1: the first token at T_warm=0.5, the next at T=2):
        >>> w = WarmupTemperatureLogitsWarper(warm_temperature=0.5, warm_tokens=1, temperature=2.0, prompt_length=2)
        >>> w(torch.tensor([[1, 2]]), torch.tensor([[1.0]])), w(torch.tensor([[1, 2, 3]]), torch.tensor([[1.0]]))
        (tensor([[2.]]), tensor([[0.5000]]))
    """

    def __init__(self, warm_temperature: float, warm_tokens: int, temperature: float, prompt_length: int):
        if not warm_temperature > 0 or not temperature > 0:
            raise ValueError("temperatures must be > 0")
        self.warm_temperature, self.temperature_after = float(warm_temperature), float(temperature)
        self.warm_tokens, self.prompt_length = int(warm_tokens), int(prompt_length)

    def temperature(self, t: int) -> float:
        return self.warm_temperature if t < self.warm_tokens else self.temperature_after

    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> torch.FloatTensor:
        return scores / self.temperature(input_ids.shape[1] - self.prompt_length)
