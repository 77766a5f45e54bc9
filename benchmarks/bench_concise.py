"""TS-Tilted-Concise against TS-Tilted, and its two parts apart: output length and verbose phrases.

    python benchmarks/bench_concise.py --threads 1          # 2 seeds x 6 scenarios x 6 variants, 256 tokens
    python benchmarks/bench_concise.py --seeds 0 --max-new-tokens 64 --no-untilted --json out.json

The variants, on the article's six built-in scenarios (three in Chinese, three in English; the
sci-fi ones are raw continuations, where the instruction is put before the text):

    TS-Tilted            the baseline
    instruction only     TS-Tilted-Concise with phrases=""            (the prompt changes, sampling is TS-Tilted's)
    penalty only         TS-Tilted-Concise with instruction=off       (the prompt is TS-Tilted's)
    instruction+penalty  TS-Tilted-Concise at its defaults
    λ=0                  the same with alpha=0 and both parts off: how often the model writes the
    λ=0 + penalty        phrases without the tilt (which already pushes away from frequent words such
                         as "very"), and what the penalty does there (--no-untilted leaves these out)

For every seed and language, each variant generates the same rows (that language's prompts, each
`--samples` times) in one batch with the same seed (arena/engines/local/batching.py, as studies generate), so
the variants are compared on the same prompts with common random numbers. Measured per variant:

* mean generated tokens, with the paired difference to TS-Tilted, and the share of outputs that
  ended before `--max-new-tokens` (eos): the cap must be above the usual answer length for a
  shorter answer to show;
* the listed phrases (the shipped default list) found in the texts (`decoders.phrases.count_phrases`),
  per 100 generated tokens and per output;
* the expected number of phrase completions per 100 tokens: along each output, teacher-forced, the
  probability its own sampling distribution (processors, temperature, top-k, top-p) gave to the
  tokens that would complete a listed phrase at that step. Phrases are rare, so counts are noisy
  (often zero); this shows how much probability the penalty takes away even when nothing was
  sampled.

Quality (is a shorter answer still an answer?) is for raters: this measures length and phrases
only. No timing is printed: this is not a speed benchmark.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import torch
from transformers import SequenceBiasLogitsProcessor, TemperatureLogitsWarper, TopKLogitsWarper, TopPLogitsWarper

from arena.engines.local import batching
from arena.engines.local.inputs import encode_ids, plan_for
from arena.inputs.prompts import SCENARIOS
from arena.model.llm import load_model
from arena.runs.requests import RunRequest
from decoders.phrases import count_phrases, default_phrases, token_sequences

NAME = "TS-Tilted-Concise"
VARIANTS: dict[str, tuple[str, dict]] = {
    "TS-Tilted": ("TS-Tilted", {}),
    "instruction only": (NAME, {"phrases": ""}),
    "penalty only": (NAME, {"instruction": "off"}),
    "instruction+penalty": (NAME, {}),
}
UNTILTED: dict[str, tuple[str, dict]] = {
    "λ=0": (NAME, {"alpha": 0.0, "instruction": "off", "phrases": ""}),
    "λ=0 + penalty": (NAME, {"alpha": 0.0, "instruction": "off"}),
}


def expected_completions(lm, method: str, settings: dict, prompt: str, prompt_ids: list[int], out_ids: list[int]):
    """Σ over the output's steps of the probability (under the method's own sampling distribution,
    teacher-forced along its text) of a token that completes a listed phrase at that step."""
    plan = plan_for(lm, method, settings, len(prompt_ids), len(out_ids), prompt)
    kw = plan.generate_kwargs
    warpers = [TemperatureLogitsWarper(kw["temperature"])]
    if kw.get("top_k"):
        warpers.append(TopKLogitsWarper(kw["top_k"]))
    if kw.get("top_p", 1.0) < 1.0:
        warpers.append(TopPLogitsWarper(kw["top_p"]))
    found = token_sequences(lm.tokenizer, default_phrases())
    detect = SequenceBiasLogitsProcessor([[list(q), 1.0] for q in found.sequences])
    ids = torch.tensor([prompt_ids + out_ids], device=lm.device)
    with torch.inference_mode():
        logits = lm.model(ids).logits[0].float()
        total = 0.0
        for t in range(len(out_ids)):
            pos = len(prompt_ids) + t - 1  # the logits here choose output token t
            context, scores = ids[:, : pos + 1], logits[pos : pos + 1]
            for proc in [*plan.logits_processors, *warpers]:
                scores = proc(context, scores)
            completes = detect(context, torch.zeros_like(scores)) != 0
            total += float(torch.softmax(scores, dim=-1)[completes].sum())
    return total


def generate(lm, variants: dict, seeds: list[int], samples: int, max_new: int) -> list[dict]:
    rows = []
    for seed in seeds:
        for language in ("zh", "en"):
            scenarios = [s for s in SCENARIOS if s.language == language]
            for variant, (method, settings) in variants.items():
                reqs = [RunRequest(s.prompt, [method], {method: settings}, max_new, raw=s.raw) for s in scenarios]
                ids = [encode_ids(lm, r, method) for r in reqs for _ in range(samples)]
                out = batching.generate_batch(lm, method, settings, ids, max_new, seed, scenarios[0].prompt)
                for k, row in enumerate(out):
                    scenario = scenarios[k // samples]
                    expected = expected_completions(lm, method, settings, scenario.prompt, ids[k], row.token_ids)
                    rows.append(
                        {
                            "variant": variant,
                            "seed": seed,
                            "language": language,
                            "scenario": scenario.key,
                            "sample": k % samples,
                            "prompt_tokens": len(ids[k]),
                            "new_tokens": row.new_tokens,
                            "eos": row.finish_reason == "eos",
                            "phrases": count_phrases(row.text, default_phrases()),
                            "expected_phrases": expected,
                            "text": row.text,
                        }
                    )
                print(f"seed {seed} {language} {variant}: {sum(r.new_tokens for r in out)} tokens", file=sys.stderr)
    return rows


def _se(values: list[float]) -> float:
    return statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else float("nan")


def summary(rows: list[dict], language: str | None = None) -> list[dict]:
    chosen = [r for r in rows if language in (None, r["language"])]
    base = {(r["seed"], r["language"], r["scenario"], r["sample"]): r for r in chosen if r["variant"] == "TS-Tilted"}
    out = []
    for variant in dict.fromkeys(r["variant"] for r in chosen):
        mine = [r for r in chosen if r["variant"] == variant]
        tokens = [r["new_tokens"] for r in mine]
        paired = [
            r["new_tokens"] - base[(r["seed"], r["language"], r["scenario"], r["sample"])]["new_tokens"] for r in mine
        ]
        found = sum(r["phrases"] for r in mine)
        out.append(
            {
                "variant": variant,
                "outputs": len(mine),
                "mean_tokens": statistics.mean(tokens),
                "se_tokens": _se(tokens),
                "delta_tokens": statistics.mean(paired),
                "se_delta": _se(paired),
                "eos_share": sum(r["eos"] for r in mine) / len(mine),
                "phrases": found,
                "per_100_tokens": 100 * found / max(1, sum(tokens)),
                "outputs_with_phrase": sum(r["phrases"] > 0 for r in mine) / len(mine),
                "expected_per_100_tokens": 100 * sum(r["expected_phrases"] for r in mine) / max(1, sum(tokens)),
                "identical_to_ts_tilted": sum(
                    r["text"] == base[(r["seed"], r["language"], r["scenario"], r["sample"])]["text"] for r in mine
                ),
            }
        )
    return out


def table(stats: list[dict]) -> str:
    lines = [
        "| variant | outputs | mean tokens (±SE) | Δ tokens vs TS-Tilted, paired (±SE) | ended (eos) | "
        "phrases found | per 100 tokens | outputs with one | expected per 100 tokens | text = TS-Tilted's |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for s in stats:
        lines.append(
            f"| {s['variant']} | {s['outputs']} | {s['mean_tokens']:.1f} ± {s['se_tokens']:.1f} | "
            f"{s['delta_tokens']:+.1f} ± {s['se_delta']:.1f} | {s['eos_share']:.0%} | {s['phrases']} | "
            f"{s['per_100_tokens']:.2f} | {s['outputs_with_phrase']:.0%} | {s['expected_per_100_tokens']:.3f} | "
            f"{s['identical_to_ts_tilted']} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seeds", default="0,1", help="comma-separated; one batch per seed, language and variant")
    p.add_argument("--samples", type=int, default=1, help="rows per prompt in each batch (default 1)")
    p.add_argument("--max-new-tokens", type=int, default=256, help="above SmolLM2's usual answer (default 256)")
    p.add_argument("--no-untilted", action="store_true", help="leave out the λ=0 variants")
    p.add_argument("--model", help="default: the embedded model")
    p.add_argument("--json", help="also write the summary and every output here")
    p.add_argument("--threads", type=int, help="torch threads (default: torch's); 1 is faster on a crowded machine")
    args = p.parse_args(argv)
    seeds = [int(s) for s in args.seeds.split(",") if s.strip()]
    if args.threads:
        torch.set_num_threads(args.threads)
    lm = load_model(args.model)
    load_before = os.getloadavg()
    started = time.perf_counter()
    variants = VARIANTS if args.no_untilted else {**VARIANTS, **UNTILTED}
    rows = generate(lm, variants, seeds, args.samples, args.max_new_tokens)
    wall = time.perf_counter() - started
    load_after = os.getloadavg()
    print(f"python benchmarks/bench_concise.py {' '.join(sys.argv[1:] if argv is None else argv)}")
    print(
        f"model {lm.describe()}, torch {torch.__version__}, {torch.get_num_threads()} threads; seeds {seeds}, "
        f"{args.samples} samples per prompt, max_new_tokens {args.max_new_tokens}; {len(rows)} outputs in {wall:.0f} s; "
        f"load average {load_before[0]:.1f} before, {load_after[0]:.1f} after"
    )
    result: dict = {}
    for language in (None, "zh", "en"):
        stats = summary(rows, language)
        result[language or "all"] = stats
        print(f"\n{'all six scenarios' if language is None else language + ' scenarios'}:\n{table(stats)}")
    if args.json:
        Path(args.json).write_text(
            json.dumps({"summary": result, "outputs": rows}, ensure_ascii=False, indent=1), encoding="utf-8"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
