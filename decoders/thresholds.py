"""Dual threshold (article 003, §2.2): nucleus first, then a statistical cut inside the nucleus."""

from __future__ import annotations

import torch
from transformers import LogitsProcessor, TopPLogitsWarper


class DualThresholdLogitsWarper(LogitsProcessor):
    r"""Top-p, then keep only the tokens whose logit exceeds mean + std of the nucleus.

        N    = top-p nucleus of softmax(logits)            (transformers' `TopPLogitsWarper`)
        μ, σ = mean and population std (÷|N|) of {logits(w) : w ∈ N}
        keep = {w ∈ N : logits(w) > μ + σ}  ∪  {argmax logits}

    Everything else becomes -inf. The argmax is always kept: with one token in the nucleus
    σ = 0 and the strict `>` would otherwise empty the set. The cut is computed with masked
    sums (one pass per row, no loop over tokens). Apply temperature *before* this warper: the
    nucleus depends on T, the μ+σ cut does not (it is invariant to scaling).

    Example (logits 4, 3, 2, 1, 0; nucleus at p=0.95 is {4, 3, 2}: probabilities .636, .234,
    .086 sum to .957; μ = 3, σ = √(2/3) ≈ 0.816, so only the logit 4 > 3.816 survives):
        >>> DualThresholdLogitsWarper(top_p=0.95)(None, torch.tensor([[4.0, 3.0, 2.0, 1.0, 0.0]]))
        tensor([[4., -inf, -inf, -inf, -inf]])
    """

    def __init__(self, top_p: float = 0.95, filter_value: float = -float("inf")):
        self.nucleus = TopPLogitsWarper(top_p=top_p, filter_value=filter_value)
        self.top_p = float(top_p)
        self.filter_value = filter_value

    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> torch.FloatTensor:
        in_nucleus = self.nucleus(input_ids, scores) != self.filter_value
        n = in_nucleus.sum(dim=-1, keepdim=True).to(scores.dtype)
        kept = torch.where(in_nucleus, scores, torch.zeros_like(scores))
        mean = kept.sum(dim=-1, keepdim=True) / n
        var = (torch.where(in_nucleus, scores - mean, torch.zeros_like(scores)) ** 2).sum(dim=-1, keepdim=True) / n
        keep = in_nucleus & (scores > mean + var.sqrt())
        keep.scatter_(1, scores.argmax(dim=-1, keepdim=True), True)
        return scores.masked_fill(~keep, self.filter_value)
