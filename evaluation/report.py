"""The study report: what Results and the stakeholder page (/present) show for one study, as data.

One rule for both pages: only a published study is shown publicly (any other id, existing or not,
gets the same answer), raters appear as pseudonyms, and the headline counts "can't judge" answers.
The statistics are in `evaluation.results`; this module reads the store and assembles them.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from arena.inputs.numbers import study_id as parse_study_id
from arena.inputs.text import markdown_literal
from arena.model.llm import get_model
from arena.model.model_names import model_in_words
from arena.model.zerogpu import on_zero_gpu
from arena.settings import current as current_settings
from arena.store import Store
from common import messages
from common.errors import UserError
from common.rubric import DEFAULT_RUBRIC, Rubric, rubric_from
from evaluation import blinding, story
from evaluation import results as res
from evaluation.human import analysis as ha
from evaluation.human import quality
from evaluation.human import stats as hs
from evaluation.human.stats import pseudonymize_raters
from evaluation.mauve_score import study_mauve
from evaluation.pairwise import length_adjusted_contrast
from evaluation.perplexity import SCORES, ItemScore
from evaluation.tasks.views import with_task_success

PRESENT_PATH = "/present"


def headline_markdown(study: Any, r: Any, unjudged: int, lm: Any, lang: str = "en") -> str:
    """The study's name, its sizes, "can't judge" answers, methods and the perplexity scorer, in `lang`."""
    sizes = messages.text("results_sizes", lang, items=r.n_items, ratings=r.n_ratings, raters=r.n_raters)
    methods = ", ".join(map(markdown_literal, r.summary["method"])) if len(r.summary) else None
    perplexity = (
        messages.text("results_perplexity_under", lang, scorer=scorer_words(study, lm, lang))
        if lm is not None
        else messages.text("results_perplexity_not_computed", lang)
    )
    said = messages.text(
        "results_headline", lang, sizes=sizes, unjudged=unjudged, perplexity=perplexity,
        methods=methods or messages.text("results_methods_none", lang),
    )  # fmt: skip
    return f"### {markdown_literal(study.name)}\n{said}"


def provenance_words(study: Any, lang: str = "en") -> str:
    """Where an imported study's ratings came from ("imported from FILE; collected outside this app"),
    in `lang`; "" for a study rated in this app."""
    source = getattr(study, "imported_from", None)
    return messages.text("provenance_imported", lang, file=source) if source else ""


def provenance_markdown(study: Any, lang: str = "en") -> str:
    words = provenance_words(study, lang)
    return f"\n\n**{markdown_literal(words)}**" if words else ""


def present_url(study_id: int) -> str:
    """The stakeholder page of a study (ui/present.py serves it)."""
    return f"{PRESENT_PATH}?study={int(study_id)}"


def model_named() -> bool:
    """Whether pages may name the model: not on a rating-only deployment (ARENA_MODE=rating), whose
    raters should not be told which public model to replay a running study with (docs/blinding.md)."""
    return current_settings().mode != "rating"


def output_scores(lm, outputs: pd.DataFrame, store: Store, study_id: int, progress: Any = None) -> dict[Any, ItemScore]:
    """Per-output perplexity under `lm`, through the process's cache (evaluation.perplexity.SCORES).
    On ZeroGPU `score_outputs` encodes here and scores in `gpu_scores` tasks (plain data in and out).
    `progress(n)` is called as each batch of n outputs is scored."""
    raw = {int(i.id): bool(i.raw) for i in store.items(study_id)}
    return SCORES.scores(lm, outputs.assign(raw=outputs["item_id"].map(lambda i: raw.get(int(i)))), progress=progress)


def label_scenarios(frame: pd.DataFrame) -> pd.DataFrame:
    """Scenario names with their language, "story (en)": the built-in scenarios share keys across
    languages, and an English and a Chinese prompt must not be filtered or counted as one."""
    if frame.empty or "language" not in frame:
        return frame
    lang = frame["language"].fillna("").astype(str)
    scen = frame["scenario"].fillna("").astype(str)
    return frame.assign(scenario=[f"{s} ({l})" if l else s for s, l in zip(scen, lang)])


