"""Core overheads, measured side by side in one run (trials interleaved; median of per-trial ratios).

1. TS-Tilted time per generated token / TS-Temp's
   a. each with its own defaults (what a user gets),
   b. with the same T, top-p and top-k, so the ratio isolates the tilt itself.
   Both sides generate exactly N tokens (min_new_tokens = N) so per-token costs compare like for like.
2. Our runner (`run_methods`: validation, prompt encoding, plan, timing hooks, decoding) / a bare
   `model.generate` call with the same settings, timed around the call. Same seed, same tokens.
3. Prompt-Lookup time per token / Greedy's (the same tokens; on this prompt, which does not copy
   from itself, drafts are mostly rejected: the figure is the lookup's cost where it cannot help), and
   with --assisted, Assisted's (the other embedded model drafting) / Greedy's.

    python benchmarks/bench_core.py --trials 7 --max-new-tokens 48
    python benchmarks/bench_core.py --model gemma-3-270m --trials 3 --max-new-tokens 16 --assisted
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import torch

from arena.engines.local.device import device_generate_kwargs
from arena.engines.local.generate import timed_generate, warm_up
from arena.engines.local.inputs import encode, plan_for
from arena.model.llm import load_model
from arena.runs.requests import RunRequest
from arena.runs.runner import run_methods

PROMPT = "In that forgotten interstellar port, the rusted skeletons of starships stood like the bones of giant beasts. I walked"


def per_token_ms(lm, method, overrides, input_ids, n, seed):
    plan = plan_for(lm, method, overrides, input_ids.shape[1], n)
    plan.generate_kwargs["min_new_tokens"] = n
    out, _, latency, _ = timed_generate(lm, plan, input_ids, seed)
    produced = out.shape[1] - input_ids.shape[1]
    return latency / produced


def bare_generate_ms(lm, input_ids, seed, **kwargs):
    # The same settings as the runner's, the device's included (on CUDA a static KV cache; the compiled
    # step is the warm-up's, not generate's); clocks read after a CUDA sync, as the runner's are.
    kwargs = {**device_generate_kwargs(lm.device), **kwargs}
    sync = torch.cuda.synchronize if lm.device.type == "cuda" else (lambda: None)
    with torch.inference_mode():
        torch.manual_seed(seed)
        sync()
        start = time.perf_counter()
        out = lm.model.generate(input_ids=input_ids, attention_mask=torch.ones_like(input_ids), **kwargs)
        sync()
        end = time.perf_counter()
    return (end - start) * 1000, out[0, input_ids.shape[1] :].tolist()


def runner_ms(lm, req):
    start = time.perf_counter()
    (result,) = run_methods(lm, req)
    return (time.perf_counter() - start) * 1000, result


def main(argv=None) -> dict:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--trials", type=int, default=7)
    p.add_argument("--max-new-tokens", type=int, default=48)
    p.add_argument("--model", default=None)
    p.add_argument("--json", help="also write the figures to this file")
    p.add_argument("--assisted", action="store_true", help="also time Assisted (loads the other embedded model)")
    p.add_argument("--threads", type=int, help="torch threads (1 gives steadier timings on a shared machine)")
    args = p.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    lm = load_model(args.model)
    n = args.max_new_tokens
    req = RunRequest(PROMPT, ["TS-Temp"], {}, n, 0, raw=True)
    ids = encode(lm, req)
    drafted = [("greedy", "Greedy"), ("lookup", "Prompt-Lookup")] + (
        [("assisted", "Assisted")] if args.assisted else []
    )
    for m in ("TS-Temp", "TS-Tilted", "BS-4", *(method for _, method in drafted)):
        warm_up(lm, m, ids)

    matched = {"temperature": 0.9, "top_p": 0.95, "top_k": 50}
    keys = (
        "temp",
        "tilt_default",
        "tilt_matched",
        "run_temp",
        "bare_temp",
        "inside_temp",
        "run_bs4",
        "bare_bs4",
        "inside_bs4",
        "greedy",
        "lookup",
        "assisted",
    )
    cols: dict[str, list[float]] = {k: [] for k in keys}
    for trial in range(args.trials):
        seed = 100 + trial
        # Rotate the order every trial so that no variant always runs first (or last) in a trial.
        variants = [
            ("temp", "TS-Temp", None),
            ("tilt_default", "TS-Tilted", None),
            ("tilt_matched", "TS-Tilted", matched),
        ]
        for key, method, overrides in variants[trial % 3 :] + variants[: trial % 3]:
            cols[key].append(per_token_ms(lm, method, overrides, ids, n, seed))
        turn = trial % len(drafted)
        for key, method in drafted[turn:] + drafted[:turn]:
            cols[key].append(per_token_ms(lm, method, None, ids, n, seed))

        # Runner and bare generate alternate which goes first (ABBA), with the same seed and tokens.
        for method, bare_kwargs in (
            ("TS-Temp", dict(do_sample=True, temperature=0.9, top_p=0.95)),
            ("BS-4", dict(num_beams=4, length_penalty=1.0, early_stopping=True, no_repeat_ngram_size=3)),
        ):
            key = "temp" if method == "TS-Temp" else "bs4"
            for first in ("run", "bare") if trial % 2 == 0 else ("bare", "run"):
                if first == "run":
                    ms, ours = runner_ms(lm, RunRequest(PROMPT, [method], {}, n, seed, raw=True))
                    cols[f"run_{key}"].append(ms)
                    cols[f"inside_{key}"].append(ours.latency_ms)
                else:
                    bare, tokens = bare_generate_ms(lm, ids, seed, max_new_tokens=n, **bare_kwargs)
                    cols[f"bare_{key}"].append(bare)
            assert tokens[: len(ours.token_ids)] == ours.token_ids, "runner and bare generate disagree"
        print(f"trial {trial + 1}/{args.trials} done", file=sys.stderr)

    med = {k: statistics.median(v) for k, v in cols.items() if v}

    def paired(a: str, b: str) -> float:
        """Median of per-trial ratios: each pair ran back to back, so slow drifts cancel."""
        return statistics.median(x / y for x, y in zip(cols[a], cols[b]))

    figures = {
        "model": lm.name,
        "device": lm.device.type,
        "trials": args.trials,
        "max_new_tokens": n,
        "median_ms": med,
        "per_trial_ms": cols,
        "tilted_over_temp_per_token_defaults": paired("tilt_default", "temp"),
        "tilted_over_temp_per_token_matched": paired("tilt_matched", "temp"),
        "runner_over_bare_generate_ts_temp": paired("run_temp", "bare_temp"),
        "runner_over_bare_generate_bs4": paired("run_bs4", "bare_bs4"),
        "prompt_lookup_over_greedy_per_token": paired("lookup", "greedy"),
        "assisted_over_greedy_per_token": paired("assisted", "greedy") if args.assisted else None,
        "runner_over_bare_generate_both": (med["run_temp"] + med["run_bs4"]) / (med["bare_temp"] + med["bare_bs4"]),
        # Same-run decomposition, far less noisy: the runner's own work (validation, encoding, plan,
        # decoding) is its wall time minus the generate call it timed around.
        "runner_work_outside_generate_ts_temp": paired("run_temp", "inside_temp") - 1,
        "runner_work_outside_generate_bs4": paired("run_bs4", "inside_bs4") - 1,
    }
    print(f"model {lm.name} on {lm.device.type}; {args.trials} interleaved trials, {n} new tokens")
    print(
        f"TS-Tilted / TS-Temp time per token, each with its defaults : {figures['tilted_over_temp_per_token_defaults']:.3f}"
    )
    print(
        f"TS-Tilted / TS-Temp time per token, same T/top-p/top-k     : {figures['tilted_over_temp_per_token_matched']:.3f}"
    )
    print(
        f"runner / bare generate, TS-Temp                            : {figures['runner_over_bare_generate_ts_temp']:.3f}"
    )
    print(
        f"runner / bare generate, BS-4                               : {figures['runner_over_bare_generate_bs4']:.3f}"
    )
    print(
        f"runner / bare generate, both                               : {figures['runner_over_bare_generate_both']:.3f}"
    )
    print(
        f"runner's own work outside generate, TS-Temp / BS-4         : {figures['runner_work_outside_generate_ts_temp']:+.2%} / "
        f"{figures['runner_work_outside_generate_bs4']:+.2%}"
    )
    print(
        f"Prompt-Lookup / Greedy time per token (same tokens)        : {figures['prompt_lookup_over_greedy_per_token']:.3f}"
    )
    if args.assisted:
        print(
            f"Assisted / Greedy time per token (same tokens)             : {figures['assisted_over_greedy_per_token']:.3f}"
        )
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2))
    return figures


if __name__ == "__main__":
    main()
