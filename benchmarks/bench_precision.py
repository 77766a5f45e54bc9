"""The article's question per precision: does the tilt mean the same on a lower-precision model's logits?

For each variant of one model (fp32, bf16, int8, int8-dynamic; each loaded as the app loads
`MODEL@VARIANT`, arena/model/llm.py), on held-out fragments (evaluation/heldout.py) teacher-forced:
prompt + human continuation in one forward pass, every position that predicts a continuation token:
  std, max-med   the logits' dynamic range: their standard deviation over the vocabulary, and the
                 top logit minus the median one (the mean of each over positions);
  agree          top-1 agreement with fp32: the share of positions whose argmax is fp32's;
  next           the share whose argmax is the human's next token (the same for every variant if
                 quantization cost nothing);
  KL tilt        KL(tilted || untilted) in nats, mean over positions, at TS-Tilted's defaults: the
                 app's own TiltedLogitsProcessor and prior (decoders/methods/ts_tilted.py), untilted
                 = softmax(logits / T), tilted = softmax((logits - λ·T·S) / T), whole vocabulary (before
                 top-k/top-p). Equal across variants = λ moves each variant's distribution as far.
and decode speed over bare fp32 `generate`: greedy, every side forced to the same number of new
tokens, trials interleaved with the order rotated, the median of per-trial ratios.

    python benchmarks/bench_precision.py --items 24 --trials 3 --new-tokens 32
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import torch

# a sibling script (run as `python benchmarks/bench_precision.py`, its folder is on the path): the
# same bare `generate` and device settings as the core benchmark's
from bench_core import bare_generate_ms  # type: ignore[import-not-found]

import decoders
from arena.inputs.numbers import cli_whole
from arena.model.llm import LoadedModel, decode_context, load_model, split_variant
from evaluation.heldout import load_heldout

VARIANTS = ("fp32", "bf16", "int8", "int8-dynamic")
SPEED_PROMPT = "In that forgotten interstellar port, the rusted skeletons of starships stood like the bones of giant beasts. I walked"


def teacher_forced(lm: LoadedModel, ids: torch.Tensor, start: int) -> torch.Tensor:
    """float32 logits at every position from `start - 1` on (those that predict ids[start:])."""
    with torch.inference_mode():
        logits = lm.model(input_ids=ids, attention_mask=torch.ones_like(ids)).logits[0]
    return logits[start - 1 : -1].float()


def tilt_kl(logits: torch.Tensor, ids: torch.Tensor, tilt, temperature: float) -> torch.Tensor:
    """KL(tilted || untilted) per position, nats: tilted from the app's processor, both at T."""
    untilted = torch.log_softmax(logits / temperature, dim=-1)
    tilted = torch.log_softmax(tilt(ids, logits.clone()) / temperature, dim=-1)
    return (tilted.exp() * (tilted - untilted)).sum(-1)


