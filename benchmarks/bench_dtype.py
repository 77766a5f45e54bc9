"""The app's default decode against bare fp32 `generate`, side by side in one run.

Sides, on the same prompt, seed and TS-Temp settings (T=0.9, top-p 0.95, top-k 50):
  fp32  bare `model.generate` on the model loaded in float32: the reference;
  bare  bare `model.generate` on the model in the app's default dtype (`ARENA_DTYPE`, auto here);
  ours  the runner (`run_methods`, what Compare calls) on that default model, wall time included;
  bf16  bare `model.generate` in bfloat16, when the default is not bf16 (what `auto` turned down).
Trials are interleaved with the order rotated, so no side always runs first; each figure is the
median of per-trial ratios of decode speed (new tokens per second of wall time, prefill included).
The runner's tokens are checked against bare `generate` in the same dtype on every trial.

    python benchmarks/bench_dtype.py --trials 5 --max-new-tokens 64
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import torch

# a sibling script (run as `python benchmarks/bench_dtype.py`, its folder is on the path): the same
# bare `generate`, device settings and clocks as the core benchmark's
from bench_core import bare_generate_ms  # type: ignore[import-not-found]

from arena.engines.local.inputs import encode
from arena.inputs.numbers import cli_whole
from arena.model.llm import cpu_has_native_bf16, load_model
from arena.runs.requests import RunRequest
from arena.runs.runner import run_methods

PROMPT = "In that forgotten interstellar port, the rusted skeletons of starships stood like the bones of giant beasts. I walked"
TS_TEMP = dict(do_sample=True, temperature=0.9, top_p=0.95, top_k=50)
TARGET = 1.7


def bare_generate(lm, input_ids: torch.Tensor, seed: int, n: int) -> tuple[float, list[int]]:
    """Seconds and new token ids of one bare `generate` call with TS-Temp's settings."""
    ms, tokens = bare_generate_ms(
        lm, input_ids, seed, max_new_tokens=n, pad_token_id=lm.tokenizer.pad_token_id, **TS_TEMP
    )
    return ms / 1000, tokens


def main(argv: list[str] | None = None) -> dict:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--trials", type=cli_whole, default=5)
    p.add_argument("--max-new-tokens", type=cli_whole, default=64)
    p.add_argument("--model", default=None)
    p.add_argument("--device", default=None, help="auto (default), cpu or cuda")
    p.add_argument("--threads", type=cli_whole, help="torch threads (default: torch's choice)")
    p.add_argument("--json", help="also write the figures to this file")
    args = p.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    default = load_model(args.model, device=args.device)
    fp32 = load_model(args.model, device=args.device, dtype="float32")
    bf16 = None if default.dtype == torch.bfloat16 else load_model(args.model, device=args.device, dtype="bfloat16")
    bare_models = {"fp32": fp32, "bare": default, **({"bf16": bf16} if bf16 is not None else {})}
    n = args.max_new_tokens
    req = RunRequest(PROMPT, ["TS-Temp"], {}, n, 0, raw=True)
    ids = encode(default, req)
    # warm-up: kernels, allocations and the runner's own per-method warm-up
    for model in bare_models.values():
        bare_generate(model, ids, 0, 4)
    run_methods(default, RunRequest(PROMPT, ["TS-Temp"], {}, 4, 0, raw=True))

    speed: dict[str, list[float]] = {side: [] for side in [*bare_models, "ours"]}
    for trial in range(args.trials):
        seed = 100 + trial
        sides = list(speed)
        sides = sides[trial % len(sides) :] + sides[: trial % len(sides)]
        tokens: dict[str, list[int]] = {}
        for side in sides:
            if side == "ours":
                start = time.perf_counter()
                (result,) = run_methods(default, RunRequest(PROMPT, ["TS-Temp"], {}, n, seed, raw=True))
                seconds, tokens[side] = time.perf_counter() - start, result.token_ids
            else:
                seconds, tokens[side] = bare_generate(bare_models[side], ids, seed, n)
            speed[side].append(len(tokens[side]) / seconds)
        same = tokens["bare"][: len(tokens["ours"])] == tokens["ours"]
        assert same, f"trial {trial}: the runner and bare generate disagree in {default.dtype_name}"
        print(
            f"trial {trial + 1}/{args.trials}: " + ", ".join(f"{k} {v[-1]:.1f}" for k, v in speed.items()) + " tok/s",
            file=sys.stderr,
        )

    def ratio(a: str, b: str) -> float:
        return statistics.median(x / y for x, y in zip(speed[a], speed[b]))

    figures = {
        "model": default.name,
        "device": default.device.type,
        "default_dtype": default.dtype_name,
        "cpu_native_bf16": cpu_has_native_bf16() if default.device.type == "cpu" else None,
        "torch": torch.__version__,
        "threads": torch.get_num_threads(),
        "trials": args.trials,
        "max_new_tokens": n,
        "tok_per_s_median": {k: statistics.median(v) for k, v in speed.items()},
        "tok_per_s": speed,
        "default_decode_over_bare_fp32": ratio("ours", "fp32"),
        "bare_default_dtype_over_bare_fp32": ratio("bare", "fp32"),
        "runner_over_bare_same_dtype": ratio("ours", "bare"),
        "bare_bf16_over_bare_fp32": ratio("bf16", "fp32") if bf16 is not None else ratio("bare", "fp32"),
    }
    med = figures["tok_per_s_median"]
    verdict = "PASS" if figures["default_decode_over_bare_fp32"] >= TARGET else "FAIL"
    print(
        f"model {default.name} on {default.device.type}; default dtype {default.dtype_name} "
        f"(native bf16 on this CPU: {figures['cpu_native_bf16']}); torch {torch.__version__}, "
        f"{torch.get_num_threads()} threads; {args.trials} interleaved trials, {n} new tokens, TS-Temp"
    )
    print(
        f"decode tok/s (median): bare fp32 {med['fp32']:.1f} · bare {default.dtype_name} {med['bare']:.1f} · "
        f"runner {default.dtype_name} {med['ours']:.1f}"
        + (f" · bare bfloat16 {med['bf16']:.1f}" if bf16 is not None else "")
    )
    print(
        f"default decode (runner, {default.dtype_name}) / bare fp32 generate : "
        f"{figures['default_decode_over_bare_fp32']:.2f}x  (target >= {TARGET}x: {verdict})"
    )
    print(
        f"bare {default.dtype_name} generate / bare fp32 generate            : "
        f"{figures['bare_default_dtype_over_bare_fp32']:.2f}x"
    )
    print(
        f"runner / bare generate, both {default.dtype_name}                  : "
        f"{figures['runner_over_bare_same_dtype']:.3f}x  (same tokens on every trial)"
    )
    if bf16 is not None:
        print(
            f"bare bfloat16 generate / bare fp32 generate             : {figures['bare_bf16_over_bare_fp32']:.2f}x  "
            f"(why auto chose {default.dtype_name} here)"
        )
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2))
    return figures


if __name__ == "__main__":
    main()
