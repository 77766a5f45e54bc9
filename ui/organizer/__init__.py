"""The "Organizer" tab: create studies and pre-generate their outputs, follow progress per study and
rater, reveal the blind mapping, export and import ratings, and (in the danger zone) delete a study or
one rater's ratings in it, after typing the study's name and with an export written first.

`build` lays the tab out and wires it; the handlers are ui/organizer/handlers.py, what the creation
form means ui/organizer/forms.py, the password ui/organizer/auth.py (checked on the server for every
handler; with no password set, the tab is disabled), the panels for the blind (blinding.py) and the
raters' statistics (stats.py), the tables and the preview line (dashboard.py). Handlers are private to
the UI (not offered through the API), but they do not rely on that.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import gradio as gr
import pandas as pd

import decoders
from arena import studies
from arena.engines import model_choices
from arena.model.hardware import hardware_banner, storage_banner
from arena.model.llm import loaded_default
from arena.rating.attention import MAX_ATTENTION_ITEMS
from arena.runs.requests import DEFAULT_MAX_NEW_TOKENS, MAX_NEW_TOKENS_RANGE
from arena.settings import current as current_settings
from common.messages import english

from .. import AppContext, organizer_models, store_for, web
from ..handler import handler
from ..i18n import language_of_request
from ..rate.guidelines import DEFAULT_GUIDELINES
from . import accounts as accounts_panel
from . import blinding, dashboard
from . import handlers as h
from . import stats as stats_panel
from .auth import guarded
from .forms import (
    DESIGN_CHOICES,
    EXCLUSION_CHOICES,
    FIELDS,
    GUESS_CHOICES,
    SOURCE_CHOICES,
    SOURCE_KEYS,
    prompts_from,
    rubric_example,
    rubric_preview,
)
from .forms import (
    SOURCES as SOURCES,  # the radio's labels, for the tests that name a source
)
from .words import in_language

# The copy buttons of the invite links: one listener on the block, the link in each button's data-copy.
COPY_JS = """
element.addEventListener('click', (e) => {
  const b = e.target.closest('button[data-copy]');
  if (!b) return;
  const text = b.getAttribute('data-copy');
  // the words are the button's own (handlers.invite_links_html writes them in the reader's language)
  if (!b.dataset.label) b.dataset.label = b.textContent;
  const done = () => {
    b.textContent = b.dataset.done || b.dataset.label;
    setTimeout(() => { b.textContent = b.dataset.label; }, 1500);
  };
  const fallback = () => {
    const t = document.createElement('textarea'); t.value = text; document.body.appendChild(t);
    t.select(); document.execCommand('copy'); t.remove(); done();
  };
  if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(text).then(done, fallback);
  else fallback();
});
"""


def download_js(filename: str, mime: str) -> str:
    """A front-end handler that saves its one input (text) as a file in the browser."""
    return (
        "(text) => { if (text) { const a = document.createElement('a');"
        f" a.href = URL.createObjectURL(new Blob([text], {{type: '{mime};charset=utf-8'}}));"
        f" a.download = '{filename}'; document.body.appendChild(a); a.click(); a.remove(); }} return []; }}"
    )


def _locked(columns: list[str]) -> Any:
    return dashboard.empty_table(columns, english("organizer_enter_password"))


def first_tables(tables: list[Any], request: gr.Request) -> list[Any]:
    """The tables' first values (before any handler fills them) in the browser's language: a page is
    built once for every reader, and a table's header is not translated in the browser."""
    return [in_language(table, language_of_request(request)) for table in tables]


