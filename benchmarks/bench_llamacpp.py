"""The llama.cpp engine against the transformers engine, on the same GGUF and host, in one interleaved run.

1. Speed: every trial runs each method on each engine in turn (transformers, llama.cpp, then bare
   llama.cpp for Greedy), same prompt, seed and max_new_tokens; tokens/s = generated tokens /
   latency summed over trials. "Compare" is the three article methods one after another, as the
   Compare tab runs them: its ratio is transformers' total time over llama.cpp's.
2. Bare llama.cpp: `llama_cpp.Llama`'s own generate loop, greedy, on the same prompt tokens; the
   engine's Greedy tokens/s over it.
3. Bandwidth: a torch sum over 1 GiB (best of 5) gives the host's memory bandwidth; each engine's
   bytes read per token are its weights (transformers: the loaded model's parameter bytes, tied
   embeddings once; llama.cpp: the GGUF's tensor bytes), so Greedy's fraction of its ceiling is
   tokens/s x bytes per token / bandwidth.
4. Agreement (float32 transformers, the GGUF de-quantised, against llama.cpp on the quantised
   GGUF; the two compute in different precisions): greedy top-1 agreement teacher-forced along
   llama.cpp's greedy output (fraction of positions where both engines' argmax is the same), the
   prompts whose greedy and BS-4 outputs are identical, and the mean shared prefix.

    python benchmarks/bench_llamacpp.py                       # 3 trials x 128 tokens, 12 agreement prompts
    python benchmarks/bench_llamacpp.py --trials 1 --max-new-tokens 32 --agreement 4   # a quick look
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time

import torch

import decoders
from arena.engines import LLAMACPP, LOCAL
from arena.engines.llamacpp.runtime import VERSION, library
from arena.engines.llamacpp.weights import info, model_gguf
from arena.engines.local.inputs import encode_ids
from arena.model.llm import load_model
from arena.runs.requests import RunRequest

PROMPT = "Write a short story about a lighthouse keeper who finds a message in a bottle."
METHODS = ("TS-Temp", "TS-Tilted", "BS-4", "Greedy", "N-gram-Block", "TS-Warmup", "Dual-Threshold")
AGREEMENT_PROMPTS = (
    "Explain the basic principles of quantum computing.",
    "Write a thank-you letter to a colleague who helped you. Make it sincere and specific.",
    "What is the capital of France, and why is it famous?",
    "Give three tips for studying for an exam.",
    "Describe a sunset over the ocean in two sentences.",
    "How does a bicycle stay upright?",
    "Write a haiku about autumn leaves.",
    "What are the benefits of drinking water?",
    "Summarize the story of Cinderella in three sentences.",
    "Why is the sky blue?",
    "List four animals that live in the Arctic.",
    "How do I make a cup of tea?",
)


def bandwidth_gbs(gib: float = 1.0, rounds: int = 5) -> float:
    """Bytes streamed per second by a torch sum over `gib` GiB of float32 (best of `rounds`)."""
    x = torch.ones(int(gib * 2**30 / 4), dtype=torch.float32)
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        float(x.sum())
        best = min(best, time.perf_counter() - start)
    return x.numel() * 4 / best / 1e9


def transformers_bytes(lm) -> int:
    seen, total = set(), 0
    for p in lm.model.parameters():
        if p.data_ptr() not in seen:  # tied embeddings once
            seen.add(p.data_ptr())
            total += p.numel() * p.element_size()
    return total


def bare_greedy(llm, ids: list[int], n: int) -> tuple[int, float]:
    """(tokens, seconds) of `Llama.generate`'s greedy loop from an empty cache."""
    llm.reset()
    count, start = 0, time.perf_counter()
    for _ in llm.generate(ids, temp=0.0, reset=True):
        count += 1
        if count >= n:
            break
    return count, time.perf_counter() - start


