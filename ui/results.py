"""Results tab: per study, human scores (with CIs) next to perplexity, diversity, latency and
throughput per method; the statistics; charts; CSV download; a presentation view.

Only aggregates per method are shown, never which output a method wrote, so the tab does not
unblind a running study. The report is `evaluation.report.compute_view` (shared with /present);
this module shows it.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import gradio as gr
import pandas as pd

from arena.errors import UserError
from arena.store import Store
from evaluation import results as res

# The report moved to evaluation/report.py (issue 23); these names stay importable from here.
from evaluation.report import compute_view as compute_view
from evaluation.report import label_scenarios as label_scenarios
from evaluation.report import output_scores as output_scores
from evaluation.report import stats_tables as stats_tables

from . import AppContext, store_for


def study_options(store: Store) -> list[tuple[str, int]]:
    """Published studies, newest first: nothing per method about a study leaves the server through
    this public tab before its organizer publishes it (after rating has closed)."""
    return [(f"{s.name} (#{s.id})", int(s.id)) for s in store.list_studies() if s.state == "published"]


def write_csv(summary: pd.DataFrame, study_id: int) -> str:
    folder = Path(tempfile.mkdtemp(prefix="arena-results-"))
    path = folder / f"results-study-{int(study_id)}.csv"
    summary.to_csv(path, index=False)
    return str(path)


STATS_HELP = res.STATS_HELP


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
    table = gr.Dataframe(label="Per method", interactive=False, wrap=True, elem_id="results-table")
    gr.Markdown(res.METRICS_HELP, elem_id="results-help")
    with gr.Row():
        bars = gr.Plot(label="Human scores")
        scatter = gr.Plot(label="Quality against latency")
    csv_file = gr.File(label="CSV (numbers per method)", interactive=False)
    with gr.Accordion("What the ratings say (items and raters as samples)", open=True):
        verdict = gr.Markdown("")
    with gr.Accordion("Statistics", open=False):
        gr.Markdown(STATS_HELP)
        pairwise = gr.Dataframe(
            label="Pairwise (primary): mean (item, rater) difference, 95% CI, t test, p adjusted over the family",
            interactive=False,
        )
        friedman = gr.Dataframe(label="Friedman on items (exploratory: raters fixed)", interactive=False)
        mixed = gr.Dataframe(
            label="Mixed model (exploratory): score ~ method + item + rater + output + rater:method + item:rater",
            interactive=False,
        )
        components = gr.Dataframe(label="Mixed model: variance components", interactive=False)
        position = gr.Dataframe(label="Position effect: shown first − shown last", interactive=False)
        agreement = gr.Dataframe(label="Inter-rater agreement (Krippendorff's alpha, ordinal)", interactive=False)
        correlation = gr.Dataframe(label="Spearman: perplexity vs human scores, within each method", interactive=False)

    def on_refresh():
        return gr.update(choices=study_options(store_for(ctx)))

    def on_show(study_id, scenarios, raters, ppl):
        try:
            view = compute_view(store_for(ctx), study_id, scenarios, raters, ctx.model() if ppl else None)
        except UserError as exc:
            raise gr.Error(str(exc))
        s = view["stats"]
        return (
            view["headline"],
            view["table"],
            view["scores_figure"],
            view["latency_figure"],
            write_csv(view["summary"], int(study_id)),
            s["pairwise"],
            s["friedman"],
            s["agreement"],
            s["ppl_correlation"],
            gr.update(choices=view["scenarios"]),
            gr.update(choices=view["raters"]),
            s["lines"],
            s["mixed"],
            s["variance_components"],
            s["position"],
            view["story"],
        )

    refresh.click(on_refresh, None, study, api_name="results_studies")
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
    ]
    show.click(on_show, [study, scenario, rater, with_ppl], outputs, api_name="results_show")
    study.change(on_show, [study, scenario, rater, with_ppl], outputs, api_visibility="private")
    if ctx.tabs is not None:
        ctx.tabs.select(on_refresh, None, study, api_visibility="private")
