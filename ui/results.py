"""Results tab: per study, human scores (with CIs) next to perplexity, diversity, latency and
throughput per method; the statistics; charts; CSV download; a presentation view.

Only aggregates per method are shown, never which output a method wrote, so the tab does not
unblind a running study. The report is `evaluation.report.compute_view` (shared with /present);
this module shows it.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import gradio as gr
import pandas as pd

from arena.store import Store
from arena.text import markdown_literal
from common.errors import UserError
from common.messages import english
from evaluation import pairwise_board
from evaluation import results as res
from evaluation.pairwise_view import pairwise_view
from evaluation.report import compute_view, present_url

from . import AppContext, store_for
from .empty import hidden_table, shown


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


NO_STUDY = "No published study yet: an organizer publishes a study once its rating has closed."


def write_csv(summary: pd.DataFrame, study_id: int) -> str:
    folder = Path(tempfile.mkdtemp(prefix="arena-results-"))
    path = folder / f"results-study-{int(study_id)}.csv"
    summary.to_csv(path, index=False)
    return str(path)


STATS_HELP = res.STATS_HELP
PAIRWISE_HELP = (
    "A pairwise study: each rater saw two responses per prompt and voted. Ratings are Bradley–Terry on the "
    "Elo scale (mean 1000; 400 points = 10:1 odds), a tie or 'both bad' half a win for each side; 95% "
    "intervals treat prompts and raters as samples. A rank is shown only where intervals separate; a "
    "method with few votes is provisional. 'At equal length' is the rating with the length difference "
    "of the two responses fitted as a covariate (docs/pairwise.md)."
)

BOARD_HELP = english("results_board_help")


def board_sets(store: Store) -> tuple[Any, Any]:
    """The model-set dropdown (newest set chosen) and its studies' dropdown."""
    choices = pairwise_board.board_choices(store)
    value = choices[0][1] if choices else None
    return (
        gr.update(choices=choices, value=value),
        gr.update(choices=pairwise_board.study_choices(store, value), value=[]),
    )


def board_outputs(store: Store, model_set: Any, studies: Any) -> list[Any]:
    """The cross-study board: its words (headline, takeaways), the systems and the sources."""
    view = pairwise_board.cross_study_view(store, model_set, studies)
    words = "\n".join(f"- {markdown_literal(line)}" for line in view["lines"][1:])
    return [
        f"**{markdown_literal(view['headline'])}**\n\n**{markdown_literal(view['takeaway'])}**\n\n{words}",
        shown(view["table"]),
        shown(view["sources"]),
    ]


