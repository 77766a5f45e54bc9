"""The Results view as data: one row per method with human scores (and CIs) next to perplexity,
diversity, latency and throughput; the statistics; plotly figures. Works on the store's frames,
so the UI only fetches and shows.

Human scores are the primary analysis of `evaluation.human` (docs/statistics.md): items and raters
are both samples; per method the mean over items with an interval from item, rater and residual
variance components (Satterthwaite df); per pair the mean (item, rater) difference with its
interval and t test, the raters' taste pooled; one family for the headline (every pair x
dimension, step-down max-T); with 1-2 raters every statement holds for these raters only. Then
the secondary analyses (item-level Friedman, the mixed model, agreement, the position effect) and
one plain-language line per result."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd
import plotly.graph_objects as go

import decoders
from arena.inputs.text import markdown_literal, plot_literal
from common import messages
from common.messages import dimension_name, english
from common.messages import text as words
from common.rubric import DEFAULT_RUBRIC, Rubric

from .human import analysis as ha
from .human import choices as ch
from .human import columns as hcols
from .human import stats as hs
from .metrics import text_metrics
from .perplexity import ItemScore, corpus_ppl

DIMENSIONS = hcols.DIMENSIONS  # the default rubric's; a study's own rubric is `Results.rubric`


@dataclass
class Results:
    summary: pd.DataFrame  # numbers, one row per method (for CSV and charts)
    means: pd.DataFrame  # method x dimension: mean over items, CI from variance components, n = items
    pairwise: pd.DataFrame  # the primary analysis: difference, CI, t test, p adjusted over the family
    friedman: pd.DataFrame
    agreement: pd.DataFrame
    ppl_correlation: pd.DataFrame  # within each method, and with the method partialled out
    n_ratings: int
    n_raters: int
    n_items: int
    notes: list[str] = field(default_factory=list)
    mixed: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=hs.MIXED_COLUMNS))
    variance_components: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=hs.VC_COLUMNS))
    position: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=hs.POSITION_COLUMNS))
    lines: list[str] = field(default_factory=list)  # one plain-language line per result
    methods: list[str] = field(default_factory=list)  # the study's order
    rubric: Rubric = DEFAULT_RUBRIC  # the study's questions and scales
    # a rubric's choice questions (counts per method and label, a test each) and text answers (listed only)
    choice_counts: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=ch.COUNT_COLUMNS))
    choice_tests: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=ch.TEST_COLUMNS))
    comments: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=ch.COMMENT_COLUMNS))


def _method_order(*frames: pd.DataFrame) -> list[str]:

    seen = list(dict.fromkeys(m for f in frames if len(f) for m in f["method"]))
    known = [m for m in decoders.names() if m in seen]
    return known + [m for m in seen if m not in known]


def method_summary(
    ratings: pd.DataFrame,
    outputs: pd.DataFrame,
    scores: Mapping[Any, ItemScore] | None = None,
    means: pd.DataFrame | None = None,
    rubric: Rubric = DEFAULT_RUBRIC,
    mauve: Mapping[str, Any] | None = None,
) -> pd.DataFrame:
    """One row per method: N, human means with 95% CI (one per dimension of `rubric`), PPL, MAUVE with its interval, diversity,
    latency, throughput."""
    means = hs.method_means(ratings, rubric.numeric) if means is None else means
    rows = []
    for method in _method_order(outputs, ratings):
        outs = outputs[outputs["method"] == method].drop_duplicates("output_id")
        rates = ratings[ratings["method"] == method]
        row: dict[str, Any] = {"method": method, "outputs": len(outs), "ratings": len(rates)}
        for dim in rubric.numeric:
            m = means[(means["method"] == method) & (means["dimension"] == dim)]
            if len(m):
                row[dim], row[f"{dim}_ci_low"], row[f"{dim}_ci_high"] = (
                    float(m.iloc[0][c]) for c in ("mean", "ci_low", "ci_high")
                )
            else:
                row[dim] = row[f"{dim}_ci_low"] = row[f"{dim}_ci_high"] = math.nan
        row["ppl"] = corpus_ppl([scores[o] for o in outs["output_id"] if o in scores]) if scores else math.nan
        found = (mauve or {}).get(method)
        row["mauve"], row["mauve_ci_low"], row["mauve_ci_high"] = (
            (found.mauve, found.ci_low, found.ci_high) if found is not None else (math.nan, math.nan, math.nan)
        )
        # empty texts (an import without them) measure nothing: not a repetition of 0.0
        texts = [t for t in outs["text"].fillna("") if str(t).strip()]
        row["texts"] = len(texts)
        row.update({k: v for k, v in text_metrics(texts).items() if k != "n_texts"})
        lat = pd.to_numeric(outs["latency_ms"], errors="coerce")
        tok = pd.to_numeric(outs["new_tokens"], errors="coerce")
        row["latency_ms"] = float(lat.mean()) if lat.notna().any() else math.nan
        ok = lat.notna() & tok.notna()
        row["tokens_per_s"] = (
            float(tok[ok].sum() / (lat[ok].sum() / 1000)) if ok.any() and lat[ok].sum() > 0 else math.nan
        )
        row["new_tokens"] = float(tok.mean()) if tok.notna().any() else math.nan
        rows.append(row)
    return pd.DataFrame(rows)


def build_results(
    ratings: pd.DataFrame,
    outputs: pd.DataFrame,
    scores: Mapping[Any, ItemScore] | None = None,
    study: Any = None,
    scenario: Any = None,
    rater: Any = None,
    mixed: bool = True,
    methods: Sequence[str] | None = None,
    rubric: Rubric = DEFAULT_RUBRIC,
    mauve: Mapping[str, Any] | None = None,
    lang: str = "en",
) -> Results:
    """Everything the Results tab shows, for the filtered ratings and the matching outputs;
    `methods`: the study's method order (pairs read a - b in it), else the registry's; `rubric`: the
    study's questions and scales (default: the mission's three 1-5 dimensions); `lang`: the lines'."""
    r = hs.filter_ratings(ratings, study=study, scenario=scenario, rater=rater)
    o = hs.filter_ratings(outputs.assign(rater=""), study=study, scenario=scenario).drop(columns="rater")
    ppl = {k: v.ppl for k, v in (scores or {}).items()}
    notes = []
    if not scores:
        notes.append("perplexity not computed")
    order = list(methods) if methods is not None else _method_order(o, r)
    dims = list(rubric.numeric)  # what has a mean: scales, yes/no as a proportion
    if len(r):
        a = ha.analyse(r, mixed=mixed, methods=order, rubric=rubric, lang=lang)
    else:
        a = {
            "means": hs.method_means(r, dims),
            "pairwise": hs.pairwise(r, dims),
            "friedman": hs.friedman(r, dims),
            "agreement": hs.krippendorff_alpha(r, dims),
            "position": pd.DataFrame(columns=hs.POSITION_COLUMNS),
            "mixed": pd.DataFrame(columns=hs.MIXED_COLUMNS),
            "variance_components": pd.DataFrame(columns=hs.VC_COLUMNS),
            "lines": [],
            "choice_counts": pd.DataFrame(columns=ch.COUNT_COLUMNS),
            "choice_tests": pd.DataFrame(columns=ch.TEST_COLUMNS),
            "comments": pd.DataFrame(columns=ch.COMMENT_COLUMNS),
        }
    return Results(
        summary=method_summary(r, o, scores, a["means"], rubric, mauve),
        means=a["means"],
        pairwise=a["pairwise"],
        friedman=a["friedman"],
        agreement=a["agreement"],
        ppl_correlation=hs.ppl_correlation(r, ppl, dims) if ppl else pd.DataFrame(columns=hs.PPL_COLUMNS),
        n_ratings=len(r),
        n_raters=int(r["rater"].nunique()) if len(r) else 0,
        n_items=int(o["item_id"].nunique()) if len(o) else 0,
        notes=notes,
        mixed=a["mixed"],
        variance_components=a["variance_components"],
        position=a["position"],
        lines=a["lines"],
        methods=order,
        rubric=rubric,
        choice_counts=a["choice_counts"],
        choice_tests=a["choice_tests"],
        comments=a["comments"],
    )


