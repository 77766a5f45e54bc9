"""`python -m arena.studies`: scripted studies for organizers.

    python -m arena.studies create --name "Pilot 3" --prompts prompts.txt --methods BS-4,TS-Temp,TS-Tilted \\
        --max-new-tokens 96 --samples 1 --batch-size 16  # generates; last line {"study_id": 7}
    python -m arena.studies create ... --pairwise       # A-vs-B votes instead of 1-5 scores
    python -m arena.studies create ... --guess          # raters are asked which response came from BS-4
    python -m arena.studies create ... --rubric rubric.json --attention 2 --exclude attention  # own questions
    python -m arena.studies form-check --study 7   # how recognisable each method is from its form alone
    python -m arena.studies replay-check --study 7 # which methods anyone with the public model reproduces
    python -m arena.studies generate --study 7     # resume an interrupted generation
    python -m arena.studies generate --study 7 --engine llamacpp   # ... on llama.cpp (the model's GGUF)
    python -m arena.studies invite --study 7 --raters ana,ben   # codes and links, as JSON (shown once)
    python -m arena.studies close --study 7
    python -m arena.studies publish --study 7

The store is the app's (DATABASE_URL / ARENA_DB_PATH) or `--database URL`; the model is the app's
(ARENA_MODEL) or `--model`. `create` is resumable: run it again with the same name and a draft of
that name continues where it stopped. Bad input prints one `error:` line and exits with code 2.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from typing import Any

from arena import engines, guessing, invites
from arena.attention import DEFAULT_INSTRUCTION, MAX_ATTENTION_ITEMS, AttentionPlan
from arena.eta import GenerationEta
from arena.llm import LoadedModel, get_default_model, load_model
from arena.numbers import cli_whole
from arena.prompts import PromptSpec, read_prompt_file
from arena.store import Store
from arena.studies.create import (
    EXCLUSION_RULES,
    check_quality,
    create_study,
    plan_study,
    read_rubric,
)
from arena.studies.generate import GenerationReport, generate_study, parse_batch_size
from arena.studies.lifecycle import close_study, open_study, publish_study
from common.errors import UserError
from evaluation import form_cues, replay_check


def _prompts(path: str) -> list[PromptSpec]:
    return read_prompt_file(path)


def _generate(store: Store, lm: LoadedModel, sid: int, batch_size: Any) -> GenerationReport:
    """`generate_study`, with "[done/total] what · time left" on stderr as each piece is stored."""
    eta = GenerationEta()

    def progress(done: int, total: int, what: str) -> None:
        print(f"[{done}/{total}] {what} · {eta.snapshot().line()}", file=sys.stderr, flush=True)

    return generate_study(store, lm, sid, progress=progress, batch_size=batch_size, eta=eta)


def _attention(args: argparse.Namespace) -> AttentionPlan:
    count = cli_whole(args.attention) if args.attention is not None else 0
    value = cli_whole(args.attention_value) if args.attention_value is not None else 2
    return AttentionPlan(count, value, args.attention_text or DEFAULT_INSTRUCTION)


def _model(setting: str | None) -> LoadedModel:

    return load_model(setting) if setting else get_default_model()


def _models(setting: str | None) -> list[str] | None:
    return [m for m in (setting or "").split(",") if m.strip()] or None


def _draft_named(store: Store, name: str) -> int | None:
    return next((s.id for s in store.list_studies(kind="study") if s.name == name and s.state == "draft"), None)


def _study(store: Store, value: int) -> int:
    if store.get_study(value) is None:
        raise UserError(f"there is no study #{value}")
    return value


def _study_settings(args: argparse.Namespace) -> dict[str, Any]:
    """`create`'s study settings, as `plan_study` and `create_study` take them."""
    return {
        "methods": args.methods,
        "samples_per_method": args.samples,
        "max_new_tokens": args.max_new_tokens,
        "guess_methods": args.guess,
        "models": _models(args.models),
        "scorer_model": args.scorer,
        "design": "pairwise" if args.pairwise else "scores",
    }