def compute_view(
    store: Store,
    study_id: Any,
    scenarios: Any = None,
    raters: Any = None,
    lm=None,
    public: bool = True,
    progress: Any = None,
    load: Any = None,
    lang: str = "en",
) -> dict[str, Any]:
    """Everything the tab shows for one study and filters; `lm` given = compute perplexity, with the
    study's own scorer when it names one (`study.scorer_model`, loaded by `load`, default
    `arena.model.llm.get_model`; a study over several models always does), else with `lm` (old studies).
    `public` (the Results tab): only a published study; any other id, existing or not, gets the same
    answer, so the reply does not even tell whether a study exists. `lang` (en or zh): the language of
    every word it writes (headline, lines, tables, charts, story); names and numbers stay."""
    if study_id in (None, ""):
        raise UserError("choose a study")
    study_id = parse_study_id(study_id, "there is no published study with that id")
    study = store.get_study(study_id)
    if study is None or (public and study.state != "published"):
        raise UserError("there is no published study with that id")
    rubric = rubric_from(getattr(study, "rubric", None))  # the study's questions; older studies: the default
    every = label_scenarios(pseudonymize_raters(store.ratings_frame(study_id)))
    rules = getattr(study, "exclusion_rules", ()) or ()
    ratings, exclusion_lines, sensitivity = exclusion_view(every, rubric, rules, lang)
    outputs = label_scenarios(store.outputs_frame(study_id))
    scenarios, raters = _names(scenarios, "scenarios"), _names(raters, "raters")
    filtered_outputs = outputs if scenarios is None else outputs[outputs["scenario"].astype(str).isin(scenarios)]
    if lm is not None and study.scorer_model:  # one scorer for every system, never the serving model by accident
        lm = (load or get_model)(study.scorer_model)
    scores, mauve = automatic_scores(lm, filtered_outputs, store, study_id, progress)
    r = res.build_results(
        ratings,
        outputs,
        scores,
        scenario=scenarios,
        rater=raters,
        methods=study.methods or None,
        rubric=rubric,
        mauve=mauve,
        lang=lang,
    )
    # "Can't judge" answers are left out of every statistic; the headline says how many there were.
    unjudged = int(
        hs.cant_judge_counts(hs.filter_ratings(ratings, scenario=scenarios, rater=raters), rubric.numeric)["n"].sum()
    )
    headline = headline_markdown(study, r, unjudged, lm, lang) + exclusion_markdown(exclusion_lines, sensitivity, lang)
    headline += provenance_markdown(study, lang)
    # Raters' guesses, if the study asked: shown with the results, which are public only once published.
    blind_lines = blinding.summary_lines(blinding.study_blinding(store, study_id), lang) if study.guess_methods else []
    return {
        "headline": headline,
        "story": story_markdown(r, rubric, blind_lines, study_id, lang),
        # Outputs of article 003's task prompts also get their automatic checker's success rate.
        "table": res.table_in(with_task_success(res.display_table(r.summary, rubric), filtered_outputs), rubric, lang)
        if len(r.summary)
        else pd.DataFrame(),
        "scores_figure": res.scores_figure(r.means, rubric=rubric, lang=lang) if len(r.means) else None,
        "latency_figure": res.quality_latency_figure(r.summary, rubric=rubric, lang=lang) if len(r.summary) else None,
        "stats": stats_tables(r, lang),
        "summary": r.summary,
        "scenarios": sorted(str(s) for s in outputs["scenario"].dropna().unique()),
        "raters": sorted(ratings["rater"].dropna().unique(), key=lambda label: int(label.split()[-1])),
        "results": r,
        "blinding": blind_lines,
        "exclusion": exclusion_lines,  # "3 of 14 raters excluded by the rule set at creation (...)", and what changes
        "sensitivity": sensitivity,  # the primary pairs with and without the excluded raters
        # Exploratory, beside the primary contrasts: the same pairs at equal length (issue 26).
        "length_adjusted": length_table(hs.filter_ratings(ratings, scenario=scenarios, rater=raters), rubric, lang),
    }


def story_markdown(r: res.Results, rubric: Rubric, blind_lines: list[str], study_id: int, lang: str = "en") -> str:
    """The takeaway, the agreement line, the blinding lines and the link to /present, in `lang`."""
    takeaway = story.takeaway(r.pairwise, r.n_items, r.n_ratings, r.n_raters, lang=lang, rubric=rubric)
    kept = messages.text("present_was_the_blind_kept", lang)
    url = present_url(study_id)  # /present follows the browser's language itself
    return (
        f"**{markdown_literal(takeaway)}**\n\n{markdown_literal(story.agreement_words(r.agreement, lang=lang))}\n\n"
        + "".join(f"**{kept}** {markdown_literal(line)}\n\n" for line in blind_lines)
        + f"[{messages.text('results_present_link', lang, url=url)}]({url}) "
        + messages.text("results_present_own_page", lang)
    )


