"""Core overheads, measured side by side in one run (trials interleaved, medians compared).

1. TS-Tilted time per generated token / TS-Temp's
   a. each with its own defaults (what a user gets),
   b. with the same T, top-p and top-k, so the ratio isolates the tilt itself.
   Both sides generate exactly N tokens (min_new_tokens = N) so per-token costs compare like for like.
2. Our runner (`run_methods`: validation, prompt encoding, plan, timing hooks, decoding) / a bare
   `model.generate` call with the same settings, timed around the call. Same seed, same tokens.

    python benchmarks/bench_core.py --trials 7 --max-new-tokens 48
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arena.models import load_model  # noqa: E402
from arena.runner import RunRequest, _timed_generate, encode, plan_for, run_methods, warm_up  # noqa: E402

PROMPT = "In that forgotten interstellar port, the rusted skeletons of starships stood like the bones of giant beasts. I walked"


def per_token_ms(lm, method, overrides, input_ids, n, seed):
    plan = plan_for(lm, method, overrides, input_ids.shape[1], n)
    plan.generate_kwargs["min_new_tokens"] = n
    out, _, latency, _ = _timed_generate(lm, plan, input_ids, seed)
    produced = out.shape[1] - input_ids.shape[1]
    return latency / produced


def bare_generate_ms(lm, input_ids, seed, **kwargs):
    with torch.inference_mode():
        torch.manual_seed(seed)
        start = time.perf_counter()
        out = lm.model.generate(input_ids=input_ids, attention_mask=torch.ones_like(input_ids), **kwargs)
        end = time.perf_counter()
    return (end - start) * 1000, out[0, input_ids.shape[1]:].tolist()


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
    args = p.parse_args(argv)
    lm = load_model(args.model)
    n = args.max_new_tokens
    req = RunRequest(PROMPT, ["TS-Temp"], {}, n, 0, raw=True)
    ids = encode(lm, req)
    for m in ("TS-Temp", "TS-Tilted", "BS-4"):
        warm_up(lm, m, ids)

    matched = {"temperature": 0.9, "top_p": 0.95, "top_k": 50}
    cols: dict[str, list[float]] = {k: [] for k in ("temp", "tilt_default", "tilt_matched", "run_temp", "bare_temp", "run_bs4", "bare_bs4")}
    for trial in range(args.trials):
        seed = 100 + trial
        cols["temp"].append(per_token_ms(lm, "TS-Temp", None, ids, n, seed))
        cols["tilt_default"].append(per_token_ms(lm, "TS-Tilted", None, ids, n, seed))
        cols["tilt_matched"].append(per_token_ms(lm, "TS-Tilted", matched, ids, n, seed))

        ms, ours = runner_ms(lm, RunRequest(PROMPT, ["TS-Temp"], {}, n, seed, raw=True))
        bare, tokens = bare_generate_ms(lm, ids, seed, do_sample=True, temperature=0.9, top_p=0.95, max_new_tokens=n)
        assert tokens[: len(ours.token_ids)] == ours.token_ids, "runner and bare generate disagree"
        cols["run_temp"].append(ms)
        cols["bare_temp"].append(bare)

        ms, _ = runner_ms(lm, RunRequest(PROMPT, ["BS-4"], {}, n, seed, raw=True))
        bare, _ = bare_generate_ms(lm, ids, seed, num_beams=4, length_penalty=1.0, early_stopping=True,
                                   no_repeat_ngram_size=3, max_new_tokens=n)
        cols["run_bs4"].append(ms)
        cols["bare_bs4"].append(bare)
        print(f"trial {trial + 1}/{args.trials} done", file=sys.stderr)

    med = {k: statistics.median(v) for k, v in cols.items()}
    figures = {
        "model": lm.name,
        "device": lm.device.type,
        "trials": args.trials,
        "max_new_tokens": n,
        "median_ms": med,
        "tilted_over_temp_per_token_defaults": med["tilt_default"] / med["temp"],
        "tilted_over_temp_per_token_matched": med["tilt_matched"] / med["temp"],
        "runner_over_bare_generate_ts_temp": med["run_temp"] / med["bare_temp"],
        "runner_over_bare_generate_bs4": med["run_bs4"] / med["bare_bs4"],
        "runner_over_bare_generate_both": (med["run_temp"] + med["run_bs4"]) / (med["bare_temp"] + med["bare_bs4"]),
    }
    print(f"model {lm.name} on {lm.device.type}; {args.trials} interleaved trials, {n} new tokens")
    print(f"TS-Tilted / TS-Temp time per token, each with its defaults : {figures['tilted_over_temp_per_token_defaults']:.3f}")
    print(f"TS-Tilted / TS-Temp time per token, same T/top-p/top-k     : {figures['tilted_over_temp_per_token_matched']:.3f}")
    print(f"runner / bare generate, TS-Temp                            : {figures['runner_over_bare_generate_ts_temp']:.3f}")
    print(f"runner / bare generate, BS-4                               : {figures['runner_over_bare_generate_bs4']:.3f}")
    print(f"runner / bare generate, both                               : {figures['runner_over_bare_generate_both']:.3f}")
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2))
    return figures


if __name__ == "__main__":
    main()