def build(ctx: AppContext) -> None:
    gr.Markdown(english("organizer_intro"))
    loaded = loaded_default()  # the model's device, if it is loaded (a rating-only app may not load it)
    for banner in (storage_banner(), hardware_banner(loaded.device if loaded is not None else None)):
        if banner:
            gr.Markdown(banner, elem_classes=["arena-banner"])
    c = SimpleNamespace()
    c.password = gr.Textbox(label="Organizer password", type="password", max_lines=1)
    c.status = gr.Markdown("")
    with gr.Accordion("Create a study", open=True):
        _create_form(c)
    with gr.Accordion("Studies and progress", open=True):
        _studies_panel(c)
        _invites_panel(c)
        _exports_panel(c)
    with gr.Accordion("Danger zone: delete a study or one rater's ratings", open=False):
        _danger_zone(c)
    accounts_panel.build(ctx, c.password, c.chosen)  # raters who sign in with Hugging Face instead of a code
    blinding.build(ctx, c.password, c.chosen)  # form check before rating, blinding index after close
    stats_panel.build(ctx, c.password, c.chosen)  # raters' diagnostics, position effect, power planner
    _wire(ctx, c)
    tables = [
        t for t in (c.table, c.per_rater, c.flag_list, c.invite_table, c.enrolled, c.balance, c.blocks, c.mapping)
    ]
    first = [t.value for t in tables]  # Gradio keeps a table's value as {"headers", "data"}
    frames = [pd.DataFrame(v["data"], columns=v["headers"]) for v in first]
    ctx.extras.setdefault("loaders", []).append((handler(first_tables, frames), [], tables))


def _create_form(c: SimpleNamespace) -> None:
    gr.Markdown("Raters see the study's name: keep method names out of it.")
    with gr.Row():
        c.name = gr.Textbox(label="Study name", max_lines=1)
        # (label, value): the browser shows the label in its language and still sends the English value
        c.source = gr.Radio(SOURCE_CHOICES, value=SOURCE_KEYS[0], label="Prompts")
        c.language = gr.Dropdown(["all", "en", "zh"], value="all", label="Built-in scenarios: language")
    c.pasted = gr.Textbox(label="Pasted prompts (one per line)", lines=4)
    c.upload = gr.File(label=english("organizer_prompt_file"), file_types=[".csv", ".jsonl", ".txt"])
    with gr.Row():
        c.methods = gr.CheckboxGroup(decoders.names(), value=list(decoders.DEFAULT_METHODS), label="Methods")
        c.samples = gr.Number(
            1, precision=0, minimum=1, maximum=studies.MAX_SAMPLES, label="Samples per stochastic method"
        )
        low, high = MAX_NEW_TOKENS_RANGE
        c.max_new = gr.Number(DEFAULT_MAX_NEW_TOKENS, precision=0, minimum=low, maximum=high, label="max_new_tokens")
        # A text box, not gr.Number: a Number shows and sends 0 when left empty, and a study made
        # without touching it got the public base seed 0 (issue 32).
        c.seed = gr.Textbox(
            "", label=english("organizer_base_seed"), placeholder="empty: secret and random", max_lines=1
        )
    _models_row(c)
    c.guidelines = gr.Textbox(label=english("organizer_guidelines_box"), lines=4)
    # No method is named in the label: it is in the translation table every page gets, the rating
    # page included (tests/test_blind_routes_live.py route 8).
    c.guess = gr.Dropdown(GUESS_CHOICES, value="off", label=english("organizer_measure_blind"))
    c.design = gr.Radio(
        DESIGN_CHOICES,
        value=DESIGN_CHOICES[0][1],
        label=english("organizer_design"),
        elem_id="organizer-design",
    )
    _quality_form(c)
    with gr.Accordion("The default guidelines", open=False):
        gr.Markdown(DEFAULT_GUIDELINES)
    c.preview = gr.Markdown("", elem_id="organizer-preview")  # "N prompts × M methods = K outputs, about T min"
    c.create = gr.Button("Create study and generate its outputs", variant="primary")


def _quality_form(c: SimpleNamespace) -> None:
    """The study's own questions (a rubric as JSON, previewed as raters will see it) and the rater
    quality control declared now: attention items and the exclusion rule."""
    with gr.Accordion(english("organizer_rubric_box"), open=False, elem_id="organizer-rubric-box"):
        c.rubric = gr.Textbox(
            label=english("organizer_rubric"), lines=4, elem_id="organizer-rubric",
        )  # fmt: skip
        c.rubric_example = gr.Button(english("organizer_rubric_example"), size="sm")
        c.rubric_preview = gr.Markdown(rubric_preview(""), elem_id="organizer-rubric-preview")
        with gr.Row():
            c.attention = gr.Number(
                0, precision=0, minimum=0, maximum=MAX_ATTENTION_ITEMS, label=english("organizer_attention"),
                info=english("organizer_attention_info"),
            )  # fmt: skip
            c.exclude = gr.CheckboxGroup(EXCLUSION_CHOICES, value=[], label=english("organizer_exclusion"))


