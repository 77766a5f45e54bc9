"""The columns a ratings file needs: light (no pandas, no scipy), so the command line's --help and its
argument errors answer before the statistics load."""

from __future__ import annotations

from arena.dimensions import SCORE_COLUMNS

DIMENSIONS: tuple[str, ...] = SCORE_COLUMNS  # the rating dimensions, named once: arena/dimensions.py
REQUIRED_COLUMNS: tuple[str, ...] = ("study_id", "item_id", "output_id", "method", "rater", "position", *DIMENSIONS)