def speed(lm, methods: list[str], trials: int, n: int, bare) -> dict:
    """Interleaved per trial: each method on transformers then llama.cpp; bare llama.cpp after Greedy."""
    totals = {(e, m): [0, 0.0] for e in ("transformers", "llamacpp") for m in methods}
    totals.update({("bare", "Greedy"): [0, 0.0]})
    req = RunRequest(PROMPT, list(methods), {}, n, 0)
    greedy_ids = encode_ids(lm, req, "Greedy")
    for engine in (LOCAL, LLAMACPP):  # warm-ups, untimed
        engine.run_methods(lm, RunRequest(PROMPT, list(methods), {}, 4, 0))
    bare_greedy(bare, greedy_ids, 4)
    for trial in range(trials):
        for method in methods:
            one = RunRequest(PROMPT, [method], {}, n, trial)
            for name, engine in (("transformers", LOCAL), ("llamacpp", LLAMACPP)):
                [r] = engine.run_methods(lm, one)
                totals[(name, method)][0] += r.new_tokens
                totals[(name, method)][1] += r.latency_ms / 1000
            if method == "Greedy":
                count, seconds = bare_greedy(bare, greedy_ids, n)
                totals[("bare", "Greedy")][0] += count
                totals[("bare", "Greedy")][1] += seconds
        print(f"trial {trial + 1}/{trials} done", file=sys.stderr, flush=True)
    return {f"{e}|{m}": {"tokens": t, "seconds": round(s, 3), "tok_s": t / s} for (e, m), (t, s) in totals.items()}


def forced_top1(lm32, ids: list[int], tokens: list[int]) -> tuple[int, int]:
    """Along `tokens` (llama.cpp's greedy output), positions where both engines' argmax agree, and positions."""
    seq = ids + tokens
    with torch.inference_mode():
        logits = lm32.model(torch.tensor([seq])).logits[0, len(ids) - 1 : len(seq) - 1]
    theirs = logits.argmax(-1).tolist()
    return sum(int(a == b) for a, b in zip(theirs, tokens)), len(tokens)


def shared_prefix(a: list[int], b: list[int]) -> float:
    k = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    return k / max(len(a), len(b), 1)


def agreement(lm32, prompts: tuple[str, ...], n: int) -> dict:
    forced = [0, 0]
    same = {"Greedy": 0, "BS-4": 0}
    prefix: dict[str, list[float]] = {"Greedy": [], "BS-4": []}
    for prompt in prompts:
        req = RunRequest(prompt, ["Greedy", "BS-4"], {}, n, 0)
        ours = {r.method: r.token_ids for r in LLAMACPP.run_methods(lm32, req)}
        theirs = {r.method: r.token_ids for r in LOCAL.run_methods(lm32, req)}
        hit, total = forced_top1(lm32, encode_ids(lm32, req, "Greedy"), ours["Greedy"])
        forced[0] += hit
        forced[1] += total
        for m in same:
            same[m] += int(ours[m] == theirs[m])
            prefix[m].append(shared_prefix(ours[m], theirs[m]))
    return {
        "prompts": len(prompts),
        "max_new_tokens": n,
        "greedy_top1_teacher_forced": forced[0] / max(forced[1], 1),
        "identical": same,
        "mean_shared_prefix": {m: statistics.mean(v) for m, v in prefix.items()},
    }


