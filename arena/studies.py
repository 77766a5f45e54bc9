"""Rating studies: a prompt set, methods and samples, and resumable pre-generation of all outputs.

Raters only ever rate stored outputs, so every rater sees the same texts and rating never waits on
generation. Generation is resumable at the level of one output: each (item, method, sample) slot
is generated only if the store has none, and the store's UNIQUE constraint keeps a slot single
even if two runs overlap.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import shutil
import tempfile
import threading
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pandas as pd

import decoders

from . import batching, export, reserved
from .batching import DEFAULT_BATCH_SIZE
from .engines import current_engine
from .errors import UserError
from .numbers import study_id as parse_study_id
from .numbers import whole_number
from .prompts import SCENARIOS, PromptSpec, clean_prompt, encode_prompt, read_prompt_file
from .prompts import parse_pasted as parse_pasted  # re-exported: the Organizer and tests call studies.parse_pasted
from .runner import MAX_NEW_TOKENS_RANGE, MethodResult, RunRequest, encode_ids, run_methods
from .settings import current as current_settings
from .settings import env_of
from .store import Item, Output, Store, Study, clean_rater_name
from .store.schema import outputs as output_table
from .store.store import clean_name

MAX_ITEMS = 1000
MAX_SAMPLES = 10
MAX_RESPONSES = 8  # responses per item a rater sees at once (A..H)
QUICK_SCENARIO = "quick"

ProgressFn = Callable[[int, int, str], None]  # (done, total, what is running now)


# ---- prompt sets ----------------------------------------------------------------------------------


def builtin_prompts(language: str | None = None) -> list[PromptSpec]:
    """The article's three scenarios; `language` "en" or "zh" keeps one language."""
    chosen = [s for s in SCENARIOS if language in (None, "", "all") or s.language == language]
    if not chosen:
        raise UserError(f"no built-in scenarios in language {language!r}; choose en, zh or all")
    return [PromptSpec(s.prompt, s.key, s.language, s.raw) for s in chosen]


# The one prompt-file parser (Organizer upload, studies CLI, benchmark); the name callers know.
parse_prompt_file = read_prompt_file


# ---- creating a study -----------------------------------------------------------------------------


def expected_slots(methods: Sequence[str], samples_per_method: int) -> list[tuple[str, int]]:
    """(method, sample_index) every item gets: one output of a deterministic method, n of a stochastic one."""
    return [(m, s) for m in methods for s in range(samples_per_method if decoders.get(m).stochastic else 1)]


def _letters(text: str) -> str:
    """Lower-case letters and digits only: "BS-4", "bs 4" and "Bs_4" all read "bs4"."""
    return "".join(ch for ch in unicodedata.normalize("NFKC", text).casefold() if ch.isalnum())


def method_names_in(name: str) -> list[str]:
    """Registered method names that a study name gives away, ignoring case, spaces and punctuation."""
    letters = _letters(name)
    return [m for m in decoders.names() if _letters(m) and _letters(m) in letters]