def build(ctx: AppContext) -> None:
    with gr.Column(elem_id="results-controls"):
        with gr.Row():
            study = gr.Dropdown(label="Study", choices=[], interactive=True, scale=3)
            refresh = gr.Button("Refresh studies", scale=1)
        with gr.Row():
            scenario = gr.Dropdown(label="Scenarios (empty = all)", choices=[], multiselect=True, interactive=True)
            rater = gr.Dropdown(label="Raters (empty = all)", choices=[], multiselect=True, interactive=True)
            with_ppl = gr.Checkbox(label="Perplexity under the loaded model", value=True)
        show = gr.Button("Show results", variant="primary")
    headline = gr.Markdown("Choose a study and press **Show results**.")
    takeaway = gr.Markdown("", elem_id="results-story")
    # Tables, plots and the file stay hidden until they have a value: no empty boxes, and no Gradio
    # "Empty value" placeholder (a bare aria-label that screen readers and axe-core object to).
    table = gr.Dataframe(label="Per method", interactive=False, wrap=True, elem_id="results-table", visible=False)
    gr.Markdown(res.METRICS_HELP, elem_id="results-help")
    with gr.Row():
        bars = gr.Plot(label="Human scores", visible=False)
        scatter = gr.Plot(label="Quality against latency", visible=False)
    csv_file = gr.File(label="CSV (numbers per method)", interactive=False, visible=False)
    with gr.Accordion("What the ratings say (items and raters as samples)", open=True):
        verdict = gr.Markdown("")
    with gr.Accordion("Statistics", open=False):
        gr.Markdown(STATS_HELP)
        pairwise = hidden_table(english("results_pairwise_label"))
        friedman = hidden_table("Friedman on items (exploratory: raters fixed)")
        mixed = hidden_table(english("results_mixed_label"))
        components = hidden_table("Mixed model: variance components")
        position = hidden_table("Position effect: shown first − shown last")
        agreement = hidden_table("Inter-rater agreement (Krippendorff's alpha, ordinal)")
        correlation = hidden_table("Spearman: perplexity vs human scores, within each method")
        length_adjusted = hidden_table(english("results_length_adjusted"))
    with gr.Accordion("Leaderboard across studies (same models)", open=False):
        gr.Markdown(BOARD_HELP)
        with gr.Row():
            board_set = gr.Dropdown(label="Model set", choices=[], interactive=True, scale=2)
            board_studies = gr.Dropdown(
                label="Studies (empty = all of this model set)", choices=[], multiselect=True, interactive=True, scale=2
            )
        board_show = gr.Button("Show the leaderboard")
        board_words = gr.Markdown("")
        board_table = hidden_table("Systems across studies")
        board_sources = hidden_table("What the board rests on (one row per study)")

    def on_refresh():
        options, newest = latest_study(store_for(ctx))
        return gr.update(choices=options, value=newest)

    def on_tab(current):
        options, chosen = latest_study(store_for(ctx), current)
        return gr.update(choices=options, value=chosen)

    def on_show(study_id, scenarios, raters, ppl, progress=gr.Progress()):
        if study_id in (None, ""):  # nothing chosen (or nothing published): one line, no error badges
            no_change = [gr.update() for _ in range(len(outputs) - 1)]
            options, _ = latest_study(store_for(ctx))
            return [NO_STUDY if not options else "Choose a study above."] + no_change
        done = [0]

        def scored(n: int) -> None:
            done[0] += n
            progress((done[0], None), desc=f"Perplexity: {done[0]} outputs scored", unit="outputs")

        try:
            study = store_for(ctx).get_study(int(study_id)) if str(study_id).strip().isdigit() else None
            if study is not None and study.design == "pairwise":
                return pairwise_outputs(study_id)
            view = compute_view(
                store_for(ctx), study_id, scenarios, raters, ctx.model() if ppl else None, progress=scored
            )
        except UserError as exc:
            raise gr.Error(str(exc))
        s = view["stats"]
        return [
            view["headline"],
            shown(view["table"]),
            shown(view["scores_figure"]),
            shown(view["latency_figure"]),
            shown(write_csv(view["summary"], int(study_id))),
            shown(s["pairwise"]),
            shown(s["friedman"]),
            shown(s["agreement"]),
            shown(s["ppl_correlation"]),
            gr.update(choices=view["scenarios"]),
            gr.update(choices=view["raters"]),
            s["lines"],
            shown(s["mixed"]),
            shown(s["variance_components"]),
            shown(s["position"]),
            view["story"],
            shown(view["length_adjusted"]),
        ]

    def pairwise_outputs(study_id: Any) -> list[Any]:
        """A pairwise study: the leaderboard (Bradley-Terry, Elo scale) where the 1-5 tables would be."""
        view = pairwise_view(store_for(ctx), int(study_id))
        hide = gr.update(value=None, visible=False)
        words = "\n".join(f"- {markdown_literal(line)}" for line in view["lines"])
        story = (
            f"**{markdown_literal(view['takeaway'])}**\n\n"
            + "".join(f"**Was the blind kept?** {markdown_literal(line)}\n\n" for line in view["blinding"])
            + f"[Presentation view for stakeholders: {present_url(int(study_id))}]({present_url(int(study_id))})"
        )
        return [
            f"### {markdown_literal(view['name'])}\n{view['headline']} · pairwise (A vs B votes)",
            shown(view["table"]),
            hide,
            hide,
            shown(write_csv(view["table"], int(study_id))) if len(view["table"]) else hide,
            *[hide] * 4,
            gr.update(choices=[]),
            gr.update(choices=[]),
            PAIRWISE_HELP + "\n\n" + words,
            *[hide] * 3,
            story,
            hide,
        ]

    def on_board_sets():
        return board_sets(store_for(ctx))

    def on_board_set(model_set):
        return gr.update(choices=pairwise_board.study_choices(store_for(ctx), model_set), value=[])

    def on_board_show(model_set, studies):
        try:
            return board_outputs(store_for(ctx), model_set, studies)
        except UserError as exc:
            raise gr.Error(str(exc))

    refresh.click(on_refresh, None, study, api_name="results_studies")
    refresh.click(on_board_sets, None, [board_set, board_studies], api_visibility="private")
    board_set.input(on_board_set, board_set, board_studies, api_visibility="private")
    board_show.click(
        on_board_show, [board_set, board_studies], [board_words, board_table, board_sources], api_name="results_board"
    )
    outputs = [
        headline,
        table,
        bars,
        scatter,
        csv_file,
        pairwise,
        friedman,
        agreement,
        correlation,
        scenario,
        rater,
        verdict,
        mixed,
        components,
        position,
        takeaway,
        length_adjusted,
    ]
    show.click(on_show, [study, scenario, rater, with_ppl], outputs, api_name="results_show")
    study.change(on_show, [study, scenario, rater, with_ppl], outputs, api_visibility="private")
    if ctx.tabs is not None:
        ctx.tabs.select(on_tab, study, study, api_visibility="private")
        ctx.tabs.select(on_board_sets, None, [board_set, board_studies], api_visibility="private")