def table(result: dict) -> str:
    s, bw = result["speed"], result["bandwidth_gbs"]
    lines = [
        "| method | transformers tok/s | llama.cpp tok/s | ratio | tokens (transformers / llama.cpp) |",
        "|---|---|---|---|---|",
    ]
    for m in result["methods"]:
        t, ll = s[f"transformers|{m}"], s[f"llamacpp|{m}"]
        ratio = ll["tok_s"] / t["tok_s"]
        lines.append(f"| {m} | {t['tok_s']:.1f} | {ll['tok_s']:.1f} | {ratio:.2f}x | {t['tokens']} / {ll['tokens']} |")
    compare = result["compare_ratio"]
    lines.append(f"| Compare (BS-4, TS-Temp, TS-Tilted), total time | | | {compare:.2f}x faster | |")
    bare = s["bare|Greedy"]
    lines.append(
        f"| bare llama.cpp greedy (`Llama.generate`) | | {bare['tok_s']:.1f} | engine/bare "
        f"{result['engine_over_bare']:.2f} | {bare['tokens']} |"
    )
    for e, key in (("transformers", "transformers_bytes"), ("llama.cpp", "gguf_bytes")):
        tok = s[f"{'llamacpp' if e == 'llama.cpp' else e}|Greedy"]["tok_s"]
        frac = tok * result[key] / (bw * 1e9)
        lines.append(f"| {e} Greedy: {result[key] / 1e6:.0f} MB/token, {frac:.0%} of {bw:.1f} GB/s | | | | |")
    a = result.get("agreement")
    if a:
        lines.append(
            f"| agreement over {a['prompts']} prompts x {a['max_new_tokens']} tokens: greedy top-1 "
            f"{a['greedy_top1_teacher_forced']:.1%} (teacher-forced); identical Greedy {a['identical']['Greedy']}, "
            f"BS-4 {a['identical']['BS-4']}; shared prefix Greedy {a['mean_shared_prefix']['Greedy']:.0%}, "
            f"BS-4 {a['mean_shared_prefix']['BS-4']:.0%} | | | | |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> dict:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--trials", type=int, default=3)
    p.add_argument("--max-new-tokens", type=int, default=128)
    p.add_argument("--methods", default=",".join(METHODS))
    p.add_argument("--agreement", type=int, default=len(AGREEMENT_PROMPTS), help="prompts for agreement (0: skip)")
    p.add_argument("--agreement-tokens", type=int, default=32)
    p.add_argument("--model", default=None, help="an embedded model or .gguf path (default: the embedded SmolLM2)")
    p.add_argument("--json", help="also write the figures to this file")
    args = p.parse_args(argv)
    methods = decoders.parse_methods(args.methods)
    methods += [] if "Greedy" in methods else ["Greedy"]  # bare llama.cpp is compared on it
    lm = load_model(args.model)
    lib = library()
    gguf = info(model_gguf(lm))
    bare = lib.Llama(model_path=str(gguf.path), n_threads=torch.get_num_threads(), n_ctx=2048, verbose=False)
    load = os.getloadavg()
    result: dict = {
        "host": f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, load {load[0]:.1f}",
        "model": f"{lm.name} · transformers {lm.precision} · llama.cpp GGUF {gguf.quant} (llama-cpp-python {VERSION})",
        "threads": torch.get_num_threads(),
        "methods": methods,
        "trials": args.trials,
        "max_new_tokens": args.max_new_tokens,
        "bandwidth_gbs": bandwidth_gbs(),
        "transformers_bytes": transformers_bytes(lm),
        "gguf_bytes": gguf.tensor_bytes,
    }
    result["speed"] = speed(lm, methods, args.trials, args.max_new_tokens, bare)
    s = result["speed"]
    article = [m for m in ("BS-4", "TS-Temp", "TS-Tilted") if m in methods]
    result["compare_ratio"] = sum(s[f"transformers|{m}"]["seconds"] for m in article) / sum(
        s[f"llamacpp|{m}"]["seconds"] for m in article
    )
    result["engine_over_bare"] = s["llamacpp|Greedy"]["tok_s"] / s["bare|Greedy"]["tok_s"]
    if args.agreement:
        lm32 = lm if lm.dtype == torch.float32 else load_model(args.model, dtype="float32")
        result["agreement"] = agreement(lm32, AGREEMENT_PROMPTS[: args.agreement], args.agreement_tokens)
    result["load_after"] = f"{os.getloadavg()[0]:.1f}"
    print(f"{result['host']} (load after: {result['load_after']}); {result['model']}; {result['threads']} threads")
    print(table(result))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=2)
    return result


if __name__ == "__main__":
    main()