def main(argv: list[str] | None = None) -> dict:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model", default=None, help="model setting without a variant (default: the app's)")
    p.add_argument("--variants", default=",".join(VARIANTS), help=f"comma-separated, fp32 first (default {VARIANTS})")
    p.add_argument("--items", type=cli_whole, default=24, help="held-out fragments")
    p.add_argument("--language", default="en", help="en, zh or all")
    p.add_argument("--max-tokens", type=cli_whole, default=96, help="tokens per fragment, prompt included")
    p.add_argument("--trials", type=cli_whole, default=3, help="interleaved speed trials")
    p.add_argument("--new-tokens", type=cli_whole, default=32, help="new tokens per speed trial")
    p.add_argument("--threads", type=cli_whole, help="torch threads (default: torch's choice)")
    p.add_argument("--json", help="also write the figures to this file")
    args = p.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    base, variant = split_variant(args.model)
    if variant:
        raise SystemExit("error: give --model without a variant; --variants chooses them")
    variants = [v.strip() for v in args.variants.split(",") if v.strip()]
    if variants[0] != "fp32":
        raise SystemExit("error: --variants must start with fp32, the reference")
    started = time.perf_counter()
    models = {}
    for v in variants:
        t = time.perf_counter()
        models[v] = load_model(f"{base}@{v}")
        print(f"loaded {models[v].describe()} in {time.perf_counter() - t:.1f} s", file=sys.stderr)
    ref = models["fp32"]
    tok = ref.tokenizer

    tilted = decoders.get("TS-Tilted")
    defaults = tilted.defaults()
    temperature, alpha = float(defaults["temperature"]), float(defaults["alpha"])
    tilt = tilted.plan(None, decode_context(ref, 0, 1)).logits_processors[0]

    language = None if args.language == "all" else args.language
    items = load_heldout(language, args.items)
    acc: dict[str, dict[str, list[float]]] = {
        v: {k: [] for k in ("std", "range", "agree", "next", "kl")} for v in models
    }
    positions = 0
    for item in items:
        prompt_ids = tok(item.prompt, add_special_tokens=False).input_ids
        all_ids = tok(item.prompt + item.continuation, add_special_tokens=False).input_ids[: args.max_tokens]
        start = len(prompt_ids)
        if start < 1 or len(all_ids) - start < 1:
            continue
        ids = torch.tensor([all_ids], device=ref.device)
        target = ids[0, start:]
        reference = teacher_forced(ref, ids, start)
        ref_top = reference.argmax(-1)
        positions += len(target)
        for v, lm in models.items():
            logits = reference if v == "fp32" else teacher_forced(lm, ids, start)
            a = acc[v]
            a["std"] += logits.std(-1).tolist()
            a["range"] += (logits.max(-1).values - logits.median(-1).values).tolist()
            top = logits.argmax(-1)
            a["agree"] += (top == ref_top).float().tolist()
            a["next"] += (top == target).float().tolist()
            a["kl"] += tilt_kl(logits, ids, tilt, temperature).tolist()
    print(f"teacher-forced: {len(items)} fragments, {positions} positions", file=sys.stderr)

    speed_ids = tok(SPEED_PROMPT, return_tensors="pt", add_special_tokens=False).input_ids.to(ref.device)
    n = args.new_tokens
    greedy = dict(do_sample=False, max_new_tokens=n, min_new_tokens=n, pad_token_id=tok.pad_token_id)
    for lm in models.values():  # warm-up: kernels, allocations
        bare_generate_ms(lm, speed_ids, 0, **{**greedy, "max_new_tokens": 4, "min_new_tokens": 4})
    speed: dict[str, list[float]] = {v: [] for v in models}
    same_tokens: dict[str, list[float]] = {v: [] for v in models}
    for trial in range(args.trials):
        order = list(models)[trial % len(models) :] + list(models)[: trial % len(models)]
        tokens = {}
        for v in order:
            ms, tokens[v] = bare_generate_ms(models[v], speed_ids, 0, **greedy)
            speed[v].append(len(tokens[v]) / (ms / 1000))
        for v in models:
            # the share of the greedy continuation equal to fp32's up to the first difference
            agree = next((i for i, (a, b) in enumerate(zip(tokens[v], tokens["fp32"])) if a != b), len(tokens[v]))
            same_tokens[v].append(agree / max(len(tokens["fp32"]), 1))
        print(
            f"trial {trial + 1}/{args.trials}: " + ", ".join(f"{v} {speed[v][-1]:.1f}" for v in models) + " tok/s",
            file=sys.stderr,
        )

    def mean(xs: list[float]) -> float:
        return sum(xs) / len(xs)

    rows = {
        v: {
            "precision": models[v].precision,
            "logit_std": mean(acc[v]["std"]),
            "logit_max_minus_median": mean(acc[v]["range"]),
            "top1_agreement_with_fp32": mean(acc[v]["agree"]),
            "top1_is_next_token": mean(acc[v]["next"]),
            "kl_tilted_untilted": mean(acc[v]["kl"]),
            "decode_tok_per_s_median": statistics.median(speed[v]),
            "decode_over_fp32": statistics.median(x / y for x, y in zip(speed[v], speed["fp32"])),
            "greedy_tokens_same_as_fp32": mean(same_tokens[v]),
        }
        for v in models
    }
    figures = {
        "model": ref.name,
        "device": ref.device.type,
        "torch": torch.__version__,
        "threads": torch.get_num_threads(),
        "fragments": len(items),
        "positions": positions,
        "language": args.language,
        "tilt": {"temperature": temperature, "alpha": alpha, "prior": defaults["prior"]},
        "trials": args.trials,
        "new_tokens": n,
        "seconds": round(time.perf_counter() - started, 1),
        "variants": rows,
    }
    print(
        f"model {ref.name} on {ref.device.type}; torch {torch.__version__}, {torch.get_num_threads()} threads; "
        f"{len(items)} held-out fragments ({args.language}), {positions} teacher-forced positions; "
        f"TS-Tilted T={temperature} λ={alpha} prior {defaults['prior']}; speed: greedy, {n} new tokens, "
        f"{args.trials} interleaved trials"
    )
    print(
        "| variant | logit std | max − median | top-1 agree w/ fp32 | top-1 = next token | KL(tilted‖untilted) | decode over fp32 | greedy prefix = fp32 |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for v, r in rows.items():
        print(
            f"| {v} ({r['precision']}) | {r['logit_std']:.3f} | {r['logit_max_minus_median']:.3f} | "
            f"{r['top1_agreement_with_fp32']:.3f} | {r['top1_is_next_token']:.3f} | {r['kl_tilted_untilted']:.4f} | "
            f"{r['decode_over_fp32']:.2f}× ({r['decode_tok_per_s_median']:.1f} tok/s) | "
            f"{r['greedy_tokens_same_as_fp32']:.2f} |"
        )
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2))
    return figures


if __name__ == "__main__":
    main()