STATS_HELP = english("results_stats_help")


def _cell(v: Any) -> Any:
    return "–" if isinstance(v, float) and math.isnan(v) else (f"{v:.3g}" if isinstance(v, float) else v)


# Columns whose cells are fixed words of common/messages.py (a status, a scope, a variance component, what a
# position effect was centred on); every other cell is a number or a name (a method, a question) and stays.
WORD_COLUMNS = ("status", "scope", "component", "adjusted_for")


def in_language(table: pd.DataFrame, lang: str = "en") -> pd.DataFrame:
    """A statistics table (English column names, as `statistics_tables` and the length table write
    them) for a reader of `lang`: its column names and fixed words from common/messages.py, the default
    questions by their names there; methods, numbers and a study's own questions stay as they are."""
    if lang == "en":
        return table

    def cells(column: Any) -> Any:
        name = column.name
        if name == "dimension":
            return column.map(lambda d: dimension_name(d, lang) if isinstance(d, str) else d)
        if name in WORD_COLUMNS:
            return column.map(lambda v: messages.translated(v, lang) if isinstance(v, str) else v)
        # elsewhere names stay, but a statistic's own fixed row ("(method partialled out)") is translated
        return column.map(lambda v: statistic_word(v, lang))

    out = table.apply(cells) if len(table) else table
    return out.rename(columns=lambda c: messages.translated(c, lang) if isinstance(c, str) else c)


