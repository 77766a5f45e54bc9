"""Human-rating statistics: 1-5 scores of outputs, with items and raters both as samples. Pure
evaluation: a ratings frame in, tables and sentences out; no UI. One job per module:

    columns.py    DIMENSIONS, REQUIRED_COLUMNS: what a ratings file needs (light: no pandas)
    ratings.py    read_ratings(path): a ratings CSV or an `arena.export` file, validated (UserError)
    stats.py      the numbers: method means, the pairwise family (max-T), Wilcoxon, Friedman, the mixed
                  model, Krippendorff's alpha, the position effect, perplexity vs scores, pseudonyms
    crossed.py    the crossed item x rater estimators behind them; reml.py their variance components
    words.py      one plain-language line per result
    analysis.py   analyse(ratings): everything for one study
    summary.py    summarise(ratings): the command line's JSON
    raters.py     per-rater diagnostics (leave-one-out alpha, straight-lining) for the Organizer
    sim.py        simulated studies; design.py their calibration and power
    cli.py        `python -m evaluation.human RATINGS.csv [--json] [--no-mixed]`

Nothing is imported here, so `python -m evaluation.human --help` answers before pandas and scipy
load: import the module you need (`from evaluation.human import stats`). The reference, with the
calibration behind each choice, is docs/statistics.md.
"""