def create_study(
    store: Store,
    name: str,
    prompts: Sequence[PromptSpec],
    *,
    methods: Sequence[str] | str | None = None,
    settings: Mapping[str, Mapping[str, Any]] | None = None,
    samples_per_method: int = 1,
    max_new_tokens: int = 128,
    base_seed: int | None = None,
    model: str = "",
    lm: Any = None,
    guidelines: str | None = None,
) -> int:
    """Validate everything, then store the study and its items in one transaction (no generation yet).

    The study starts as a draft; `generate_study` opens it once every output is stored. With no
    `base_seed` the study gets a secret random one. With `lm`, every prompt is checked against the
    model's context (prompt + max_new_tokens) before anything is written."""
    name = clean_name(name, "study name", 200) if isinstance(name, str) and name.strip() else ""
    if not name:
        raise UserError("give the study a name")
    named = method_names_in(name)
    if named:
        raise UserError(f"raters see the study's name; leave method names out of it ({', '.join(named)})")
    chosen = decoders.parse_methods(list(methods) if methods is not None and not isinstance(methods, str) else methods)
    settings = dict(settings or {})
    unknown = set(settings) - set(chosen)
    if unknown:
        raise UserError(f"settings given for methods not in the study: {', '.join(sorted(unknown))}")
    resolved = {m: decoders.get(m).resolve(settings.get(m)) for m in chosen}
    samples = whole_number(samples_per_method, "samples per stochastic method", 1, MAX_SAMPLES)
    max_new = whole_number(max_new_tokens, "max new tokens", *MAX_NEW_TOKENS_RANGE)
    seed = secrets.randbelow(2**62) if base_seed in (None, "") else whole_number(base_seed, "base seed", 0, 2**62)
    slots = expected_slots(chosen, samples)
    if len(slots) > MAX_RESPONSES:
        raise UserError(
            f"{len(slots)} responses per item is too many to rate side by side; "
            f"the limit is {MAX_RESPONSES} (fewer methods or samples)"
        )
    prompts = list(prompts)
    if not prompts:
        raise UserError("the study has no prompts")
    if len(prompts) > MAX_ITEMS:
        raise UserError(f"{len(prompts)} prompts; the limit per study is {MAX_ITEMS}")
    if lm is not None:
        for k, p in enumerate(prompts, start=1):
            try:
                encode_prompt(lm.tokenizer, p.prompt, p.raw, "cpu", lm.context_length, max_new)
            except UserError as exc:
                raise UserError(f"prompt {k}: {exc}; nothing was created") from None
    return store.create_study(
        name,
        model=model,
        methods=chosen,
        settings=resolved,
        samples_per_method=samples,
        max_new_tokens=max_new,
        base_seed=seed,
        state="draft",
        items_=[p.as_item() for p in prompts],
        guidelines=guidelines,
    )


def derive_seed(base_seed: int, item_public_id: str, method: str, sample: int) -> int:
    """The seed of one (item, method, sample): a hash of the study's secret base seed and the slot, so
    no two methods, samples or items share a seed and none can be guessed from another."""
    digest = hashlib.sha256(f"{int(base_seed)}|{item_public_id}|{method}|{int(sample)}".encode()).digest()
    # 53 bits: exact as a float too (JSON clients, the runner's whole-number check), and far beyond guessing
    return int.from_bytes(digest[:8], "big") >> 11


# ---- pre-generation -------------------------------------------------------------------------------


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
        text = f"{self.existing + self.generated} of {self.total} outputs stored ({self.generated} generated now)."
        if self.opened:
            text += " The study is now open for rating: invite raters."
        for number, methods in self.identical:
            text += f" Warning: on item {number}, {' and '.join(methods)} wrote identical text."
        return text


def pending_slots(store: Store, study_id: int) -> tuple[list[tuple[Item, str, int]], int]:
    """The (item, method, sample_index) slots still missing, and how many slots the study has."""
    study = store.get_study(study_id)
    if study is None:
        raise UserError(f"no study with id {study_id}")
    slots = expected_slots(study.methods, study.samples_per_method)
    done = store.output_slots(study_id)
    all_items = store.items(study_id)
    missing = [(item, m, s) for item in all_items for (m, s) in slots if (item.id, m, s) not in done]
    return missing, len(all_items) * len(slots)


_running: set[int] = set()
_running_lock = threading.Lock()