def statistic_word(value: Any, lang: str) -> Any:
    key = messages.key_of(value) if isinstance(value, str) else None
    return messages.text(key, lang) if key is not None and key.startswith("stat_") else value


def statistics_tables(r: Results, lang: str = "en") -> dict[str, Any]:
    """The statistics as display tables (numbers rounded, NaN as '–') with readable column names, in `lang`."""

    def fmt(df: pd.DataFrame, names: Mapping[str, str], drop: Sequence[str] = ()) -> pd.DataFrame:
        df = df.drop(columns=[c for c in drop if c in df])
        shown = (
            df.rename(columns=dict(names)).apply(lambda col: col.map(_cell))
            if len(df)
            else df.rename(columns=dict(names))
        )
        return in_language(shown, lang)

    return {
        "pairwise": fmt(
            r.pairwise,
            {
                "method_a": "a",
                "method_b": "b",
                "n_pairs": "items",
                "mean_diff": "a − b",
                "ci_low": "95% CI low",
                "ci_high": "95% CI high",
                "statistic": "t",
                "p_value": "p",
                "p_holm": "p (family)",
                "n_raters": "raters",
            },
            drop=("family", "se"),
        ),
        "friedman": fmt(r.friedman, {"n_units": "items", "p_value": "p"}),
        "agreement": fmt(r.agreement, {}),
        "ppl_correlation": fmt(r.ppl_correlation, {"p_value": "p"}),
        "mixed": fmt(
            r.mixed,
            {
                "method_a": "a",
                "method_b": "b",
                "estimate": "a − b",
                "ci_low": "95% CI low",
                "ci_high": "95% CI high",
                "p_value": "p",
                "effect_size": "a − b (SD)",
                "effect_ci_low": "SD CI low",
                "effect_ci_high": "SD CI high",
            },
        ),
        "family": r.pairwise["family"].iloc[0] if len(r.pairwise) else "",
        "variance_components": fmt(r.variance_components, {}),
        "position": fmt(
            r.position,
            {
                "diff": "first − last",
                "ci_low": "95% CI low",
                "ci_high": "95% CI high",
                "p_value": "p",
                "n_items": "items",
            },
        ),
    }


def statistics_markdown(r: Results, lang: str = "en") -> str:
    """One plain-language line per result, as a Markdown list, every line literal (method and question
    names come from the registry, a rubric or an imported file); its fixed words in `lang` (the lines
    themselves are in the language `build_results` wrote them in)."""
    if not r.lines:
        return words("hw_no_ratings", lang)
    head = []
    if len(r.pairwise):
        family = markdown_literal(family_in(str(r.pairwise["family"].iloc[0]), lang))
        head.append(words("hw_headline_family", lang, family=family))
    said = [
        words("hw_comment", lang, question=markdown_literal(c["question"]), method=markdown_literal(c["method"]),
              text=markdown_literal(c["text"]))
        for c in r.comments.to_dict("records")
    ]  # fmt: skip
    tail = ([words("hw_comments", lang, n=len(said)), *said]) if said else []
    return "\n".join([*head, *(f"- {markdown_literal(line)}" for line in r.lines), *tail])


def family_in(family: str, lang: str = "en") -> str:
    """The headline family's words (`evaluation.human.stats.family_words`, written in English with the
    pairs) in `lang`: the adjustment's name translated with the rest."""
    found = messages.parse(family)
    if lang == "en" or found is None or found[0] != "hw_family":
        return family
    values = found[1]
    return words("hw_family", lang, **{**values, "how": messages.translated(values["how"], lang)})


