"""Organizer section "Is the blind holding?": the form check before rating starts (how recognisable each
method is from the form of its responses alone, with remedies: `evaluation.form_cues`) and, once a
study is closed, the blinding index from raters' guesses (`evaluation.blinding`). Every handler checks
the organizer password on the server, as the rest of the tab does; when each may be shown is decided
by the evaluation functions, this module only shows their answer.

Included from ui/organizer/__init__.py's build: `build(ctx, password, study)` with the tab's password box and
study dropdown; the password check is ui/organizer/auth.py's, as for every organizer panel.
"""

from __future__ import annotations

from typing import Any

import gradio as gr
import pandas as pd

from arena.inputs.numbers import study_id as parse_study_id
from common.messages import english, text
from evaluation import blinding, form_cues

from .. import AppContext, store_for
from ..safe import md_text
from . import auth as organizer_auth


def form_check_text(store: Any, study: Any, lang: str = "en") -> str:
    """The form check of a study in Markdown, in `lang` (or why it is not shown now)."""
    result = form_cues.study_report(store, parse_study_id(study))
    if result.empty:
        return text("form_check_no_outputs", lang)
    return "\n".join(f"- {md_text(line)}" for line in form_cues.summary_lines(result, lang))


def blinding_text(store: Any, study: Any, lang: str = "en") -> tuple[str, pd.DataFrame]:
    """The blinding index of a closed study in Markdown, in `lang`, and as a table (its column names in
    English: auth.guarded shows them in the reader's language)."""
    result = blinding.closed_study_blinding(store, parse_study_id(study))
    if result.empty:
        return text("blinding_no_answers", lang), pd.DataFrame()
    lines = "\n".join(f"- {md_text(line)}" for line in blinding.summary_lines(result, lang))
    table = result.drop(columns=["study_id"]).round({"index": 3, "ci_low": 3, "ci_high": 3, "chance": 3})
    return lines, table


def build(ctx: AppContext, password: Any, study: Any) -> None:
    with gr.Accordion(english("organizer_blinding_title"), open=False):
        gr.Markdown(english("organizer_form_check_help"))
        with gr.Row():
            form_btn = gr.Button("Form check")
            index_btn = gr.Button("Blinding index")
        form_text = gr.Markdown("", elem_id="organizer-form-check")
        index_text = gr.Markdown("", elem_id="organizer-blinding-index")
        index_table = gr.Dataframe(label="Blinding index per method", interactive=False)

    def guarded(fn):
        return organizer_auth.guarded(ctx, fn)

    def do_form(chosen, lang="en"):
        return form_check_text(store_for(ctx), chosen, lang)

    def do_index(chosen, lang="en"):
        return blinding_text(store_for(ctx), chosen, lang)

    private: dict[str, Any] = dict(api_visibility="private")
    form_btn.click(guarded(do_form), [password, study], [form_text], concurrency_limit=1, **private)
    index_btn.click(guarded(do_index), [password, study], [index_text, index_table], **private)