def generate_study(
    store: Store,
    lm,
    study_id: int,
    progress: ProgressFn | None = None,
    should_stop: Callable[[], bool] | None = None,
    batch_size: Any = None,
) -> GenerationReport:
    """Generate every missing output of a study; a stop loses at most one batch.

    With batch size 1 every output is generated alone and timed, with its own seed
    `derive_seed(base_seed, item, method, sample)`. With a larger batch size (default
    `DEFAULT_BATCH_SIZE`), each method's first output is still generated alone and timed (the
    study's speed figures), and the rest go in batches of prompts of similar length, one seed per
    batch (see arena/batching.py for exactly what that seed reproduces); batched outputs carry no
    timing. Multi-Arm always runs alone. A draft whose outputs are all stored becomes open."""
    engine = current_engine()
    if engine is not None:  # ARENA_ENGINE=vllm: every request at once, batched by the server (arena/engines)
        return engine.generate_study(store, lm, study_id, progress, should_stop)
    size = DEFAULT_BATCH_SIZE if batch_size in (None, "", "auto") else whole_number(batch_size, "batch size", 1, 64)
    with _running_lock:
        if study_id in _running:
            raise UserError("this study is being generated already; wait for that run to finish")
        _running.add(study_id)
    try:
        study = store.get_study(study_id)
        if study is None:
            raise UserError(f"no study with id {study_id}")
        missing, total = pending_slots(store, study_id)
        existing = total - len(missing)
        done = [0]
        if progress:
            progress(existing, total, "starting")
        timed = set(store.outputs_frame(study_id).dropna(subset=["latency_ms"])["method"]) if size > 1 else set()

        def stored(n: int, what: str) -> None:
            done[0] += n
            if progress:
                progress(existing + done[0], total, what)

        for (method, sample), slots in _by_method(missing):
            settings = study.settings.get(method, {})
            alone = slots if size == 1 else []
            batched = [] if size == 1 else slots
            if size > 1 and method not in timed:
                alone, batched = slots[:1], slots[1:]
                timed.add(method)
            for item in alone:
                if should_stop is not None and should_stop():
                    break
                seed = derive_seed(study.base_seed, item.public_id, method, sample)
                req = RunRequest(
                    prompt=item.prompt,
                    methods=[method],
                    settings={method: settings},
                    max_new_tokens=study.max_new_tokens,
                    seed=seed,
                    raw=item.raw,
                )
                [result] = run_methods(lm, req)
                _, new = store.add_output(item.id, method, sample, model=lm.name, **_output_fields(result))
                stored(int(new), f"item {item.ordinal + 1}, {method} sample {sample + 1}")
            for chunk in _batches(lm, method, settings, batched, study.max_new_tokens, size):
                if should_stop is not None and should_stop():
                    break
                stored(
                    _generate_batch(store, lm, study, method, sample, settings, chunk),
                    f"{method} sample {sample + 1}: a batch of {len(chunk)}",
                )
        report = GenerationReport(total, existing, done[0], identical_texts(store, study_id))
        if progress:
            progress(existing + done[0], total, "done")
        if report.complete and study.state == "draft":
            store.set_study_state(study_id, "open", allowed_from=("draft",))
            report.opened = True
        return report
    finally:
        with _running_lock:
            _running.discard(study_id)


def _by_method(missing: list[tuple[Item, str, int]]) -> list[tuple[tuple[str, int], list[Item]]]:
    groups: dict[tuple[str, int], list[Item]] = {}
    for item, method, sample in missing:
        groups.setdefault((method, sample), []).append(item)
    return list(groups.items())


def _batches(
    lm, method: str, settings: Mapping[str, Any], items: list[Item], max_new: int, size: int
) -> list[list[tuple[Item, list[int]]]]:
    """Items with the same plan, sorted by prompt length (less padding), in chunks of `size`;
    a method with its own step loop gets chunks of one."""
    groups: dict[str | None, list[tuple[Item, list[int]]]] = {}
    for item in items:
        ids = encode_ids(lm, RunRequest(prompt=item.prompt, methods=[method], max_new_tokens=max_new, raw=item.raw))
        groups.setdefault(batching.plan_key(lm, method, settings, item.prompt, max_new), []).append((item, ids))
    chunks = []
    for key, members in groups.items():
        members.sort(key=lambda m: len(m[1]))
        step = 1 if key is None else size
        chunks += [members[i : i + step] for i in range(0, len(members), step)]
    return chunks


def _generate_batch(
    store: Store,
    lm,
    study: Study,
    method: str,
    sample: int,
    settings: Mapping[str, Any],
    chunk: list[tuple[Item, list[int]]],
) -> int:
    items = [item for item, _ in chunk]
    seed = derive_seed(study.base_seed, "+".join(i.public_id for i in items), method, sample)
    rows = batching.generate_batch(
        lm, method, settings, [ids for _, ids in chunk], study.max_new_tokens, seed, items[0].prompt
    )
    new = 0
    for (item, ids), row in zip(chunk, rows):
        _, added = store.add_output(
            item.id,
            method,
            sample,
            model=lm.name,
            text=row.text,
            seed=seed,
            new_tokens=row.new_tokens,
            settings={**row.settings, "dtype": getattr(lm, "dtype_name", ""), "batch_size": len(chunk)},
            prompt_tokens=len(ids),
            finish_reason=row.finish_reason,
        )
        new += int(added)
    return new


