"""Results tab: per study, human scores (with CIs) next to perplexity, diversity, latency and
throughput per method; the statistics; charts; CSV download; a presentation view.

Only aggregates per method are shown, never which output a method wrote, so the tab does not
unblind a running study. The report is `evaluation.report.compute_view` (shared with /present);
this module shows it.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any, NamedTuple

import gradio as gr
import pandas as pd

from arena.inputs.text import escape_cell, markdown_literal
from arena.store import Store
from common import messages
from common.messages import english
from evaluation import pairwise_board
from evaluation import results as res
from evaluation.pairwise_view import pairwise_view
from evaluation.report import compute_view, present_url

from . import AppContext, store_for
from .empty import hidden_table, shown
from .handler import handler
from .i18n import language_of_request


def study_options(store: Store) -> list[tuple[str, int]]:
    """Published studies, newest first: nothing per method about a study leaves the server through
    this public tab before its organizer publishes it (after rating has closed)."""
    return [(f"{s.name} (#{s.id})", int(s.id)) for s in store.list_studies() if s.state == "published"]


def latest_study(store: Store, current: Any = None) -> tuple[list[tuple[str, int]], int | None]:
    """The Study dropdown's choices and value: the one chosen if it is still listed, else the newest
    published study (so Results opens on an answer, not on "choose a study")."""
    options = study_options(store)
    ids = [sid for _, sid in options]
    try:
        chosen = int(current) if current not in (None, "") else None
    except (TypeError, ValueError):
        chosen = None
    return options, chosen if chosen in ids else (ids[0] if ids else None)


NO_STUDY = english("results_no_study")


def write_csv(summary: pd.DataFrame, study_id: int) -> str:
    folder = Path(tempfile.mkdtemp(prefix="arena-results-"))
    path = folder / f"results-study-{int(study_id)}.csv"
    # method and question names come from people and files: no cell a spreadsheet would run (OWASP)
    cells = summary.map(lambda v: escape_cell(v) if isinstance(v, str) else v)
    cells.rename(columns=lambda c: escape_cell(c) if isinstance(c, str) else c).to_csv(path, index=False)
    return str(path)


STATS_HELP = res.STATS_HELP
PAIRWISE_HELP = english("results_pairwise_help")
# The leaderboards' columns in Chinese (the frames keep their English names: the CSV's, the tests').
COLUMNS_ZH = {en: zh for key, (en, zh) in messages.LINES.items() if key.startswith(("column_", "board_column_"))}

BOARD_HELP = english("results_board_help")


def board_sets(store: Store, request: gr.Request | None = None) -> tuple[Any, Any]:
    """The model-set dropdown (newest set chosen) and its studies' dropdown, in the browser's language."""
    choices = pairwise_board.board_choices(store)
    value = choices[0][1] if choices else None
    lang = language_of_request(request)
    return (
        gr.update(choices=choices, value=value),
        gr.update(choices=pairwise_board.study_choices(store, value, lang=lang), value=[]),
    )


def board_outputs(store: Store, model_set: Any, studies: Any, request: gr.Request | None = None) -> list[Any]:
    """The cross-study board: its words (headline, takeaways), the systems and the sources, in the
    browser's language."""
    lang = language_of_request(request)
    view = pairwise_board.cross_study_view(store, model_set, studies, lang=lang)
    words = "\n".join(f"- {markdown_literal(line)}" for line in view["lines"][1:])
    return [
        f"**{markdown_literal(view['headline'])}**\n\n**{markdown_literal(view['takeaway'])}**\n\n{words}",
        shown(columns_in(view["table"], lang)),
        shown(columns_in(view["sources"], lang)),
    ]


def columns_in(table: pd.DataFrame, lang: str) -> pd.DataFrame:
    """`table` with its column names in `lang` (a Dataframe's header is not translated in the browser)."""
    return table.rename(columns=COLUMNS_ZH) if lang == "zh" else table


class ResultsView(NamedTuple):
    """What "Show results" fills, in the order of `build`'s outputs."""

    headline: Any
    table: Any
    bars: Any
    scatter: Any
    csv: Any
    pairwise: Any
    friedman: Any
    agreement: Any
    correlation: Any
    scenarios: Any
    raters: Any
    verdict: Any
    mixed: Any
    components: Any
    position: Any
    story: Any
    length_adjusted: Any


# ---- the handlers: module-level, of plain values (tests call them) --------------------------------


