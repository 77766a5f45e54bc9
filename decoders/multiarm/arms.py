"""The arms and a sampler that applies a different configuration to each row of a batch."""

from __future__ import annotations

from dataclasses import dataclass

import torch


@dataclass(frozen=True)
class ArmConfig:
    """One arm's sampling configuration. top_k=0 and top_p=1.0 mean "off"."""

    name: str
    temperature: float
    top_k: int = 0
    top_p: float = 1.0


# The article's three arms (§3.1). The Verifier arm is "T=0.1 + greedy": sampling at T=0.1 is
# near-greedy without being a separate code path.
DEFAULT_ARMS: tuple[ArmConfig, ...] = (
    ArmConfig("Explorer", 0.95, 0, 0.98),
    ArmConfig("Stabilizer", 0.4, 10, 1.0),
    ArmConfig("Verifier", 0.1, 0, 1.0),
)


class RowwiseSampler:
    r"""Temperature, top-k and top-p with one setting per batch row, then one multinomial draw.

        z_r = logits_r / T_r
        drop w if rank_r(w) ≥ k_r                              (k_r = 0: no top-k)
        drop w if Σ_{v ranked above w} softmax(z_r)(v) ≥ p_r   (the top token always stays)

    Applied in that order, like transformers' Temperature → TopK → TopP warpers (the tests
    check the masks agree with them row by row), but for all rows in one sort.

    Example (two rows; top-k=1 on the second leaves only its maximum):
        >>> s = RowwiseSampler(torch.tensor([1.0, 1.0]), torch.tensor([0, 1]), torch.tensor([1.0, 1.0]))
        >>> s.warp(torch.tensor([[0.0, 1.0], [0.0, 1.0]]))
        tensor([[0., 1.],
                [-inf, 1.]])
    """

    def __init__(self, temperature: torch.Tensor, top_k: torch.Tensor, top_p: torch.Tensor):
        self.temperature = temperature.float()
        self.top_k = top_k.long()
        self.top_p = top_p.float()

    @classmethod
    def for_arms(
        cls, arms: tuple[ArmConfig, ...] | list[ArmConfig], device: torch.device | str = "cpu"
    ) -> RowwiseSampler:
        return cls(
            torch.tensor([a.temperature for a in arms], device=device),
            torch.tensor([a.top_k for a in arms], device=device),
            torch.tensor([a.top_p for a in arms], device=device),
        )

    def warp(self, logits: torch.Tensor, temperature: torch.Tensor | None = None) -> torch.Tensor:
        """Warped logits (-inf where cut); `temperature` overrides the rows' own (re-exploration)."""
        t = (self.temperature if temperature is None else temperature).to(logits.device)
        z = logits.float() / t[:, None]
        sorted_z, order = torch.sort(z, dim=-1, descending=True)
        rank = torch.arange(z.shape[-1], device=z.device)[None, :]
        k = self.top_k.to(z.device)[:, None]
        cut_sorted = (k > 0) & (rank >= k)
        sorted_z = sorted_z.masked_fill(cut_sorted, -float("inf"))
        probs = sorted_z.softmax(dim=-1)
        mass_above = probs.cumsum(dim=-1) - probs
        cut_sorted |= mass_above >= self.top_p.to(z.device)[:, None]
        cut_sorted[:, 0] = False
        cut = torch.zeros_like(cut_sorted).scatter(1, order, cut_sorted)
        return z.masked_fill(cut, -float("inf"))

    def sample(self, logits: torch.Tensor, temperature: torch.Tensor | None = None) -> torch.Tensor:
        """One token id per row, shape (rows,)."""
        return torch.multinomial(self.warp(logits, temperature).softmax(dim=-1), 1).squeeze(1)
