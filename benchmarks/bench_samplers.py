"""Issue 37's samplers: what each costs per token, measured side by side in one run.

1. Processors alone, on random logits (no model): the chain each method runs, per call, at SmolLM2's
   49,152-token and Gemma's 262,144-token vocabularies, batch 1, float32, and its ratio to TS-Temp's
   chain (temperature, top-k 50, top-p 0.95). Calls interleaved; the median of `--calls` per chain.
2. End to end on the embedded model: time per generated token of each single-pass method over
   TS-Temp's, both forced to generate exactly N tokens (min_new_tokens), each method timed next to
   its own TS-Temp run (order alternating, methods rotating per trial), the median of per-trial ratios. The target is 1.03 or less. Contrastive search and DoLa are not single
   passes (k candidate rows per step; every layer's head): their ratio is printed for information.

    python benchmarks/bench_samplers.py --calls 200 --trials 5 --max-new-tokens 32
    python benchmarks/bench_samplers.py --no-model      # part 1 only
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time

import torch
from transformers import LogitsProcessorList

import decoders
from decoders import DecodeContext
from decoders.order import generate_chain

SINGLE_PASS = ("Epsilon", "Eta", "Top-H", "Top-nSigma", "XTC", "DRY", "Mirostat-v2")
OWN_LOOP = ("Contrastive", "DoLa")
PROMPT = "In that forgotten interstellar port, the rusted skeletons of starships stood like the bones of giant beasts. I walked"


def chain_for(method: str, vocab: int) -> LogitsProcessorList:
    """The processors `generate` would run for the method's default plan, built without a model."""

    class Tok:  # DRY looks up its breaker tokens: a stand-in vocabulary where ids 0-9 are breakers
        def __len__(self) -> int:
            return vocab

        def convert_ids_to_tokens(self, ids):
            return [":" if i < 10 else "a" for i in ids]

    ctx = DecodeContext(tokenizer=Tok(), device=torch.device("cpu"), logits_size=vocab, prompt_length=64)
    plan = decoders.get(method).plan(None, ctx)
    return LogitsProcessorList(generate_chain(plan.generate_kwargs, plan.logits_processors))


def processor_costs(vocabs: list[int], calls: int) -> dict[str, dict[str, float]]:
    """Median µs per call of each method's chain, per vocabulary, and the ratio to TS-Temp's."""
    out: dict[str, dict[str, float]] = {}
    for vocab in vocabs:
        torch.manual_seed(0)
        ids = torch.randint(0, vocab, (1, 512))
        scores = torch.randn(1, vocab) * 3
        chains = {m: chain_for(m, vocab) for m in ("TS-Temp", *SINGLE_PASS)}
        times: dict[str, list[float]] = {m: [] for m in chains}
        with torch.inference_mode():
            for _ in range(calls):
                for m, chain in chains.items():  # interleaved: the same load for every chain
                    start = time.perf_counter()
                    chain(ids, scores.clone())
                    times[m].append(time.perf_counter() - start)
        base = statistics.median(times["TS-Temp"])
        for m, ts in times.items():
            out.setdefault(m, {})[f"us_{vocab}"] = statistics.median(ts) * 1e6
            out[m][f"ratio_{vocab}"] = statistics.median(ts) / base
    return out


def per_token_ms(lm, method: str, input_ids, n: int, seed: int) -> float:
    from arena.engines.local.generate import timed_generate
    from arena.engines.local.inputs import plan_for

    plan = plan_for(lm, method, None, input_ids.shape[1], n)
    if plan.custom_generate is None:
        plan.generate_kwargs["min_new_tokens"] = n
    out, _, latency, _ = timed_generate(lm, plan, input_ids, seed)
    return latency / max(1, out.shape[1] - input_ids.shape[1])


def end_to_end(trials: int, n: int, methods: tuple[str, ...]) -> dict[str, dict[str, float]]:
    from arena.engines.local.generate import warm_up
    from arena.engines.local.inputs import encode
    from arena.model.llm import get_default_model
    from arena.runs.runner import RunRequest

    lm = get_default_model()
    input_ids = encode(lm, RunRequest(PROMPT, ["TS-Temp"], max_new_tokens=n, raw=True))
    for m in ("TS-Temp", *methods):
        warm_up(lm, m, input_ids)
    ratios: dict[str, list[float]] = {m: [] for m in methods}
    base_ms: list[float] = []
    for t in range(trials):
        # Each method is timed right next to its own TS-Temp run (which comes first alternates by trial)
        # and the methods' order rotates: on a shared host the speed drifts within a trial, and one
        # TS-Temp run at its start charged that drift to whichever methods came last (DRY, Mirostat-v2).
        for m in methods[t % len(methods) :] + methods[: t % len(methods)]:
            pair = ("TS-Temp", m) if t % 2 == 0 else (m, "TS-Temp")
            ms = {k: per_token_ms(lm, k, input_ids, n, t) for k in pair}
            base_ms.append(ms["TS-Temp"])
            ratios[m].append(ms[m] / ms["TS-Temp"])
    return {
        m: {"ratio_per_token": statistics.median(r), "ts_temp_ms_per_token": statistics.median(base_ms)}
        for m, r in ratios.items()
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--calls", type=int, default=200)
    p.add_argument("--trials", type=int, default=5)
    p.add_argument("--max-new-tokens", type=int, default=32)
    p.add_argument("--no-model", action="store_true", help="only the processors on random logits")
    p.add_argument("--json", help="write the figures here")
    args = p.parse_args(argv)
    result: dict[str, object] = {"threads": torch.get_num_threads()}
    costs = processor_costs([49152, 262144], args.calls)
    result["processors"] = costs
    print("method\tµs/call 49k\tratio\tµs/call 262k\tratio   (TS-Temp's chain = 1)")
    for m, c in costs.items():
        print(f"{m}\t{c['us_49152']:.0f}\t{c['ratio_49152']:.2f}\t{c['us_262144']:.0f}\t{c['ratio_262144']:.2f}")
    if not args.no_model:
        e2e = end_to_end(args.trials, args.max_new_tokens, (*SINGLE_PASS, *OWN_LOOP))
        result["end_to_end"] = e2e
        print(
            f"\nend to end, time per token / TS-Temp's ({args.trials} interleaved trials, {args.max_new_tokens} tokens)"
        )
        for m, v in e2e.items():
            mark = "" if m in OWN_LOOP else ("  ok (≤ 1.03)" if v["ratio_per_token"] <= 1.03 else "  over 1.03")
            kind = " (own loop, not a single pass)" if m in OWN_LOOP else ""
            print(f"{m}\t{v['ratio_per_token']:.3f}{kind}{mark}")
        print(f"TS-Temp: {next(iter(e2e.values()))['ts_temp_ms_per_token']:.1f} ms per token")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(result, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