def _models_row(c: SimpleNamespace) -> None:
    """The models (ui/organizer_models.py): the app's alone = a study of methods, as before."""
    c.model_names = names = model_choices(current_settings().model)
    with gr.Row():
        c.models = gr.CheckboxGroup(
            names, value=names[:1], label=organizer_models.MODELS_LABEL, info=organizer_models.MODELS_INFO,
            visible=len(names) > 1, elem_id="organizer-models", scale=3,
        )  # fmt: skip
        c.scorer = gr.Dropdown(
            organizer_models.scorer_choices(names), value=organizer_models.SCORER_FIRST,
            label=organizer_models.SCORER_LABEL, visible=len(names) > 1, elem_id="organizer-scorer", scale=1,
        )  # fmt: skip
    for note in organizer_models.model_notes(names) if len(names) > 1 else []:
        gr.Markdown(note, elem_classes=["organizer-model-note"])


def _studies_panel(c: SimpleNamespace) -> None:
    with gr.Row():
        # filled once the password is given; any value is re-checked on the server
        c.chosen = gr.Dropdown(choices=[], label="Study", scale=3, allow_custom_value=True)
        c.refresh = gr.Button("Refresh", scale=0)
        c.resume = gr.Button("Resume generation", scale=1)
    c.table = gr.Dataframe(value=_locked([english("organizer_col_studies")]), label="Studies", interactive=False)
    c.per_rater = gr.Dataframe(
        value=_locked(dashboard.RATER_COLUMNS), label="Progress per rater (chosen study)", interactive=False
    )
    c.flag_list = gr.Dataframe(
        value=_locked(dashboard.FLAG_COLUMNS), label="Flags from raters (chosen study): problems they reported",
        interactive=False, wrap=True,
    )  # fmt: skip
    with gr.Row():
        c.open_btn = gr.Button("Open for rating")
        c.close_btn = gr.Button("Close rating")
        c.publish_btn = gr.Button("Publish results")
    gr.Markdown(english("organizer_lifecycle"))


def _invites_panel(c: SimpleNamespace) -> None:
    with gr.Row():
        c.invite_names = gr.Textbox(
            label="Invite raters (names, comma or line separated; display only)", lines=2, scale=3
        )
        c.invite_btn = gr.Button("Create invite codes", scale=1)
        c.revoke_name = gr.Textbox(label="Revoke a rater's code", max_lines=1, scale=2)
        c.revoke_btn = gr.Button("Revoke", variant="stop", scale=1)
    c.invite_table = gr.Dataframe(
        value=dashboard.empty_table(
            [english(k) for k in ("stat_component_rater", "organizer_col_code", "organizer_col_link")],
            english("organizer_no_new_codes"),
        ),
        label=english("organizer_new_codes"), interactive=False, wrap=True,
    )  # fmt: skip
    # The CSV goes from the handler's answer straight into a download in the browser: no file on the
    # server (a file in Gradio's folder would download for anyone with its address).
    c.invite_links = gr.HTML("", elem_id="organizer-invite-links", js_on_load=COPY_JS)
    c.invite_csv = gr.Textbox(visible=False)
    c.invite_download = gr.Button("Download the new invite codes (CSV)", size="sm")
    c.enrolled = gr.Dataframe(
        value=_locked(dashboard.ENROLMENT_COLUMNS), label="Enrolled raters (chosen study)", interactive=False
    )
    with gr.Row():
        c.balance = gr.Dataframe(
            value=_locked([english("organizer_col_position_balance")]),
            label=english("organizer_position_balance"),
            interactive=False,
        )
        c.blocks = gr.Dataframe(
            value=_locked([english("organizer_col_balanced_blocks")]),
            label="Balanced blocks per rater",
            interactive=False,
        )