def on_refresh(store: Store) -> Any:
    options, newest = latest_study(store)
    return gr.update(choices=options, value=newest)


def on_tab(store: Store, current: Any) -> Any:
    options, chosen = latest_study(store, current)
    return gr.update(choices=options, value=chosen)


def on_show(store: Store, model: Callable[[], Any], study_id: Any, scenarios: Any, raters: Any, ppl: Any,
            request: gr.Request | None = None, progress: Any = gr.Progress()) -> ResultsView:  # fmt: skip
    """A published study's report (a pairwise study's leaderboard where the 1-5 tables would be), in the
    browser's language."""
    lang = language_of_request(request)
    if study_id in (None, ""):  # nothing chosen (or nothing published): one line, no error badges
        options, _ = latest_study(store)
        said = messages.text("results_no_study" if not options else "results_choose_above", lang)
        return ResultsView._make([said, *[gr.update()] * 16])
    done = [0]

    def scored(n: int) -> None:
        done[0] += n
        progress(
            (done[0], None),
            desc=messages.text("results_scoring_progress", lang, n=done[0]),
            unit=messages.text("outputs", lang),
        )

    study = store.get_study(int(study_id)) if str(study_id).strip().isdigit() else None
    if study is not None and study.design == "pairwise":
        return pairwise_outputs(store, study_id, lang)
    view = compute_view(store, study_id, scenarios, raters, model() if ppl else None, progress=scored, lang=lang)
    s = view["stats"]
    return ResultsView(
        view["headline"], shown(view["table"]), shown(view["scores_figure"]), shown(view["latency_figure"]),
        shown(write_csv(view["summary"], int(study_id))), shown(s["pairwise"]), shown(s["friedman"]),
        shown(s["agreement"]), shown(s["ppl_correlation"]), gr.update(choices=view["scenarios"]),
        gr.update(choices=rater_choices(view["raters"], lang)), s["lines"], shown(s["mixed"]), shown(s["variance_components"]),
        shown(s["position"]), view["story"], shown(view["length_adjusted"]),
    )  # fmt: skip


def rater_choices(raters: list[str], lang: str = "en") -> list[tuple[str, str]]:
    """The Raters filter's choices: (what the box shows, in `lang`; the pseudonym the filter sends).
    A pseudonym is "rater N" (evaluation.human.stats.pseudonymize_raters)."""
    return [(messages.text("rater_pseudonym", lang, n=label.rsplit(" ", 1)[-1]), label) for label in raters]


def pairwise_outputs(store: Store, study_id: Any, lang: str = "en") -> ResultsView:
    """A pairwise study: the leaderboard (Bradley-Terry, Elo scale) where the 1-5 tables would be, in `lang`."""
    view = pairwise_view(store, int(study_id), lang=lang)
    hide = gr.update(value=None, visible=False)
    words = "\n".join(f"- {markdown_literal(line)}" for line in view["lines"])
    url = present_url(int(study_id))  # /present follows the browser's language itself
    kept = messages.text("present_was_the_blind_kept", lang)
    story = (
        f"**{markdown_literal(view['takeaway'])}**\n\n"
        + "".join(f"**{kept}** {markdown_literal(line)}\n\n" for line in view["blinding"])
        + f"[{messages.text('results_present_link', lang, url=url)}]({url})"
    )
    csv = shown(write_csv(view["table"], int(study_id))) if len(view["table"]) else hide
    kind = messages.text("results_pairwise_kind", lang)
    head = f"### {markdown_literal(view['name'])}\n{markdown_literal(view['headline'])} · {kind}"
    help_text = messages.text("results_pairwise_help", lang)
    return ResultsView._make([head, shown(columns_in(view["table"], lang)), hide, hide, csv, *[hide] * 4,
                              gr.update(choices=[]), gr.update(choices=[]), help_text + "\n\n" + words, *[hide] * 3,
                              story, hide])  # fmt: skip


def on_board_set(store: Store, model_set: Any, request: gr.Request | None = None) -> Any:
    lang = language_of_request(request)
    return gr.update(choices=pairwise_board.study_choices(store, model_set, lang=lang), value=[])


# ---- layout and wiring -------------------------------------------------------------------------------


