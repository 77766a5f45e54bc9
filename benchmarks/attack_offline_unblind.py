"""Route 10 of issue 21, reproduced: a rater unblinds a study offline with the public model.

1. A small study is generated as the app generates one (the embedded model, the default methods BS-4,
   TS-Temp and TS-Tilted with their default settings, a secret base seed, batched generation), into a
   throw-away SQLite store.
2. A rater with an invite code copies what the Rate tab shows for 8 items (prompt and the texts A, B, C),
   pressing Next and rating nothing.
3. Offline, with the same public model and the methods' public default settings, and no seed:
   - beam search (BS-4 is deterministic) on each prompt; the text sharing the longest prefix with it
     is taken as BS-4's;
   - each remaining text is scored under TS-Temp's and TS-Tilted's processed next-token distributions
     (temperature, top-k, top-p; for TS-Tilted the frequency tilt first): first by how many of its
     tokens are impossible there (outside the top-k / top-p set), then by log-likelihood; the
     assignment of the remaining methods with the best total wins.
4. The guesses are compared with the study's true mapping: labels recovered of 3 x 8, chance 8.

The rater sees only labels and texts (nothing else is used); the attack works because the texts are
reproducible (beam search) or carry the fingerprint of the distribution they were sampled from.

    python benchmarks/attack_offline_unblind.py                    # 8 items, 128 new tokens
    python benchmarks/attack_offline_unblind.py --items 8 --max-new-tokens 64 --json out.json
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import torch
from transformers import TemperatureLogitsWarper, TopKLogitsWarper, TopPLogitsWarper

from arena import studies
from arena.access import invites
from arena.engines.local.inputs import plan_for
from arena.inputs.prompts import SCENARIOS, PromptSpec, encode_prompt
from arena.model.llm import get_default_model
from arena.rating import blind
from arena.rating.study_spec import StudySpec
from arena.runs.requests import DEFAULT_MAX_NEW_TOKENS, RunRequest
from arena.runs.runner import run_methods
from arena.store import Store
from evaluation import form_cues

EXTRA_PROMPTS = (
    "Write a short story about a lighthouse keeper who finds a message in a bottle.",
    "Explain why the sky is blue to a ten-year-old.",
    "Give three tips for staying focused while working from home.",
    "Describe your ideal weekend in a few sentences.",
    "What are the pros and cons of electric cars?",
    "Write a haiku about autumn rain, then explain it.",
    "Summarise the plot of a detective story you would like to read.",
    "How do vaccines train the immune system?",
)
SAMPLERS = ("TS-Temp", "TS-Tilted")
IMPOSSIBLE = -1e4  # log-probability given to a token outside a method's support, for the tie-break sum


def study_prompts(n: int) -> list[PromptSpec]:
    english = [PromptSpec(s.prompt, s.key, s.language, s.raw) for s in SCENARIOS if s.language == "en"]
    extra = [PromptSpec(p, f"extra-{k}", "en", False) for k, p in enumerate(EXTRA_PROMPTS)]
    return (english + extra)[:n]


def processors(lm, method: str, max_new: int) -> list:
    """The processed next-token distribution of `method` with its public default settings, as generate
    applies it: the method's own processors (TS-Tilted's tilt), then temperature, top-k, top-p."""
    plan = plan_for(lm, method, None, 0, max_new)
    kw = plan.generate_kwargs
    chain = list(plan.logits_processors)
    chain.append(TemperatureLogitsWarper(float(kw["temperature"])))
    if kw.get("top_k"):
        chain.append(TopKLogitsWarper(int(kw["top_k"])))
    if kw.get("top_p", 1.0) < 1.0:
        chain.append(TopPLogitsWarper(float(kw["top_p"])))
    return chain


@torch.no_grad()
def score_text(lm, prompt: PromptSpec, text: str, chains: dict[str, list], max_new: int) -> dict[str, tuple]:
    """(-impossible tokens, log-likelihood) of `text` after `prompt` under each method's distribution."""
    prompt_ids = encode_prompt(lm.tokenizer, prompt.prompt, prompt.raw, lm.device, lm.context_length, max_new)
    text_ids = lm.tokenizer(text, add_special_tokens=False, return_tensors="pt")["input_ids"].to(lm.device)
    ids = torch.cat([prompt_ids, text_ids], dim=1)
    logits = lm.model(ids).logits[0, prompt_ids.shape[1] - 1 : -1].float()
    targets = text_ids[0]
    scored = {}
    for method, chain in chains.items():
        scores = logits.clone()
        for proc in chain:
            scores = proc(ids[:, : prompt_ids.shape[1]].expand(scores.shape[0], -1), scores)
        logp = torch.log_softmax(scores, dim=-1).gather(1, targets[:, None])[:, 0]
        impossible = int(torch.isinf(logp).sum())
        scored[method] = (-impossible, float(torch.where(torch.isinf(logp), IMPOSSIBLE, logp).sum()))
    return scored


def common_prefix(a: str, b: str) -> int:
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


