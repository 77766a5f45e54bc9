"""Where BS-4's time goes on llama.cpp: one llama_decode of 1 token against one of B tokens (B sequences).

beams.py already runs every beam as a llama.cpp sequence, all beams in one llama_decode per step,
and reorders them by tagging KV cells (`llama_memory_seq_cp`, no data moved). What is left is the
cost of that one B-row decode against greedy's 1-row decode: if it is near B x, the matrix
products are compute-bound per row in this build (a quantisation without a batched GEMM kernel)
and no Python-side change can reach BS-4 >= 0.7x Greedy. Variants are interleaved in one run and
each is the best of `--reps` (the least disturbed by other work on a shared host).

    python benchmarks/bench_beam_decode.py                 # B = 1, 2, 4; 8 steps; best of 10
    python benchmarks/bench_beam_decode.py --threads 1 --reps 20
"""

from __future__ import annotations

import argparse
import os
import time

import torch

from arena.engines.llamacpp.runtime import Runtime
from arena.engines.llamacpp.weights import info, model_gguf
from arena.model.llm import load_model

PROMPT = "Write a short story about a lighthouse keeper who finds a message in a bottle."


def step_ms(rt: Runtime, prompt: list[int], rows: int, steps: int) -> float:
    """Mean ms of one `rows`-token llama_decode (one token per sequence), after the prompt is read."""
    rt.clear()
    rt.prefill(prompt, 0)
    for seq in range(1, rows):
        rt.copy_seq(0, seq)
    start = time.perf_counter()
    for k in range(steps):
        rt.step([100 + k] * rows, len(prompt) + k, list(range(rows)))
    return (time.perf_counter() - start) * 1000 / steps


def main(argv: list[str] | None = None) -> dict[int, float]:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rows", default="1,2,4")
    p.add_argument("--steps", type=int, default=8)
    p.add_argument("--reps", type=int, default=10)
    p.add_argument("--threads", type=int, default=torch.get_num_threads())
    p.add_argument("--model", default=None)
    args = p.parse_args(argv)
    lm = load_model(args.model)
    gguf = info(model_gguf(lm))
    rt = Runtime(gguf.path, args.threads)
    prompt = [int(t) for t in lm.tokenizer(PROMPT)["input_ids"]]
    rows = [int(r) for r in args.rows.split(",")]
    best = {r: float("inf") for r in rows}
    for _ in range(args.reps):
        for r in rows:
            best[r] = min(best[r], step_ms(rt, prompt, r, args.steps))
    print(f"{gguf.path.name} ({gguf.quant}), {args.threads} threads, load {os.getloadavg()[0]:.1f}")
    for r in rows:
        print(f"{r} rows: {best[r]:.2f} ms per decode, {best[r] / best[rows[0]]:.2f}x {rows[0]} row(s)")
    return best


if __name__ == "__main__":
    main()