def automatic_scores(lm: Any, outputs: pd.DataFrame, store: Store, study_id: int, progress: Any = None) -> tuple:
    """(perplexity per output, MAUVE per method) under `lm`, or (None, None) without a scorer or outputs.
    MAUVE is left out on ZeroGPU, as docs/evaluation.md says."""
    if lm is None or not len(outputs):
        return None, None
    scores = output_scores(lm, outputs, store, study_id, progress)
    return scores, (None if on_zero_gpu() else study_mauve(lm, outputs))


def excluded_by_rules(ratings: pd.DataFrame, rubric: Rubric, rules: Any) -> tuple[pd.DataFrame, list[str]]:
    """The ratings the exclusion rules set at a study's creation keep (`evaluation.human.quality`), and
    the lines that say so: "3 of 14 raters excluded by the rule set at creation (...)" and whether the
    headline family's conclusions change without the exclusion. No rules: every rating, no line."""
    kept, lines, _ = exclusion_view(ratings, rubric, rules)
    return kept, lines


SENSITIVITY_KEYS = ("dimension", "pair", "all", "p_all", "kept", "p_kept", "changed")
# The side-by-side table's column names (common/messages.py's sensitivity_col_*), in English.
SENSITIVITY_NAMES = {k: messages.english(f"sensitivity_col_{k}") for k in SENSITIVITY_KEYS}


def sensitivity_names(lang: str = "en") -> dict[str, str]:
    """SENSITIVITY_NAMES in `lang`."""
    return {k: messages.text(f"sensitivity_col_{k}", lang) for k in SENSITIVITY_KEYS}


def exclusion_view(
    ratings: pd.DataFrame, rubric: Rubric, rules: Any, lang: str = "en"
) -> tuple[pd.DataFrame, list[str], pd.DataFrame]:
    """`excluded_by_rules`, and the primary pairs with every rater and without the excluded ones side
    by side for display (SENSITIVITY_NAMES; empty when nobody is excluded); words and table in `lang`."""
    names = sensitivity_names(lang)
    empty = pd.DataFrame(columns=list(names.values()))
    if not rules or ratings.empty:
        return ratings, [], empty
    kept, exclusion, _ = quality.apply_rules(ratings, rubric, tuple(rules))
    lines = [exclusion.words("exclusion_when_at_creation", lang)]
    if not (exclusion.n and len(kept)):
        return kept, lines, empty
    every = ha.analyse(ratings, mixed=False, rubric=rubric)["pairwise"]
    mine = ha.analyse(kept, mixed=False, rubric=rubric)["pairwise"]
    table = quality.with_and_without(every, mine)
    lines.append(quality.sensitivity_words(table, exclusion, lang=lang))
    return kept, lines, sensitivity_table(table, lang)


def sensitivity_table(table: pd.DataFrame, lang: str = "en") -> pd.DataFrame:
    """`quality.with_and_without`'s table for people, in `lang`: "a vs b", "+0.40 [+0.10, +0.70]", yes/no."""
    names = sensitivity_names(lang)

    def cell(diff: Any, low: Any, high: Any) -> str:
        if pd.isna(diff):
            return "–"
        if pd.isna(low) or pd.isna(high):
            return messages.text("no_interval", lang, value=f"{diff:+.2f}")
        return f"{diff:+.2f} [{low:+.2f}, {high:+.2f}]"

    return pd.DataFrame(
        {
            names["dimension"]: [messages.dimension_name(d, lang) for d in table["dimension"]],
            names["pair"]: [
                messages.text("sensitivity_vs", lang, a=a, b=b) for a, b in zip(table["method_a"], table["method_b"])
            ],
            names["all"]: [cell(*v) for v in table[["diff_all", "ci_low_all", "ci_high_all"]].values],
            names["p_all"]: [f"{p:.2g}" if pd.notna(p) else "–" for p in table["p_family_all"]],
            names["kept"]: [cell(*v) for v in table[["diff_kept", "ci_low_kept", "ci_high_kept"]].values],
            names["p_kept"]: [f"{p:.2g}" if pd.notna(p) else "–" for p in table["p_family_kept"]],
            names["changed"]: [messages.text("yes" if c else "no", lang) for c in table["changed"]],
        }
    )


def exclusion_markdown(lines: list[str], sensitivity: pd.DataFrame, lang: str = "en") -> str:
    """The exclusion lines for the Results headline, and the side-by-side table when anyone was excluded."""
    text = "".join(f"\n\n{markdown_literal(line)}" for line in lines)
    if len(sensitivity):
        text += f"\n\n**{messages.text('sensitivity_caption', lang)}**\n\n{markdown_table(sensitivity)}"
    return text


