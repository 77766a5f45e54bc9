"""The dimensions raters score (1-5 each), named once for the store, the blind, the statistics and the
UI. A module of its own, importing nothing, so that the statistics' command line can name the columns
it needs before the store (SQLAlchemy, pandas) loads."""

SCORE_COLUMNS: tuple[str, ...] = ("coherence", "informativeness", "naturalness")
