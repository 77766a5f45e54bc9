"""Organizer section "Raters, position and power": rater diagnostics and the position effect of a
study, and a simulation-based power planner for the next study. The numbers come from
`evaluation.human.raters`, `evaluation.human` and `evaluation.human.design`; this module checks the
organizer password on every handler (server side, throttled per client, as the rest of the
organizer tab) and shows the results.

Included from ui/organizer/__init__.py's build: `stats.build(ctx, password)`, with the tab's
password box; called alone, `build(ctx)` makes its own.
"""

from __future__ import annotations

import math
from typing import Any

import gradio as gr
import pandas as pd

from arena.inputs.numbers import parse_whole
from arena.inputs.numbers import study_id as parse_study_id
from common import messages
from common.errors import UserError
from common.messages import english
from evaluation.human import columns as hcols
from evaluation.human import design as stats_design
from evaluation.human import quality
from evaluation.human import raters as stats_raters
from evaluation.human import stats as hs
from evaluation.human import words as hw

from .. import AppContext, store_for
from ..empty import shown
from ..safe import md_text
from . import auth as organizer_auth

MAX_GRID_CELLS = 40
MAX_SIMS = 1000
MAX_WORK = 4e8  # simulated studies x items x raters x methods over the whole grid


def _study_id(value: Any) -> int:
    return parse_study_id(value)


def _ints(text: Any, what: str, low: int, high: int) -> list[int]:
    parts = [p for p in str(text if text is not None else "").replace(";", ",").replace(" ", ",").split(",") if p]
    try:
        values = sorted({parse_whole(p) for p in parts})
    except ValueError:
        raise UserError(messages.text("planner_whole_numbers", what=what)) from None
    if not values or values[0] < low or values[-1] > high:
        raise UserError(messages.text("planner_between", what=what, low=low, high=high))
    return values


def _number(value: Any, what: str, low: float, high: float) -> float:
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise UserError(messages.text("planner_not_a_number", what=what)) from None
    if not math.isfinite(x) or not low <= x <= high:
        raise UserError(messages.text("planner_number_between", what=what, low=f"{low:g}", high=f"{high:g}"))
    return x


def _fmt(df: pd.DataFrame) -> pd.DataFrame:
    return df.apply(
        lambda col: col.map(
            lambda v: "–" if isinstance(v, float) and math.isnan(v) else (f"{v:.3g}" if isinstance(v, float) else v)
        )
    )


def diagnostics(store: Any, study: Any, lang: str = "en") -> tuple[pd.DataFrame, pd.DataFrame, str]:
    """(rater table, position table, markdown) for one study; organizer only (names shown). The
    sentences and the tables' fixed cells in `lang`; the column names in English (auth.guarded shows
    them in the reader's language)."""
    sid = _study_id(study)
    if store.get_study(sid) is None:
        raise UserError(messages.text("no_study_number", id=sid))
    ratings = store.ratings_frame(sid)
    if ratings.empty:
        return pd.DataFrame(), pd.DataFrame(), messages.text("diagnostics_no_ratings", lang, id=sid)
    study = store.get_study(sid)
    dims = study.rubric.numeric
    diag = stats_raters.rater_diagnostics(ratings, dims, study.rubric.scales())
    pos = hs.position_effect(ratings, dims)
    lines = [md_text(line) for line in stats_raters.explain(diag, dims, lang)]
    lines += [md_text(hw.explain_position(r, lang)) for r in pos.to_dict("records")]
    lines += [md_text(line) for line in quality_lines(ratings, study, lang)]
    said = "\n\n".join(f"- {line}" for line in lines) + "\n\n" + messages.text("diagnostics_note", lang)
    if lang != "en":  # the cells that are words: the patterns a rater is flat on, the questions, "last shown"
        diag = diag.assign(flat_on=[stats_raters.flat_on_words(v, lang) for v in diag["flat_on"]])
        pos = pos.assign(
            dimension=[messages.dimension_name(d, lang) for d in pos["dimension"]],
            last=[messages.translated(v, lang) for v in pos["last"]],
        )
    return _fmt(diag), _fmt(pos), said


