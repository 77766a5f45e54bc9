"""Batched continuation perplexity against the one-at-a-time loop, over the held-out set.

    python benchmarks/bench_ppl.py                # all 1000 English fragments
    python benchmarks/bench_ppl.py --limit 64     # CI-sized

Three passes over the same fragments, in one run: the plain loop (one forward per item through
the model's own loss, full logits), the batched scorer with batch size 1 (same code, no
batching), and the batched scorer. Prints seconds, the speed-up ratios and the largest relative
difference of per-item NLL (must stay under 1e-4).
"""

from __future__ import annotations

import argparse
import dataclasses
import time

import torch

from arena.model.llm import load_model
from evaluation.heldout import load_heldout
from evaluation.perplexity import continuation_scores, corpus_ppl, encode_pair, loop_scores


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", help="scorer model setting (default: the embedded model)")
    p.add_argument("--limit", type=int, help="first N fragments (default: all)")
    p.add_argument("--language", default="en", choices=["en", "zh"])
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--device", help="cpu, cuda, cuda:1 ... (default: the best available)")
    p.add_argument(
        "--dtype",
        choices=["float32", "bfloat16", "float16"],
        help="cast the scorer (default: the app's choice, float32 on CPU, bf16/fp16 on CUDA); "
        "float32 keeps the 1e-4 equality check meaningful on a GPU",
    )
    p.add_argument("--threads", type=int, help="torch CPU threads (default: torch's choice)")
    args = p.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    lm = load_model(args.model, device=args.device)
    if args.dtype:
        dtype = getattr(torch, args.dtype)
        lm = dataclasses.replace(lm, model=lm.model.to(dtype), dtype=dtype)
    items = load_heldout(args.language, limit=args.limit)
    pairs = [encode_pair(lm, i.prompt, i.continuation) for i in items]
    tokens = sum(len(c) for _, c in pairs)
    print(f"torch {torch.__version__}, {torch.get_num_threads()} CPU threads")
    print(f"{lm.describe()}: {len(pairs)} fragments, {tokens} continuation tokens, batch size {args.batch_size}")
    continuation_scores(lm, pairs[:2], batch_size=2)  # warm-up
    timings = {}
    t = time.perf_counter()
    loop = loop_scores(lm, pairs)
    timings["loop"] = time.perf_counter() - t
    t = time.perf_counter()
    single = continuation_scores(lm, pairs, batch_size=1)
    timings["batch1"] = time.perf_counter() - t
    t = time.perf_counter()
    batched = continuation_scores(lm, pairs, batch_size=args.batch_size)
    timings["batched"] = time.perf_counter() - t
    diff = max(abs(a.nll - b.nll) / max(abs(a.nll), 1e-12) for a, b in zip(loop, batched))
    print(f"one-at-a-time loop (model loss):  {timings['loop']:8.2f} s   corpus PPL {corpus_ppl(loop):.4f}")
    print(f"scorer, batch size 1:             {timings['batch1']:8.2f} s   corpus PPL {corpus_ppl(single):.4f}")
    print(f"scorer, batched:                  {timings['batched']:8.2f} s   corpus PPL {corpus_ppl(batched):.4f}")
    print(f"speed-up batched vs loop:         {timings['loop'] / timings['batched']:.2f}x (target >= 5x)")
    print(f"speed-up batched vs batch size 1: {timings['batch1'] / timings['batched']:.2f}x")
    print(f"largest relative NLL difference:  {diff:.2e} (limit 1e-4)")
    return 0 if diff < 1e-4 else 1


if __name__ == "__main__":
    raise SystemExit(main())
