"""Contrastive search (Su et al. 2022, "A Contrastive Framework for Neural Text Generation").

At each step the k most likely tokens are candidates; each is scored by its probability minus how
much it would repeat what is already there, measured in the model's own representation:

    V            = the k most likely tokens of p = softmax(processed logits)
    s(v)         = max_{j ≤ t} cos(h_v, h_j)       h_v: the last hidden state after feeding v,
                                                   h_j: the last hidden states of the prompt and the output
    x_{t+1}      = argmax_{v ∈ V} (1 − α) · p(v) − α · s(v)

α = 0 is greedy decoding. The k candidates go through the model in one batched forward pass on a copy
of the KV cache per candidate (`DynamicCache.batch_repeat_interleave`); the chosen one's cache row,
logits and hidden state are kept (`batch_select_indices`), so each step costs one forward of k rows
and the next step needs no other. transformers had this as `generate(penalty_alpha=α, top_k=k)` up to
4.55 (it now lives in a hub repository this app cannot download); `tests/test_search_reference.py`
checks that this loop gives the same tokens as 4.55 did, recorded in `tests/data/search_refs/`.

Examples:
    >>> import torch
    >>> from transformers import LlamaConfig, LlamaForCausalLM
    >>> _ = torch.manual_seed(0)
    >>> config = LlamaConfig(vocab_size=32, hidden_size=16, intermediate_size=32, num_hidden_layers=2,
    ...                      num_attention_heads=2, num_key_value_heads=2, eos_token_id=None, pad_token_id=0)
    >>> model = LlamaForCausalLM(config).eval()
    >>> prompt = torch.tensor([[1, 5, 9]])

    With α = 0 the candidates' similarity does not count: greedy decoding.

    >>> search = ContrastiveSearch(model, penalty_alpha=0.0, top_k=4)
    >>> torch.equal(search(prompt, max_new_tokens=6), model.generate(prompt, do_sample=False, max_new_tokens=6))
    True

    By hand: candidates with p = .5 and .4, the first a near copy of the context (cos .9), the second
    not (cos .1); with α = 0.5 the scores are .25 − .45 = −.2 and .2 − .05 = .15: the second wins.

    >>> contrastive_scores(torch.tensor([0.5, 0.4]), torch.tensor([0.9, 0.1]), 0.5)
    tensor([-0.2000,  0.1500])
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch

from .step_loop import Choice, StepLoop, cache_of, staged


def contrastive_scores(probs: torch.Tensor, similarity: torch.Tensor, alpha: float) -> torch.Tensor:
    """(1 − α)·p(v) − α·s(v), the quantity contrastive search maximises."""
    return (1.0 - alpha) * probs - alpha * similarity


def max_cosine(context: torch.Tensor, candidates: torch.Tensor) -> torch.Tensor:
    """s(v) for each candidate: the largest cosine similarity between its hidden state (k, H) and the
    context's (S, H)."""
    c = context / context.norm(dim=-1, keepdim=True)
    v = candidates / candidates.norm(dim=-1, keepdim=True)
    return (v @ c.T).amax(dim=-1)


@dataclass
class _State:
    logits: torch.Tensor  # (1, vocab): the next token's logits
    context: torch.Tensor  # (S, H): last hidden states of every token so far
    cache: Any


class ContrastiveSearch(StepLoop):
    """`custom_generate` for the Contrastive decoder (see the module's docstring)."""

    def __init__(self, model: Any, penalty_alpha: float, top_k: int, eos_token_id: int | list[int] | None = None):
        super().__init__(model, eos_token_id)
        if not 0.0 <= penalty_alpha <= 1.0 or top_k < 1:
            raise ValueError(f"need 0 ≤ α ≤ 1 and k ≥ 1, got α={penalty_alpha}, k={top_k}")
        self.alpha, self.top_k = float(penalty_alpha), int(top_k)

    def start(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> _State:
        out = self.model(input_ids=input_ids, attention_mask=attention_mask, use_cache=True, output_hidden_states=True)
        logits = out.logits[:, -1, :].float()
        return _State(logits, out.hidden_states[-1][0], cache_of(out))

    def step(self, state: _State, input_ids: torch.Tensor, processors: Any) -> Choice:
        scores, stages = staged(processors, input_ids, state.logits)
        probs = torch.softmax(scores, dim=-1)
        k = min(self.top_k, probs.shape[-1])
        top_probs, top_ids = torch.topk(probs, k, dim=-1)
        state.cache.batch_repeat_interleave(k)
        mask = torch.ones(k, input_ids.shape[1] + 1, dtype=torch.long, device=input_ids.device)
        out = self.model(
            input_ids=top_ids.view(-1, 1),
            attention_mask=mask,
            cache=state.cache,
            use_cache=True,
            output_hidden_states=True,
        )
        hidden = out.hidden_states[-1][:, -1, :]  # (k, H)
        similarity = max_cosine(state.context, hidden)
        score = contrastive_scores(top_probs[0], similarity, self.alpha)
        best = int(score.argmax())
        state.cache = cache_of(out)
        state.cache.batch_select_indices(torch.tensor([best], device=input_ids.device))
        state.logits = out.logits[best : best + 1, -1, :].float()
        state.context = torch.cat([state.context, hidden[best : best + 1]], dim=0)
        token = int(top_ids[0, best])
        if self.record_k is None:
            return Choice(token)
        candidates = [int(t) for t in top_ids[0]]
        picked = torch.full_like(scores, -float("inf"))
        picked[0, token] = 0.0
        return Choice(
            token,
            stages=[*stages, (f"contrastive α={self.alpha:g}, k={self.top_k}", picked)],
            values={
                "max cos similarity": dict(zip(candidates, similarity.tolist())),
                "contrastive score": dict(zip(candidates, score.tolist())),
            },
        )
