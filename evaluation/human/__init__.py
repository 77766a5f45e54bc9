"""Human-rating statistics: scores of outputs on a study's rubric (any questions, each on its own
scale; common/rubric.py), with items and raters both as samples. Pure evaluation: a ratings frame in,
tables and sentences out; no UI. One job per module:

    columns.py    DIMENSIONS, REQUIRED_COLUMNS, LONG_COLUMNS: what a ratings file needs (light: no pandas)
    ratings.py    read_ratings_file(path): a wide file (an `arena.files.export` or REQUIRED_COLUMNS) or a long one
                  (arena/files/long_ratings.py), validated against its rubric (UserError)
    stats.py      the numbers: method means, the pairwise family (max-T), Wilcoxon, Friedman, the mixed
                  model, Krippendorff's alpha, the position effect, perplexity vs scores, pseudonyms
    crossed.py    the crossed item x rater estimators behind them; reml.py their variance components
    words.py      one plain-language line per result
    analysis.py   analyse(ratings, rubric=...): everything for one study
    quality.py    rater flags (straight-lining, speeders, against the consensus, unrelated), exclusion rules,
                  with/without
    straight_lining.py  flat answers per question and across questions, against the other raters
    summary.py    summarise(ratings, rubrics=..., exclude=...): the command line's JSON
    raters.py     per-rater diagnostics (leave-one-out alpha, time per item, straight-lining)
    sim.py        simulated studies; design.py their calibration and power; rater_sim.py odd raters in them
    cli.py        `python -m evaluation.human RATINGS.csv [--json] [--no-mixed] [--scale] [--exclude-failed-attention]`

Nothing is imported here, so `python -m evaluation.human --help` answers before pandas and scipy
load: import the module you need (`from evaluation.human import stats`). The reference, with the
calibration behind each choice, is docs/statistics.md.
"""
