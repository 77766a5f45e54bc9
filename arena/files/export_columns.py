"""The export columns, each declared once: its name, type, where the store keeps it, the files it
appears in, the format version that added it, and who may read it while its study is open.

Every list of column names that the record query, the exports, the import and the vote and
preference files use is derived from `CATALOGUE` (arena/store/columns.py, arena/files/export.py,
arena/files/pair_export.py): a new column is one entry here, and forgetting to say whether it gives the
blind away is impossible, because `exposure` has no default. docs/exports.md is this table in words
(`markdown_table`; tests/test_export_columns.py fails when they differ).

A module without the store (no SQLAlchemy): `source` names the store's column as "table.column",
resolved in arena/store/columns.py.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from arena.rating.dimensions import SCORE_COLUMNS
from common.rubric import Rubric

# The files. "csv" and "jsonl" are the one export that imports back (`python -m arena.export`, the
# Organizer's download); "votes" is the pairwise file `python -m evaluation.pairwise` reads;
# "preferences" the {prompt, chosen, rejected} lines for DPO.
RECORD: tuple[str, ...] = ("csv", "jsonl")
FORMATS: tuple[str, ...] = (*RECORD, "votes", "preferences")

Kind = Literal["int", "bigint", "float", "time", "bool", "text", "object", "list"]
# Who may read a column's value while its study is draft or open (closed and published studies
# export everything that is exported at all):
#   shown    what raters saw and answered, and the study's public set-up: in every export.
#   mapping  says which method (or model) wrote a text, or which letter it had: blank while open.
#   seeds    the study's seeds: with them, the public model and the settings, the texts regenerate
#            and match their methods (issue 44): blank while open.
#   never    in no file (the store's record query only).
Exposure = Literal["shown", "mapping", "seeds", "never"]
SEALED: tuple[Exposure, ...] = ("mapping", "seeds")  # blank in every export of a study that is not closed
# Parts of the record, in the file's order: the analysis frame's columns (an output's, then a
# rating's), two appended later, then the details that importing needs.
Part = Literal["output", "rating", "extra", "detail", "added", "other"]

KINDS_IN_WORDS: dict[str, str] = {
    "int": "whole number",
    "bigint": "whole number (64-bit)",
    "float": "number",
    "time": "time (ISO 8601)",
    "bool": "true/false",
    "text": "text",
    "object": "JSON object",
    "list": "JSON list",
}
EXPOSURE_IN_WORDS: dict[str, str] = {
    "shown": "always",
    "mapping": "blank while open (mapping)",
    "seeds": "blank while open (seeds)",
    "never": "never exported",
}


@dataclass(frozen=True)
class ExportColumn:
    name: str
    kind: Kind
    exposure: Exposure
    about: str
    part: Part = "added"
    since: int = 1  # the export format version that added it (columns of version 1 are required)
    source: str | None = None  # "table.column" in the store; None: the export makes it
    formats: tuple[str, ...] = RECORD
    keeps_empty: bool = False  # an empty text is a value (read back as ""), not a missing one

    @property
    def sealed(self) -> bool:
        return self.exposure in SEALED


def _c(name: str, kind: Kind, exposure: Exposure, about: str, **more: Any) -> ExportColumn:
    return ExportColumn(name, kind, exposure, about, **more)


CATALOGUE: tuple[ExportColumn, ...] = (
    # ---- the analysis frame: an output's columns ----
    _c("study_id", "int", "shown", "the study's id in the database it came from", part="output",
       source="studies.id", formats=(*RECORD, "votes")),
    _c("study_name", "text", "shown", "the study's name", part="output", source="studies.name"),
    _c("item_id", "int", "shown", "the item's id in the database it came from", part="output",
       source="items.id", formats=(*RECORD, "votes")),
    _c("scenario", "text", "shown", "the prompt's scenario key", part="output", source="items.scenario",
       keeps_empty=True),
    _c("prompt", "text", "shown", "the prompt as raters read it", part="output", source="items.prompt",
       keeps_empty=True, formats=(*RECORD, "preferences")),
    _c("output_id", "int", "mapping", "the output's id (numbered method by method as generated)",
       part="output", source="outputs.id"),
    _c("method", "text", "mapping", "the decoding method (or system) that wrote the text", part="output",
       source="outputs.method"),
    _c("settings", "object", "mapping", "the method's complete effective settings", part="output",
       source="outputs.settings"),
    _c("seed", "bigint", "seeds", "the output's seed, derived from the study's base seed", part="output",
       source="outputs.seed"),
    _c("model", "text", "mapping", "the model that wrote the text", part="output", source="outputs.model",
       keeps_empty=True),
    _c("text", "text", "shown", "the response raters read", part="output", source="outputs.text",
       keeps_empty=True),
    _c("new_tokens", "int", "mapping", "the text's length in tokens", part="output", source="outputs.new_tokens"),
    _c("latency_ms", "float", "mapping", "generation time", part="output", source="outputs.latency_ms"),
    _c("ttft_ms", "float", "mapping", "time to the first token", part="output", source="outputs.ttft_ms"),
    _c("tokens_per_s", "float", "mapping", "generation speed", part="output", source="outputs.tokens_per_s"),
    # ---- the analysis frame: a rating's columns ----
    _c("rater", "text", "shown", "the rater's name", part="rating", source="raters.name",
       formats=(*RECORD, "votes")),
    # Not a column of the store: every rubric's scores are rows of rating_scores (the export fills these).
    *(_c(d, "int", "shown", "the default rubric's score (empty with a rubric of its own, or can't judge)",
         part="rating") for d in SCORE_COLUMNS),
    _c("comment", "text", "shown", "the rater's comment on the response", part="rating", source="ratings.comment"),
    _c("position", "int", "shown", "where the rater saw the response (0 = A)", part="rating",
       source="ratings.position"),
    _c("created_at", "time", "shown", "when the rater answered", part="rating", source="ratings.created_at"),
    _c("updated_at", "time", "shown", "when the rater last changed the answer", part="rating",
       source="ratings.updated_at"),
    _c("sample_index", "int", "mapping", "which sample of a stochastic method the output is", part="extra",
       source="outputs.sample_index"),
    _c("language", "text", "shown", "the prompt's language", part="extra", source="items.language",
       keeps_empty=True),
    # ---- details a lossless import needs ----
    _c("study_kind", "text", "shown", "study, or adhoc (a quick rating from Compare)", part="detail",
       source="studies.kind"),
    _c("study_model", "text", "shown", "the study's model as its organizer named it", part="detail",
       source="studies.model", keeps_empty=True),
    _c("study_methods", "list", "shown", "the study's methods, in display order", part="detail",
       source="studies.methods"),
    _c("study_settings", "object", "shown", "the settings the organizer chose, per method", part="detail",
       source="studies.settings"),
    _c("samples_per_method", "int", "shown", "samples per stochastic method", part="detail",
       source="studies.samples_per_method"),
    _c("max_new_tokens", "int", "shown", "the study's length limit", part="detail", source="studies.max_new_tokens"),
    _c("base_seed", "bigint", "seeds", "the seed every output's seed is derived from", part="detail",
       source="studies.base_seed"),
    _c("blind_seed", "bigint", "seeds", "the seed that placed the attention items", part="detail",
       source="studies.blind_seed"),
    _c("study_created_at", "time", "shown", "when the study was made (with its name, its key on import)",
       part="detail", source="studies.created_at"),
    _c("item_ordinal", "int", "shown", "the item's place in the study, from 0", part="detail",
       source="items.ordinal"),
    _c("item_public_id", "text", "shown", "the item's public id (its key on import)", part="detail",
       source="items.public_id"),
    _c("raw", "bool", "shown", "the prompt went to the model without the chat template", part="detail",
       source="items.raw"),
    _c("item_created_at", "time", "shown", "when the item was added", part="detail", source="items.created_at"),
    _c("prompt_tokens", "int", "mapping", "the prompt's length in tokens as the method read it", part="detail",
       source="outputs.prompt_tokens"),
    _c("finish_reason", "text", "mapping", "why generation stopped (eos, length...)", part="detail",
       source="outputs.finish_reason"),
    _c("output_created_at", "time", "mapping", "when the output was generated", part="detail",
       source="outputs.created_at"),
    # ---- added by later formats (a file without them still imports) ----
    _c("study_state", "text", "shown", "draft, open, closed or published (absent: imported as open)",
       since=2, source="studies.state"),
    _c("format_version", "int", "shown", "the export format the row was written in", since=2),
    _c("row_kind", "text", "shown", "rating, skip, flag, guess or vote (absent: rating)", since=3),
    _c("cant_judge", "text", "shown", "the rating's dimensions the rater could not judge, comma-separated",
       since=3),
    _c("reason", "text", "shown", "a skip's or flag's reason; a vote's ticked reasons, comma-separated", since=3),
    _c("note", "text", "shown", "the rater's note on a skip, flag or vote", since=3),
    _c("study_guess_methods", "list", "shown", "the methods raters are asked to pick out", since=4),
    _c("study_scorer_model", "text", "shown", "the model whose perplexity Results shows", since=4),
    _c("target_method", "text", "shown", "a guess: the method asked about", since=4),
    _c("n_responses", "int", "shown", "a guess: the responses on screen", since=4),
    _c("guessed_label", "text", "shown", "a guess: the letter the rater picked (empty: don't know)", since=4),
    _c("true_label", "text", "mapping", "a guess: the letter the target method really had", since=4),
    _c("study_design", "text", "shown", "scores (absent too) or pairwise", since=5),
    _c("system_a", "text", "mapping", "a vote: the method shown as A", since=5, formats=("votes",)),
    _c("system_b", "text", "mapping", "a vote: the method shown as B", since=5, formats=("votes",)),
    _c("winner", "text", "shown", "a vote: a, b, tie or bothbad", since=5, formats=(*RECORD, "votes")),
    _c("len_a", "int", "mapping", "a vote: A's length in tokens", since=5, formats=("votes",)),
    _c("len_b", "int", "mapping", "a vote: B's length in tokens", since=5, formats=("votes",)),
    _c("study_rubric", "object", "shown", "the study's own rubric (empty: the default three 1-5 questions)",
       since=6),
    _c("scores", "object", "shown", "a rating on the study's own rubric: {dimension: score}", since=6),
    _c("study_exclusion_rules", "list", "shown", "the raters the analysis drops, chosen at creation", since=6),
    _c("item_attention", "object", "shown", "an attention item's instruction and expected score", since=6,
       source="items.attention"),
    _c("attention_passed", "bool", "shown", "the rater followed every attention item (empty: not recorded)",
       since=6),
    # ---- in other files, or in none ----
    _c("chosen", "text", "shown", "the text the majority of raters preferred", since=5, part="other",
       formats=("preferences",)),
    _c("rejected", "text", "shown", "the text they preferred it to", since=5, part="other",
       formats=("preferences",)),
    _c("rating_id", "int", "never", "the rating's row id (the store's record query)", part="other",
       source="ratings.id", formats=()),
)  # fmt: skip
BY_NAME: dict[str, ExportColumn] = {c.name: c for c in CATALOGUE}
# One column per question of a study's own rubric (issue 46), after the catalogue's, named by the question
# (`question_column`): the one declaration of them all. What raters answered: never sealed.
QUESTION = _c("<question>", "text", "shown", "one column per question of a study's own rubric, named by it: "
              "the answer as its type writes it (a scale's number, yes/no 1 or 0, a choice's label, a comment's "
              "text; empty: can't judge or left empty); `scores` holds the same answers", since=7)  # fmt: skip


def question_column(name: str) -> str:
    """The column of a rubric's question: its name, or "NAME (answer)" where a catalogue column has it."""
    return f"{name} (answer)" if name in BY_NAME else name


