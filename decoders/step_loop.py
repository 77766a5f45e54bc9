"""A token-by-token loop for decoders that need the model's hidden states (contrastive search, DoLa).

`generate` hands a logits processor the scores only; these methods choose each token from hidden
states (contrastive search compares each candidate's last hidden state with the context's, DoLa
contrasts the final layer with an earlier one), so they drive the forward pass themselves, as
Multi-Arm does. `StepLoop` is the shared part: called like `model.generate` (the runner's keywords),
one prompt at a time, greedy, with the KV cache; the prompt first goes to the streamer, then each new
token; it stops at an end-of-sequence token or after `max_new_tokens`. A subclass says how the first
forward pass runs (`start`) and how each token is chosen (`step`).

The runner's processors (its first-token clock, its cancel check) are applied to every step's scores
before the choice. With `record_k` set, the loop keeps what the token view shows (decoders/recording.py):
per step the candidates' probability at every stage and the method's own numbers (`values`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import torch

from .recording import is_passthrough, stage_name, summarise_step


@dataclass
class Choice:
    """One step's decision: the token, the stages' scores for the token view (name -> (1, vocab)), the
    method's own numbers for some candidates (column -> {token id: value}) and, for the next step, the
    logits and whatever else the method keeps."""

    token: int
    stages: list[tuple[str, torch.Tensor]] = field(default_factory=list)
    values: dict[str, dict[int, float]] = field(default_factory=dict)
    note: str = ""


class StepLoop:
    """`custom_generate` for a decoder with its own step: one prompt, greedy, KV cache, streamer, EOS."""

    can_record = True  # the token view reads `last_record` (arena/engines/local/generate.py)

    def __init__(self, model: Any, eos_token_id: int | list[int] | None = None):
        self.model = model
        eos = eos_token_id if eos_token_id is not None else getattr(model.generation_config, "eos_token_id", None)
        self.eos_ids = (
            set() if eos is None else ({int(e) for e in eos} if isinstance(eos, (list, tuple)) else {int(eos)})
        )
        self.record_k: int | None = None
        self.last_record: dict[str, Any] | None = None

    def stage_names(self, processors: list[Any]) -> list[str]:
        """The stages the token view shows for this method, "model" first."""
        return ["model", *(stage_name(p) for p in processors if not is_passthrough(p))]

    def start(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> Any:
        """The prompt's forward pass; returns the method's state for the first `step`."""
        raise NotImplementedError

    def step(self, state: Any, input_ids: torch.Tensor, processors: Any) -> Choice:
        """Choose the next token (and prepare the state for the step after)."""
        raise NotImplementedError

    def advance(self, state: Any, choice: Choice, attention_mask: torch.Tensor) -> None:
        """Feed the chosen token, where the method has not already run the model on it."""

    def __call__(
        self,
        input_ids: torch.LongTensor,
        attention_mask: torch.Tensor | None = None,
        logits_processor: Any = None,
        streamer: Any = None,
        max_new_tokens: int = 128,
        **_: Any,
    ) -> torch.Tensor:
        if input_ids.shape[0] != 1:
            raise ValueError(f"{type(self).__name__} runs one prompt at a time")
        processors = list(logits_processor or [])
        mask = attention_mask if attention_mask is not None else torch.ones_like(input_ids)
        steps: list[dict[str, Any]] = []
        if streamer is not None:
            streamer.put(input_ids[0].cpu())
        state = self.start(input_ids, mask)
        ids: torch.Tensor = input_ids
        for _step in range(int(max_new_tokens)):
            choice = self.step(state, ids, processors)
            if self.record_k is not None:
                steps.append(self.recorded_step(choice))
            token = torch.tensor([[choice.token]], device=ids.device)
            ids = torch.cat([ids, token], dim=1)
            mask = torch.cat([mask, torch.ones_like(token)], dim=1)
            if streamer is not None:
                streamer.put(token[0].cpu())
            if choice.token in self.eos_ids:
                break
            self.advance(state, choice, mask)
        if streamer is not None:
            streamer.end()
        if self.record_k is not None:
            names = steps[0]["stage_names"] if steps else self.stage_names(processors)
            for step in steps:
                step.pop("stage_names")
            self.last_record = {"kind": "sampling", "stages": names, "steps": steps, "k": self.record_k}
        return ids

    def recorded_step(self, choice: Choice) -> dict[str, Any]:
        stacked = torch.stack([scores[0].float() for _, scores in choice.stages])
        step = summarise_step(torch.softmax(stacked, dim=-1), choice.token, self.record_k or 10)
        step["stage_names"] = [name for name, _ in choice.stages]
        if choice.values:
            step["values"] = {col: [by_id.get(t) for t in step["ids"]] for col, by_id in choice.values.items()}
        if choice.note:
            step["note"] = choice.note
        return step


def staged(
    processors: list[Any], input_ids: torch.Tensor, scores: torch.Tensor, first: str = "model"
) -> tuple[torch.Tensor, list[tuple[str, torch.Tensor]]]:
    """The processors applied in order, as `LogitsProcessorList` does (the runner's clock and cancel
    check included), and the scores before and after each one that is a stage of the token view."""
    stages = [(first, scores)]
    for p in processors:
        scores = p(input_ids, scores)
        if not is_passthrough(p):
            stages.append((stage_name(p), scores))
    return scores, stages


def cache_of(out: Any) -> Any:
    """The KV cache a forward pass returned (`cache` in transformers 5, `past_key_values` before)."""
    return out.cache if getattr(out, "cache", None) is not None else out.past_key_values