def _num(v: Any, digits: int = 2) -> str:
    return "–" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.{digits}f}"


# Column names for people: plain words, the unit once, and which way is better (↑ higher, ↓ lower).
# Hyphens inside a name are U+2011 (non-breaking), so a narrow header never splits "distinct-2".
# The one catalogue of the Results tab's and /present's column names (ui/present.py reads it too).
HIGHER, LOWER = "↑", "↓"
DIRECTIONS = f"{HIGHER} higher is better, {LOWER} lower is better."
COLUMNS = {
    **{dim: f"{dim} {HIGHER}" for dim in DIMENSIONS},  # the default rubric's; `column_names` for another
    "ppl": f"PPL {LOWER}",
    "mauve": f"MAUVE {HIGHER}",
    "distinct_2": f"distinct\u20112 {HIGHER}",
    "repetition_pct": f"repetition % {LOWER}",
    "self_bleu4": f"Self\u2011BLEU4 {LOWER}",
    "zipf": "Zipf",
    "latency_ms": f"latency ms {LOWER}",
    "tokens_per_s": f"tokens/s {HIGHER}",
}

METRICS_HELP = english("results_reading_the_table")


def column_names(rubric: Rubric = DEFAULT_RUBRIC) -> dict[str, str]:
    """COLUMNS for a study's rubric: each dimension named with its scale when it is not 1-5."""
    dims = {
        d.name: f"{d.name} {HIGHER}" if (d.low, d.high) == (1, 5) else f"{d.name} ({d.scale_words}) {HIGHER}"
        for d in rubric.dimensions
    }
    return dims | {k: v for k, v in COLUMNS.items() if k not in DIMENSIONS}


def mauve_cell(s: Mapping[str, Any]) -> str:
    """ "0.83 [0.71–0.90]"; where MAUVE was not computed, why when it is the texts ("needs ≥ 10 texts"),
    else "–" (no scorer was asked for)."""
    value = s.get("mauve", math.nan)
    if value is None or pd.isna(value):
        texts = s.get("texts", math.nan)
        short = texts is not None and pd.notna(texts) and texts < MAUVE_MIN_TEXTS
        return english("results_mauve_needs").format(n=MAUVE_MIN_TEXTS) if short else "–"
    return f"{_num(value)} [{_num(s['mauve_ci_low'])}–{_num(s['mauve_ci_high'])}]"


def scale_ci(lo: float, hi: float, low: float, high: float) -> str:
    """A mean's interval on a `low`..`high` scale, kept on the scale: an interval from few ratings can
    pass an end (4.12 [2.3–5.9] on 1–5), where no mean can be; the cell says where it was cut.

    >>> scale_ci(2.31, 5.94, 1, 5), scale_ci(3.0, 4.2, 1, 5)
    ('[2.3–5.0, cut at the scale’s top]', '[3.0–4.2]')
    """
    cut = [w for w, out in (("bottom", lo < low), ("top", hi > high)) if out]
    text = f"[{_num(max(lo, low), 1)}–{_num(min(hi, high), 1)}"
    return text + (f", cut at the scale’s {' and '.join(cut)}]" if cut else "]")


MAUVE_MIN_TEXTS = 10  # fewer non-empty texts than this: too few for even two buckets (evaluation/mauve_score.py)
TEXT_METRICS = ("distinct_2", "repetition_pct", "self_bleu4", "zipf")


def _text_cells(s: Mapping[str, Any]) -> dict[str, str]:
    """The diversity and repetition cells: "no texts" for a method whose outputs have none (an import of
    ratings alone), not figures computed from nothing."""
    if s.get("texts", 1) == 0:
        return {COLUMNS[k]: english("results_no_texts") for k in TEXT_METRICS}
    digits = {"distinct_2": 3, "repetition_pct": 1, "self_bleu4": 3, "zipf": 2}
    return {COLUMNS[k]: _num(s[k], digits[k]) for k in TEXT_METRICS}


def display_table(summary: pd.DataFrame, rubric: Rubric = DEFAULT_RUBRIC, lang: str = "en") -> pd.DataFrame:
    """The summary for people: CIs written as 'mean [low–high]', ↑/↓ for better, latency in ms; in `lang`
    (`table_in`)."""
    return table_in(english_table(summary, rubric), rubric, lang)


