"""Command line: run decoders side by side on one prompt.

    python -m decoders "PROMPT" --methods BS-4,TS-Temp,TS-Tilted --max-new-tokens 64 --seed 1 --json
    python -m decoders "PROMPT" --models smollm2-135m,gemma-3-270m --methods BS-4,TS-Temp --raw --json
    python -m decoders "PROMPT" --engine llamacpp            # llama.cpp on the model's GGUF file
    python -m decoders --list

Per-method settings: --set TS-Tilted.alpha=0.3 --set BS-4.num_beams=2 (repeatable).
Bad input prints one line to stderr and exits with code 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, NoReturn

import decoders
from arena import engines
from arena.inputs.prompts import clean_prompt
from arena.model.llm import EMBEDDED, LoadedModel, split_variant
from arena.runs.requests import RunRequest, validate_request
from arena.runs.runner import run_models
from common.errors import UserError


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # argparse's own errors also exit 2, without a traceback
        self.exit(2, f"error: {message}\n")


def parse_sets(pairs: list[str]) -> dict[str, dict[str, Any]]:
    settings: dict[str, dict[str, Any]] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        method, dot, param = key.rpartition(".")
        if not sep or not dot or not method or not param:
            raise UserError(f"--set expects METHOD.PARAM=VALUE, got {pair!r}")
        decoders.get(method)
        settings.setdefault(method, {})[param] = value
    return settings


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="python -m decoders", description="Run decoding methods side by side on one prompt.")
    p.add_argument("prompt", nargs="?", help="the prompt text (use '-' to read it from stdin)")
    p.add_argument("--methods", default=",".join(decoders.DEFAULT_METHODS), help="comma-separated decoder names")
    p.add_argument("--max-new-tokens", default="128", help="1-1024 (default 128)")
    p.add_argument("--seed", default="0", help="torch.manual_seed right before each method (default 0)")
    p.add_argument("--raw", action="store_true", help="continue the text as is, without the chat template")
    p.add_argument("--set", action="append", default=[], metavar="METHOD.PARAM=VALUE", help="override a setting")
    p.add_argument(
        "--model",
        help=f"{' or '.join(EMBEDDED)} (embedded), a hub id, local folder or .gguf path (default: {next(iter(EMBEDDED))})",
    )
    p.add_argument("--models", help="comma-separated models, each run with every method (instead of --model)")
    p.add_argument("--engine", help="transformers, llamacpp, vllm or dummy (default: ARENA_ENGINE, else transformers)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--list", action="store_true", help="list the registered decoders and their parameters")
    return p


def list_decoders() -> str:
    lines = []
    for d in decoders.all_decoders():
        lines.append(f"{d.name}: {d.description}")
        for p in d.params:
            lines.append(f"    {p.name} = {p.default!r}  {p.describe_range()}")
    return "\n".join(lines)


def model_settings(args: argparse.Namespace) -> list[str | None]:
    """The models to run, in order: --models A,B, else --model (None: the ARENA_MODEL setting). Each
    one's `@variant` is checked here, so a bad one is refused before any model loads."""
    if args.models is None:
        if args.model is not None:
            split_variant(args.model)
        return [args.model]
    if args.model is not None:
        raise UserError("give --model or --models, not both")
    names = [m.strip() for m in args.models.split(",") if m.strip()]
    if not names:
        raise UserError("--models expects comma-separated models, e.g. smollm2-135m,gemma-3-270m")
    if len(set(names)) != len(names):
        raise UserError(f"--models names a model twice: {args.models!r}")
    for name in names:
        split_variant(name)
    return list(names)


def announce_loading(line: str) -> None:
    """A line on stderr before a model loads: loading takes seconds, a first conversion minutes."""
    print(line, file=sys.stderr)


def json_report(runs: list[tuple[LoadedModel, list]]) -> dict[str, Any]:
    """One result per (model, method), each naming its model; the top-level `model` and `device` of a
    one-model run stay as they were (`model`: as the engine names its outputs, e.g. "... (llama.cpp,
    GGUF Q4_1 weights)"; on transformers the model's name)."""
    models = [
        {
            "model": lm.label,
            "name": lm.name,
            "device": f"{lm.device.type} ({lm.precision})",
            "engine": engines.engine_for(lm).model_label(lm),
            "notes": lm.notes(),
        }
        for lm, _ in runs
    ]
    results = [{"model": lm.label, **r.public()} for lm, rs in runs for r in rs]
    out: dict[str, Any] = {}
    if len(runs) == 1:
        out = {"model": models[0]["engine"], "device": models[0]["device"]}
    return {**out, "models": models, "results": results}


def stdin_text() -> str:
    """Standard input as UTF-8 text (a byte-order mark dropped), whatever the locale says."""
    try:
        return sys.stdin.buffer.read().decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise UserError(f"the prompt on standard input is not UTF-8 text (byte {exc.start})") from None


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.list:
        print(list_decoders())
        return 0
    try:
        if args.prompt is None:
            raise UserError("give a prompt (or --list)")
        engines.use(args.engine)
        prompt = stdin_text() if args.prompt == "-" else args.prompt
        req = validate_request(
            RunRequest(
                prompt=clean_prompt(prompt),
                methods=decoders.parse_methods(args.methods),
                settings=parse_sets(args.set),
                max_new_tokens=args.max_new_tokens,
                seed=args.seed,
                raw=args.raw,
            )
        )
        # one model at a time: ARENA_MODELS_IN_MEMORY bounds how many stay loaded
        runs = run_models(model_settings(args), req, announce=announce_loading)
    except UserError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(json_report(runs), ensure_ascii=False, indent=2))
    else:
        for lm, results in runs:
            label = engines.engine_for(lm).model_label(lm)
            if label != lm.name:  # another engine than transformers made the outputs
                print(f"# {lm.label}: {label}")
            for note in lm.notes():
                print(f"# {lm.label}: {note}")
            for r in results:
                head = f"{lm.label} · {r.method}" if len(runs) > 1 else r.method
                print(
                    f"=== {head}  ({r.new_tokens} tokens, TTFT {r.ttft_ms:.0f} ms, "
                    f"{r.latency_ms:.0f} ms, {r.tokens_per_s:.1f} tok/s, seed {r.seed})"
                )
                print(r.text.strip() + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