def markdown_table(frame: pd.DataFrame) -> str:
    """A small table as Markdown, every cell literal."""
    head = "| " + " | ".join(markdown_literal(c) for c in frame.columns) + " |"
    rule = "|" + "---|" * len(frame.columns)
    rows = ["| " + " | ".join(markdown_literal(v) for v in row) + " |" for row in frame.itertuples(index=False)]
    return "\n".join([head, rule, *rows])


def scorer_words(study: Any, lm: Any, lang: str = "en") -> str:
    """The scorer as the headline names it: the study's scorer model for every system (perplexities
    under different models are not comparable, so a study has one), else the app's model."""
    if study.scorer_model:
        named = (
            f"{markdown_literal(study.scorer_model)} ({markdown_literal(model_in_words(lm.name, lang))})"
            if model_named()
            else messages.text("results_scorer_one_model", lang)
        )
        return messages.text("results_scorer_study", lang, named=named)
    if not model_named():
        return messages.text("results_scorer_servers", lang)
    return markdown_literal(model_in_words(lm.name, lang))


def _names(value: Any, what: str) -> list[str] | None:
    """A filter from the UI (or a forged API call): None/empty = all, else a list of strings."""
    if value in (None, "", []):
        return None
    if isinstance(value, str):
        return [value]
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, (str, int)) for v in value):
        raise UserError(f"{what} must be a list of names")
    return [str(v) for v in value]


LENGTH_TABLE_NAMES = {
    "dimension": "dimension",
    "method_a": "a",
    "method_b": "b",
    "n_items": "items",
    "diff": "a − b",
    "ci": "95% CI",
    "diff_length_adjusted": "a − b at equal length",
    "ci_length_adjusted": "95% CI at equal length",
    "p_length_adjusted": "p at equal length (unadjusted)",
    "slope": "score per doubling of length [95% CI]",
}


def length_table(ratings: pd.DataFrame, rubric: Rubric | None = None, lang: str = "en") -> pd.DataFrame:
    """The 1-5 contrasts with and without length (`evaluation.pairwise.length_adjusted_contrast`:
    item constants + method + log2 length, CR3 intervals, t with items - 1 df), for display in `lang`;
    empty without lengths or pairs."""
    # No lengths: an imported study's responses (the long format has scores, not texts) have 0 tokens.
    if ratings.empty or "new_tokens" not in ratings or not (pd.to_numeric(ratings["new_tokens"]) > 0).any():
        return res.in_language(pd.DataFrame(columns=list(LENGTH_TABLE_NAMES.values())), lang)
    out = length_adjusted_contrast(ratings, list((rubric or DEFAULT_RUBRIC).numeric))

    def ci(low: Any, high: Any, digits: int = 2) -> str:
        return "–" if pd.isna(low) or pd.isna(high) else f"[{low:.{digits}f}, {high:.{digits}f}]"

    rows = [
        {
            "dimension": r.dimension,
            "method_a": r.method_a,
            "method_b": r.method_b,
            "n_items": int(r.n_items),
            "diff": "–" if pd.isna(r.diff) else f"{r.diff:+.2f}",
            "ci": ci(r.ci_low, r.ci_high),
            "diff_length_adjusted": "–" if pd.isna(r.diff_length_adjusted) else f"{r.diff_length_adjusted:+.2f}",
            "ci_length_adjusted": ci(r.ci_low_length_adjusted, r.ci_high_length_adjusted),
            "p_length_adjusted": "–" if pd.isna(r.p_length_adjusted) else f"{r.p_length_adjusted:.3g}",
            "slope": "–"
            if pd.isna(r.length_slope)
            else f"{r.length_slope:+.2f} {ci(r.length_slope_ci_low, r.length_slope_ci_high)}",
        }
        for r in out.itertuples()
    ]
    return res.in_language(
        pd.DataFrame(rows, columns=list(LENGTH_TABLE_NAMES)).rename(columns=LENGTH_TABLE_NAMES), lang
    )


def stats_tables(r: res.Results, lang: str = "en") -> dict[str, Any]:
    """The primary analysis for display (evaluation.results): tables, and "lines", one plain-language
    line per result (Markdown), in `lang`."""
    return {**res.statistics_tables(r, lang), "lines": res.statistics_markdown(r, lang)}


__all__ = [
    "PRESENT_PATH",
    "compute_view",
    "excluded_by_rules",
    "exclusion_view",
    "markdown_table",
    "label_scenarios",
    "length_table",
    "model_named",
    "output_scores",
    "present_url",
    "stats_tables",
]
