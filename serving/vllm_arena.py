"""Decoding Arena's logits processors for a vLLM server (vLLM >= 0.32's batch-level interface).

Runs inside the vLLM server's own environment, never in the app's:

    PYTHONPATH=/path/to/this/repo vllm serve MODEL --logits-processors \
        serving.vllm_arena:ArenaTilt serving.vllm_arena:ArenaNoRepeatNGram

Each request switches a processor on through `vllm_xargs` (`SamplingParams.extra_args`):

* ``ArenaTilt`` — TS-Tilted: ``arena_tilt_alpha`` (λ > 0), ``arena_tilt_prior`` (``wordfreq`` or
  ``common-tokens``). vLLM applies custom processors *before* it divides by the request's
  temperature T, so the processor subtracts λ·T·S and vLLM's division gives
  ``(logits − λ·T·S)/T = logits/T − λ·S``: our transformers processor, up to float rounding; top-k
  and top-p then act on the tilted distribution, as in transformers. λ = 0 (or no xarg) leaves the
  request untouched, so TS-Tilted(λ=0) *is* TS-Temp on the engine. S is the same vector the app
  builds (`decoders.priors.build_prior`, same tokenizer, same code), cached on disk under
  ``ARENA_CACHE_DIR`` (default ``~/.cache/decoding-arena``).
* ``ArenaNoRepeatNGram`` — ``arena_no_repeat_ngram_size`` (n > 0): transformers'
  ``no_repeat_ngram_size``: a token that would complete an n-gram already present in prompt +
  output gets −inf. vLLM's sampling API has no such parameter.

This module needs `vllm` (the server's venv), `torch`, and for the wordfreq prior `wordfreq` and
`jieba` plus this repository on the path (for `decoders.priors`): the PYTHONPATH above, through which
vLLM finds this module in the first place and which its engine processes inherit, so the module
adds nothing to `sys.path` itself.
"""

from __future__ import annotations

import threading
from pathlib import Path

import torch
from vllm import SamplingParams
from vllm.v1.sample.logits_processor import BatchUpdate, LogitsProcessor
from vllm.v1.sample.logits_processor.builtin import process_dict_updates

XARG_ALPHA = "arena_tilt_alpha"
XARG_PRIOR = "arena_tilt_prior"
XARG_NGRAM = "arena_no_repeat_ngram_size"
PRIORS = ("wordfreq", "common-tokens")  # decoders.priors.PRIORS, repeated so validation needs no import


def _xargs(params: SamplingParams) -> dict:
    return dict(params.extra_args or {})


def _number(xargs: dict, key: str, kind=float):
    value = xargs[key]
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise ValueError(f"{key} must be a number, got {value!r}")
    try:
        number = kind(value)
    except (TypeError, ValueError):
        raise ValueError(f"{key} must be a number, got {value!r}") from None
    if number != number or number in (float("inf"), float("-inf")):
        raise ValueError(f"{key} must be finite, got {value!r}")
    return number