# The per-method table's column names in Chinese (COLUMNS, the task-success column, /present's timing
# columns), by their English.
COLUMNS_ZH = {en: zh for key, (en, zh) in messages.LINES.items() if key.startswith("column_")}
# The fixed words inside its cells, the longest first (one may hold another).
CELL_NOTES = ("present_cut_at_both", "present_cut_at_top", "present_cut_at_bottom", "results_no_texts", "results_no_ci")


def table_in(table: pd.DataFrame, rubric: Rubric = DEFAULT_RUBRIC, lang: str = "en") -> pd.DataFrame:
    """The per-method table (`display_table`'s English, columns dropped or renamed as a page needs) in
    `lang`: fixed column names from common/messages.py, a rubric's questions kept in the organizer's
    words with their scale, and the cells' fixed words (an interval cut at the scale's end, no interval,
    no texts, MAUVE's "needs ≥ 10 texts", a task check not run); methods and numbers stay."""
    if lang == "en":
        return table
    names = column_names(rubric)
    own = {names[d.name]: f"{d.name}（{scale_in(d, lang)}）{HIGHER}" for d in rubric.dimensions}
    own = {en: zh for en, zh in own.items() if en not in COLUMNS_ZH}
    cuts = {english(k): words(k, lang) for k in CELL_NOTES}

    def cell(value: Any) -> Any:
        if not isinstance(value, str):
            return value
        value = messages.translated(value, lang)
        for en, zh in cuts.items():
            value = value.replace(en, zh)
        return value

    method = english("column_method")
    cells = table.apply(lambda column: column if column.name == method else column.map(cell)) if len(table) else table
    return cells.rename(columns={**COLUMNS_ZH, **own})


def scale_in(question: Any, lang: str) -> str:
    """A question's scale in a column name, in `lang`: "1-10 分", "是/否"."""
    if question.kind == "scale":
        return words("scale_points", lang, scale=question.scale_words)
    return messages.translated(question.scale_words, lang)


def english_table(summary: pd.DataFrame, rubric: Rubric = DEFAULT_RUBRIC) -> pd.DataFrame:
    """`display_table` in English: the column names other code and the CSV know."""
    names = column_names(rubric)
    rows = []
    for _, s in summary.iterrows():
        row = {"method": s["method"]}  # ratings per method: in the headline and the CSV
        for dim in rubric.numeric:
            lo, hi = s[f"{dim}_ci_low"], s[f"{dim}_ci_high"]
            scale = rubric.dimension(dim)
            ci = scale_ci(lo, hi, scale.low, scale.high) if pd.notna(lo) and pd.notna(hi) else english("results_no_ci")
            row[names[dim]] = f"{_num(s[dim])} {ci}" if pd.notna(s[dim]) else "–"
        row.update(
            {
                COLUMNS["ppl"]: _num(s["ppl"]),
                COLUMNS["mauve"]: mauve_cell(s),
                **_text_cells(s),
                COLUMNS["latency_ms"]: _num(s["latency_ms"], 0),
                COLUMNS["tokens_per_s"]: _num(s["tokens_per_s"], 1),
            }
        )
        rows.append(row)
    return pd.DataFrame(rows)


# One colour per method, the same in every chart (Okabe-Ito, readable for colour-blind viewers).
PALETTE = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000"]


def method_colours(methods: Sequence[str]) -> dict[str, str]:
    return {m: PALETTE[i % len(PALETTE)] for i, m in enumerate(dict.fromkeys(methods))}


def _axis(rubric: Rubric, dimensions: Sequence[str] | None = None, lang: str = "en") -> dict[str, Any]:
    """The score axis: from the lowest point of the rubric's scales to the highest (not from 0), its
    points as ticks when they are few; the scale named when every dimension shares it (in `lang`)."""
    numeric = [rubric.dimension(d) for d in rubric.numeric] or list(rubric.dimensions)
    dims = [d for d in numeric if d.name in (dimensions or rubric.numeric)] or numeric
    low, high = min(d.low for d in dims), max(d.high for d in dims)
    same = len({(d.low, d.high) for d in dims}) == 1
    ticks = list(range(low, high + 1)) if high - low <= 10 else None
    title = words("chart_score_axis", lang, low=low, high=high) if same else words("chart_score_axis_mixed", lang)
    return dict(range=[low, high + 0.05], title=title, tickvals=ticks)


def _symbol(symbol: str, lang: str) -> str:
    """A plotly marker symbol's name in `lang` ("triangle-up" is a triangle)."""
    return words(f"chart_symbol_{symbol.removesuffix('-up')}", lang)


