"""Adaptive tilt (article 000, §5.1): an extra penalty on tokens the model keeps repeating.

The article's `AdaptiveTiltedSampler` counts the last `history_window` generated tokens with
`bincount` and subtracts `base_alpha·5` from every token seen more than `history_window // 2`
times. Here that is one logits processor, vectorized over the batch with `scatter_add_`, that
looks only at *generated* tokens (the prompt is excluded via `prompt_length`). It is meant to
run after `TiltedLogitsProcessor`, so the penalty is subtracted in the tilted (already /T)
space, as in the article.
"""

from __future__ import annotations

import torch
from transformers import LogitsProcessor


class RecentRepetitionPenaltyLogitsProcessor(LogitsProcessor):
    r"""Subtract a fixed penalty from tokens repeated too often in the recent generated window.

        c(w)      = #{ occurrences of w among the last `window` generated tokens }
        logits'(w) = logits(w) - penalty · [c(w) > window // 2]

    Only tokens at positions ≥ `prompt_length` count, so a prompt that repeats a word does
    not penalise it. Counting is a `scatter_add_` over a (batch, window) slice: no Python loop
    over tokens.

    Example (window 5, penalty 0.5, no prompt; token 1 appears 3 > 2 times):
        >>> p = RecentRepetitionPenaltyLogitsProcessor(window=5, penalty=0.5, prompt_length=0)
        >>> p(torch.tensor([[1, 1, 2, 1, 3]]), torch.zeros(1, 5))
        tensor([[ 0.0000, -0.5000,  0.0000,  0.0000,  0.0000]])
    """

    def __init__(self, window: int, penalty: float, prompt_length: int = 0):
        if window < 1:
            raise ValueError(f"window must be ≥ 1, got {window}")
        self.window = int(window)
        self.penalty = float(penalty)
        self.prompt_length = int(prompt_length)
        self.limit = self.window // 2  # "more than half the window", the article's integer division

    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> torch.FloatTensor:
        start = max(self.prompt_length, input_ids.shape[1] - self.window)
        recent = input_ids[:, start:]
        if recent.shape[1] <= self.limit or self.penalty == 0.0:
            return scores  # too few generated tokens for anything to pass the limit
        counts = torch.zeros(scores.shape, dtype=torch.int32, device=scores.device)
        counts.scatter_add_(1, recent.to(scores.device), torch.ones_like(recent, dtype=torch.int32, device=scores.device))
        return scores - self.penalty * (counts > self.limit).to(scores.dtype)