def quality_lines(ratings: pd.DataFrame, study: Any, lang: str = "en") -> list[str]:
    """Every rater's quality flags in plain words (attention, straight-lining, speed, agreement with the
    others), for the organizer to read, in `lang`; only the rule set at creation excludes anyone, and it
    says so."""
    flags = quality.rater_flags(ratings, study.rubric, quality.failed_attention_of(ratings))
    if study.exclusion_rules:
        rules = messages.text("story_join", lang).join(quality.rule_words(r, lang) for r in study.exclusion_rules)
        rule = messages.text("quality_rule_set", lang, rules=rules)
    else:
        rule = messages.text("quality_no_rule", lang)
    flagged = [quality.flag_words(row, lang) for row in flags.to_dict("records") if row["flags"]]
    calm = len(flags) - len(flagged)
    rest = [messages.text("quality_others_calm", lang, n=calm)] if calm and flagged else []
    if not flagged:
        rest = [messages.text("quality_none_flagged", lang, n=len(flags))]
    return [messages.text("quality_flags_head", lang, rule=rule), *flagged, *rest]


def power_plan(
    store: Any,
    pilot: Any,
    dimension: Any,
    delta: Any,
    methods: Any,
    items: Any,
    raters: Any,
    sims: Any,
    lang: str = "en",
) -> tuple[pd.DataFrame, str]:
    """The power grid and its summary line, with SDs from a pilot study's ratings or the defaults; what
    they say in `lang`."""
    d = _number(delta, "Δ", 0.05, 4)
    k = int(_number(methods, english("organizer_col_methods"), 2, 10))
    n_sims = int(_number(sims, english("planner_what_sims"), 50, MAX_SIMS))
    item_list = _ints(items, english("column_items"), 3, 500)
    rater_list = _ints(raters, english("board_column_raters"), 1, 50)
    if len(item_list) * len(rater_list) > MAX_GRID_CELLS:
        raise UserError(messages.text("planner_too_many_cells", n=MAX_GRID_CELLS))
    if n_sims * sum(i * r * k for i in item_list for r in rater_list) > MAX_WORK:
        raise UserError(english("planner_too_large"))
    if not isinstance(dimension, str) or not dimension.strip():
        raise UserError(english("planner_choose_dimension"))
    source = messages.text("planner_default_sds", lang)
    sds = dict(stats_design.DEFAULT_SD)
    mean = stats_design.Design().mean
    if pilot not in (None, ""):
        sid = _study_id(pilot)
        if store.get_study(sid) is None:
            raise UserError(messages.text("no_study_number", id=sid))
        if dimension not in questions(store, sid):
            raise UserError(messages.text("planner_no_question", id=sid, question=repr(dimension)))
        ratings = store.ratings_frame(sid)
        try:
            sds = stats_design.pilot_sds(ratings, dimension)
        except ValueError as exc:
            raise UserError(messages.text("planner_pilot_error", id=sid, error=str(exc))) from None
        mean = float(pd.to_numeric(ratings[dimension]).mean())
        source = messages.text("planner_pilot_sds", lang, id=sid)
    grid, line = stats_design.plan(
        d, items=item_list, raters=rater_list, methods=k, sds=sds, mean=mean, n_studies=n_sims, lang=lang
    )
    table = grid.pivot(index="items", columns="raters", values="power")
    table.columns = [messages.text("planner_raters_column", lang, n=int(c)) for c in table.columns]
    table = table.reset_index().apply(lambda col: col.map(lambda v: f"{v:.0%}" if isinstance(v, float) else v))
    sd_text = messages.text("story_list", lang).join(
        f"{messages.translated(name, lang)} {value:.2f}" for name, value in sds.items()
    )
    text = messages.text(
        "planner_sentence", lang, line=md_text(line), source=md_text(source), sds=md_text(sd_text),
        mean=f"{mean:.2f}", n=n_sims,
    )  # fmt: skip
    return table, text


def questions(store: Any, selected: Any) -> list[str]:
    """The questions of study `selected` (its rubric's dimensions, in order): what the power planner
    offers for it. The default three where no study (or no such study) is chosen."""
    try:
        study = store.get_study(_study_id(selected)) if selected not in (None, "") else None
    except UserError:
        study = None
    return list(study.rubric.numeric) if study is not None else list(hcols.DIMENSIONS)


