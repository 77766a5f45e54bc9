"""Study pre-generation: outputs per second with every output alone (batch size 1) against batches,
side by side in one run, on the same items, methods and seeds.

    python benchmarks/bench_studygen.py                          # 16 items, TS-Temp and BS-4, batch auto
    python benchmarks/bench_studygen.py --items 8 --methods TS-Temp --batch-size 8 --max-new-tokens 32

Each configuration generates a fresh study (in a temporary SQLite file) and is run `--rounds`
times in ABBA order; the printed ratio is the median of per-round ratios. In batched mode each
method's first output is still generated alone (timed), exactly as the app does.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import torch

from arena import studies
from arena.model.llm import load_model
from arena.rating.study_spec import StudySpec
from arena.runs.requests import DEFAULT_BATCH_SIZE
from arena.store import Store

TOPICS = [
    "the sea",
    "a market",
    "winter",
    "a library",
    "trains",
    "bread",
    "a garden",
    "rain",
    "mountains",
    "a city",
    "music",
    "the moon",
    "a bicycle",
    "tea",
    "a letter",
    "the wind",
    "a bridge",
    "coffee",
    "a forest",
    "snow",
]


def prompts(n: int) -> list[studies.PromptSpec]:
    return [
        studies.PromptSpec(f"Write two sentences about {TOPICS[k % len(TOPICS)]}.", "bench", "en") for k in range(n)
    ]


def one(lm, folder: Path, n: int, methods: list[str], max_new: int, batch: int) -> tuple[float, int]:
    store = Store(f"sqlite:///{folder / f'b{batch}-{time.perf_counter_ns()}.db'}")
    sid = studies.create_study(
        store, StudySpec("bench", prompts(n), methods=methods, max_new_tokens=max_new, base_seed=1)
    )
    start = time.perf_counter()
    report = studies.generate_study(store, lm, sid, batch_size=batch)
    elapsed = time.perf_counter() - start
    store.dispose()
    return elapsed, report.generated


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--items", type=int, default=16)
    p.add_argument("--methods", default="TS-Temp,BS-4")
    p.add_argument("--batch-size", type=int, default=DEFAULT_BATCH_SIZE, help="default: auto, as the app")
    p.add_argument("--max-new-tokens", type=int, default=32)
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--threads", type=int)
    args = p.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    lm = load_model()
    methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    print(
        f"model {lm.describe()} · torch {torch.__version__} · threads {torch.get_num_threads()} · "
        f"{args.items} items x {methods} · max_new_tokens {args.max_new_tokens}"
    )
    ratios, rates = [], {1: [], args.batch_size: []}
    with tempfile.TemporaryDirectory() as tmp:
        one(lm, Path(tmp), 2, methods, 4, 1)  # warm-up: kernels, priors
        for r in range(args.rounds):
            order = [1, args.batch_size] if r % 2 == 0 else [args.batch_size, 1]
            got = {}
            for b in order:
                seconds, n = one(lm, Path(tmp), args.items, methods, args.max_new_tokens, b)
                got[b] = n / seconds
                rates[b].append(got[b])
                print(f"  round {r + 1}: batch size {b:>2}: {n} outputs in {seconds:6.1f} s = {got[b]:.3f} outputs/s")
            ratios.append(got[args.batch_size] / got[1])
    print(
        f"outputs/s  batch 1: {statistics.median(rates[1]):.3f}  batch {args.batch_size}: "
        f"{statistics.median(rates[args.batch_size]):.3f}"
    )
    print(
        f"batched / batch 1 (median of per-round ratios): {statistics.median(ratios):.2f}x  (target >= 3x for 8+ items)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
