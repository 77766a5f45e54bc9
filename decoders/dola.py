"""DoLa, decoding by contrasting layers (Chuang et al. 2024, "DoLa: Decoding by Contrasting Layers Improves
Factuality in Large Language Models"), as transformers ran it up to 4.55 (`generate(dola_layers=...)`).

Each step reads the output head at the final layer N and at a few earlier ("premature") layers, picks the
premature layer whose next-token distribution differs most from the final one, and prefers the tokens
whose probability grew the most between the two:

    q_j     = softmax(head(h_j))                  j ∈ candidate layers; q_N = the model's distribution
    m_j     = (q_N + q_j) / 2
    d_j     = ½ · mean_w [KL(m_j ‖ q_N) + KL(m_j ‖ q_j)]      (transformers' form of the JS divergence)
    M       = argmax_j d_j
    keep    = {w : log q_N(w) ≥ max log q_N + log(0.1)}      (relative top, 10%)
    score(w) = log q_N(w) − log q_M(w) on keep, −inf elsewhere

then the processors (a repetition penalty of 1.2 is the recommended companion) and the argmax. As in
transformers, head(h_j) is the output head applied to layer j's hidden state without the final norm,
and the layers are, for N ≤ 40, "low" = 0, 2, … below N/2 and "high" = N/2, N/2+2, … below N, starting
at layer 2 instead of 0 when the head is tied to the input embeddings (layer 0 would be an identity).
`tests/test_search_reference.py` checks the tokens against 4.55's, recorded in `tests/data/search_refs/`.

Examples:
    >>> import torch
    >>> from transformers import LlamaConfig, LlamaForCausalLM
    >>> _ = torch.manual_seed(0)
    >>> config = LlamaConfig(vocab_size=32, hidden_size=16, intermediate_size=32, num_hidden_layers=6,
    ...                      num_attention_heads=2, num_key_value_heads=2, eos_token_id=None, pad_token_id=0)
    >>> model = LlamaForCausalLM(config).eval()
    >>> candidate_layers(6, tied=False, which="high"), candidate_layers(30, tied=True, which="low")
    ([3, 5], [2, 4, 6, 8, 10, 12, 14])
    >>> out = DoLaDecoding(model, "high")(torch.tensor([[1, 5, 9]]), max_new_tokens=5)
    >>> out.shape
    torch.Size([1, 8])

    By hand: a token the final layer likes (log q_N = −0.1) that an early layer already liked as much
    scores 0; one the early layer did not expect scores high; one below 10% of the top is cut:

    >>> final = torch.tensor([[0.9, 0.09, 0.01]]).log()
    >>> early = torch.tensor([[0.9, 0.01, 0.09]]).log()
    >>> dola_contrast(final, early)
    tensor([[0.0000, 2.1972,   -inf]])
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import torch

from .step_loop import Choice, StepLoop, cache_of, staged

RELATIVE_TOP = 0.1


def candidate_layers(num_layers: int, tied: bool, which: str) -> list[int]:
    """The premature layers transformers contrasted for `dola_layers="low"` or `"high"`."""
    start = 0 if not tied else (2 if num_layers > 2 else (1 if num_layers == 2 else 0))
    if which == "low":
        if start == num_layers // 2:
            return [start]
        return list(range(start, num_layers // 2 if num_layers <= 40 else 20, 2))
    if which == "high":
        return list(range(num_layers // 2 if num_layers <= 40 else num_layers - 20, num_layers, 2))
    raise ValueError(f"dola_layers must be 'low' or 'high', got {which!r}")


def js_divergences(final: torch.Tensor, premature: torch.Tensor) -> torch.Tensor:
    """d_j for each premature layer (layers, batch, vocab) against the final layer (batch, vocab),
    averaged over the batch: shape (layers,)."""
    log_final = torch.log_softmax(final, dim=-1)[None]
    log_early = torch.log_softmax(premature, dim=-1)
    mean = 0.5 * (log_final.exp() + log_early.exp())
    log_mean = mean.clamp_min(torch.finfo(mean.dtype).tiny).log()
    kl_final = torch.where(mean > 0, mean * (log_mean - log_final), 0.0).mean(-1)
    kl_early = torch.where(mean > 0, mean * (log_mean - log_early), 0.0).mean(-1)
    return (0.5 * (kl_final + kl_early)).mean(-1)


def dola_contrast(final: torch.Tensor, premature: torch.Tensor) -> torch.Tensor:
    """log q_N − log q_M on the tokens within 10% of the final layer's top probability, −inf elsewhere."""
    log_final = torch.log_softmax(final, dim=-1)
    log_early = torch.log_softmax(premature, dim=-1)
    cut = log_final.amax(dim=-1, keepdim=True) + math.log(RELATIVE_TOP)
    return torch.where(log_final < cut, -float("inf"), log_final - log_early)


@dataclass
class _State:
    out: Any  # the last forward pass's output (logits, hidden states, cache)


class DoLaDecoding(StepLoop):
    """`custom_generate` for the DoLa decoder (see the module's docstring)."""

    def __init__(self, model: Any, dola_layers: str, eos_token_id: int | list[int] | None = None):
        super().__init__(model, eos_token_id)
        config = model.config.get_text_config()
        self.layers = candidate_layers(config.num_hidden_layers, bool(config.tie_word_embeddings), dola_layers)
        self.head = model.get_output_embeddings()
        if self.head is None:
            raise ValueError("DoLa needs a model with an output head")

    def start(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> _State:
        return _State(self.forward(input_ids, attention_mask, None))

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor, cache: Any) -> Any:
        return self.model(
            input_ids=input_ids,
            attention_mask=attention_mask,
            cache=cache,
            use_cache=True,
            output_hidden_states=True,
        )

    def step(self, state: _State, input_ids: torch.Tensor, processors: Any) -> Choice:
        final = state.out.logits[:, -1, :].float()
        # One head call over all candidate layers: the head is the largest matrix and a step reads it
        # once rather than once per layer (its rows are each layer's alone, as in the per-layer form).
        stacked = torch.stack([state.out.hidden_states[j][:, -1, :] for j in self.layers])
        premature = self.head(stacked).float()
        layer = 0 if len(self.layers) == 1 else int(js_divergences(final, premature).argmax())
        contrast = dola_contrast(final, premature[layer])
        scores, stages = staged(processors, input_ids, contrast, first="DoLa contrast")
        token = int(scores[0].argmax())
        if self.record_k is None:
            return Choice(token)
        shown = [("model", final), ("premature layer", premature[layer]), *stages]
        return Choice(token, stages=shown, note=f"premature layer {self.layers[layer]} (largest divergence)")

    def advance(self, state: _State, choice: Choice, attention_mask: torch.Tensor) -> None:
        token = torch.tensor([[choice.token]], device=attention_mask.device)
        state.out = self.forward(token, attention_mask, cache_of(state.out))