def create(args: argparse.Namespace) -> dict:
    """`create`: every argument checked first (no row written, no model loaded for a refused one),
    then the study stored (or its draft resumed), generated, and checked for form and replay."""
    parse_batch_size(args.batch_size)
    specs = _prompts(args.prompts)
    plan = plan_study(args.name, specs, **_study_settings(args))
    # The study's own questions and quality control, checked too before the model loads.
    rubric = read_rubric(args.rubric) if args.rubric else None
    rules, attention = check_quality(plan.design, rubric, args.exclude, _attention(args), len(specs))
    store = Store(args.database)
    sid = _draft_named(store, args.name)
    lm = _model(args.model)
    if sid is None:
        sid = create_study(
            store, args.name, specs, model=lm.name, lm=lm, **_study_settings(args),
            rubric=rubric, exclusion_rules=rules, attention=attention,
        )  # fmt: skip
    else:
        print(f"resuming the draft study #{sid} named {args.name!r}", file=sys.stderr)
    report = _generate(store, lm, sid, args.batch_size)
    print(str(report), file=sys.stderr)
    for line in form_cues.summary_lines(form_cues.check_study(store, sid)):
        print(f"form check: {line}", file=sys.stderr)
    if report.complete:
        for line in replay_check.check_study(store, sid, lm).lines():
            print(f"replay check: {line}", file=sys.stderr)
    return {"study_id": sid}


def run(args: argparse.Namespace) -> dict:
    engines.use(getattr(args, "engine", None))  # an unknown engine is refused before anything else
    if args.command == "create":
        return create(args)
    if args.command == "generate":
        parse_batch_size(args.batch_size)  # before a model loads
    store = Store(args.database)
    sid = _study(store, args.study)
    if args.command == "generate":
        report = _generate(store, _model(args.model), sid, args.batch_size)
        print(str(report), file=sys.stderr)
        return {"study_id": sid, "complete": report.complete}
    if args.command == "form-check":
        result = form_cues.study_report(store, sid)
        return {
            "study_id": sid,
            "methods": {
                r["method"]: {
                    k: None if isinstance(r[k], float) and math.isnan(r[k]) else r[k]
                    for k in ("items", "correct", "chance", "p_value", "recognisable", "cue")
                }
                for r in result.to_dict("records")
            },
            "lines": form_cues.summary_lines(result),
        }
    if args.command == "replay-check":
        replay = replay_check.check_study(store, sid, _model(args.model))
        return {
            "study_id": sid,
            "model": replay.model,
            "public_model": replay.public,
            "methods": {m.method: {"checked": m.checked, "identical": m.identical} for m in replay.methods},
            "lines": replay.lines(),
        }
    if args.command == "invite":
        names = [n for n in (args.raters or "").split(",") if n.strip()]
        made = invites.invite(store, sid, names, base_url=args.base_url)
        return {"study_id": sid, "invites": [{"rater": i.rater, "code": i.code, "link": i.link} for i in made]}
    action = {"open": open_study, "close": close_study, "publish": publish_study}[args.command]
    action(store, sid)
    study = store.get_study(sid)
    assert study is not None  # the action above refuses a missing study
    return {"study_id": sid, "state": study.state}


