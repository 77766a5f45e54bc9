"""Path verifiers: a score in (0, 1] for each arm's recent tokens.

The article's verifier (§3.2) is a trained 200M-parameter discriminator over hidden states,
attention entropy and token log-prob variance. It is not published, and this is **not** it.
`SignalVerifier` uses only the generating model's own signals, with hand-set weights:

* the variance of the chosen tokens' log-probabilities over the window (the article's
  "semantic jump" signal);
* the mean entropy of the model's next-token distributions over the window (the output
  distribution's entropy, standing in for the article's attention entropy, which SDPA
  attention does not expose).

Anything with the `Verifier` call signature can replace it.
"""

from __future__ import annotations

from typing import Protocol

import torch


class Verifier(Protocol):
    def __call__(self, logprobs: torch.Tensor, entropies: torch.Tensor, window: torch.Tensor) -> torch.Tensor:
        """Scores (arms,) in [0, 1] from per-token log-probs and entropies (arms, n) restricted to
        the boolean `window` (arms, n)."""
        ...


def masked_mean_var(values: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Row-wise mean and population variance of `values` where `mask` (0 for empty rows)."""
    m = mask.to(values.dtype)
    n = m.sum(dim=-1).clamp(min=1.0)
    mean = (values * m).sum(dim=-1) / n
    var = (((values - mean[:, None]) * m) ** 2).sum(dim=-1) / n
    return mean, var


class SignalVerifier:
    r"""score = exp(-(a · Var[log p(token)] + b · mean H)) over the window.

    1 for a window of equally likely tokens drawn from certain distributions; lower as the
    log-probs swing or the model grows unsure. Not a trained verifier (see the module doc).

    Example (one arm, log-probs -1, -1, entropies 0.5, 0.5: score = exp(-0.1·0.5)):
        >>> v = SignalVerifier(variance_weight=1.0, entropy_weight=0.1)
        >>> v(torch.tensor([[-1.0, -1.0]]), torch.tensor([[0.5, 0.5]]), torch.tensor([[True, True]]))
        tensor([0.9512])
    """

    def __init__(self, variance_weight: float = 0.5, entropy_weight: float = 0.15):
        self.variance_weight = float(variance_weight)
        self.entropy_weight = float(entropy_weight)

    def __call__(self, logprobs: torch.Tensor, entropies: torch.Tensor, window: torch.Tensor) -> torch.Tensor:
        _, var = masked_mean_var(logprobs, window)
        mean_entropy, _ = masked_mean_var(entropies, window)
        return torch.exp(-(self.variance_weight * var + self.entropy_weight * mean_entropy))

    def describe(self) -> str:
        return (
            f"signals of the generating model, not the article's trained 200M verifier: "
            f"exp(-({self.variance_weight}·logprob variance + {self.entropy_weight}·mean entropy))"
        )
