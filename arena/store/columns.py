"""The column catalogue: the documented columns of an output and a rating record (frames, export
files), in order, and where each column's value comes from in the schema."""

from __future__ import annotations

from sqlalchemy import Column

from .schema import SCORE_COLUMNS, items, outputs, raters, ratings, studies

OUTPUT_COLUMNS: tuple[str, ...] = (
    "study_id",
    "study_name",
    "item_id",
    "scenario",
    "prompt",
    "output_id",
    "method",
    "settings",
    "seed",
    "model",
    "text",
    "new_tokens",
    "latency_ms",
    "ttft_ms",
    "tokens_per_s",
)
RATING_COLUMNS: tuple[str, ...] = OUTPUT_COLUMNS + (
    "rater",
    *SCORE_COLUMNS,
    "comment",
    "position",
    "created_at",
    "updated_at",
)
# Appended after the documented columns: which sample of a stochastic method this output is, and
# the prompt's language (scenario keys repeat across languages).
EXTRA_COLUMNS: tuple[str, ...] = ("sample_index", "language")

# The study's, item's and output's details, after the documented columns in an export's record.
DETAIL_COLUMNS: tuple[str, ...] = (
    "study_kind",
    "study_model",
    "study_methods",
    "study_settings",
    "samples_per_method",
    "max_new_tokens",
    "base_seed",
    "blind_seed",
    "study_created_at",
    "item_ordinal",
    "item_public_id",
    "raw",
    "item_created_at",
    "prompt_tokens",
    "finish_reason",
    "output_created_at",
)
# Column types where a frame or a file needs them: whole numbers, fractions, times.
INT_COLUMNS: frozenset[str] = frozenset(
    {
        "study_id",
        "item_id",
        "output_id",
        "seed",
        "new_tokens",
        "position",
        "sample_index",
        "samples_per_method",
        "max_new_tokens",
        "base_seed",
        "blind_seed",
        "item_ordinal",
        "prompt_tokens",
        *SCORE_COLUMNS,
    }
)
FLOAT_COLUMNS: frozenset[str] = frozenset({"latency_ms", "ttft_ms", "tokens_per_s"})
TIME_COLUMNS: frozenset[str] = frozenset(
    {"created_at", "updated_at", "study_created_at", "item_created_at", "output_created_at"}
)

# Every column a rating record can have (frames, export files), by name: where its value comes from.
JOIN_COLUMNS: dict[str, Column] = {
    "study_id": studies.c.id,
    "study_name": studies.c.name,
    "item_id": items.c.id,
    "scenario": items.c.scenario,
    "prompt": items.c.prompt,
    "output_id": outputs.c.id,
    "method": outputs.c.method,
    "settings": outputs.c.settings,
    "seed": outputs.c.seed,
    "model": outputs.c.model,
    "text": outputs.c.text,
    "new_tokens": outputs.c.new_tokens,
    "latency_ms": outputs.c.latency_ms,
    "ttft_ms": outputs.c.ttft_ms,
    "tokens_per_s": outputs.c.tokens_per_s,
    "rater": raters.c.name,
    **{name: ratings.c[name] for name in SCORE_COLUMNS},
    "comment": ratings.c.comment,
    "position": ratings.c.position,
    "created_at": ratings.c.created_at,
    "updated_at": ratings.c.updated_at,
    "sample_index": outputs.c.sample_index,
    "language": items.c.language,
    "study_kind": studies.c.kind,
    "study_model": studies.c.model,
    "study_methods": studies.c.methods,
    "study_settings": studies.c.settings,
    "samples_per_method": studies.c.samples_per_method,
    "max_new_tokens": studies.c.max_new_tokens,
    "base_seed": studies.c.base_seed,
    "blind_seed": studies.c.blind_seed,
    "study_created_at": studies.c.created_at,
    "study_state": studies.c.state,
    "item_ordinal": items.c.ordinal,
    "item_public_id": items.c.public_id,
    "raw": items.c.raw,
    "item_created_at": items.c.created_at,
    "prompt_tokens": outputs.c.prompt_tokens,
    "finish_reason": outputs.c.finish_reason,
    "output_created_at": outputs.c.created_at,
    "rating_id": ratings.c.id,
    "item_attention": items.c.attention,
}