class ArenaTilt(LogitsProcessor):
    """logits − λ·T·S before vLLM's temperature: exactly TS-Tilted's ``logits/T − λS``."""

    def __init__(self, vllm_config, device: torch.device, is_pin_memory: bool):
        self.device = device
        self.tokenizer_source = vllm_config.model_config.tokenizer
        self.rows: dict[int, tuple[str, float]] = {}  # batch row -> (prior, λ·T)
        self._priors: dict[tuple[str, int], torch.Tensor] = {}
        self._tokenizer = None
        self._lock = threading.Lock()

    @classmethod
    def validate_params(cls, params: SamplingParams) -> None:
        xargs = _xargs(params)
        if XARG_ALPHA not in xargs:
            return
        alpha = _number(xargs, XARG_ALPHA)
        if alpha < 0:
            raise ValueError(f"{XARG_ALPHA} must be >= 0, got {alpha}")
        prior = xargs.get(XARG_PRIOR, "wordfreq")
        if prior not in PRIORS:
            raise ValueError(f"{XARG_PRIOR} must be one of {', '.join(PRIORS)}, got {prior!r}")
        if alpha > 0 and not params.temperature > 0:
            raise ValueError("the tilt needs a temperature > 0")

    def is_argmax_invariant(self) -> bool:
        return False  # the tilt changes which token is most probable

    def _new(self, params: SamplingParams, _prompt, _output):
        xargs = _xargs(params)
        if XARG_ALPHA not in xargs:
            return None
        alpha = float(xargs[XARG_ALPHA])
        if alpha == 0.0:
            return None  # λ = 0: untouched, i.e. plain temperature sampling
        return (str(xargs.get(XARG_PRIOR, "wordfreq")), alpha * float(params.temperature))

    def update_state(self, batch_update: BatchUpdate | None) -> None:
        process_dict_updates(self.rows, batch_update, self._new)

    def prior(self, name: str, width: int) -> torch.Tensor:
        key = (name, width)
        with self._lock:
            if key not in self._priors:
                # Imported here, not at the top: validating a request must work without the app's code.
                from transformers import AutoTokenizer

                from arena.settings import current as current_settings  # the app's ARENA_CACHE_DIR rules
                from decoders.priors import build_prior  # the app's own code: the same S

                if self._tokenizer is None:
                    self._tokenizer = AutoTokenizer.from_pretrained(self.tokenizer_source)
                cache_dir = current_settings().cache_dir or str(Path.home() / ".cache" / "decoding-arena")
                vector = build_prior(self._tokenizer, name, width, "cpu", cache_dir)
                self._priors[key] = vector.to(self.device, torch.float32)
            return self._priors[key]

    def apply(self, logits: torch.Tensor) -> torch.Tensor:
        if not self.rows:
            return logits
        groups: dict[str, list[tuple[int, float]]] = {}
        for row, (name, coef) in self.rows.items():
            groups.setdefault(name, []).append((row, coef))
        for name, entries in groups.items():
            prior = self.prior(name, logits.shape[-1])
            rows = torch.tensor([r for r, _ in entries], device=logits.device)
            coefs = torch.tensor([c for _, c in entries], dtype=logits.dtype, device=logits.device)
            logits[rows] = logits[rows] - coefs[:, None] * prior[None, :].to(logits.dtype)
        return logits


class _NGramState:
    """transformers' no_repeat_ngram rule over prompt + output, updated as tokens arrive."""

    def __init__(self, n: int, prompt: list[int], output: list[int]):
        self.n = n
        self.prompt = list(prompt)
        self.output = output  # vLLM's running list (a reference): it grows as tokens are sampled
        self.seen: dict[tuple[int, ...], set[int]] = {}
        self.done = 0  # tokens of prompt + output whose n-gram (ending there) is recorded

    def banned(self) -> list[int]:
        tokens = self.prompt + self.output
        n = self.n
        for end in range(max(self.done, n - 1), len(tokens)):
            self.seen.setdefault(tuple(tokens[end - n + 1 : end]), set()).add(tokens[end])
        self.done = len(tokens)
        if len(tokens) + 1 < n:
            return []
        return sorted(self.seen.get(tuple(tokens[len(tokens) - n + 1 :]), ()))


class ArenaNoRepeatNGram(LogitsProcessor):
    """No token may complete an n-gram that already occurs in prompt + output (transformers' rule)."""

    def __init__(self, vllm_config, device: torch.device, is_pin_memory: bool):
        self.rows: dict[int, _NGramState] = {}

    @classmethod
    def validate_params(cls, params: SamplingParams) -> None:
        xargs = _xargs(params)
        if XARG_NGRAM in xargs:
            n = _number(xargs, XARG_NGRAM, int)
            if n < 0:
                raise ValueError(f"{XARG_NGRAM} must be >= 0, got {n}")

    def is_argmax_invariant(self) -> bool:
        return False

    def _new(self, params: SamplingParams, prompt, output):
        xargs = _xargs(params)
        n = int(xargs.get(XARG_NGRAM, 0) or 0)
        if n <= 0:
            return None
        return _NGramState(n, prompt or [], output)

    def update_state(self, batch_update: BatchUpdate | None) -> None:
        process_dict_updates(self.rows, batch_update, self._new)

    def apply(self, logits: torch.Tensor) -> torch.Tensor:
        for row, state in self.rows.items():
            banned = state.banned()
            if banned:
                logits[row, torch.tensor(banned, device=logits.device)] = float("-inf")
        return logits
