"""The one study generator: the slots a study still needs -> the engine -> the store.

Raters only ever rate stored outputs, so every rater sees the same texts and rating never waits on
generation. Generation is resumable at the level of one output: each (item, method, sample) slot
is generated only if the store has none, each output is stored as soon as the engine hands it back,
and the store's UNIQUE constraint keeps a slot single even if two runs overlap. Whichever engine
runs (arena/engines), the seeds are the study's (seeds.py) and the outputs are stored the same way.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from arena import engines
from arena.inputs.numbers import whole_number
from arena.model.llm import LoadedModel, get_model
from arena.rating import systems
from arena.runs.eta import GenerationEta
from arena.runs.requests import BATCH_SIZE_RANGE, DEFAULT_BATCH_SIZE, Slot, SlotJob
from common import messages
from common.errors import UserError

from ..engines import Engine
from ..store import Store
from .lifecycle import generating
from .seeds import slots_seed
from .slots import pending_slots

ProgressFn = Callable[[int, int, str], None]  # (done, total, what is running now)


@dataclass
class GenerationReport:
    total: int  # outputs the study needs
    existing: int  # already stored before this run
    generated: int  # stored by this run
    # Items where two methods wrote the very same text: (item number, [methods]). A rater who sees
    # two identical responses learns they are not from the one deterministic method, so the
    # organizer is told (they may regenerate the item with other prompts or drop it).
    identical: list[tuple[int, list[str]]] = field(default_factory=list)
    opened: bool = False  # this run completed a draft and opened it for rating

    @property
    def complete(self) -> bool:
        return self.existing + self.generated >= self.total

    def __str__(self) -> str:
        return self.words()

    def words(self, lang: str = "en") -> str:
        """ "9 of 9 outputs stored (9 generated now). The study is now open…", in `lang`."""
        said = messages.text("generation_stored", lang, done=self.existing + self.generated, total=self.total,
                             generated=self.generated)  # fmt: skip
        if self.opened:
            said += messages.text("generation_opened", lang)
        for number, methods in self.identical:
            both = messages.text("sensitivity_and", lang).join(methods)
            said += messages.text("generation_identical", lang, number=number, methods=both)
        return said

    def stored_words(self, lang: str = "en") -> str:
        """Its count alone: "9 of 9 outputs stored."."""
        return messages.text("generation_stored_short", lang, done=self.existing + self.generated, total=self.total)


def identical_texts(store: Store, study_id: int) -> list[tuple[int, list[str]]]:
    """(item number, methods) wherever two different methods stored the same text for an item."""
    found = []
    for item in store.items(study_id):
        if item.attention:  # an attention item's responses are the same instruction on purpose
            continue
        by_text: dict[str, list[str]] = {}
        for o in store.outputs_for_item(item.id):
            by_text.setdefault(o.text.strip(), []).append(o.method)
        for methods in by_text.values():
            if len(set(methods)) > 1:
                found.append((item.ordinal + 1, sorted(set(methods))))
    return found


def parse_batch_size(value: Any) -> int:
    """A batch size setting: "auto" (or nothing) is the default, else a whole number in range."""
    if value in (None, "", "auto"):
        return DEFAULT_BATCH_SIZE
    return whole_number(value, messages.english("what_batch_size"), *BATCH_SIZE_RANGE)


def generate_study(
    store: Store,
    lm: LoadedModel,
    study_id: int,
    progress: ProgressFn | None = None,
    should_stop: Callable[[], bool] | None = None,
    batch_size: Any = None,
    engine: Engine | None = None,
    load: Callable[[str], LoadedModel] = get_model,
    eta: GenerationEta | None = None,
) -> GenerationReport:
    """Generate every missing output of a study on `engine` (default: the app's, `engines.current()`);
    a stop loses at most what is in progress. A draft whose outputs are all stored becomes open.

    With batch size 1 every output is generated alone and timed, with its own seed
    `derive_seed(base_seed, item, method, sample)`. With a larger batch size (default
    `DEFAULT_BATCH_SIZE`) the in-process engine still generates and times each method's first
    output alone (the study's speed figures) and batches the rest, one seed per batch (see
    arena/engines/local/study.py); a vLLM server gets every output as its own timed request, all at
    once, and batches them itself.

    A study over (model, method) systems (arena/rating/systems.py) is generated model by model: each
    model's systems on that model (`load(model)`, through the model cache; on vLLM, its server),
    stored under the system's name with that model's label; `lm` serves the plain methods.

    `eta`, when given, is started before the first output and told of every piece as it is stored,
    so that `eta.snapshot()` (in `progress`) has the outputs done and the time left."""
    size = parse_batch_size(batch_size)
    with generating(study_id):
        study = store.get_study(study_id)
        if study is None:
            raise UserError(messages.text("no_study_with_id", id=study_id))
        if study.imported_from is not None:
            raise UserError(messages.text("study_imported_nothing_to_generate", id=study.id, file=study.imported_from))
        missing, total = pending_slots(store, study_id)
        existing = total - len(missing)
        stored = 0
        if eta is not None:
            eta.start(existing, total, Counter(m for _, m, _ in missing), study.max_new_tokens)
        if progress:
            progress(existing, total, messages.english("generation_starting"))
        timed = (
            frozenset(store.outputs_frame(study_id).dropna(subset=["latency_ms"])["method"])
            if size > 1
            else frozenset()
        )
        for model in systems.models_in(study.methods) or [""]:
            # this model's systems, by the plain method names the engine knows
            plain = {s: systems.method_of(s) for s in study.methods if systems.model_of(s) == model}
            system_of = {m: s for s, m in plain.items()}
            settings = {plain[s]: v for s, v in study.settings.items() if s in plain}
            mine = [(item, plain[m], s) for item, m, s in missing if m in plain]
            if model and not mine:
                continue  # a model whose outputs are all stored is not loaded
            run_lm = load(model) if model else lm
            run_engine = engine if engine is not None else engines.engine_for(run_lm)
            run_engine.check(run_lm, list(plain.values()), settings, study.max_new_tokens)
            if not mine:
                continue
            job = SlotJob(
                slots=[Slot(item.id, item.ordinal, item.public_id, item.prompt, item.raw, m, s) for item, m, s in mine],
                settings=settings,
                max_new_tokens=study.max_new_tokens,
                seed=partial(slots_seed, study.base_seed),
                batch_size=size,
                timed=frozenset(plain[s] for s in timed if s in plain),
            )
            label = run_engine.model_label(run_lm)
            for piece in run_engine.generate_slots(run_lm, job, should_stop):
                for out in piece.outputs:
                    system = system_of[out.slot.method]
                    _, new = store.add_output(out.slot.item_id, system, out.slot.sample, model=label, **out.fields)
                    stored += int(new)
                if eta is not None and piece.outputs:
                    eta.finished(
                        system_of[piece.outputs[0].slot.method],
                        [o.fields.get("new_tokens") or 0 for o in piece.outputs],
                    )
                if progress:
                    progress(existing + stored, total, f"{model}: {piece.what}" if model else piece.what)
        report = GenerationReport(total, existing, stored, identical_texts(store, study_id))
        if progress:
            progress(existing + stored, total, messages.english("generation_done"))
        if report.complete and study.state == "draft":
            store.set_study_state(study_id, "open", allowed_from=("draft",))
            report.opened = True
        return report
