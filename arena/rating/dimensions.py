"""The dimensions raters score, named once for the store, the blind, the statistics and the UI: the
default rubric's (common/rubric.py, the mission's three 1-5 questions). A module of its own, importing
nothing heavy, so that the statistics' command line can name the columns it needs before the store
(SQLAlchemy, pandas) loads."""

from common.rubric import DEFAULT_RUBRIC

SCORE_COLUMNS: tuple[str, ...] = DEFAULT_RUBRIC.names
