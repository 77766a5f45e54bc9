"""A stand-in for llama.cpp's `Runtime` (arena/engines/llamacpp/runtime.py) whose logits come from
the transformers model: the same sequences, copies and positions, every sequence re-read in full
at each step (no cache, so nothing to copy but token lists). The llama.cpp engine's loops
(generate.py, beams.py) run on it unchanged, so their decisions can be compared with transformers'
`generate` on the very same logits, apart from the two engines' precision."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from arena.engines.llamacpp.runtime import library


class TorchRuntime:
    def __init__(self, model: Any, n_vocab: int):
        self.model = model
        self.lib = library()  # the native samplers are llama.cpp's own
        self.n_vocab = n_vocab
        self.seqs: dict[int, list[int]] = {}
        self.warmed: set[str] = set()

    def reserve(self, cells: int) -> None:
        pass

    def clear(self) -> None:
        self.seqs = {}

    def copy_seq(self, src: int, dst: int) -> None:
        self.seqs[dst] = list(self.seqs[src])

    def drop_seq(self, seq: int) -> None:
        self.seqs.pop(seq, None)

    def forward(self, seqs: list[int]) -> np.ndarray:
        rows = [self.seqs[s] for s in seqs]
        with torch.inference_mode():
            out = self.model(torch.tensor(rows, dtype=torch.long)).logits[:, -1, :]
        return np.ascontiguousarray(out.float().numpy())

    def prefill(self, ids: list[int], seq: int = 0) -> np.ndarray:
        self.seqs[seq] = list(ids)
        return self.forward([seq])[0]

    def step(self, tokens: list[int], position: int, seqs: list[int]) -> np.ndarray:
        for token, seq in zip(tokens, seqs):
            assert len(self.seqs[seq]) == position, "a token is decoded at its sequence's next position"
            self.seqs[seq].append(token)
        return self.forward(seqs)
