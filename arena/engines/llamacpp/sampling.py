"""Choosing one token from llama.cpp's logits, the plan's way (translate.py): hooks, then native samplers.

Per step: the plan's hooks (transformers processors) run on the step's logits as a torch view of
llama.cpp's buffer, with the sequence so far; the result fills a candidate array (id, logit, p)
that this module owns; the native samplers are applied to it one after another with
`llama_sampler_apply`, in the plan's order, as a llama.cpp sampler chain would; then greedy (the
first highest logit, as argmax) or `dist`, llama.cpp's seeded draw. Every native sampler is told
the chosen token (`llama_sampler_accept`: the repetition penalty counts tokens that way), and
before the first step every prompt token, since transformers' penalty counts the prompt too.

Seeds: `dist` takes a 32-bit seed; a request's seed S (up to 2^63 - 1) becomes S mod (2^32 - 1),
which never hits 2^32 - 1, llama.cpp's "pick a random seed" value. The same seed gives the same draw.

With `record`, each step keeps what every stage left (recording.py's format, the token view's).
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable
from typing import Any

import numpy as np
import torch

from .record import TOKEN_DATA, SamplingRecord
from .runtime import Runtime
from .translate import EnginePlan, Stage, bias_values

RANDOM_SEED = 0xFFFFFFFF  # llama.cpp's LLAMA_DEFAULT_SEED: a fresh random seed


def sampler_seed(seed: int | None) -> int:
    return RANDOM_SEED if seed is None else int(seed) % RANDOM_SEED


def logit_bias(rt: Runtime, bias: torch.Tensor) -> Any:
    lib = rt.lib
    pairs = bias_values(bias[: rt.n_vocab])
    array = (lib.llama_logit_bias * len(pairs))(*[lib.llama_logit_bias(t, b) for t, b in pairs])
    return lib.llama_sampler_init_logit_bias(rt.n_vocab, len(pairs), array)


# llama.cpp's sampler for each kind of native spec translate.py makes, from (runtime, the spec's
# arguments, the penalty window: prompt and every new token, the run's 32-bit seed for a sampler
# that draws). One entry per kind.
NATIVE: dict[str, Callable[[Runtime, tuple[Any, ...], int, int], Any]] = {
    "temp": lambda rt, a, window, seed: rt.lib.llama_sampler_init_temp(a[0]),
    "top_k": lambda rt, a, window, seed: rt.lib.llama_sampler_init_top_k(a[0]),
    "top_p": lambda rt, a, window, seed: rt.lib.llama_sampler_init_top_p(a[0], 1),
    "min_p": lambda rt, a, window, seed: rt.lib.llama_sampler_init_min_p(a[0], 1),
    "typical": lambda rt, a, window, seed: rt.lib.llama_sampler_init_typical(a[0], 1),
    # the repetition penalty alone (frequency and presence 0)
    "penalties": lambda rt, a, window, seed: rt.lib.llama_sampler_init_penalties(rt.n_vocab, window, a[0], 0.0, 0.0),
    "logit_bias": lambda rt, a, window, seed: logit_bias(rt, a[0]),
}


def native_sampler(rt: Runtime, stage: Stage, penalty_window: int, seed: int) -> Any:
    """llama.cpp's sampler for a stage's native spec."""
    kind, *args = stage.native or ("",)
    if kind not in NATIVE:
        raise ValueError(f"no llama.cpp sampler for {stage.native!r}")
    return NATIVE[kind](rt, tuple(args), penalty_window, seed)


class Sampler:
    """One run's token chooser. Call `close()` when the run ends (frees the native samplers)."""

    def __init__(
        self, rt: Runtime, plan: EnginePlan, seed: int | None, prompt: list[int], max_new: int, record: bool = False
    ):
        lib = rt.lib
        self.lib, self.rt, self.plan = lib, rt, plan
        window = len(prompt) + max_new
        self.natives = [native_sampler(rt, s, window, sampler_seed(seed)) for s in plan.natives]
        self.pick = lib.llama_sampler_init_dist(sampler_seed(seed)) if plan.sample else lib.llama_sampler_init_greedy()
        n = rt.n_vocab
        self.cand = np.zeros(n, dtype=TOKEN_DATA)
        self.ids = np.arange(n, dtype=np.int32)
        self.data = ctypes.cast(self.cand.ctypes.data, ctypes.POINTER(lib.llama_token_data))
        self.array = lib.llama_token_data_array(self.data, n, -1, False)
        self.record = SamplingRecord(plan.stages) if record else None
        for token in prompt:
            for s in self.natives:
                lib.llama_sampler_accept(s, token)

    def filter(self, logits: np.ndarray, sequence: torch.Tensor) -> None:
        """Every stage on one row of logits (a view onto llama.cpp's buffer, changed in place by
        hooks) after `sequence` (1, length so far: prompt and generated tokens); what is left is in
        `self.array` (record.candidates reads it)."""
        rec = self.record
        if rec is not None:
            rec.start(logits)
        if self.plan.hooks:
            scores = torch.from_numpy(logits).view(1, -1)
            for hook in self.plan.hooks:
                scores = hook(sequence, scores)
                if rec is not None:
                    rec.full(scores[0].numpy())
            logits = scores[0].numpy()
        cand, array = self.cand, self.array
        cand["id"] = self.ids
        cand["logit"] = logits
        cand["p"] = 0.0
        array.data, array.size, array.selected, array.sorted = self.data, len(cand), -1, False
        for s in self.natives:
            self.lib.llama_sampler_apply(s, ctypes.byref(array))
            if rec is not None:
                rec.partial(array)

    def choose(self, logits: np.ndarray, sequence: torch.Tensor) -> int:
        """The next token: every stage, then the argmax or the seeded draw; the samplers are told."""
        self.filter(logits, sequence)
        array = self.array
        self.lib.llama_sampler_apply(self.pick, ctypes.byref(array))
        token = int(array.data[array.selected].id)
        for s in self.natives:
            self.lib.llama_sampler_accept(s, token)
        if self.record is not None:
            self.record.chose(token)
        return token

    def close(self) -> None:
        for s in [*self.natives, self.pick]:
            self.lib.llama_sampler_free(s)
        self.natives, self.pick = [], None
