"""Human-rating statistics: one name for the three modules that do the work, so imports and
`python -m evaluation.human RATINGS.csv --json` keep working.

* `evaluation.human_stats`: the numbers (items and raters as samples, one family for the headline);
* `evaluation.human_words`: one plain-language line per result;
* `evaluation.human_analysis`: `analyse`, everything for one study;
* `evaluation.human_cli`: reading an export and the command line.

The reference, with the calibration behind each choice, is docs/statistics.md.
"""

from __future__ import annotations

import sys

from .human_analysis import analyse
from .human_cli import InputError, main, read_ratings, read_ratings_and_warnings, summarise
from .human_stats import (
    ALPHA,
    DIMENSIONS,
    EXACT_MAX_N,
    MIXED_COLUMNS,
    PAIRWISE_COLUMNS,
    POSITION_COLUMNS,
    PPL_COLUMNS,
    REQUIRED_COLUMNS,
    SCOPE_ALL,
    SCOPE_THESE,
    VC_COLUMNS,
    AlphaLevel,
    Cube,
    DuplicateRatingsWarning,
    alpha_of,
    cant_judge_counts,
    cells,
    collapse_duplicates,
    cube,
    duplicate_ratings,
    filter_ratings,
    fit_mixed,
    friedman,
    holm,
    item_table,
    krippendorff_alpha,
    max_t_stepdown,
    method_means,
    method_order,
    mixed_model,
    pairwise,
    pairwise_analysis,
    pairwise_wilcoxon,
    position_effect,
    ppl_correlation,
    pseudonymize_raters,
    reliability_matrix,
    scored,
    signed_rank_exact_p,
    t_interval,
    wilcoxon_p,
)
from .human_words import (
    agreement_level,
    explain_alpha,
    explain_friedman,
    explain_mean,
    explain_mixed,
    explain_pair,
    explain_position,
    explain_taste,
)
from .stats_crossed import crossed_mean

__all__ = [
    "ALPHA",
    "DIMENSIONS",
    "EXACT_MAX_N",
    "MIXED_COLUMNS",
    "PAIRWISE_COLUMNS",
    "POSITION_COLUMNS",
    "PPL_COLUMNS",
    "REQUIRED_COLUMNS",
    "SCOPE_ALL",
    "SCOPE_THESE",
    "VC_COLUMNS",
    "AlphaLevel",
    "Cube",
    "DuplicateRatingsWarning",
    "InputError",
    "alpha_of",
    "analyse",
    "cant_judge_counts",
    "cells",
    "collapse_duplicates",
    "crossed_mean",
    "cube",
    "duplicate_ratings",
    "agreement_level",
    "explain_alpha",
    "explain_friedman",
    "explain_mean",
    "explain_mixed",
    "explain_pair",
    "explain_position",
    "explain_taste",
    "filter_ratings",
    "fit_mixed",
    "friedman",
    "holm",
    "item_table",
    "krippendorff_alpha",
    "main",
    "max_t_stepdown",
    "method_means",
    "method_order",
    "mixed_model",
    "pairwise",
    "pairwise_analysis",
    "pairwise_wilcoxon",
    "position_effect",
    "ppl_correlation",
    "pseudonymize_raters",
    "read_ratings",
    "read_ratings_and_warnings",
    "reliability_matrix",
    "scored",
    "signed_rank_exact_p",
    "summarise",
    "t_interval",
    "wilcoxon_p",
]

if __name__ == "__main__":
    sys.exit(main())
