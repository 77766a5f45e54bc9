"""The columns a ratings file needs: light (no pandas, no scipy), so the command line's --help and its
argument errors answer before the statistics load."""

from __future__ import annotations

from arena.files.long_ratings import LONG_COLUMNS, LONG_OPTIONAL
from arena.rating.dimensions import SCORE_COLUMNS

DIMENSIONS: tuple[str, ...] = SCORE_COLUMNS  # the default rubric's dimensions (common/rubric.py)
ID_COLUMNS: tuple[str, ...] = ("study_id", "item_id", "output_id", "method", "rater", "position")
REQUIRED_COLUMNS: tuple[str, ...] = (*ID_COLUMNS, *DIMENSIONS)  # a wide file with the default rubric

__all__ = ["DIMENSIONS", "ID_COLUMNS", "LONG_COLUMNS", "LONG_OPTIONAL", "REQUIRED_COLUMNS"]
