"""Why each token was chosen on the llama.cpp engine, in the token view's format (decoders/recording.py).

A sampling step keeps, for the stages "model" and then each of the plan's stages in order, the
probability every token has after that stage (softmax of what is left; a token a native sampler
dropped has 0), and from those the union of every stage's top-k and the chosen token. Beam search
keeps its running beams and their cumulative log-probabilities per step. Only when asked: the cost
(one softmax per stage per step) is inside the timing, as with the in-process recorder.
"""

from __future__ import annotations

import ctypes
from typing import Any

import numpy as np

TOP_K = 10
TOKEN_DATA = np.dtype([("id", "<i4"), ("logit", "<f4"), ("p", "<f4")])  # llama_token_data


def candidates(array: Any) -> np.ndarray:
    """A llama_token_data_array's candidates as a structured numpy view (id, logit, p)."""
    n = int(array.size)
    raw = ctypes.cast(array.data, ctypes.POINTER(ctypes.c_uint8))
    return np.ctypeslib.as_array(raw, shape=(n * TOKEN_DATA.itemsize,)).view(TOKEN_DATA)


def softmax(logits: np.ndarray) -> np.ndarray:
    x = logits.astype(np.float64)
    finite = np.isfinite(x)
    out = np.zeros_like(x)
    if finite.any():
        e = np.exp(x[finite] - x[finite].max())
        out[finite] = e / e.sum()
    return out


class SamplingRecord:
    """Stage probabilities per step, settled into the token view's rows when the token is known."""

    def __init__(self, stages: list[str], k: int = TOP_K):
        self.stages = ["model", *stages]
        self.k = k
        self.current: list[np.ndarray] = []
        self.steps: list[dict[str, Any]] = []

    def start(self, logits: np.ndarray) -> None:
        self.current = [softmax(logits)]

    def full(self, logits: np.ndarray) -> None:
        """A stage that left every token's logit (a hook)."""
        self.current.append(softmax(logits))

    def partial(self, array: Any) -> None:
        """A stage that left a list of candidates (a native sampler, llama_token_data_array)."""
        left = candidates(array)
        probs = np.zeros_like(self.current[0])
        probs[left["id"]] = softmax(left["logit"])
        self.current.append(probs)

    def chose(self, token: int) -> None:
        stack = np.stack(self.current)  # (stages, vocabulary)
        top = np.argsort(-stack, axis=1, kind="stable")[:, : self.k]
        ids = np.unique(np.concatenate([top.reshape(-1), [token]]))
        probs = stack[:, ids]
        order = sorted(range(len(ids)), key=lambda i: (-float(probs[-1, i]), -float(probs[0, i])))
        self.steps.append(
            {"ids": [int(ids[i]) for i in order], "probs": probs[:, order].tolist(), "chosen": int(token)}
        )
        self.current = []

    def finish(self, kept: int) -> dict[str, Any]:
        return {"kind": "sampling", "stages": list(self.stages), "steps": self.steps[:kept], "k": self.k}


class BeamRecord:
    """The running beams after every step: new tokens so far and cumulative log-probability."""

    def __init__(self, stages: list[str], num_beams: int, k: int = TOP_K):
        self.stages = ["model", *stages]
        self.k = k
        start = [{"tokens": [], "score": 0.0 if i == 0 else float("-inf")} for i in range(num_beams)]
        self.steps: list[dict[str, Any]] = [{"beams": start}]

    def step(self, rows: list[list[int]], scores: list[float]) -> None:
        self.steps.append({"beams": [{"tokens": list(r), "score": float(s)} for r, s in zip(rows, scores)]})

    def finish(self, output: list[int]) -> dict[str, Any]:
        return {"kind": "beams", "stages": list(self.stages), "steps": self.steps, "output": list(output), "k": self.k}