def _exports_panel(c: SimpleNamespace) -> None:
    with gr.Row():
        c.reveal_btn = gr.Button("Reveal the blind mapping")
        c.export_csv = gr.Button("Export ratings (CSV)")
        c.export_jsonl = gr.Button("Export ratings (JSONL)")
        c.export_votes = gr.Button("Export votes (pairwise, closed)")
        c.export_pairs = gr.Button("Export preference pairs (DPO JSONL, closed)")
    c.mapping = gr.Dataframe(
        value=dashboard.empty_table([english("organizer_col_label")], english("organizer_not_revealed")),
        label="Blind mapping: which method stood behind each label", interactive=False,
    )  # fmt: skip
    c.export_data = gr.Textbox(visible=False)
    gr.Markdown(english("organizer_export_note"))
    with gr.Row():
        c.import_file = gr.File(label="Import an export (.csv or .jsonl)", file_types=[".csv", ".jsonl"])
        c.import_btn = gr.Button("Import")


def _danger_zone(c: SimpleNamespace) -> None:
    gr.Markdown(english("organizer_delete_note"))
    with gr.Row():
        c.del_study = gr.Dropdown(choices=[], label="Study", scale=2, allow_custom_value=True)
        c.del_confirm = gr.Textbox(label="Type the study's exact name to confirm", max_lines=1, scale=2)
        c.del_rater = gr.Textbox(label="Rater (only to delete one rater's ratings)", max_lines=1, scale=2)
    with gr.Row():
        c.del_study_btn = gr.Button("Delete this study", variant="stop")
        c.del_rater_btn = gr.Button("Delete this rater's ratings in this study", variant="stop")
    c.del_files = gr.File(
        label="Export written before deleting", file_count="multiple", interactive=False, visible=False
    )


def _wire(ctx: AppContext, c: SimpleNamespace) -> None:
    store, pw = store_for(ctx), c.password
    overview = [c.chosen, c.table, c.per_rater, c.status, c.del_study]
    private: dict[str, Any] = dict(api_visibility="private")
    generation: dict[str, Any] = dict(concurrency_limit=1, concurrency_id="generation", **private)
    ticket = gr.Textbox(visible=False)
    unlock = guarded(ctx, h.unlock, store)
    pw.submit(unlock, [pw], [*overview, ticket], **private).success(
        None, [ticket], None, js=web.TRADE_TICKET_JS, **private
    )
    c.refresh.click(unlock, [pw, c.chosen], [*overview, ticket], **private).success(
        None, [ticket], None, js=web.TRADE_TICKET_JS, **private
    )
    c.chosen.input(guarded(ctx, h.overview, store), [pw, c.chosen], overview, **private)
    # The form's controls by StudyForm's field names: Create gathers their values into one StudyForm.
    controls = dict(
        study_name=c.name, source=c.source, language=c.language, pasted=c.pasted, upload=c.upload, methods=c.methods,
        samples=c.samples, max_new_tokens=c.max_new, base_seed=c.seed, guidelines=c.guidelines, guess=c.guess,
        design=c.design, models=c.models, scorer=c.scorer, rubric=c.rubric, attention_items=c.attention,
        exclusion=c.exclude,
    )  # fmt: skip
    form = [controls[name] for name in FIELDS]
    # the preview line above the button is an output too: the progress bar runs next to the button
    c.create.click(
        guarded(ctx, h.on_create, store, ctx.model, c.model_names), [pw, *form], [*overview, c.preview],
        **generation,
    )  # fmt: skip
    # Behind the password as every organizer handler (tests/test_rating_api.py), though they read nothing stored.
    preview = guarded(ctx, rubric_preview)
    c.rubric.change(preview, [pw, c.rubric], [c.rubric_preview], show_progress="hidden", **private)
    c.rubric_example.click(guarded(ctx, rubric_example), [pw], [c.rubric], show_progress="hidden", **private)
    c.resume.click(guarded(ctx, h.resume, store, ctx.model, c.model_names), [pw, c.chosen], overview, **generation)
    c.reveal_btn.click(guarded(ctx, h.reveal, store), [pw, c.chosen], [c.mapping, c.status], **private)
    for button, action in ((c.open_btn, studies.open_study), (c.close_btn, studies.close_study),
                           (c.publish_btn, studies.publish_study)):  # fmt: skip
        button.click(guarded(ctx, h.set_state, store, action), [pw, c.chosen], overview, **private)
    _wire_invites(ctx, c, store)
    c.chosen.change(guarded(ctx, h.design, store), [pw, c.chosen], [c.enrolled, c.balance, c.blocks], **private)
    c.chosen.change(guarded(ctx, h.flags_of, store), [pw, c.chosen], [c.flag_list], **private)
    c.refresh.click(guarded(ctx, h.flags_of, store), [pw, c.chosen], [c.flag_list], **private)
    # Pasting prompts means "use these": switch the source so they are not silently ignored.
    # (.change, not .input: text set by a script counts too; Create decides by content anyway.)
    c.pasted.change(
        lambda text: gr.update(value=SOURCE_KEYS[1]) if str(text or "").strip() else gr.update(), [c.pasted], [c.source],
        **private,
    )  # fmt: skip
    c.upload.change(lambda f: gr.update(value=SOURCE_KEYS[2]) if f else gr.update(), [c.upload], [c.source], **private)
    _wire_exports(ctx, c, store)
    # The password is the first input, checked before anything else (auth.guarded).
    deletion = [c.del_files, c.status, c.chosen, c.table, c.per_rater, c.del_study, c.del_confirm]
    danger: dict[str, Any] = dict(concurrency_limit=1, concurrency_id="deletion", **private)
    c.del_study_btn.click(
        guarded(ctx, h.delete_study, store), [pw, c.del_study, c.del_confirm, c.chosen], deletion, **danger
    )
    c.del_rater_btn.click(
        guarded(ctx, h.delete_rater_ratings, store), [pw, c.del_study, c.del_rater, c.del_confirm, c.chosen],
        deletion, **danger,
    )  # fmt: skip
    # Last, so the password box's first handler stays "unlock" (the preview also listens to Enter there).
    inputs = [c.source, c.language, c.pasted, c.upload, c.methods, c.samples, c.max_new, c.models, c.attention]
    dashboard.wire_preview(ctx, c.preview, inputs, prompts_from, pw, c.model_names)


