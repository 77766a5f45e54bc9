"""`python -m evaluation.tasks`: article 003's three tasks, per decoder, checked automatically.

    python -m evaluation.tasks --methods preset,Greedy,TS-Temp --samples 4 --json
    python -m evaluation.tasks --answers answers.jsonl --json     # score given texts, no model
    python -m evaluation.tasks --write-prompts tasks.jsonl         # a prompt file for a study

Per method × task: the success rate with a 95% Wilson interval over samples and seeds (and the
two languages), the mean latency and generated tokens, and the reasons for failure. `preset` in
--methods is each task's own decoder (Math-Arms, Code-Stabilizer, Length-Aware).

`--answers FILE.jsonl` scores texts without generating: one JSON object per line,
{"task": "math-cylinder" | "code-indices" | "summary-paper", "text": "..."}; with --json it prints
{"answers": [{"task", "success", "reason"}, ...]} in the file's order (success is null when an
answer could not be checked, e.g. without a sandbox). Bad input prints one `error:` line and exits 2.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any, NoReturn

from arena.files.readers import read_jsonl
from arena.inputs.numbers import cli_whole
from arena.inputs.prompts import TASK_SCENARIOS
from common.errors import UserError
from common.outputs import check_output_path

from . import TASKS, check, task_list


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line, exit 2, as every other CLI here
        self.exit(2, f"error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="python -m evaluation.tasks", description=__doc__.split("\n\n")[0])
    p.add_argument(
        "--methods", help="comma-separated decoders; 'preset' = each task's own (default preset,Greedy,TS-Temp)"
    )
    p.add_argument("--tasks", help=f"comma-separated task ids (default all: {','.join(TASKS)})")
    p.add_argument("--language", default="all", help="en, zh or all (default all)")
    p.add_argument("--samples", type=cli_whole, help="samples per stochastic method, task and language (default 3)")
    p.add_argument("--seed", type=cli_whole, default=0, help="sample k uses seed SEED + k (default 0)")
    p.add_argument("--max-new-tokens", type=cli_whole, help="for every task (default: math 256, code 192, summary 256)")
    p.add_argument("--model", help="model setting (as ARENA_MODEL; default: the embedded model)")
    p.add_argument("--answers", metavar="FILE.jsonl", help="score the texts in this file instead of generating")
    p.add_argument("--write-prompts", metavar="FILE.jsonl", help="write the task prompts as a study prompt file")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--no-progress", action="store_true")
    return p


def read_answers(path: str) -> list[tuple[str, str]]:
    """(task, text) per line of a JSONL file; blank lines skipped; any other problem is a UserError."""
    answers = []
    for n, record in read_jsonl(path):
        if not isinstance(record, dict):
            raise UserError(f'{path} line {n}: expected an object {{"task": ..., "text": ...}}')
        for field in ("task", "text"):
            if field not in record:
                raise UserError(f"{path} line {n}: no {field!r} field")
        if record["task"] not in TASKS:
            raise UserError(f"{path} line {n}: unknown task {record['task']!r}; the tasks are {', '.join(TASKS)}")
        if not isinstance(record["text"], str):
            raise UserError(f"{path} line {n}: 'text' must be a string")
        answers.append((record["task"], record["text"]))
    if not answers:
        raise UserError(f"{path} holds no answers")
    return answers


def score_answers(args: argparse.Namespace) -> dict[str, Any]:
    given = [f"--{k.replace('_', '-')}" for k in ("methods", "samples", "max_new_tokens", "model") if getattr(args, k)]
    if given:
        raise UserError(f"--answers scores the given texts without a model; drop {', '.join(given)}")
    rows = []
    for task, text in read_answers(args.answers):
        v = check(task, text)
        rows.append({"task": task, "success": v.success, "reason": v.reason})
    return {"answers": rows}


def _languages(value: str) -> list[str]:
    if value not in ("all", "en", "zh"):
        raise UserError(f"--language must be en, zh or all, got {value!r}")
    return ["zh", "en"] if value == "all" else [value]


def write_prompts(args: argparse.Namespace) -> int:
    tasks = {t.id for t in task_list(args.tasks)}
    languages = _languages(args.language)
    chosen = [s for s in TASK_SCENARIOS if s.key in tasks and s.language in languages]
    with open(args.write_prompts, "w", encoding="utf-8") as fh:
        for s in chosen:
            fh.write(json.dumps({"prompt": s.prompt, "scenario": s.key, "language": s.language}, ensure_ascii=False))
            fh.write("\n")
    print(f"wrote {len(chosen)} prompts to {args.write_prompts}", file=sys.stderr)
    return 0


def _progress(done: int, total: int, what: str) -> None:
    print(f"[{done}/{total}] {what}", file=sys.stderr, flush=True)


def benchmark(args: argparse.Namespace) -> tuple[dict[str, Any], str]:
    """The JSON of a run, and its table for people."""
    # late: only generating needs the decoders and a model; --answers, --write-prompts and --help stay light
    from arena.model.llm import get_default_model, load_model

    from . import bench  # late, as the line above

    methods = bench.parse_methods(args.methods)
    tasks = task_list(args.tasks)
    languages = _languages(args.language)
    samples = 3 if args.samples is None else args.samples
    if samples < 1:
        raise UserError("--samples must be at least 1")
    if args.max_new_tokens is not None and not 1 <= args.max_new_tokens <= 1024:
        raise UserError("--max-new-tokens must be between 1 and 1024")
    started, load = time.time(), os.getloadavg()
    lm = load_model(args.model) if args.model else get_default_model()
    progress = None if args.no_progress else _progress
    runs = bench.run(lm, tasks, methods, languages, samples, args.seed, args.max_new_tokens, progress)
    cells = bench.summarize(runs)
    out = {
        "config": {
            "model": lm.describe(),
            "methods": methods,
            "tasks": [t.id for t in tasks],
            "languages": languages,
            "samples": samples,
            "seeds": f"{args.seed}..{args.seed + samples - 1} (deterministic methods: {args.seed} only)",
            "max_new_tokens": args.max_new_tokens or {t.id: t.max_new_tokens for t in tasks},
            "checks": {t.id: t.checks for t in tasks},
            "load_average_at_start": [round(x, 2) for x in load],
            "load_average_at_end": [round(x, 2) for x in os.getloadavg()],
            "wall_s": round(time.time() - started, 1),
        },
        "cells": cells,
        "runs": [r.as_dict() for r in runs],
    }
    return out, bench.table(cells)


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if args.write_prompts:
            check_output_path(args.write_prompts, "--write-prompts")
            return write_prompts(args)
        out, table = (score_answers(args), "") if args.answers else benchmark(args)
    except UserError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(out, ensure_ascii=False, indent=1))
        if table:  # the table too, for people, where it does not mix with the JSON
            print(table, file=sys.stderr)
    elif "answers" in out:
        for i, a in enumerate(out["answers"], start=1):
            mark = {True: "pass", False: "FAIL", None: "not checked"}[a["success"]]
            print(f"{i}\t{a['task']}\t{mark}\t{a['reason']}")
    else:
        print(table)
        c = out["config"]
        print(f"\n{c['model']} · load {c['load_average_at_start']} → {c['load_average_at_end']} · {c['wall_s']} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