def identical_texts(store: Store, study_id: int) -> list[tuple[int, list[str]]]:
    """(item number, methods) wherever two different methods stored the same text for an item."""
    found = []
    for item in store.items(study_id):
        by_text: dict[str, list[str]] = {}
        for o in store.outputs_for_item(item.id):
            by_text.setdefault(o.text.strip(), []).append(o.method)
        for methods in by_text.values():
            if len(set(methods)) > 1:
                found.append((item.ordinal + 1, sorted(set(methods))))
    return found


# ---- lifecycle: draft -> open -> closed -> published ----------------------------------------------
# Until a study is published nothing per method about it leaves the server except through the
# organizer's routes; rating happens only while it is open; the mapping and seeds are shown to the
# organizer once it is closed.


def open_study(store: Store, study_id: int) -> None:
    """A draft (all outputs stored) or a closed study (rating resumes) becomes open."""
    missing, _ = pending_slots(store, study_id)
    study = store.get_study(study_id)
    if study is not None and study.kind == "study" and missing:
        raise UserError(f"{len(missing)} outputs are still missing; generate them first")
    store.set_study_state(study_id, "open", allowed_from=("draft", "closed"))


def close_study(store: Store, study_id: int) -> None:
    """Rating ends; the organizer may now see the mapping and the seeds."""
    store.set_study_state(study_id, "closed", allowed_from=("open", "draft"))


def publish_study(store: Store, study_id: int) -> None:
    """The study's results become public (Results tab, stakeholder page). Only a closed study."""
    store.set_study_state(study_id, "published", allowed_from=("closed",))


def check_not_reserved(store: Store, prompt: object, raw: bool = False, tokenizer: Any = None) -> None:
    """Refuse a prompt of a study not yet published, disguised or not (arena/reserved.py, which the
    runs that serve the app call on their own). The message does not name the study."""
    reserved.refuse_reserved(store, prompt, raw, tokenizer)


def _output_fields(result: MethodResult | Mapping[str, Any]) -> dict[str, Any]:
    r = result.public() if isinstance(result, MethodResult) else dict(result)
    settings = dict(r.get("settings") or {})
    if r.get("dtype"):
        settings.setdefault("dtype", r["dtype"])
    return dict(
        text=r["text"],
        settings=settings,
        seed=r.get("seed"),
        new_tokens=r.get("new_tokens", 0),
        latency_ms=r.get("latency_ms"),
        ttft_ms=r.get("ttft_ms"),
        tokens_per_s=r.get("tokens_per_s"),
        prompt_tokens=r.get("prompt_tokens"),
        finish_reason=r.get("finish_reason"),
    )


def ready_item_ids(store: Store, study_id: int) -> list[int]:
    """Items a rater may see: every expected output stored (ad-hoc items: stored as given)."""
    study = store.get_study(study_id)
    if study is None:
        return []
    return [i.id for i in ready_items(store, study)[0]]


def ready_items(store: Store, study: Study) -> tuple[list[Item], dict[int, int]]:
    """`ready_item_ids` as rows, for a study already read, and {item_id: outputs stored} for every
    item with outputs: what a rater's next item needs, in two queries."""
    per_item: dict[int, set[tuple[str, int]]] = {}
    for item_id, m, s in store.output_slots(study.id):
        per_item.setdefault(item_id, set()).add((m, s))
    stored = {i: len(slots) for i, slots in per_item.items()}
    if study.kind == "adhoc":
        return [i for i in store.items(study.id) if len(per_item.get(i.id, ())) >= 2], stored
    need = set(expected_slots(study.methods, study.samples_per_method))
    return [i for i in store.items(study.id) if need <= per_item.get(i.id, set())], stored


# ---- quick rating from the Compare tab ------------------------------------------------------------


