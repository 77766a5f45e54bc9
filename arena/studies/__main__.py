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
    python -m arena.studies accounts --study 7 --allow "alice, my-org"  # Hugging Face sign-in ("*": anyone; "": off)
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
import time
from typing import Any

from arena import engines
from arena.access import accounts, invites
from arena.inputs.numbers import cli_whole
from arena.inputs.prompts import PromptSpec, read_prompt_file
from arena.model.llm import LoadedModel, get_default_model, load_model
from arena.rating import guessing
from arena.rating.attention import DEFAULT_INSTRUCTION, MAX_ATTENTION_ITEMS, AttentionPlan
from arena.rating.study_spec import StudySpec
from arena.runs.eta import GenerationEta
from arena.store import Store
from arena.studies.create import EXCLUSION_RULES, create_study, read_rubric
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


def study_spec(args: argparse.Namespace) -> StudySpec:
    """`create`'s arguments as the study's settings (unchecked: `StudySpec.checked` says what is wrong)."""
    return StudySpec(
        args.name,
        tuple(_prompts(args.prompts)),
        methods=args.methods,
        models=tuple(_models(args.models) or ()),
        samples_per_method=args.samples,
        max_new_tokens=args.max_new_tokens,
        guess_methods=args.guess,
        scorer_model=args.scorer,
        design="pairwise" if args.pairwise else "scores",
        rubric=read_rubric(args.rubric) if args.rubric else None,
        exclusion_rules=args.exclude or (),
        attention=_attention(args),
    )


def create(args: argparse.Namespace) -> dict:
    """`create`: every argument checked first (no row written, no model loaded for a refused one),
    then the study stored (or its draft resumed), generated, and checked for form and replay."""
    parse_batch_size(args.batch_size)
    spec = study_spec(args).checked()
    store = Store(args.database)
    sid = _draft_named(store, args.name)
    lm = _model(args.model)
    if sid is None:
        sid = create_study(store, spec, model=lm.name, lm=lm)
    else:
        print(f"resuming the draft study #{sid} named {args.name!r}", file=sys.stderr)
    report = _generate(store, lm, sid, args.batch_size)
    print(str(report), file=sys.stderr)
    summary = store.study_summary(sid)
    print(f"form check: {summary['outputs']} outputs of {summary['items']} items…", file=sys.stderr, flush=True)
    for line in form_cues.summary_lines(form_cues.check_study(store, sid)):
        print(f"form check: {line}", file=sys.stderr)
    if report.complete:
        for line in _replay(store, sid, lm).lines():
            print(f"replay check: {line}", file=sys.stderr)
    return {"study_id": sid}


def _replay(store: Store, sid: int, lm: LoadedModel) -> replay_check.ReplayReport:
    """`replay_check.check_study`, with "[done/total] item k of n … · elapsed" on stderr per item: each
    item generates every method again (minutes on a CPU)."""
    start = time.monotonic()

    def progress(done: int, total: int, what: str) -> None:
        elapsed = time.monotonic() - start
        print(f"replay check: [{done}/{total}] {what} · {elapsed:.0f} s so far", file=sys.stderr, flush=True)

    return replay_check.check_study(store, sid, lm, progress=progress)


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
        replay = _replay(store, sid, _model(args.model))
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
    if args.command == "accounts":
        access = accounts.set_access(store, sid, args.allow)
        return {"study_id": sid, "accounts": None if access is None else access.text().split("\n")}
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
    allow = sub.add_parser(
        "accounts", parents=[common], help="let Hugging Face accounts sign in to rate a study (docs/deploying.md)"
    )
    allow.add_argument("--study", type=cli_whole, required=True)
    allow.add_argument(
        "--allow", required=True, help='usernames and organisations, comma separated; "*" anyone signed in; "" none'
    )
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