def dimension_for(store: Any, chosen: Any, pilot: Any, current: Any = None) -> dict[str, Any]:
    """The planner's Dimension box for the study in view: the pilot's questions when a pilot is chosen,
    else the chosen study's; the current choice kept when it is one of them, else the first."""
    names = questions(store, pilot if pilot not in (None, "") else chosen)
    return gr.update(choices=names, value=current if current in names else names[0])


def study_choices(store: Any) -> list[tuple[str, int]]:
    return [(f"#{s.id} {s.name}", int(s.id)) for s in store.list_studies()]


def build(ctx: AppContext, password: Any = None, study: Any = None) -> None:
    """The section. `study`: the Organizer's chosen study, which Diagnose and the planner follow (chosen
    once, up there); without it (the section alone) it has its own Study box and "Load studies"."""
    own = study is None
    with gr.Accordion("Raters, position and power", open=False):
        if password is None:
            password = gr.Textbox(label="Organizer password", type="password", max_lines=1)
        gr.Markdown(english("organizer_diagnostics_help"))
        with gr.Row():
            if own:
                study = gr.Dropdown(choices=[], label="Study", allow_custom_value=True, scale=3)
                load = gr.Button("Load studies", scale=1)
            diagnose = gr.Button("Diagnose", variant="primary", scale=1)
        diag_text = gr.Markdown("")
        # Tables hidden until they have a value (no empty boxes; see ui/results.py).
        diag_table = gr.Dataframe(label="Per rater", interactive=False, wrap=True, visible=False)
        pos_table = gr.Dataframe(label=english("organizer_position_effect"), interactive=False, visible=False)
        gr.Markdown(english("organizer_power_help"))
        with gr.Row():
            pilot = gr.Dropdown(
                choices=[], label="Pilot study for the variances (empty: defaults)", allow_custom_value=True, scale=2
            )
            dimension = gr.Dropdown(list(hcols.DIMENSIONS), value=hcols.DIMENSIONS[0], label="Dimension", scale=1)
            delta = gr.Number(0.5, label="Δ (score points)", minimum=0.05, maximum=4, scale=1)
            methods = gr.Number(3, precision=0, minimum=2, maximum=10, label="Methods in the study", scale=1)
        with gr.Row():
            items = gr.Textbox("8, 12, 16, 24, 32, 48, 64", label="Items to try", max_lines=1)
            raters = gr.Textbox("1, 2, 3, 5", label="Raters to try", max_lines=1)
            sims = gr.Number(200, precision=0, minimum=50, maximum=MAX_SIMS, label="Simulated studies per design")
        plan_btn = gr.Button("Plan")
        plan_text = gr.Markdown("")
        plan_table = gr.Dataframe(label="Power by items (rows) and raters (columns)", interactive=False, visible=False)

    def guarded(fn):
        return organizer_auth.guarded(ctx, fn)

    def do_load():
        options = study_choices(store_for(ctx))
        return gr.update(choices=options), gr.update(choices=options)

    def do_follow(chosen, pilot_study, current):  # a study chosen: the pilots offered, its questions
        store = store_for(ctx)
        return gr.update(choices=study_choices(store)), dimension_for(store, chosen, pilot_study, current)

    def do_pilot(chosen, pilot_study, current):
        return dimension_for(store_for(ctx), chosen, pilot_study, current)

    def do_diagnose(chosen, lang="en"):
        per_rater, position, text = diagnostics(store_for(ctx), chosen, lang)
        return shown(per_rater), shown(position), text

    def do_plan(pilot_study, dim, d, k, item_text, rater_text, n_sims, lang="en"):
        table, text = power_plan(store_for(ctx), pilot_study, dim, d, k, item_text, rater_text, n_sims, lang)
        return shown(table), text

    private: dict[str, Any] = dict(api_visibility="private")
    if own:
        load.click(guarded(do_load), [password], [study, pilot], **private)
    study.change(guarded(do_follow), [password, study, pilot, dimension], [pilot, dimension], **private)
    pilot.change(guarded(do_pilot), [password, study, pilot, dimension], [dimension], **private)
    diagnose.click(guarded(do_diagnose), [password, study], [diag_table, pos_table, diag_text], **private)
    plan_btn.click(
        guarded(do_plan),
        [password, pilot, dimension, delta, methods, items, raters, sims],
        [plan_table, plan_text],
        concurrency_limit=1,
        **private,
    )