def quick_item(
    store: Store, lm_name: str, prompt: str, results: Iterable[MethodResult | Mapping[str, Any]], raw: bool = False
) -> tuple[int, int]:
    """Turn the Compare tab's finished results into a one-item ad-hoc study; return (study_id, item_id)."""
    results = list(results or [])
    if len(results) < 2:
        raise UserError("run at least two methods first; blind rating compares their outputs")
    if len(results) > MAX_RESPONSES:
        raise UserError(f"at most {MAX_RESPONSES} outputs can be rated side by side")
    fields = [
        _output_fields(r) | {"method": (r.method if isinstance(r, MethodResult) else r["method"])} for r in results
    ]
    prompt = clean_prompt(prompt)
    methods = list(dict.fromkeys(f["method"] for f in fields))
    max_new = max(int((f["settings"] or {}).get("max_new_tokens", 0) or 0) for f in fields) or 1
    seed = next((f["seed"] for f in fields if f["seed"] is not None), 0)
    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S")
    with store.transaction():  # a study without its outputs would be a quick rating nobody can rate
        study_id = store.create_study(
            f"Quick rating {when} UTC",
            kind="adhoc",
            model=lm_name,
            methods=methods,
            settings={},
            samples_per_method=1,
            max_new_tokens=max_new,
            base_seed=int(seed),
        )
        [item_id] = store.add_items(study_id, [{"prompt": prompt, "scenario": QUICK_SCENARIO, "raw": bool(raw)}])
        seen: dict[str, int] = {}
        for f in fields:
            method = f.pop("method")
            sample = seen.get(method, 0)
            seen[method] = sample + 1
            store.add_output(item_id, method, sample, model=lm_name, **f)
    return study_id, item_id


# ---- deleting a study, or one rater's ratings in it -----------------------------------------------
# Deleting cannot be undone, so it writes a copy first: the study's ratings as an arena export (which
# the Import button or `python -m arena.export --import` takes back, losslessly) and, since an export
# holds rated outputs only, every item and output as a plain CSV. The copy goes to a fresh temporary
# folder (the organizer downloads it) and also to BACKUP_ENV's folder, else next to a SQLite
# database file, so it outlives the download. The delete refuses if anything changed after the copy
# was taken (see Store.deletion_fingerprint).

BACKUP_ENV = env_of("backup_dir")


@dataclass
class Deletion:
    study_id: int
    study_name: str
    counts: dict[str, int]  # rows removed, per table
    files: list[Path]  # the copy written first, in a temporary folder: [ratings export, items+outputs (study only)]
    kept_in: Path | None  # where the same copy was also kept, if anywhere
    rater: str | None = None

    def message(self) -> str:
        c = self.counts
        kept = f" A copy is also kept on the server in `{self.kept_in}`." if self.kept_in else ""
        if self.rater is not None:
            return (
                f"Deleted {c['ratings']} rating{'s' if c['ratings'] != 1 else ''} by {self.rater!r} in study "
                f"#{self.study_id}. Their ratings were exported first (download below; Import puts them "
                f"back).{kept}"
            )
        return (
            f"Deleted study #{self.study_id} {self.study_name!r}: {c['items']} items, {c['outputs']} outputs, "
            f"{c['ratings']} ratings, {c['assignments']} recorded display positions, {c['study_raters']} "
            f"raters' places in it. The study was exported first (download below: the ratings export, which "
            f"Import takes back, and every item and output as CSV).{kept}"
        )


def backup_folder(store: Store) -> Path | None:
    """Where copies written before a deletion are kept: `ARENA_BACKUP_DIR`, else a `deleted` folder
    next to a SQLite database file, else nowhere (PostgreSQL: the download is the copy)."""
    env = current_settings().backup_dir.strip()
    if env:
        return Path(env).expanduser()
    database = store.engine.url.database if store.dialect == "sqlite" else None
    if database and database != ":memory:" and not database.startswith("file:"):
        return Path(database).expanduser().resolve().parent / "deleted"
    return None


def _check_confirmation(study: Study, typed: object) -> None:
    if not isinstance(typed, str) or typed.strip() != study.name:
        raise UserError(f"to confirm, type the study's exact name ({study.name!r}); nothing was deleted")


def _study_for_deletion(store: Store, study_id: Any, typed_name: object) -> Study:
    sid = parse_study_id(study_id)
    study = store.get_study(sid)
    if study is None:
        raise UserError(f"there is no study #{sid}")
    _check_confirmation(study, typed_name)
    with _running_lock:
        if sid in _running:
            raise UserError("this study is being generated right now; wait for that run to end, then delete it")
    return study


def _slug(text: str) -> str:
    cleaned = "".join(ch if ch.isascii() and (ch.isalnum() or ch in "-_") else "-" for ch in text)
    return "-".join(part for part in cleaned.split("-") if part)[:40] or "study"