def _quality_options(create: argparse.ArgumentParser) -> None:
    """`create`'s rubric, attention items and exclusion rule (issue 34)."""
    create.add_argument(
        "--rubric",
        metavar="FILE.json",
        help='the questions raters answer: {"dimensions": [{"name": "quality", "low": 1, "high": 10, '
        '"description": "...", "anchors": {"1": "...", "10": "..."}}, ...]} (1-8 dimensions, 2-11 points each; '
        "default: coherence, informativeness, naturalness 1-5)",
    )
    create.add_argument(
        "--attention",
        metavar="N",
        help=f"add N attention items (0-{MAX_ATTENTION_ITEMS}) placed among the prompts: responses that say "
        "which score to give",
    )
    create.add_argument("--attention-value", metavar="V", help="the score attention items ask for (default 2)")
    create.add_argument("--attention-text", help="their wording; {value} is replaced by the score")
    create.add_argument(
        "--exclude",
        metavar="RULES",
        help=f"raters the analysis drops, chosen now (comma-separated: {', '.join(EXCLUSION_RULES)}); "
        "Results shows the analysis with and without them",
    )


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m arena.studies", description="Create, generate, invite, close and publish rating studies."
    )
    sub = p.add_subparsers(dest="command", required=True)
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--database", help="SQLAlchemy URL (default: DATABASE_URL, else the SQLite file)")
    with_model = argparse.ArgumentParser(add_help=False)
    with_model.add_argument("--model", help="model setting as for the app (default: ARENA_MODEL / embedded)")
    with_model.add_argument(
        "--engine", help="transformers, llamacpp, vllm or dummy (default: ARENA_ENGINE, else transformers)"
    )
    with_model.add_argument(
        "--batch-size",
        default="auto",
        help="prompts per generate call (default auto = 16; 1 = every output alone and timed)",
    )
    create = sub.add_parser("create", parents=[common, with_model], help="create a study and generate its outputs")
    create.add_argument("--name", required=True)
    create.add_argument("--prompts", required=True, help=".txt (one prompt per line), .csv or .jsonl with 'prompt'")
    create.add_argument("--methods", help="comma-separated, as in python -m decoders (default: the three)")
    create.add_argument("--max-new-tokens", default=128)
    create.add_argument("--samples", default=1, help="samples per stochastic method")
    create.add_argument(
        "--models",
        help="comma-separated models (aliases, hub ids, paths): the study compares every method on each "
        "(systems = model · method); default: --model's methods alone",
    )
    create.add_argument("--scorer", help="with --models: the one model Results' perplexity uses (default: the first)")
    create.add_argument(
        "--guess",
        nargs="?",
        const=guessing.DEFAULT_TARGET,
        default=None,
        metavar="METHOD",
        help=f"after scoring each item (voting on a pair: if METHOD is one of the two), ask raters which response "
        f"came from METHOD (default {guessing.DEFAULT_TARGET}; '{guessing.EACH}' = every method in turn); "
        "the blinding index is computed once the study is closed",
    )
    create.add_argument(
        "--pairwise",
        action="store_true",
        help="raters see two responses per item and vote (A better, B better, tie, both bad) instead of scoring 1-5",
    )
    _quality_options(create)
    generate = sub.add_parser("generate", parents=[common, with_model], help="generate a study's missing outputs")
    generate.add_argument("--study", type=cli_whole, required=True)
    check = sub.add_parser(
        "form-check", parents=[common], help="how recognisable each method is from its form (before rating)"
    )
    check.add_argument("--study", type=cli_whole, required=True)
    replay = sub.add_parser(
        "replay-check",
        parents=[common],
        help="run a few items again with fresh seeds: which methods anyone with the public model reproduces",
    )
    replay.add_argument("--study", type=cli_whole, required=True)
    replay.add_argument("--model", help="model setting as for the app (default: ARENA_MODEL / embedded)")
    invite = sub.add_parser("invite", parents=[common], help="enrol raters; prints their codes and links once")
    invite.add_argument("--study", type=cli_whole, required=True)
    invite.add_argument("--raters", required=True, help="comma-separated display names")
    invite.add_argument("--base-url", help="the app's public address for links (default: ARENA_PUBLIC_URL)")
    for command, text in (
        ("open", "open a draft or closed study for rating"),
        ("close", "end rating"),
        ("publish", "make a closed study's results public"),
    ):
        sub.add_parser(command, parents=[common], help=text).add_argument("--study", type=cli_whole, required=True)
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        result = run(args)
    except UserError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(result, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
