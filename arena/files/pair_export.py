"""A pairwise study's votes as `python -m evaluation.pairwise` reads them, once the study is closed.

    python -m arena.export --votes --study 7 -o votes.csv
    python -m evaluation.pairwise votes.csv --json
    python -m arena.export --preferences --study 7 -o pairs.jsonl  # {prompt, chosen, rejected} for DPO

One row per vote: `study_id, item_id, rater, system_a, system_b, winner, len_a, len_b`, where
system_a is the method shown as A to that rater, and the lengths are the two outputs' new tokens.
Which method stood on which side is the study's secret while it is rated, so this file exists only
after closing (as the mapping and the seeds); the whole export (`python -m arena.export`) carries the
votes too, and is the one that imports back.
"""

from __future__ import annotations

import csv
from collections.abc import Iterator
from typing import Any, TextIO

from arena.files.export_columns import in_format, seal
from arena.inputs.text import escape_cell
from arena.store import Output, Store, Study
from arena.store.vote_store import Vote
from common import messages
from common.errors import UserError

VOTE_COLUMNS: tuple[str, ...] = in_format(
    "votes"
)  # declared with the other export columns (arena/files/export_columns.py)


def closed_pairwise(store: Store, study_id: int) -> Study:
    """The study, if it is a pairwise study whose rating has closed; else a UserError saying why."""
    study = store.get_study(int(study_id))
    if study is None:
        raise UserError(messages.english("study_does_not_exist"))
    if study.design != "pairwise":
        raise UserError(messages.text("votes_not_pairwise", id=study.id))
    if study.state not in ("closed", "published"):
        raise UserError(messages.english("votes_not_closed"))
    return study


def _voted_outputs(store: Store, study: Study) -> Iterator[tuple[Vote, Output, Output]]:
    """Each vote of the study with its two outputs (A, B as that rater saw them)."""
    outputs: dict[int, Output] = {}
    read: set[int] = set()
    for v in store.votes(study.id):
        if v.item_id not in read:
            read.add(v.item_id)
            outputs.update({o.id: o for o in store.outputs_for_item(v.item_id)})
        yield v, outputs[v.output_a], outputs[v.output_b]


def vote_rows(store: Store, study_id: int) -> list[dict[str, Any]]:
    """The votes of a closed (or published) pairwise study, one dict per vote with VOTE_COLUMNS."""
    study = closed_pairwise(store, study_id)
    return [
        seal(
            dict(
                study_id=study.id,
                item_id=v.item_id,
                rater=v.rater,
                system_a=a.method,
                system_b=b.method,
                winner=v.winner,
                len_a=int(a.new_tokens),
                len_b=int(b.new_tokens),
            ),
            study.state,
        )
        for v, a, b in _voted_outputs(store, study)
    ]


def preference_rows(store: Store, study_id: int) -> list[dict[str, Any]]:
    """The votes of a closed pairwise study as `arena.files.preferences.preference_pairs` reads them:
    prompt (the item's prompt as raters read it), text_a, text_b, winner. No method, no rater."""
    study = closed_pairwise(store, study_id)
    prompts = {i.id: i.prompt for i in store.items(study.id)}
    return [
        seal(dict(prompt=prompts[v.item_id], text_a=a.text, text_b=b.text, winner=v.winner), study.state)
        for v, a, b in _voted_outputs(store, study)
    ]


def write_votes_csv(rows: list[dict[str, Any]], out: TextIO) -> int:
    """Write vote rows as CSV (rater names escaped against spreadsheet formulas); return the count."""
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(VOTE_COLUMNS)
    for row in rows:
        writer.writerow([escape_cell(v) if isinstance(v, str) else v for v in (row[c] for c in VOTE_COLUMNS)])
    return len(rows)
