"""Can a rater reproduce a study's outputs at home with the public model? Checked before raters come.

The offline attack of issue 21 (22 of 24 labels recovered, chance 8) rests on one fact: a method whose
output does not depend on the seed (beam search, greedy) writes the same text for anyone who runs the
same public model on the same prompt. A rater who copies a prompt out of the study, runs it at home
and finds a response byte for byte has unblinded that method, whatever the study's secret seed.

`check_study` replays that attack for the organizer: for a few items, each method is run again on the
study's model with a fresh random seed (never the study's), and the new text is compared with the
stored one. A method whose outputs come back identical is replayable by anyone holding the model; a
sampled method with a secret seed is not (exactly; its style may still give it away, which the form
check and the blinding question measure). The check says which, with the count, and what to do.

It generates (three items × every method by default), so it runs where the study was generated:
after generation in the Organizer and in `python -m arena.studies create`, and on demand
(`python -m arena.studies replay-check --study N`).
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from arena.model import llm
from arena.rating import systems
from arena.runs.requests import RunRequest
from arena.runs.runner import run_methods
from common import messages
from common.errors import UserError

ITEMS = 3
# What to do where a method replays: common/messages.py's `replay_remedy_<n>` (in Chinese too).
REMEDY_KEYS = ("replay_remedy_model", "replay_remedy_rating_only", "replay_remedy_ask", "replay_remedy_leave_out")
REMEDIES = tuple(messages.english(key) for key in REMEDY_KEYS)


@dataclass(frozen=True)
class MethodReplay:
    """How many of a method's checked outputs came back identical from a fresh-seed run."""

    method: str
    checked: int
    identical: int

    @property
    def replayable(self) -> bool:
        return self.checked > 0 and self.identical == self.checked


@dataclass(frozen=True)
class ReplayReport:
    model: str
    public: bool  # raters can get the model: embedded (a PyPI wheel) or a hub id
    methods: tuple[MethodReplay, ...]

    def lines(self, lang: str = "en") -> list[str]:
        """The organizer's summary, in `lang`: one line per method, then what to do where anything replays."""
        where = messages.text("replay_public_model" if self.public else "replay_study_model", lang)
        out = []
        for m in self.methods:
            said = dict(method=m.method, identical=m.identical, checked=m.checked)
            if m.checked == 0:
                out.append(messages.text("replay_not_checked", lang, method=m.method))
            elif m.replayable:
                out.append(messages.text("replay_replayable", lang, **said, where=where))
            else:
                out.append(messages.text("replay_private", lang, **said))
        if any(m.replayable for m in self.methods):
            remedies = messages.text("replay_or", lang).join(messages.text(key, lang) for key in REMEDY_KEYS)
            out.append(messages.text("replay_what_to_do", lang, remedies=remedies))
        return out


def public_model(setting: str) -> bool:
    """Can a rater get this model? Embedded models ship in PyPI wheels; a hub id is public; a local
    folder or GGUF file is taken as private (the organizer knows better, and the lines say so)."""
    base, _ = llm.split_variant(setting)
    if llm.embedded_model(base) is not None:
        return True
    try:
        kind, _ = llm.resolve_source(base)
    except UserError:
        return False
    return kind == "hub"


def check_study(
    store: Any,
    study_id: int,
    lm: llm.LoadedModel,
    items: int = ITEMS,
    run: Callable[[llm.LoadedModel, RunRequest], Sequence[Any]] = run_methods,
    progress: Callable[[int, int, str], None] | None = None,
) -> ReplayReport:
    """Replay up to `items` items of the study, every method of `lm`'s model, with fresh seeds.
    `progress(done, total, what)` is called before each item and once at the end: each item is a
    generation run of every method, which takes a while on a CPU."""
    study = store.get_study(study_id)
    if study is None:
        raise UserError(messages.text("no_study_number", id=study_id))
    mine = {s: systems.method_of(s) for s in study.methods if systems.model_of(s) in ("", lm.name)}
    counts = {s: [0, 0] for s in mine}
    chosen = store.items(study_id)[:items]
    for k, item in enumerate(chosen):
        stored = {(o.method, o.sample_index): o.text for o in store.outputs_for_item(item.id)}
        present = [s for s in mine if (s, 0) in stored]
        if not present:
            continue
        if progress is not None:
            progress(k, len(chosen), f"item {k + 1} of {len(chosen)}: {len(present)} methods again, fresh seeds")
        request = RunRequest(
            item.prompt,
            [mine[s] for s in present],
            {mine[s]: dict(study.settings.get(s) or {}) for s in present},
            study.max_new_tokens,
            seed=secrets.randbelow(2**53),
            raw=bool(item.raw),
        )
        for system, result in zip(present, run(lm, request)):
            counts[system][0] += 1
            counts[system][1] += int(result.text == stored[(system, 0)])
    if progress is not None:
        progress(len(chosen), len(chosen), "done")
    methods = tuple(MethodReplay(s, checked, same) for s, (checked, same) in counts.items())
    return ReplayReport(lm.name, public_model(lm.name), methods)
