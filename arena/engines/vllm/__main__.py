"""`python -m arena.engines.vllm model-folder [--model SETTING]`: print (converting it once) the
folder or hub id `vllm serve` should load for the app's model setting (scripts/services/vllm.sh)."""

from __future__ import annotations

import argparse
import sys

from arena import settings
from arena.model.llm import materialize, refuse_variant, split_variant
from common.errors import UserError


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m arena.engines.vllm", description="vLLM engine helpers")
    p.add_argument(
        "command", choices=["model-folder"], help="model-folder: print (and convert) what vllm serve should load"
    )
    p.add_argument("--model", default=None, help="model setting (default: ARENA_MODEL or the embedded model)")
    args = p.parse_args(argv)
    try:
        refuse_variant(split_variant(args.model if args.model is not None else settings.current().model)[1], "vllm")
        print(materialize(args.model))
    except UserError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