def attack(lm, prompt: PromptSpec, texts: dict[str, str], chains: dict[str, list], max_new: int) -> dict[str, str]:
    """{label: method guessed} for one item from its prompt and its texts alone."""
    [beam] = run_methods(
        lm, RunRequest(prompt=prompt.prompt, methods=["BS-4"], max_new_tokens=max_new, seed=0, raw=prompt.raw)
    )
    bs4 = max(
        texts, key=lambda label: (common_prefix(texts[label], beam.text), -abs(len(texts[label]) - len(beam.text)))
    )
    guess = {bs4: "BS-4"}
    rest = [label for label in texts if label != bs4]
    scores = {label: score_text(lm, prompt, texts[label], chains, max_new) for label in rest}
    best = max(
        itertools.permutations(SAMPLERS, len(rest)),
        key=lambda methods: tuple(
            sum(scores[label][m][i] for label, m in zip(rest, methods, strict=True)) for i in (0, 1)
        ),
    )
    guess.update(zip(rest, best, strict=True))
    return guess


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--items", type=int, default=8, help="items the rater copies (default 8, at most 11)")
    ap.add_argument("--max-new-tokens", type=int, default=DEFAULT_MAX_NEW_TOKENS)
    ap.add_argument("--json", help="also write the figures to this file")
    args = ap.parse_args()
    if not 1 <= args.items <= len(study_prompts(99)) or args.max_new_tokens < 1:
        print(f"error: --items must be 1..{len(study_prompts(99))} and --max-new-tokens at least 1", file=sys.stderr)
        return 2
    started = time.perf_counter()
    lm = get_default_model()
    folder = Path(tempfile.mkdtemp(prefix="arena-attack-"))
    store = Store(f"sqlite:///{folder / 'arena.db'}")
    prompts = study_prompts(args.items)
    sid = studies.create_study(
        store, StudySpec("Offline attack study", prompts, max_new_tokens=args.max_new_tokens), model=lm.name, lm=lm
    )
    report = studies.generate_study(
        store,
        lm,
        sid,
        progress=lambda done, total, what: print(f"[{done}/{total}] {what}", file=sys.stderr, flush=True),
    )
    generated = time.perf_counter()
    [made] = invites.invite(store, sid, ["curious rater"])
    rater = invites.resolve(store, made.code)

    # What the rater copies: the views of items 1..N (Next, Next, ...), labels and texts only.
    copied = []
    for index in range(1, args.items + 1):
        view, _ = blind.open_for(store, sid, lambda: rater.rater_id, index)
        assert view is not None
        copied.append((view.item, view.prompt, {r.label: r.text for r in view.responses}))

    chains = {m: processors(lm, m, args.max_new_tokens) for m in SAMPLERS}
    by_method = {m: [0, 0] for m in ("BS-4", *SAMPLERS)}
    for public_id, prompt_text, texts in copied:
        spec = next(p for p in prompts if p.prompt == prompt_text)
        guess = attack(lm, spec, texts, chains, args.max_new_tokens)
        item = store.item_by_public_id(public_id)
        methods = {o.id: o.method for o in store.outputs_for_item(item.id)}
        truth = {blind.LABELS[p]: methods[oid] for p, oid in store.assignment(rater.rater_id, item.id).items()}
        for label, method in truth.items():
            by_method[method][0] += guess[label] == method
            by_method[method][1] += 1
        right = sum(guess[label] == method for label, method in truth.items())
        print(f"item {item.ordinal + 1}: {right} of {len(truth)} labels recovered", file=sys.stderr, flush=True)
    attacked = time.perf_counter()
    recovered = sum(v[0] for v in by_method.values())
    total = sum(v[1] for v in by_method.values())
    form = form_cues.check_study(store, sid)
    load = os.getloadavg()[0]
    print(f"model: {lm.describe()}; {report}")
    print(f"study: {args.items} items x 3 methods, max_new_tokens {args.max_new_tokens}, batched generation")
    print(
        f"labels recovered offline: {recovered} of {total} (chance {total / 3:.0f}); "
        + "; ".join(f"{m} {v[0]} of {v[1]}" for m, v in by_method.items())
    )
    print("form check of the same study (what the organizer sees before inviting raters):")
    for line in form_cues.summary_lines(form):
        print(f"  {line}")
    print(
        f"time: generation {generated - started:.0f} s, attack {attacked - generated:.0f} s; "
        f"load average {load:.2f} (2 cores, shared machine)"
    )
    if args.json:
        Path(args.json).write_text(
            json.dumps(
                {
                    "items": args.items,
                    "max_new_tokens": args.max_new_tokens,
                    "recovered": recovered,
                    "total": total,
                    "by_method": {m: {"recovered": v[0], "of": v[1]} for m, v in by_method.items()},
                    "form_check": form.to_dict("records"),
                    "load_average": load,
                },
                indent=1,
                default=str,
            )
        )
    store.dispose()
    return 0


if __name__ == "__main__":
    sys.exit(main())
