"""Logits processors written here (transformers' own are used wherever they exist)."""

from __future__ import annotations

import torch
from transformers import LogitsProcessor


class TiltedLogitsProcessor(LogitsProcessor):
    r"""Frequency-tilted logits: temperature and a prior penalty in one step.

        logits'(w) = logits(w) / T  -  λ · S(w)

    S(w) is a fixed per-token prior score, larger for tokens the prior considers frequent
    (e.g. S = centred log unigram frequency), so a positive λ moves probability away from
    frequent tokens: the anti-language-model term of MMI decoding (Li et al. 2016).

    Where T is applied: `generate` runs custom processors *before* its own temperature,
    top-k and top-p warpers. This processor divides by T itself and the decoder calls
    `generate(temperature=1.0, ...)`, so the result is exactly `logits/T - λS`, and top-k /
    top-p then act on the tilted distribution. With λ = 0 the arithmetic is the same as
    transformers' `TemperatureLogitsWarper` (`scores / T`), so the sampled tokens match.

    Example:
        >>> prior = torch.tensor([1.0, 0.0, -1.0])
        >>> TiltedLogitsProcessor(temperature=0.5, alpha=0.1, prior=prior)(None, torch.zeros(1, 3))
        tensor([[-0.1000,  0.0000,  0.1000]])
    """

    def __init__(self, temperature: float, alpha: float, prior: torch.Tensor):
        if not temperature > 0:
            raise ValueError(f"temperature must be > 0, got {temperature}")
        self.temperature = float(temperature)
        self.alpha = float(alpha)
        self.penalty = self.alpha * prior.float()  # built once; a broadcast subtract per step

    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> torch.FloatTensor:
        scores = scores / self.temperature
        if self.alpha == 0.0:
            return scores
        return scores - self.penalty.to(scores.device)
