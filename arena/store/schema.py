"""The ratings store's tables (SQLAlchemy Core, portable across SQLite and PostgreSQL).

The database itself enforces what must never be wrong: a score is NULL only where the rater said
"can't judge" (a CHECK ties it to its flag), one score per rating and question, one rating per rater
per output (UNIQUE), one output per (item, method, sample) (UNIQUE), and one recorded display
position per rater and output. Whether a score is on its question's scale depends on the study's
rubric, which the store checks on every write (values.check_dimension_score), for every rubric alike.
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import (
    BigInteger,
    Boolean,
    CheckConstraint,
    Column,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
)
from sqlalchemy.types import TypeDecorator

STUDY_STATES: tuple[str, ...] = ("draft", "open", "closed", "published")
# How raters judge a study's outputs: "scores" (every response 1-5 on each dimension) or
# "pairwise" (two responses, one vote: A better, B better, tie, both bad; arena/rating/pair_rating.py).
STUDY_DESIGNS: tuple[str, ...] = ("scores", "pairwise")
VOTE_WINNERS: tuple[str, ...] = ("a", "b", "tie", "bothbad")

metadata = MetaData()


class UTCDateTime(TypeDecorator):
    """Stored as naive UTC (SQLite has no time zones), always read back as aware UTC."""

    impl = DateTime
    cache_ok = True

    def process_bind_param(self, value, dialect):
        if value is None:
            return None
        if value.tzinfo is not None:
            value = value.astimezone(UTC).replace(tzinfo=None)
        return value

    def process_result_value(self, value, dialect):
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value.astimezone(UTC)


def utcnow() -> datetime:
    return datetime.now(UTC)


studies = Table(
    "studies",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("name", String(200), nullable=False),
    Column("kind", String(20), nullable=False, default="study"),  # "study" or "adhoc" (quick rating)
    Column("model", String(500), nullable=False, default=""),
    Column("methods", Text, nullable=False, default="[]"),  # JSON list, display order
    Column("settings", Text, nullable=False, default="{}"),  # JSON {method: overrides}
    Column("samples_per_method", Integer, nullable=False, default=1),
    Column("max_new_tokens", Integer, nullable=False, default=128),
    Column("base_seed", BigInteger, nullable=False, default=0),
    # Seeds the study's secret order of systems; balanced positions are applied on top of it.
    Column("blind_seed", BigInteger, nullable=False, default=0),
    Column("created_at", UTCDateTime, nullable=False, default=utcnow),
    # draft -> open -> closed -> published (see arena/lifecycle.py). A database from before the
    # lifecycle gets "open" for its studies: rating goes on, and nothing becomes public by upgrading.
    Column("state", String(20), nullable=False, default="open"),
    Column("guidelines", Text, nullable=True),  # for raters, Markdown; NULL = the app's default
    # JSON list of the methods raters are asked to pick out after scoring an item ("Which response
    # do you think came from METHOD?"), in the order asked; NULL or [] = no question (arena/rating/guessing.py).
    Column("guess_methods", Text, nullable=True),
    # The model whose perplexity Results shows for every system of the study (a study over several
    # models has one scorer); NULL = the app's model, as for studies from before schema 5.
    Column("scorer_model", String(500), nullable=True),
    # "scores" or "pairwise" (STUDY_DESIGNS); databases from before get "scores", what they held.
    Column("design", String(20), nullable=False, default="scores"),
    # The study's rubric as JSON (common/rubric.py); NULL = the default rubric's three 1-5 questions,
    # what every study from before schema 8 asked. Every rubric's scores live in `rating_scores`.
    Column("rubric", Text, nullable=True),
    # Exclusion rules chosen at creation (JSON list of evaluation.human.quality.RULES names); NULL = none.
    Column("exclusion_rules", Text, nullable=True),
    # The file an imported study's ratings came from (its name only): they were collected outside this
    # app, which ran neither their blind nor their generation. NULL = rated here, every study before schema 9.
    Column("imported_from", String(300), nullable=True),
    # A deleted study's id is never given again (SQLite reuses the highest rowid without it), so an old
    # /present?study= link or a cached page never shows another study. Databases made before stay as
    # they were: the rebuild to add it would rewrite every study's row for a rare case.
    sqlite_autoincrement=True,
)

items = Table(
    "items",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("study_id", Integer, ForeignKey("studies.id", ondelete="CASCADE"), nullable=False, index=True),
    Column("ordinal", Integer, nullable=False),  # order within the study
    # The only item identifier a rater's browser sees: random, says nothing about the study.
    Column("public_id", String(40), nullable=False, unique=True),
    Column("scenario", String(200), nullable=False, default=""),
    Column("language", String(20), nullable=False, default=""),
    Column("prompt", Text, nullable=False),
    Column("raw", Boolean, nullable=False, default=False),
    Column("created_at", UTCDateTime, nullable=False, default=utcnow),
    # An attention item (arena/rating/attention.py): JSON {"instruction": ..., "expect": score}, NULL for a
    # real item. Its responses say what to answer; the analysis never counts its ratings.
    Column("attention", Text, nullable=True),
    UniqueConstraint("study_id", "ordinal", name="uq_items_study_ordinal"),
)

outputs = Table(
    "outputs",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("item_id", Integer, ForeignKey("items.id", ondelete="CASCADE"), nullable=False, index=True),
    Column("method", String(100), nullable=False),
    Column("sample_index", Integer, nullable=False, default=0),
    Column("settings", Text, nullable=False, default="{}"),  # JSON: the complete effective settings
    Column("seed", BigInteger, nullable=True),
    Column("model", String(500), nullable=False, default=""),
    Column("text", Text, nullable=False),
    Column("new_tokens", Integer, nullable=False, default=0),
    Column("prompt_tokens", Integer, nullable=True),
    Column("latency_ms", Float, nullable=True),
    Column("ttft_ms", Float, nullable=True),
    Column("tokens_per_s", Float, nullable=True),
    Column("finish_reason", String(20), nullable=True),
    Column("created_at", UTCDateTime, nullable=False, default=utcnow),
    UniqueConstraint("item_id", "method", "sample_index", name="uq_outputs_item_method_sample"),
)

raters = Table(
    "raters",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("name", String(200), nullable=False, unique=True),
    Column("created_at", UTCDateTime, nullable=False, default=utcnow),
)

# A rater's row in a study's Latin square: their 0-based arrival order in that study.
study_raters = Table(
    "study_raters",
    metadata,
    Column("study_id", Integer, ForeignKey("studies.id", ondelete="CASCADE"), primary_key=True),
    Column("rater_id", Integer, ForeignKey("raters.id", ondelete="CASCADE"), primary_key=True),
    Column("rater_index", Integer, nullable=False),
    Column("created_at", UTCDateTime, nullable=False, default=utcnow),
    # The rater's invite code for this study, as SHA-256 hex: the code itself is shown once and never
    # stored. NULL = enrolled without a code yet (e.g. a rater from before invites), cannot rate.
    Column("code_hash", String(64), nullable=True),
    Column("revoked_at", UTCDateTime, nullable=True),
    # Seeds this rater's secret method-to-symbol permutation and block shuffles (arena/rating/blind.py).
    Column("order_seed", BigInteger, nullable=True),
    # Whether the rater answered every attention item of the study as instructed: NULL until they
    # answer one (or never recorded, for an imported study), FALSE once they fail any.
    Column("attention_passed", Boolean, nullable=True),
    UniqueConstraint("study_id", "rater_index", name="uq_study_raters_index"),
    # An index, not a column constraint: the upgrade can add an index to an existing table.
    Index("ux_study_raters_code_hash", "code_hash", unique=True),
)

# The blind mapping: which output a rater saw at which position (0 = A). Server-side only.
assignments = Table(
    "assignments",
    metadata,
    Column("rater_id", Integer, ForeignKey("raters.id", ondelete="CASCADE"), primary_key=True),
    Column("output_id", Integer, ForeignKey("outputs.id", ondelete="CASCADE"), primary_key=True),
    Column("item_id", Integer, ForeignKey("items.id", ondelete="CASCADE"), nullable=False, index=True),
    Column("position", Integer, nullable=False),
    Column("created_at", UTCDateTime, nullable=False, default=utcnow),
    UniqueConstraint("rater_id", "item_id", "position", name="uq_assignments_position"),
)

# A rater's answer on one output: who, which, where it stood, when, and the comment. Its scores are
# rows of `rating_scores`, its text answers rows of `rating_texts`, whatever the study's rubric.
ratings = Table(
    "ratings",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("rater_id", Integer, ForeignKey("raters.id", ondelete="CASCADE"), nullable=False, index=True),
    Column("output_id", Integer, ForeignKey("outputs.id", ondelete="CASCADE"), nullable=False, index=True),
    Column("comment", Text, nullable=True),
    Column("position", Integer, nullable=True),  # 0 = shown as A
    Column("created_at", UTCDateTime, nullable=False, default=utcnow),
    Column("updated_at", UTCDateTime, nullable=False, default=utcnow),
    UniqueConstraint("rater_id", "output_id", name="uq_ratings_rater_output"),
)

# Every rating's scores, whatever its study's rubric (the default three 1-5 questions included, since
# schema 12): one row per rating and question, the score on that question's scale (checked against
# the rubric when written) or NULL for "can't judge".
rating_scores = Table(
    "rating_scores",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("rating_id", Integer, ForeignKey("ratings.id", ondelete="CASCADE"), nullable=False, index=True),
    Column("dimension", String(60), nullable=False),
    Column("score", Integer, nullable=True),
    Column("cant_judge", Boolean, nullable=False, default=False),
    UniqueConstraint("rating_id", "dimension", name="uq_rating_scores_rating_dimension"),
    CheckConstraint("(score IS NULL) = cant_judge", name="ck_rating_scores_cant_judge"),
)

rating_texts = Table(
    "rating_texts",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("rating_id", Integer, ForeignKey("ratings.id", ondelete="CASCADE"), nullable=False, index=True),
    Column("question", String(60), nullable=False),
    Column("text", Text, nullable=False),
    UniqueConstraint("rating_id", "question", name="uq_rating_texts_rating_question"),
)

# A rater's "skip this item", with a reason: the item counts as handled for their progress and has
# no scores from them. One per rater and item; rating the item later removes it.
skips = Table(
    "skips",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("rater_id", Integer, ForeignKey("raters.id", ondelete="CASCADE"), nullable=False, index=True),
    Column("item_id", Integer, ForeignKey("items.id", ondelete="CASCADE"), nullable=False, index=True),
    Column("reason", String(40), nullable=False),
    Column("note", Text, nullable=True),
    Column("created_at", UTCDateTime, nullable=False, default=utcnow),
    UniqueConstraint("rater_id", "item_id", name="uq_skips_rater_item"),
)

# A rater's flag on an item (output_id NULL) or on one response of it. The rater names the response
# by its blind letter; the server stores the output id and the position shown, nothing reaches the
# browser. Rating goes on after a flag.
flags = Table(
    "flags",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("rater_id", Integer, ForeignKey("raters.id", ondelete="CASCADE"), nullable=False, index=True),
    Column("item_id", Integer, ForeignKey("items.id", ondelete="CASCADE"), nullable=False, index=True),
    Column("output_id", Integer, ForeignKey("outputs.id", ondelete="CASCADE"), nullable=True),
    Column("position", Integer, nullable=True),  # 0 = the rater saw it as A
    Column("reason", String(40), nullable=False),
    Column("note", Text, nullable=True),
    Column("created_at", UTCDateTime, nullable=False, default=utcnow),
)

# A rater's answer to "Which response do you think came from METHOD?" on one item: the position
# they picked (0 = A; NULL = "don't know") and the position METHOD's response really had for them.
# `true_position` never reaches a rater's browser; exports carry it once the study is closed.
guesses = Table(
    "guesses",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("rater_id", Integer, ForeignKey("raters.id", ondelete="CASCADE"), nullable=False, index=True),
    Column("item_id", Integer, ForeignKey("items.id", ondelete="CASCADE"), nullable=False, index=True),
    Column("target_method", String(100), nullable=False),
    Column("n_responses", Integer, nullable=False),
    Column("guessed_position", Integer, nullable=True),
    # NULL only for a guess imported from an export written while its study was open (which leaves
    # the answer key out): kept, but it cannot be scored.
    Column("true_position", Integer, nullable=True),
    Column("created_at", UTCDateTime, nullable=False, default=utcnow),
    UniqueConstraint("rater_id", "item_id", "target_method", name="uq_guesses_rater_item_method"),
    CheckConstraint("n_responses >= 2", name="ck_guesses_n_responses"),
    CheckConstraint(
        "guessed_position IS NULL OR (guessed_position >= 0 AND guessed_position < n_responses)",
        name="ck_guesses_guessed_position",
    ),
    CheckConstraint(
        "true_position IS NULL OR (true_position >= 0 AND true_position < n_responses)",
        name="ck_guesses_true_position",
    ),
)

# A rater's answer to the blind question on a pair that did not hold the target (pairwise studies):
# only the mark that they answered it, never the answer (there is no right one, nothing is scored or
# exported), so that the pair is not asked again, as one that held the target (arena/rating/pair_rating.py).
pair_guess_marks = Table(
    "pair_guess_marks",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("rater_id", Integer, ForeignKey("raters.id", ondelete="CASCADE"), nullable=False, index=True),
    Column("item_id", Integer, ForeignKey("items.id", ondelete="CASCADE"), nullable=False, index=True),
    Column("target_method", String(100), nullable=False),
    Column("created_at", UTCDateTime, nullable=False, default=utcnow),
    UniqueConstraint("rater_id", "item_id", "target_method", name="uq_pair_guess_marks_rater_item_method"),
)

# A rater's vote on the pair of responses of one item they were shown in a pairwise study: which
# output stood left (A) and right (B) for them, and the winner. One per rater and item; voting again
# replaces it. `reasons` is a JSON list of REASONS keys (arena/rating/pair_rating.py), `note` free text.
votes = Table(
    "votes",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("rater_id", Integer, ForeignKey("raters.id", ondelete="CASCADE"), nullable=False, index=True),
    Column("item_id", Integer, ForeignKey("items.id", ondelete="CASCADE"), nullable=False, index=True),
    Column("output_a", Integer, ForeignKey("outputs.id", ondelete="CASCADE"), nullable=False),
    Column("output_b", Integer, ForeignKey("outputs.id", ondelete="CASCADE"), nullable=False),
    Column("winner", String(10), nullable=False),
    Column("reasons", Text, nullable=True),
    Column("note", Text, nullable=True),
    Column("created_at", UTCDateTime, nullable=False, default=utcnow),
    Column("updated_at", UTCDateTime, nullable=False, default=utcnow),
    UniqueConstraint("rater_id", "item_id", name="uq_votes_rater_item"),
    CheckConstraint("winner IN ('a', 'b', 'tie', 'bothbad')", name="ck_votes_winner"),
    CheckConstraint("output_a <> output_b", name="ck_votes_two_outputs"),
)

# Which Hugging Face accounts may take a seat in a study by signing in (arena/access/accounts.py): one row
# per study that allows it, none for a study open to invite codes only. `access` is JSON: the account
# and organisation names allowed, the pseudonyms chosen for some of them, and whether anyone signed in
# may rate. The seats themselves are `study_raters` rows, keyed like a code's (arena/access/accounts.py).
study_accounts = Table(
    "study_accounts",
    metadata,
    Column("study_id", Integer, ForeignKey("studies.id", ondelete="CASCADE"), primary_key=True),
    Column("access", Text, nullable=False),
    Column("updated_at", UTCDateTime, nullable=False, default=utcnow),
)

# One row: the schema version this code last upgraded the database to (for future migrations).
schema_info = Table(
    "arena_schema",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("version", Integer, nullable=False),
    Column("upgraded_at", UTCDateTime, nullable=False, default=utcnow),
)

# 3: nullable scores with cant_judge_* flags; skips; flags. 4: guesses, studies.guess_methods.
# 5: studies.scorer_model. 6: studies.design, votes (pairwise studies). 7: pair_guess_marks.
# 8: studies.rubric, studies.exclusion_rules, items.attention, study_raters.attention_passed,
# rating_scores (a rubric per study, attention items). 9: studies.imported_from (ratings collected elsewhere).
# 10: study_accounts (Hugging Face sign-in). 11: rating_texts (a rubric's text questions).
# 12: every rating's scores in rating_scores; the ratings table's three score columns and their
# cant_judge_* flags copied there and dropped (upgrade.py).
SCHEMA_VERSION = 12
