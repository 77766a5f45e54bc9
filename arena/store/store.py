"""The store API: the only code that reads or writes the ratings database.

Everything above it (studies, blind rating, export, the evaluation) goes through `Store`.
"""

from __future__ import annotations

import threading
from typing import Any

from sqlalchemy import Engine

from common.errors import UserError

from .columns import EXTRA_COLUMNS, JOIN_COLUMNS, OUTPUT_COLUMNS, RATING_COLUMNS
from .deletion import DeletionStore
from .engine import DIALECTS, default_url, make_engine, normalize_url
from .feedback import FeedbackStore
from .guesses import GuessStore
from .problems import StoreUnavailable, named_problems, write_problem
from .rater_store import RaterStore
from .rating_store import RatingStore
from .study_store import StudyStore
from .upgrade import upgrade
from .values import MAX_COMMENT, MAX_RATER_NAME, check_score, clean_comment, clean_name, clean_rater_name, dumps
from .vote_store import VoteStore


class Store(StudyStore, RaterStore, GuessStore, FeedbackStore, RatingStore, DeletionStore, VoteStore):
    """A ratings database. `Store()` uses `DATABASE_URL` or the default SQLite file.

    One class for callers, one module per job: studies, items and outputs (study_store.py), raters,
    invitations and the blind mapping (rater_store.py), ratings, frames and progress (rating_store.py),
    deleting (deletion.py), skips and flags (feedback.py), guesses (guesses.py), pairwise votes
    (vote_store.py); transactions in
    transactions.py, the column catalogue in columns.py, the checks on what people type in values.py."""

    def __init__(self, url: str | None = None, *, engine: Engine | None = None):
        with named_problems(url or default_url()):
            self.engine = engine or make_engine(url)
        self.url = self.engine.url.render_as_string(hide_password=True)
        self.dialect = self.engine.dialect.name
        if self.dialect not in DIALECTS:
            raise UserError(f"the ratings store runs on SQLite or PostgreSQL, not {self.dialect} ({self.url})")
        self._local = threading.local()  # this thread's open transaction(), if any
        self._ratings_upsert_stmt: Any = None  # built on first use (see _ratings_upsert)
        with named_problems(self.engine.url.render_as_string(hide_password=False)):
            self.changes = upgrade(self.engine)

    def write_problem(self) -> str | None:
        """Why this store cannot take a write now ("is read-only", "is on a full disk"...), or None."""
        return write_problem(self.engine)

    def dispose(self) -> None:
        self.engine.dispose()


_default: Store | None = None
_default_lock = threading.Lock()


def get_store() -> Store:
    """The app's store, created once from the environment (DATABASE_URL / ARENA_DB_PATH)."""
    global _default
    with _default_lock:
        if _default is None:
            _default = Store()
        return _default


__all__ = [
    "EXTRA_COLUMNS",
    "JOIN_COLUMNS",
    "MAX_COMMENT",
    "MAX_RATER_NAME",
    "OUTPUT_COLUMNS",
    "RATING_COLUMNS",
    "Store",
    "StoreUnavailable",
    "check_score",
    "clean_comment",
    "clean_name",
    "clean_rater_name",
    "dumps",
    "get_store",
    "normalize_url",
]
