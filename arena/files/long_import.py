"""Another team's ratings, in the long format (arena/files/long_ratings.py), imported as a closed study so
that Results and `/present` show them once it is published:

    python -m arena.export --import-ratings survey.csv --name "Sampler survey" [--scale 1-10]
        [--exclude-failed-attention]

The file's texts are usually not published with its scores: an imported study's prompts name their
item ("item 17") and its responses are empty; Results then shows the scores without perplexity or
lengths. Each study of the file becomes one study (NAME, or "NAME · STUDY_ID" when the file holds
several), with the file's rubric, its raters' `attention_passed` and, with `exclude_failed_attention`,
the rule "drop raters who fail any attention item" set at creation, and the file's name as where its
ratings came from (`Study.imported_from`: every page says "imported from FILE; collected outside this
app" instead of claiming a blind the app did not run). Everything is checked before anything is
written, and written in one transaction: a bad file leaves the store as it was.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from pathlib import Path

from arena.files.long_ratings import LongRating, LongStudy, read_long_ratings
from arena.inputs.prompts import PromptSpec
from arena.rating.study_spec import StudySpec
from arena.store import Store
from arena.store.values import clean_name
from common.errors import UserError

ATTENTION_RULE = "attention"  # evaluation.human.quality.RULES: failed any attention item


def import_long_file(
    store: Store,
    path: str | Path,
    name: str,
    scales: Mapping[str, tuple[int, int]] | None = None,
    exclude_failed_attention: bool = False,
) -> list[dict[str, object]]:
    """Import every study of a long-format file as a closed study; one {study_id, name, items, raters,
    ratings, failed_attention} per study, in the file's order."""
    name = clean_name(name, "study name", 180) if isinstance(name, str) and name.strip() else ""
    if not name:
        raise UserError("give the imported study a name (--name)")
    read = read_long_ratings(path, scales, label=Path(path).name)
    if not read.studies:
        raise UserError(f"{Path(path).name} holds no ratings")
    names = [name if len(read.studies) == 1 else f"{name} · {s.study_id}" for s in read.studies]
    taken = {s.name for s in store.list_studies()} & set(names)
    if taken:
        raise UserError(f"a study named {sorted(taken)[0]!r} exists already: choose another --name")
    rules = (ATTENTION_RULE,) if exclude_failed_attention else ()
    source = Path(path).name  # the file's name, not where it lay on this machine: pages show it
    with store.transaction():
        return [
            _import_study(store, study, title, rules, source) for study, title in zip(read.studies, names, strict=True)
        ]


def imported_spec(study: LongStudy, name: str, rules: tuple[str, ...], source: str) -> StudySpec:
    """One study of the file as the study's settings: an item's prompt names it ("item 17"), its methods
    are the file's names (never checked against the decoders), its rubric the file's."""
    items = dict.fromkeys(r.item_id for r in study.ratings)
    return StudySpec(
        name,
        tuple(PromptSpec(f"item {item}", str(item)) for item in items),
        methods=tuple(dict.fromkeys(r.method for r in study.ratings)),
        rubric=study.rubric,
        exclusion_rules=rules,
        imported_from=source,
    )


def _import_study(store: Store, study: LongStudy, name: str, rules: tuple[str, ...], source: str) -> dict[str, object]:
    spec = imported_spec(study, name, rules, source)
    items = list(dict.fromkeys(r.item_id for r in study.ratings))
    sid = store.create_study(
        **spec.store_fields(), model="", state="closed", items_=[p.as_item() for p in spec.prompts]
    )
    item_ids = {item: stored.id for item, stored in zip(items, store.items(sid), strict=True)}
    outputs = _outputs(store, study.ratings, item_ids)
    by_rater: dict[str, list[LongRating]] = {}
    for r in study.ratings:
        by_rater.setdefault(r.rater, []).append(r)
    for rater, given in by_rater.items():
        rid = store.rater_id(rater)
        store.study_rater_index(sid, rid)
        rows = [
            {
                "output_id": outputs[(r.item_id, r.method, r.output_id)],
                **{d: v for d, v in r.scores.items() if v is not None},
                "cant_judge": [
                    d for d, v in r.scores.items() if v is None and study.rubric.dimension(d).qtype.can_judge
                ],
                "position": r.position,
                "created_at": _time(r),
                "updated_at": _time(r),
            }
            for r in given
        ]
        store.save_ratings(rid, rows, study.rubric)
        store.record_attention(sid, rid, study.attention.get(rater))
    return {
        "study_id": sid,
        "name": name,
        "items": len(items),
        "raters": len(by_rater),
        "ratings": len(study.ratings),
        "failed_attention": len(study.failed_attention),
    }


def _outputs(
    store: Store, ratings: tuple[LongRating, ...], item_ids: Mapping[str, int]
) -> dict[tuple[str, str, str], int]:
    """One (empty) output per (item, method, the file's output id): its samples numbered in file order."""
    found: dict[tuple[str, str, str], int] = {}
    samples: dict[tuple[str, str], int] = {}
    for r in ratings:
        key = (r.item_id, r.method, r.output_id)
        if key in found:
            continue
        index = samples[(r.item_id, r.method)] = samples.get((r.item_id, r.method), -1) + 1
        found[key], _ = store.add_output(
            item_ids[r.item_id], r.method, index, text="", settings={}, seed=None, model="", new_tokens=0
        )
    return found


def _time(r: LongRating) -> datetime | None:
    if not r.created_at:
        return None
    try:
        return datetime.fromisoformat(r.created_at)
    except ValueError:
        raise UserError(f"line {r.line}: created_at {r.created_at!r} is not an ISO date and time") from None