def scores_figure(means: pd.DataFrame, title: str | None = None, rubric: Rubric = DEFAULT_RUBRIC, lang: str = "en"):
    """Grouped bars per dimension, one colour per method, CI error bars, on the rubric's scale (the axis
    starts at its lowest score, not at 0); its words in `lang` (a study's own questions and the methods
    keep their names)."""
    title = words("chart_scores_title", lang) if title is None else title
    hover = words("chart_hover_score", lang, x="%{x}", y="%{y:.2f}", n="%{customdata}")

    colours = method_colours(list(means["method"]))
    fig = go.Figure()
    for method in dict.fromkeys(means["method"]):
        m = means[means["method"] == method]
        fig.add_bar(
            x=[plot_literal(dimension_name(d, lang)) for d in m["dimension"]],
            y=list(m["mean"]),
            name=plot_literal(method),
            marker_color=colours[method],
            error_y=dict(
                type="data",
                symmetric=False,
                array=list((m["ci_high"] - m["mean"]).fillna(0)),
                arrayminus=list((m["mean"] - m["ci_low"]).fillna(0)),
            ),
            customdata=[words("chart_prompts", lang, n=int(n)) for n in m["n"]],  # "(1 prompt)", not "(1 prompts)"
            hovertemplate=hover + "<extra>%{fullData.name}</extra>",
        )
    fig.update_layout(
        barmode="group",
        title=title,
        height=420,
        legend_title_text=words("column_method", lang),
        yaxis=_axis(rubric, list(dict.fromkeys(means["dimension"])) if len(means) else None, lang),
    )
    return fig


def quality_latency_figure(
    summary: pd.DataFrame, dimensions: Sequence[str] | None = None, rubric: Rubric = DEFAULT_RUBRIC, lang: str = "en"
):
    """Mean human score (with CI) against mean latency in ms, one colour per method (its name beside
    its markers), one marker shape per dimension; its words in `lang`."""

    dimensions = list(rubric.numeric) if dimensions is None else list(dimensions)
    colours = method_colours(list(summary["method"]))
    symbols = ["circle", "square", "diamond", "triangle-up", "cross", "x", "star", "hexagon"]
    fig = go.Figure()
    for _, s in summary.iterrows():
        method = s["method"]
        ys = [s[d] for d in dimensions]
        fig.add_scatter(
            x=[s["latency_ms"]] * len(dimensions),
            y=ys,
            mode="markers+text",
            name=plot_literal(method),
            text=[plot_literal(method) if k == 0 else "" for k in range(len(dimensions))],
            textposition="middle right",
            textfont=dict(color=colours[method], size=13),
            marker=dict(
                size=12, color=colours[method], symbol=[symbols[k % len(symbols)] for k in range(len(dimensions))]
            ),
            customdata=[plot_literal(dimension_name(d, lang)) for d in dimensions],
            hovertemplate=words("chart_hover_latency", lang, dimension="%{customdata}", y="%{y:.2f}", x="%{x:.0f}")
            + "<extra>%{fullData.name}</extra>",
            error_y=dict(
                type="data",
                symmetric=False,
                array=[max(0.0, s[f"{d}_ci_high"] - s[d]) if pd.notna(s[f"{d}_ci_high"]) else 0 for d in dimensions],
                arrayminus=[max(0.0, s[d] - s[f"{d}_ci_low"]) if pd.notna(s[f"{d}_ci_low"]) else 0 for d in dimensions],
            ),
        )
    shapes = words("story_list", lang).join(
        words("chart_shape", lang, shape=_symbol(sym, lang), dimension=plot_literal(dimension_name(d, lang)))
        for sym, d in zip(symbols, dimensions)
    )
    axis = _axis(rubric, dimensions, lang)
    fig.update_layout(
        title=words("chart_latency_title", lang, shapes=shapes),
        xaxis_title=words("chart_latency_axis", lang),
        yaxis=axis | {"title": words("chart_mean_axis", lang, axis=axis["title"])},
        height=420,
        legend_title_text=words("column_method", lang),
    )
    slowest = pd.to_numeric(summary["latency_ms"], errors="coerce").max()
    if pd.notna(slowest) and slowest > 0:
        fig.update_xaxes(range=[0, slowest * 1.35])  # room for the method label right of the slowest point
    return fig
