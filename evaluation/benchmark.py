"""The article's benchmark pipeline, done right: `python -m evaluation.benchmark`.

For each prompt (the three built-in scenarios by default, or a file) and each trial, every method
runs once on the same prompt through `arena.runs.runner.run_methods` (methods one after another under
the model's lock; the runner warms each method up once per model). Trial t uses seed t, so
trials differ for sampling methods and repeat exactly for beam search. `--warmup N` adds N
untimed rounds per prompt before the timed trials.

Per method x scenario (and per method over all scenarios): latency mean/p50/p95, time to first
token, throughput (generated tokens / generation time, pooled), mean generated tokens, peak
memory (CUDA peak per run on a GPU; on CPU the process's peak RSS, which is not per method).
Quality of the same outputs (unless --no-quality): corpus perplexity of the continuations under
the scorer model (default: the generating model), distinct-1/2, repetition %, Self-BLEU4, Zipf;
with `--heldout N`, the same for N human continuations from the held-out set as the reference.

Ratios printed from the same run (the article's claims, to be checked):
  * sampling latency / BS-4 latency: mean latency of each sampling method over mean BS-4
    latency on the same prompts and trials;
  * TS-Tilted / TS-Temp time per token: (sum latency / sum tokens) of each.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import platform
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from plotly.subplots import make_subplots
from tqdm import tqdm

import decoders
from arena import engines
from arena.engines.local.inputs import encode
from arena.inputs.numbers import cli_whole
from arena.inputs.prompts import SCENARIOS
from arena.model.llm import get_default_model, load_model
from arena.model.memory import DESCRIPTION as MEMORY_HELP
from arena.model.memory import process_peak_rss_mb
from arena.runs.requests import RunRequest, validate_request
from arena.runs.runner import run_methods
from common.errors import UserError
from common.outputs import check_output_path

from .heldout import load_heldout
from .mauve_score import FEATURES as MAUVE_FEATURES
from .mauve_score import score_texts
from .metrics import text_metrics
from .perplexity import continuation_scores, corpus_ppl, encode_pair, strip_end

SAMPLING = ("TS-Temp", "TS-Tilted")


@dataclass(frozen=True)
class BenchPrompt:
    scenario: str
    language: str
    prompt: str
    raw: bool = False


def default_prompts(language: str = "all") -> list[BenchPrompt]:

    if language not in ("all", "en", "zh"):
        raise UserError(f"--language must be en, zh or all, got {language!r}")
    return [
        BenchPrompt(f"{s.key}/{s.language}", s.language, s.prompt, s.raw)
        for s in SCENARIOS
        if language in ("all", s.language)
    ]


def heldout_prompts(language: str, n: int) -> list[BenchPrompt]:
    """The first `n` held-out prompts, continued raw (their human continuations are MAUVE's reference)."""
    if language not in ("en", "zh"):
        raise UserError("--heldout-prompts needs --language en or zh")
    if n < 1:
        raise UserError("--heldout-prompts must be at least 1")
    return [BenchPrompt(item.id, item.language, item.prompt, True) for item in load_heldout(language, limit=n)]


def read_prompts(path: str) -> list[BenchPrompt]:
    """The prompts of a file (`arena.inputs.prompts.read_prompt_file`: .txt, .jsonl or .csv); a prompt
    without a scenario is named after its place, prompt-1, prompt-2..."""
    from arena.inputs.prompts import read_prompt_file  # here, like SCENARIOS above: arena.inputs.prompts imports torch

    return [
        BenchPrompt(spec.scenario or f"prompt-{i}", spec.language, spec.prompt, spec.raw)
        for i, spec in enumerate(read_prompt_file(path, default_scenario=""), 1)
    ]


def _pct(values: Sequence[float], q: float) -> float:
    return float(np.percentile(values, q)) if len(values) else math.nan


def summarize(records: Sequence[dict[str, Any]], key: Sequence[str] = ("method", "scenario")) -> list[dict[str, Any]]:
    """Timing figures per group of run records (fields as `MethodResult.public()` + scenario)."""
    groups: dict[tuple, list[dict[str, Any]]] = {}
    for r in records:
        groups.setdefault(tuple(r[k] for k in key), []).append(r)
    out = []
    for k, runs in groups.items():
        lat = [r["latency_ms"] for r in runs]
        tokens = sum(r["new_tokens"] for r in runs)
        peaks = [r["peak_mem_mb"] for r in runs if r.get("peak_mem_mb") is not None]
        growths = [r["peak_mem_growth_mb"] for r in runs if r.get("peak_mem_growth_mb") is not None]
        out.append(
            {
                **dict(zip(key, k)),
                "runs": len(runs),
                "latency_ms_mean": float(np.mean(lat)),
                "latency_ms_p50": _pct(lat, 50),
                "latency_ms_p95": _pct(lat, 95),
                "ttft_ms_mean": float(np.mean([r["ttft_ms"] for r in runs])),
                "tokens_per_s": tokens / (sum(lat) / 1000) if sum(lat) > 0 else math.nan,
                "ms_per_token": sum(lat) / tokens if tokens else math.nan,
                "new_tokens_mean": tokens / len(runs),
                # Highest over the group's runs; see arena/model/memory.py for what they measure per device.
                "peak_mem_mb": max(peaks) if peaks else None,
                "peak_mem_growth_mb": max(growths) if growths else None,
            }
        )
    return out


def ratios(overall: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The article's two claims from per-method overall figures; None where a method is missing."""
    by = {r["method"]: r for r in overall}
    out: dict[str, Any] = {"sampling_over_bs4_latency": {}, "tilted_over_temp_time_per_token": None}
    if "BS-4" in by:
        for m in SAMPLING:
            if m in by:
                out["sampling_over_bs4_latency"][m] = by[m]["latency_ms_mean"] / by["BS-4"]["latency_ms_mean"]
        vals = list(out["sampling_over_bs4_latency"].values())
        if vals:
            out["sampling_over_bs4_latency"]["sampling_mean"] = float(np.mean(vals))
    if "TS-Temp" in by and "TS-Tilted" in by:
        out["tilted_over_temp_time_per_token"] = by["TS-Tilted"]["ms_per_token"] / by["TS-Temp"]["ms_per_token"]
    out["article_claims"] = {"sampling_over_bs4_latency": "0.45-0.48", "tilted_over_temp_time_per_token": "~1.05"}
    return out


def run_benchmark(
    lm,
    methods: Sequence[str],
    prompts: Sequence[BenchPrompt],
    trials: int,
    warmup: int,
    max_new_tokens: int,
    progress: bool = True,
    seed0: int = 0,
) -> list[dict[str, Any]]:
    """Every timed run as a record: MethodResult.public() + scenario, language, trial, prompt."""

    records = []
    bar = tqdm(
        total=len(prompts) * (trials + warmup), desc="benchmark", unit="round", disable=not progress, file=sys.stderr
    )
    for bp in prompts:
        validate_request(RunRequest(bp.prompt, list(methods), max_new_tokens=max_new_tokens, seed=seed0, raw=bp.raw))
        for w in range(warmup):
            run_methods(
                lm, RunRequest(bp.prompt, list(methods), max_new_tokens=max_new_tokens, seed=seed0 + w, raw=bp.raw)
            )
            bar.update(1)
        for t in range(trials):
            for res in run_methods(
                lm, RunRequest(bp.prompt, list(methods), max_new_tokens=max_new_tokens, seed=seed0 + t, raw=bp.raw)
            ):
                rec = res.public()
                rec.update(
                    scenario=bp.scenario,
                    language=bp.language,
                    trial=t,
                    prompt=bp.prompt,
                    raw=bp.raw,
                    token_ids=res.token_ids,
                )
                records.append(rec)
            bar.update(1)
    bar.close()
    return records


def method_mauve(lm_scorer, runs: Sequence[dict[str, Any]], n_human: int) -> dict[str, Any]:
    """MAUVE of one method's texts, per language, against that language's held-out human texts
    (evaluation/mauve_score.py); a language with under 10 texts says so instead of a number."""
    out: dict[str, Any] = {}
    for language in dict.fromkeys(r["language"] for r in runs):
        texts = [r["text"] for r in runs if r["language"] == language]
        result = score_texts(lm_scorer, texts, language, n_human=n_human)
        out[language] = result.public() if result is not None else {"mauve": None, "n_texts": len(texts)}
    return out


def quality(
    lm_scorer,
    records: Sequence[dict[str, Any]],
    heldout_n: int,
    prompt_ids: dict | None = None,
    mauve_human: int = 0,
) -> dict[str, Any]:
    """PPL and text metrics per method (and for human text if asked) on the benchmark's outputs.
    `prompt_ids` maps (prompt, raw) to the ids used for generation; given when the scorer is
    the generating model, so exactly the generated ids are scored after exactly those ids. A method
    that adds an instruction to the prompt (TS-Tilted-Concise) is scored after the user's prompt
    without it, as every other method (docs/decoders.md)."""

    out: dict[str, Any] = {}
    methods = list(dict.fromkeys(r["method"] for r in records))
    for m in methods:
        runs = [r for r in records if r["method"] == m]
        if prompt_ids is not None:
            pairs = [(prompt_ids[(r["prompt"], r["raw"])], strip_end(lm_scorer, r["token_ids"])) for r in runs]
        else:
            pairs = [encode_pair(lm_scorer, r["prompt"], r["text"], r["raw"]) for r in runs]
        scores = continuation_scores(lm_scorer, pairs)
        out[m] = {"ppl": corpus_ppl(scores), **text_metrics([r["text"] for r in runs])}
    if mauve_human:
        for m in methods:
            out[m]["mauve"] = method_mauve(lm_scorer, [r for r in records if r["method"] == m], mauve_human)
    if heldout_n:
        items = load_heldout("en", limit=heldout_n)
        scores = continuation_scores(lm_scorer, [encode_pair(lm_scorer, i.prompt, i.continuation, True) for i in items])
        out["human (held-out)"] = {"ppl": corpus_ppl(scores), **text_metrics([i.continuation for i in items])}
    return out


def html_report(path: str, result: dict[str, Any]) -> None:

    rows = result["per_method_scenario"]
    fig = make_subplots(rows=1, cols=2, subplot_titles=("latency (ms), mean with p50-p95", "throughput (tokens/s)"))
    for m in dict.fromkeys(r["method"] for r in rows):
        sub = [r for r in rows if r["method"] == m]
        xs = [r["scenario"] for r in sub]
        fig.add_bar(
            x=xs,
            y=[r["latency_ms_mean"] for r in sub],
            name=m,
            legendgroup=m,
            row=1,
            col=1,
            error_y=dict(
                type="data",
                symmetric=False,
                array=[max(0.0, r["latency_ms_p95"] - r["latency_ms_mean"]) for r in sub],
                arrayminus=[max(0.0, r["latency_ms_mean"] - r["latency_ms_p50"]) for r in sub],
            ),
        )
        fig.add_bar(x=xs, y=[r["tokens_per_s"] for r in sub], name=m, legendgroup=m, showlegend=False, row=1, col=2)
    fig.update_layout(barmode="group", title=f"Decoding benchmark · {result['config']['model']}")
    table = (
        "<table border=1 cellpadding=4><tr>"
        + "".join(f"<th>{k}</th>" for k in rows[0])
        + "</tr>"
        + "".join("<tr>" + "".join(f"<td>{_fmt(v)}</td>" for v in r.values()) + "</tr>" for r in rows)
        + "</table>"
    )
    body = (
        f"<h1>Decoding benchmark</h1><pre>{json.dumps(result['config'], indent=1)}</pre>"
        f"<h2>Ratios (same run)</h2><pre>{json.dumps(result['ratios'], indent=1)}</pre>"
        + fig.to_html(full_html=False, include_plotlyjs=True)
        + f"<h2>Per method and scenario</h2>{table}"
    )
    if result.get("quality"):
        body += "<h2>Quality of the same outputs</h2><pre>" + json.dumps(result["quality"], indent=1) + "</pre>"
    Path(path).write_text(
        f"<!doctype html><html><head><meta charset='utf-8'><title>Decoding benchmark</title></head><body>{body}</body></html>",
        encoding="utf-8",
    )


def _fmt(v: Any) -> str:
    return f"{v:.2f}" if isinstance(v, float) else str(v)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m evaluation.benchmark", description=__doc__.split("\n\n")[0])
    p.add_argument("--model", help="model setting for generation (as ARENA_MODEL; default: the embedded model)")
    p.add_argument("--engine", help="transformers, llamacpp, vllm or dummy (default: ARENA_ENGINE, else transformers)")
    p.add_argument("--methods", help="comma-separated methods (default: BS-4,TS-Temp,TS-Tilted)")
    p.add_argument("--prompts", help="prompt file (.txt, .jsonl or .csv); default: the three built-in scenarios")
    p.add_argument("--language", default="all", help="built-in scenarios in en, zh or all (default all)")
    p.add_argument("--trials", type=cli_whole, default=10, help="timed runs per prompt and method (default 10)")
    p.add_argument(
        "--warmup", type=cli_whole, default=1, help="untimed rounds per prompt before the trials (default 1)"
    )
    p.add_argument("--max-new-tokens", type=cli_whole, default=128)
    p.add_argument("--limit", type=cli_whole, help="use only the first N prompts")
    p.add_argument("--no-quality", action="store_true", help="skip perplexity and text metrics")
    p.add_argument("--scorer", help="model setting of the perplexity scorer (default: the generating model)")
    p.add_argument("--heldout", type=cli_whole, default=0, help="also score N held-out human continuations (default 0)")
    p.add_argument(
        "--heldout-prompts",
        type=cli_whole,
        help="use the first N held-out prompts of --language (en or zh) as the prompts, raw: the methods "
        "continue human text, the setting MAUVE is meant for",
    )
    p.add_argument(
        "--mauve-human",
        type=cli_whole,
        default=200,
        help="MAUVE per method against N held-out human texts of the same language (default 200; 0 = off)",
    )
    p.add_argument("--json", help="write the full result here")
    p.add_argument("--csv", help="write per method x scenario rows here")
    p.add_argument("--html", help="write a plotly HTML report here")
    p.add_argument("--no-progress", action="store_true")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        return _main(args)
    except UserError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


def _main(args: argparse.Namespace) -> int:

    for name in ("trials", "warmup", "heldout"):
        if getattr(args, name) < (1 if name == "trials" else 0):
            raise UserError(f"--{name} must be {'at least 1' if name == 'trials' else '0 or more'}")
    if args.limit is not None and args.limit < 1:
        raise UserError("--limit must be at least 1")
    for option in ("json", "csv", "html"):  # before the run: a bad path must not cost its results
        if getattr(args, option):
            check_output_path(getattr(args, option), f"--{option}")
    methods = decoders.parse_methods(args.methods)
    if args.heldout_prompts is not None:
        if args.prompts:
            raise UserError("give --prompts or --heldout-prompts, not both")
        prompts = heldout_prompts(args.language, args.heldout_prompts)
    else:
        prompts = read_prompts(args.prompts) if args.prompts else default_prompts(args.language)
    prompts = prompts[: args.limit] if args.limit else prompts
    started = time.time()
    engines.use(args.engine)
    lm = load_model(args.model) if args.model else get_default_model()
    records = run_benchmark(lm, methods, prompts, args.trials, args.warmup, args.max_new_tokens, not args.no_progress)
    per = summarize(records)
    overall = summarize([{**r, "scenario": "all"} for r in records])
    result: dict[str, Any] = {
        "config": {
            "model": lm.describe(),
            "methods": methods,
            "trials": args.trials,
            "warmup": args.warmup,
            "max_new_tokens": args.max_new_tokens,
            "prompts": [p.scenario for p in prompts],
            "python": platform.python_version(),
            "machine": platform.machine(),
            "process_peak_rss_mb": process_peak_rss_mb(),
            "peak_mem": MEMORY_HELP,
        },
        "per_method_scenario": per,
        "per_method": overall,
        "ratios": ratios(overall),
    }
    if not args.no_quality:
        scorer = lm if not args.scorer else load_model(args.scorer)
        ids = {
            (p.prompt, p.raw): encode(lm, RunRequest(p.prompt, methods, max_new_tokens=args.max_new_tokens, raw=p.raw))[
                0
            ].tolist()
            for p in prompts
        }
        result["quality"] = quality(scorer, records, args.heldout, ids if scorer is lm else None, args.mauve_human)
        result["config"]["scorer"] = scorer.describe()
        if args.mauve_human:
            result["config"]["mauve"] = (
                f"mauve-text on the scorer's {MAUVE_FEATURES}; human side: {args.mauve_human} held-out texts of "
                "the same language spread over the set; 95% interval: percentile bootstrap over 50 resamples"
            )
        result["config"]["quality_note"] = (
            "text metrics pool all trials of all prompts per method: a deterministic method (BS-4) repeats "
            "its output across trials, which lowers its distinct-n and raises its Self-BLEU4"
        )
    result["runs"] = [{k: v for k, v in r.items() if k != "token_ids"} for r in records]
    result["config"]["wall_s"] = round(time.time() - started, 1)
    _print(result)
    if args.json:
        Path(args.json).write_text(
            json.dumps(_no_nan(result), indent=1, ensure_ascii=False, default=_json_default), encoding="utf-8"
        )
    if args.csv:
        with open(args.csv, "w", newline="", encoding="utf-8") as fh:
            w = csv.DictWriter(fh, fieldnames=list(per[0]))
            w.writeheader()
            w.writerows(per + overall)
    if args.html:
        html_report(args.html, result)
    return 0


def _no_nan(o: Any) -> Any:
    """NaN is not JSON; write null instead."""
    if isinstance(o, float) and math.isnan(o):
        return None
    if isinstance(o, dict):
        return {k: _no_nan(v) for k, v in o.items()}
    if isinstance(o, list):
        return [_no_nan(v) for v in o]
    return o


def _json_default(o: Any) -> Any:
    if isinstance(o, (np.floating, np.integer)):
        return o.item()
    raise TypeError(type(o).__name__)


def _print(result: dict[str, Any]) -> None:
    cols = [
        "method",
        "scenario",
        "runs",
        "latency_ms_mean",
        "latency_ms_p50",
        "latency_ms_p95",
        "ttft_ms_mean",
        "tokens_per_s",
        "new_tokens_mean",
        "peak_mem_mb",
        "peak_mem_growth_mb",
    ]
    print("\t".join(cols))
    for r in result["per_method_scenario"] + result["per_method"]:
        print("\t".join(_fmt(r[c]) for c in cols))
    if result.get("quality"):
        print("\nquality\tppl\tdistinct_1\tdistinct_2\trepetition_pct\tself_bleu4\tzipf")
        for m, q in result["quality"].items():
            print(
                "\t".join(
                    [m]
                    + [_fmt(q[k]) for k in ("ppl", "distinct_1", "distinct_2", "repetition_pct", "self_bleu4", "zipf")]
                )
            )
        print_mauve(result["quality"])
    r = result["ratios"]
    print()
    for m, v in r["sampling_over_bs4_latency"].items():
        print(f"ratio latency {m} / BS-4: {v:.3f}   (article: 0.45-0.48)")
    t = r["tilted_over_temp_time_per_token"]
    print(
        f"ratio time per token TS-Tilted / TS-Temp: {t:.3f}   (article: ~1.05)"
        if t is not None
        else "ratio time per token TS-Tilted / TS-Temp: n/a (both methods needed)"
    )


def print_mauve(quality: dict[str, Any]) -> None:
    rows = [(m, lang, v) for m, q in quality.items() for lang, v in (q.get("mauve") or {}).items()]
    if not rows:
        return
    print("\nMAUVE (vs held-out human text)\tlanguage\tmauve\t95% interval\ttexts\thuman texts")
    for m, lang, v in rows:
        if v.get("mauve") is None:
            print(f"{m}\t{lang}\tn/a (under 10 texts: {v['n_texts']})")
        else:
            interval = f"[{v['ci_low']:.3f}, {v['ci_high']:.3f}]"
            print(f"{m}\t{lang}\t{v['mauve']:.3f}\t{interval}\t{v['n_texts']}\t{v['n_human']}")


if __name__ == "__main__":
    raise SystemExit(main())
