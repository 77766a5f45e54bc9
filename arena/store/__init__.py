"""The ratings store: studies, items, outputs, raters and ratings, in SQLite or PostgreSQL.

`Store()` connects to `DATABASE_URL`, else a SQLite file (`ARENA_DB_PATH`, else `./data/arena.db`),
and creates or upgrades the schema
without losing a row or a value.
"""

from arena.rating.dimensions import SCORE_COLUMNS

from .engine import default_db_path, default_url, make_engine, normalize_url
from .rows import Enrolment, Flag, Guess, Item, Output, Rating, Skip, Study
from .store import OUTPUT_COLUMNS, RATING_COLUMNS, Store, check_score, clean_rater_name, get_store

__all__ = [
    "Enrolment",
    "Flag",
    "Guess",
    "Item",
    "OUTPUT_COLUMNS",
    "Output",
    "RATING_COLUMNS",
    "Rating",
    "SCORE_COLUMNS",
    "Skip",
    "Store",
    "Study",
    "check_score",
    "clean_rater_name",
    "default_db_path",
    "default_url",
    "get_store",
    "make_engine",
    "normalize_url",
]