def build(ctx: AppContext) -> None:
    c = SimpleNamespace()
    with gr.Column(elem_id="results-controls"):
        with gr.Row():
            c.study = gr.Dropdown(label="Study", choices=[], interactive=True, scale=3)
            c.refresh = gr.Button("Refresh studies", scale=1)
        with gr.Row():
            c.scenario = gr.Dropdown(label="Scenarios (empty = all)", choices=[], multiselect=True, interactive=True)
            c.rater = gr.Dropdown(label="Raters (empty = all)", choices=[], multiselect=True, interactive=True)
            c.with_ppl = gr.Checkbox(label="Perplexity under the loaded model", value=True)
        c.show = gr.Button("Show results", variant="primary")
    _report(c)
    _board(c)
    _wire(ctx, c)


def _report(c: SimpleNamespace) -> None:
    c.headline = gr.Markdown("Choose a study and press **Show results**.")
    c.takeaway = gr.Markdown("", elem_id="results-story")
    # Tables, plots and the file stay hidden until they have a value: no empty boxes, and no Gradio
    # "Empty value" placeholder (a bare aria-label that screen readers and axe-core object to).
    c.table = gr.Dataframe(label="Per method", interactive=False, wrap=True, elem_id="results-table", visible=False)
    gr.Markdown(res.METRICS_HELP, elem_id="results-help")
    with gr.Row():
        c.bars = gr.Plot(label="Human scores", visible=False)
        c.scatter = gr.Plot(label="Quality against latency", visible=False)
    c.csv_file = gr.File(label="CSV (numbers per method)", interactive=False, visible=False)
    with gr.Accordion("What the ratings say (items and raters as samples)", open=True):
        c.verdict = gr.Markdown("")
    with gr.Accordion("Statistics", open=False):
        gr.Markdown(STATS_HELP)
        c.pairwise = hidden_table(english("results_pairwise_label"))
        c.friedman = hidden_table("Friedman on items (exploratory: raters fixed)")
        c.mixed = hidden_table(english("results_mixed_label"))
        c.components = hidden_table("Mixed model: variance components")
        c.position = hidden_table("Position effect: shown first − shown last")
        c.agreement = hidden_table("Inter-rater agreement (Krippendorff's alpha, ordinal)")
        c.correlation = hidden_table("Spearman: perplexity vs human scores, within each method")
        c.length_adjusted = hidden_table(english("results_length_adjusted"))


def _board(c: SimpleNamespace) -> None:
    with gr.Accordion("Leaderboard across studies (same models)", open=False):
        gr.Markdown(BOARD_HELP)
        with gr.Row():
            c.board_set = gr.Dropdown(label="Model set", choices=[], interactive=True, scale=2)
            c.board_studies = gr.Dropdown(
                label="Studies (empty = all of this model set)", choices=[], multiselect=True, interactive=True, scale=2
            )
        c.board_show = gr.Button("Show the leaderboard")
        c.board_words = gr.Markdown("")
        c.board_table = hidden_table("Systems across studies")
        c.board_sources = hidden_table("What the board rests on (one row per study)")


def _wire(ctx: AppContext, c: SimpleNamespace) -> None:
    store, private = store_for(ctx), dict(api_visibility="private")
    sets = handler(board_sets, store)
    c.refresh.click(
        handler(on_refresh, store), None, c.study, api_name="results_studies", api_visibility="undocumented"
    )
    c.refresh.click(sets, None, [c.board_set, c.board_studies], **private)
    c.board_set.input(handler(on_board_set, store), c.board_set, c.board_studies, **private)
    board = [c.board_words, c.board_table, c.board_sources]
    board_inputs = [c.board_set, c.board_studies]
    c.board_show.click(
        handler(board_outputs, store), board_inputs, board, api_name="results_board", api_visibility="undocumented"
    )
    outputs = [c.headline, c.table, c.bars, c.scatter, c.csv_file, c.pairwise, c.friedman, c.agreement, c.correlation,
               c.scenario, c.rater, c.verdict, c.mixed, c.components, c.position, c.takeaway, c.length_adjusted]  # fmt: skip
    show, inputs = handler(on_show, store, ctx.model), [c.study, c.scenario, c.rater, c.with_ppl]
    c.show.click(show, inputs, outputs, api_name="results_show", api_visibility="undocumented")
    c.study.change(show, inputs, outputs, **private)
    # the study box is filled on a fresh load too, not only when the tab is picked (its .change shows it)
    ctx.extras.setdefault("loaders", []).append((handler(on_tab, store), [c.study], [c.study]))
    if ctx.tabs is not None:
        ctx.tabs.select(handler(on_tab, store), c.study, c.study, **private)
        ctx.tabs.select(sets, None, [c.board_set, c.board_studies], **private)