def question_columns(rubrics: Iterable[Rubric]) -> tuple[str, ...]:
    """The question columns of a file holding these studies' rubrics, in order of first appearance
    (the default rubric's answers are the catalogue's own three columns)."""
    out: dict[str, None] = {}
    for rubric in rubrics:
        if not rubric.in_rating_columns:
            out.update(dict.fromkeys(question_column(n) for n in rubric.names))
    return tuple(out)


def names(columns: Iterable[ExportColumn]) -> tuple[str, ...]:
    return tuple(c.name for c in columns)


def in_format(fmt: str) -> tuple[str, ...]:
    """The columns of one file, in its order (the catalogue's)."""
    return names(c for c in CATALOGUE if fmt in c.formats)


def record_part(part: Part) -> tuple[str, ...]:
    return names(c for c in CATALOGUE if c.part == part and c.formats)


def of_kind(*kinds: Kind) -> frozenset[str]:
    return frozenset(c.name for c in CATALOGUE if c.kind in kinds)


def sealed_columns(fmt: str | None = None) -> tuple[str, ...]:
    """The columns (of one file) blank while their study is open."""
    return names(c for c in CATALOGUE if c.sealed and (fmt is None or fmt in c.formats))


def is_open(state: str | None) -> bool:
    """Whether a study in this state keeps its secrets (an unknown state counts as open)."""
    return state not in ("closed", "published")


def seal(row: dict[str, Any], state: str | None, keep: tuple[Exposure, ...] = ()) -> dict[str, Any]:
    """`row` with every sealed column blanked while the study (in `state`) is not closed; `keep`
    names exposures left as they are (the copy a deletion writes on the server keeps the mapping)."""
    if is_open(state):
        row.update({c.name: None for c in CATALOGUE if c.sealed and c.exposure not in keep and c.name in row})
    return row


def markdown_table(
    catalogue: Iterable[ExportColumn] | None = None, limits: Mapping[str, int | None] | None = None
) -> str:
    """The catalogue as docs/exports.md shows it (`limits`: text columns' lengths in the store)."""
    lines = ["| column | type | files | since | while the study is open | what it holds |", "|---|---|---|---|---|---|"]
    for c in (*CATALOGUE, QUESTION) if catalogue is None else catalogue:
        kind = KINDS_IN_WORDS[c.kind]
        limit = (limits or {}).get(c.name)
        if limit:
            kind += f" (≤ {limit})"
        files = ", ".join(c.formats) or "none"
        lines.append(f"| `{c.name}` | {kind} | {files} | {c.since} | {EXPOSURE_IN_WORDS[c.exposure]} | {c.about} |")
    return "\n".join(lines) + "\n"
