"""Decoding asked for from a Gradio handler's thread, side by side in one run:
  own thread      the model works on the handler's thread (how the app ran before arena/model/compute.py);
  compute thread  the work is handed to the thread that loaded the model, as `app.py` does now.
Each trial runs each side in a fresh process (once a second thread has done parallel work the whole
process stays slowed, so the sides cannot share one), alternating which goes first. In each, the main
thread loads the model and warms it up, as `app.py` does, then a handler thread asks for TS-Temp
and BS-4 on a raw prompt with a fixed seed. Figures: decode tokens per second of the handler's wall
time, and the median of per-trial ratios.

    python benchmarks/bench_threads.py --trials 4 --max-new-tokens 32
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import threading
import time

import torch

from arena.engines.local.inputs import encode_ids
from arena.engines.local.tasks import gpu_run
from arena.inputs.numbers import cli_whole
from arena.model import compute
from arena.model.llm import load_model
from arena.runs.requests import RunRequest
from arena.runs.runner import run_methods

PROMPT = "In that forgotten interstellar port, the rusted skeletons of starships stood like the bones of giant beasts. I walked"
METHODS = ["TS-Temp", "BS-4"]
SIDES = ("own thread", "compute thread")


def one_side(side: str, n: int, seed: int) -> dict:
    """In this process: load and warm up on the main thread, then decode from a handler thread."""
    lm = load_model()
    run_methods(lm, RunRequest(PROMPT, METHODS, {}, 4, 0, raw=True))
    req = RunRequest(PROMPT, METHODS, {}, n, seed, raw=True)
    out: dict = {"model": lm.describe(), "threads": torch.get_num_threads()}
    stop = threading.Event()

    def handler() -> None:  # stands in for a Gradio worker thread
        try:
            start = time.perf_counter()
            if side == "own thread":
                task = gpu_run.__wrapped__  # type: ignore[attr-defined]  # the task itself, not handed over
                tokens = sum(r["new_tokens"] for r in task(lm.key, METHODS, {}, encode_ids(lm, req), seed, n, PROMPT))
            else:
                tokens = sum(r.new_tokens for r in run_methods(lm, req))
            out["tok_s"] = tokens / (time.perf_counter() - start)
        finally:
            stop.set()

    threading.Thread(target=handler, name="handler").start()
    if side == "compute thread":
        compute.serve_forever(stop)
    stop.wait()
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--trials", type=cli_whole, default=4)
    p.add_argument("--max-new-tokens", type=cli_whole, default=32)
    p.add_argument("--side", choices=SIDES, help=argparse.SUPPRESS)  # one side, in a child process
    p.add_argument("--seed", type=cli_whole, default=100, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.side:
        print(json.dumps(one_side(args.side, args.max_new_tokens, args.seed)))
        return 0
    speed: dict[str, list[float]] = {side: [] for side in SIDES}
    info: dict = {}
    for trial in range(args.trials):
        for side in SIDES if trial % 2 == 0 else SIDES[::-1]:
            cmd = [sys.executable, __file__, "--side", side, "--max-new-tokens", str(args.max_new_tokens)]
            done = subprocess.run([*cmd, "--seed", str(100 + trial)], capture_output=True, text=True, check=True)
            info = json.loads(done.stdout.strip().splitlines()[-1])
            speed[side].append(info["tok_s"])
        print(
            f"trial {trial + 1}/{args.trials}: " + ", ".join(f"{k} {v[-1]:.1f} tok/s" for k, v in speed.items()),
            file=sys.stderr,
        )
    ratio = statistics.median(c / o for c, o in zip(speed["compute thread"], speed["own thread"]))
    print(
        f"model {info['model']} · torch {torch.__version__} · {info['threads']} threads · "
        f"{args.trials} interleaved trials · {METHODS} · {args.max_new_tokens} new tokens"
    )
    print(
        f"decode tok/s (median): on the handler's own thread {statistics.median(speed['own thread']):.1f} · "
        f"handed to the compute thread {statistics.median(speed['compute thread']):.1f}"
    )
    print(f"compute thread / own thread (median of per-trial ratios): {ratio:.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