def _contents_frame(store: Store, study: Study):
    """Every item of the study with every stored output, one row per output (an item with none: one row)."""

    head = {
        "study_name": study.name,
        "study_created_at": study.created_at.isoformat(),
        "study_methods": json.dumps(study.methods),
        "study_settings": json.dumps(study.settings, sort_keys=True),
    }
    item_cols = [
        "item_id",
        "item_ordinal",
        "item_public_id",
        "item_created_at",
        "scenario",
        "language",
        "prompt",
        "raw",
    ]
    out_cols = [
        "output_id" if c.name == "id" else "output_created_at" if c.name == "created_at" else c.name
        for c in output_table.columns
        if c.name != "item_id"
    ]
    rows = []
    for item in store.items(study.id):
        it = {
            "item_id": item.id,
            "item_ordinal": item.ordinal,
            "item_public_id": item.public_id,
            "item_created_at": item.created_at,
            **{k: getattr(item, k) for k in ("scenario", "language", "prompt", "raw")},
        }
        item_outputs: list[Output | None] = [*store.outputs_for_item(item.id)]
        for out in item_outputs or [None]:
            named = {
                "output_id" if k == "id" else "output_created_at" if k == "created_at" else k: v
                for k, v in (asdict(out) if out is not None else {}).items()
            }
            rows.append({**head, **it, **{c: named.get(c) for c in out_cols}})
    return pd.DataFrame(rows, columns=[*head, *item_cols, *out_cols])


def _write_backup(store: Store, study: Study, rater: str | None) -> tuple[list[Path], Path | None]:
    try:
        return _write_backup_files(store, study, rater)
    except OSError as exc:
        raise UserError(f"could not write the copy to take before deleting ({exc}); nothing was deleted") from None


def _write_backup_files(store: Store, study: Study, rater: str | None) -> tuple[list[Path], Path | None]:

    when = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    stem = f"deleted-study-{study.id}-{_slug(study.name)}-{when}"
    folder = Path(tempfile.mkdtemp(prefix="arena-deleted-"))
    rows = export.export_rows(store, study.id)
    if rater is not None:
        rows = [r for r in rows if r["rater"] == rater]
        files = [folder / f"{stem}-rater-{_slug(rater)}-ratings.csv"]
    else:
        files = [folder / f"{stem}-ratings.csv", folder / f"{stem}-items-and-outputs.csv"]
    with open(files[0], "w", encoding="utf-8", newline="") as fh:
        export.write_export(rows, "csv", fh)
    if rater is None:
        _contents_frame(store, study).to_csv(files[1], index=False)
    keep = backup_folder(store)
    if keep is not None:
        keep.mkdir(parents=True, exist_ok=True)
        for path in files:
            shutil.copy2(path, keep / path.name)
    return files, keep


def delete_study(store: Store, study_id: Any, typed_name: object) -> Deletion:
    """Delete a study after `typed_name` matched its name exactly, writing its copy first."""
    study = _study_for_deletion(store, study_id, typed_name)
    before = store.deletion_fingerprint(study.id)
    files, kept = _write_backup(store, study, None)
    counts = store.delete_study(study.id, expect=before)
    return Deletion(study.id, study.name, counts, files, kept)


def delete_rater_ratings(store: Store, study_id: Any, rater: object, typed_name: object) -> Deletion:
    """Delete one rater's ratings in a study after `typed_name` matched the study's name, writing
    their copy first. The rater's ratings in other studies, and everyone else's, stay."""
    study = _study_for_deletion(store, study_id, typed_name)
    if not isinstance(rater, str) or not rater.strip():
        raise UserError("enter the rater's name exactly as the progress table shows it")
    name = clean_rater_name(rater)
    rater_id = store.find_rater(name)
    if rater_id is None:
        raise UserError(f"there is no rater {name!r}; nothing was deleted")
    if not (store.progress(study.id)["rater"] == name).any():
        raise UserError(f"{name!r} has no ratings in study #{study.id}; nothing was deleted")
    before = store.deletion_fingerprint(study.id, rater_id)
    files, kept = _write_backup(store, study, name)
    n = store.delete_rater_ratings(study.id, rater_id, expect=before)
    return Deletion(study.id, study.name, {"ratings": n}, files, kept, rater=name)


if __name__ == "__main__":  # python -m arena.studies (see arena/study_cli.py)
    from arena.study_cli import main

    raise SystemExit(main())