def _wire_invites(ctx: AppContext, c: SimpleNamespace, store: Any) -> None:
    private: dict[str, Any] = dict(api_visibility="private")
    made = [c.invite_table, c.invite_links, c.invite_csv, c.enrolled, c.balance, c.blocks, c.per_rater, c.status]
    download = download_js("invite-codes.csv", "text/csv")
    c.invite_btn.click(
        guarded(ctx, h.invite, store), [c.password, c.chosen, c.invite_names], [*made, c.invite_names], **private
    ).success(None, [c.invite_csv], None, js=download, **private)
    c.invite_download.click(None, [c.invite_csv], None, js=download, **private)
    c.revoke_btn.click(
        guarded(ctx, h.revoke, store), [c.password, c.chosen, c.revoke_name], [c.enrolled, c.balance, c.blocks, c.status],
        **private,
    )  # fmt: skip


def _wire_exports(ctx: AppContext, c: SimpleNamespace, store: Any) -> None:
    private: dict[str, Any] = dict(api_visibility="private")
    exports = (
        (c.export_csv, h.export_ratings, "csv", "ratings.csv", "text/csv"),
        (c.export_jsonl, h.export_ratings, "jsonl", "ratings.jsonl", "application/x-ndjson"),
        (c.export_votes, h.export_votes, None, "votes.csv", "text/csv"),
        (c.export_pairs, h.export_pairs, None, "pairs.jsonl", "application/x-ndjson"),
    )
    for button, fn, fmt, filename, mime in exports:
        run = guarded(ctx, fn, store, fmt) if fmt else guarded(ctx, fn, store)
        inputs = [c.password] if fmt else [c.password, c.chosen]
        button.click(run, inputs, [c.export_data, c.status], **private).success(
            None, [c.export_data], None, js=download_js(filename, mime), **private
        )
    c.import_btn.click(guarded(ctx, h.import_ratings, store), [c.password, c.import_file],
                       [c.chosen, c.table, c.per_rater, c.status, c.del_study], **private)  # fmt: skip
