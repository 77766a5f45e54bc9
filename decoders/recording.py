"""Why each token was chosen: what every logits processor did to the candidates, recorded during a run.

`generate` builds its processor list itself (the plan's processors, then its own temperature,
top-k, top-p and min-p warpers) inside the call, so the only place the whole list exists is
`model._get_logits_processor`'s return value. `recording(model)` wraps that method on the one model
instance for the duration of one `generate`: the list it returns is replaced by one `Recorder`
that runs the same processors in the same order on the same tensors and, between them, keeps the
top-k candidates of each stage. The tokens are therefore those of the run itself, not of a re-run.

Per step the recorder keeps, for the first row (Compare generates one sequence):

* `stages`: "model" (the raw next-token distribution), then one name per processor;
* `ids`: the union of every stage's top-k token ids and the token finally chosen;
* `probs[stage][i]`: softmax of that stage's scores at `ids[i]` (the last stage is what `generate`
  samples from, or takes the argmax of);
* `chosen`: the token `generate` appended, read from the next step's `input_ids` (or the output).

With beam search (`num_beams > 1`) a step keeps the running beams instead: their new tokens so far,
their cumulative log-probabilities (the sum of the processed log-probabilities of their tokens, what
`generate` ranks them by before any length penalty).

Cost: nothing unless asked. When recording, one softmax and one top-k per stage per step, and the
previous step's stage probabilities are kept (stages x vocabulary floats) until its token is known.

Examples:
    >>> import torch
    >>> from transformers import LlamaConfig, LlamaForCausalLM
    >>> _ = torch.manual_seed(0)
    >>> config = LlamaConfig(vocab_size=32, hidden_size=16, intermediate_size=32, num_hidden_layers=2,
    ...                      num_attention_heads=2, num_key_value_heads=2, eos_token_id=None, pad_token_id=0)
    >>> model = LlamaForCausalLM(config).eval()
    >>> prompt = torch.tensor([[1, 5, 9]])
    >>> with recording(model, k=5) as rec:
    ...     out = model.generate(prompt, do_sample=True, temperature=0.7, top_k=8, max_new_tokens=4)
    >>> record = rec.finish(out, prompt.shape[1])
    >>> record["stages"]
    ['model', 'temperature 0.7', 'top-k 8']
    >>> [s["chosen"] for s in record["steps"]] == out[0, 3:].tolist()
    True
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import torch
from transformers import LogitsProcessor, LogitsProcessorList

from common.errors import UserError

TOP_K = 10
# Attributes that name a processor's setting, in the order they are shown ("top-k 50").
SETTING_NAMES = {
    "temperature": "temperature",
    "top_k": "top-k",
    "top_p": "top-p",
    "min_p": "min-p",
    "mass": "typical-p",
    "alpha": "λ",
    "penalty": "penalty",
}
# Short names for the processors people will meet in Compare.
KNOWN = {
    "TiltedLogitsProcessor": "tilt",
    "TemperatureLogitsWarper": "temperature",
    "TopKLogitsWarper": "top-k",
    "TopPLogitsWarper": "top-p",
    "MinPLogitsWarper": "min-p",
    "TypicalLogitsWarper": "typical-p",
    "RepetitionPenaltyLogitsProcessor": "repetition penalty",
    "NoRepeatNGramLogitsProcessor": "no-repeat n-gram",
    "EpsilonLogitsWarper": "ε-cutoff",
    "EtaLogitsWarper": "η-cutoff",
    "TopHLogitsWarper": "top-H",
}


def stage_name(processor: Any) -> str:
    """A processor's name as a person reads it: "tilt λ=0.15", "temperature 0.8", "top-k 50". A processor
    may name itself with a `stage_label()` method (decoders/samplers.py)."""
    label = getattr(processor, "stage_label", None)
    if callable(label):
        return str(label())
    cls = type(processor).__name__
    if cls in KNOWN:
        base = KNOWN[cls]
        if cls == "TiltedLogitsProcessor":
            return f"tilt λ={processor.alpha:g}"
        for attr in ("temperature", "top_k", "top_p", "min_p", "mass", "penalty", "ngram_size", "epsilon", "top_h"):
            value = getattr(processor, attr, None)
            if isinstance(value, torch.Tensor) and value.numel() == 1:
                value = float(value)
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                return f"{base} {value:g}"
        return base
    for suffix in ("LogitsWarper", "LogitsProcessor", "Processor"):
        if cls.endswith(suffix) and cls != suffix:
            return cls[: -len(suffix)]
    return cls


def is_passthrough(processor: Any) -> bool:
    """Processors that only watch (the runner's clock, its cancel check) are not stages."""
    return bool(getattr(processor, "passthrough", False))


class Recorder(LogitsProcessor):
    """Runs `processors` in order (exactly as `LogitsProcessorList` would) and notes each stage."""

    def __init__(self, k: int = TOP_K) -> None:
        self.k = k
        self.processors: list[Any] = []
        self.beams = False
        self.stages: list[str] = ["model"]
        self.steps: list[dict[str, Any]] = []
        self.pending: torch.Tensor | None = None  # last step's stage probabilities, until its token is known
        self.pending_ids: torch.Tensor | None = None  # that step's top-k union (row 0)
        self.pending_rows: list[list[int]] = []  # beams: that step's running sequences (new tokens)
        self.prompt_length = 0

    def bind(self, processors: list[Any], beams: bool, prompt_length: int) -> None:
        self.processors = list(processors)
        self.beams = beams
        self.prompt_length = prompt_length
        self.stages = ["model"] + [stage_name(p) for p in self.processors if not is_passthrough(p)]

    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> torch.Tensor:
        self.settle(input_ids)
        kept = [scores[:1] if not self.beams else scores]
        for p in self.processors:
            scores = p(input_ids, scores)  # as LogitsProcessorList does for a decoder-only model
            if not is_passthrough(p):
                kept.append(scores[:1] if not self.beams else scores)
        with torch.no_grad():
            probs = torch.softmax(torch.stack([s.float() for s in kept]), dim=-1)  # (stages, rows, vocab)
        if self.beams:
            self.pending = probs[-1]  # (beams, vocab): what the beams' scores add
            self.pending_rows = [row[self.prompt_length :] for row in input_ids.tolist()]
        else:
            self.pending = probs[:, 0]  # (stages, vocab)
            top = torch.topk(self.pending, min(self.k, self.pending.shape[-1]), dim=-1).indices
            self.pending_ids = top.reshape(-1)
        return scores

    def settle(self, input_ids: torch.Tensor) -> None:
        """The previous step's token (sampling) or the beams' parents (beam search) are known now."""
        if self.pending is None:
            return
        if self.beams:
            self.settle_beams(input_ids)
        else:
            chosen = int(input_ids[0, -1])
            self.settle_token(chosen)
        self.pending = None

    def settle_token(self, chosen: int) -> None:
        assert self.pending is not None and self.pending_ids is not None
        self.steps.append(step_table(self.pending, self.pending_ids, chosen))

    def settle_beams(self, input_ids: torch.Tensor) -> None:
        """Each beam now running continues one of the previous step's beams: score = its parent's score
        plus the parent's processed log-probability of the new token."""
        assert self.pending is not None
        previous = self.steps[-1]["beams"] if self.steps and "beams" in self.steps[-1] else None
        rows = self.pending_rows
        parent_scores = (
            [b["score"] for b in previous] if previous is not None else [0.0] + [float("-inf")] * (len(rows) - 1)
        )
        if previous is None:
            self.steps.append(self.beam_step(rows, parent_scores))
        logp = torch.log(self.pending.clamp_min(1e-45))
        now = [row[self.prompt_length :] for row in input_ids.tolist()]
        scores = []
        for seq in now:
            best = float("-inf")
            for p, parent in enumerate(rows):
                if parent == seq[:-1]:
                    best = max(best, parent_scores[p] + float(logp[p, seq[-1]]))
            scores.append(best)
        self.steps.append(self.beam_step(now, scores))
        self.pending_rows = now

    def beam_step(self, rows: list[list[int]], scores: list[float]) -> dict[str, Any]:
        return {"beams": [{"tokens": list(r), "score": s} for r, s in zip(rows, scores)]}

    def finish(self, output: torch.Tensor, prompt_length: int) -> dict[str, Any]:
        """The recording as plain data, cut to the tokens the output kept (generate may run one step
        it then undoes)."""
        n = int(output.shape[1]) - prompt_length
        if self.beams:
            return self.finish_beams(output, prompt_length)
        if self.pending is not None and len(self.steps) < n:
            self.settle_token(int(output[0, prompt_length + len(self.steps)]))
        self.pending = None
        steps = self.steps[:n]
        for i, step in enumerate(steps):
            if step["chosen"] != int(output[0, prompt_length + i]):  # cannot happen; say so if it does
                raise RuntimeError(f"recorded token {step['chosen']} at step {i} is not the output's")
        return {"kind": "sampling", "stages": list(self.stages), "steps": steps, "k": self.k}

    def finish_beams(self, output: torch.Tensor, prompt_length: int) -> dict[str, Any]:
        if self.pending is not None and not self.steps:
            self.steps.append(self.beam_step(self.pending_rows, [0.0] + [float("-inf")] * (len(self.pending_rows) - 1)))
        self.pending = None
        return {
            "kind": "beams",
            "stages": list(self.stages),
            "steps": [s for s in self.steps if "beams" in s],
            "output": [int(t) for t in output[0, prompt_length:].tolist()],
            "k": self.k,
        }


def step_table(probs: torch.Tensor, top_ids: torch.Tensor, chosen: int) -> dict[str, Any]:
    """One step as plain data: the candidates (`top_ids` and the chosen token), their probability at
    every stage (`probs`: stages x vocabulary), ordered by the last stage's probability (what was
    sampled from), then the first's."""
    ids = torch.unique(torch.cat([top_ids, torch.tensor([chosen], device=top_ids.device)]))
    picked = probs[:, ids]
    order = sorted(range(len(ids)), key=lambda i: (-float(picked[-1, i]), -float(picked[0, i])))
    return {"ids": [int(ids[i]) for i in order], "probs": picked[:, order].tolist(), "chosen": chosen}


def summarise_step(probs: torch.Tensor, chosen: int, k: int = TOP_K) -> dict[str, Any]:
    """`step_table` for a loop that records itself (decoders/step_loop.py): every stage's top-k."""
    top = torch.topk(probs, min(k, probs.shape[-1]), dim=-1).indices.reshape(-1)
    return step_table(probs, top, chosen)


@contextmanager
def recording(model: Any, k: int = TOP_K) -> Iterator[Recorder]:
    """Record the next `model.generate` calls (one is meant) on this model instance; the caller holds
    the model for itself (the runner's lock). `Recorder.finish(output, prompt_length)` gives the data."""
    original = getattr(model, "_get_logits_processor", None)
    if original is None:
        raise UserError("recording needs transformers' generate (this model has no processor list to watch)")
    rec = Recorder(k)

    def watched(*args: Any, **kwargs: Any) -> LogitsProcessorList:
        processors = original(*args, **kwargs)
        config = kwargs.get("generation_config", args[0] if args else None)
        beams = bool(config is not None and (config.num_beams or 1) > 1)
        length = kwargs.get("input_ids_seq_length", args[1] if len(args) > 1 else 0) or 0
        rec.bind(list(processors), beams, int(length))
        return LogitsProcessorList([rec])

    model._get_logits_processor = watched  # an instance attribute, over the class's method
    try:
        yield rec
    finally:
        del model._get_logits_processor
