"""The "Organizer" tab: create studies and pre-generate their outputs, follow progress per study and
rater, reveal the blind mapping, export and import ratings, and (in the danger zone) delete a study or
one rater's ratings in it, after typing the study's name and with an export written first.

Every handler checks the password (env ARENA_ORGANIZER_PASSWORD) on the server; with no password
set, the tab is disabled. Handlers are private to the UI (not offered through the API), but they do
not rely on that.
"""

from __future__ import annotations

import html
import io
from pathlib import Path
from typing import Any

import gradio as gr
import pandas as pd

import decoders
from arena import blind, clients, export, guessing, invites, pair_export, sessions, studies, systems
from arena.engines import model_choices
from arena.eta import GenerationEta
from arena.hardware import hardware_banner, storage_banner
from arena.llm import loaded_default
from arena.numbers import study_id as parse_study_id
from arena.preferences import preference_pairs, write_preference_jsonl
from arena.requests import DEFAULT_MAX_NEW_TOKENS, MAX_NEW_TOKENS_RANGE
from arena.runner import load_on_compute
from arena.settings import current as current_settings
from common.errors import UserError
from common.messages import english
from evaluation import form_cues, replay_check
from evaluation.perplexity import SCORES

from . import (
    AppContext,
    organizer_auth,
    organizer_blinding,
    organizer_dashboard,
    organizer_models,
    organizer_stats,
    web,
)
from .empty import shown
from .organizer_auth import check as _check
from .rating import DEFAULT_GUIDELINES, store_for
from .safe import md_text, toast


def download_js(filename: str, mime: str) -> str:
    """A front-end handler that saves its one input (text) as a file in the browser."""
    return (
        "(text) => { if (text) { const a = document.createElement('a');"
        f" a.href = URL.createObjectURL(new Blob([text], {{type: '{mime};charset=utf-8'}}));"
        f" a.download = '{filename}'; document.body.appendChild(a); a.click(); a.remove(); }} return []; }}"
    )


# The study's design, as the creation form names it -> arena's name (STUDY_DESIGNS).
DESIGNS: dict[str, str] = {"1–5 scores": "scores", "Pairwise A vs B": "pairwise"}
SOURCES = (
    "Built-in scenarios",
    "Pasted list (one prompt per line)",
    "Uploaded CSV / JSONL",
    "Article 003's tasks (math, code, summary; checked automatically)",
)
# "Measure the blind": which method raters are asked to pick out after each item (arena/guessing.py).
GUESS_CHOICES: list[tuple[str, str]] = [
    ("No question", "off"),
    *[(f"Ask which response came from {m}", m) for m in decoders.names()],
    ("Ask about each method in turn", guessing.EACH),
]
BOTH_SOURCES = (
    "there are pasted prompts and an uploaded file: clear the one you do not want (the pasted box, or the "
    "file with its ×) and press Create again; nothing was generated"
)
# The copy buttons of the invite links: one listener on the block, the link in each button's data-copy.
COPY_JS = """
element.addEventListener('click', (e) => {
  const b = e.target.closest('button[data-copy]');
  if (!b) return;
  const text = b.getAttribute('data-copy');
  const done = () => { b.textContent = 'Copied'; setTimeout(() => { b.textContent = 'Copy link'; }, 1500); };
  const fallback = () => {
    const t = document.createElement('textarea'); t.value = text; document.body.appendChild(t);
    t.select(); document.execCommand('copy'); t.remove(); done();
  };
  if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(text).then(done, fallback);
  else fallback();
});
"""


def _file_path(upload: Any) -> str | None:
    if upload is None:
        return None
    if isinstance(upload, (str, Path)):
        return str(upload)
    return getattr(upload, "name", None) or (upload.get("path") if isinstance(upload, dict) else None)


def effective_source(source: str, pasted: Any, upload: Any) -> str:
    """Where the prompts come from: the content decides. A non-empty pasted box or an uploaded file
    wins over the radio (text put in by a script, or a paste the radio did not notice, is never
    silently replaced by the built-ins); both at once is a question for the organizer (UserError)."""
    has_pasted, has_file = bool(str(pasted or "").strip()), bool(_file_path(upload))
    if has_pasted and has_file:
        raise UserError(BOTH_SOURCES)
    if has_pasted:
        return SOURCES[1]
    if has_file:
        return SOURCES[2]
    return source


def prompts_from(source: str, language: str, pasted: str, upload: Any) -> list[studies.PromptSpec]:
    source = effective_source(source, pasted, upload)
    if source == SOURCES[0]:
        return studies.builtin_prompts(None if language == "all" else language)
    if source == SOURCES[1]:
        specs = studies.parse_pasted(pasted)
        if not specs:
            raise UserError("paste at least one prompt, one per line")
        return specs
    if source == SOURCES[2]:
        path = _file_path(upload)
        if not path:
            raise UserError("upload a .csv, .jsonl or .txt file of prompts")
        return studies.parse_prompt_file(path)
    if source == SOURCES[3]:
        return studies.task_prompts(None if language == "all" else language)
    raise UserError("choose where the prompts come from")


def studies_table(ctx: AppContext) -> pd.DataFrame:
    store = store_for(ctx)
    rows = []
    for s in store.list_studies(kind="study"):  # quick ratings from Compare are not the organizer's studies
        summary = store.study_summary(s.id)
        expected = (
            summary["items"] * len(studies.expected_slots(s.methods, s.samples_per_method))
            if s.kind == "study"
            else summary["outputs"]
        )
        rows.append(
            {
                "id": s.id,
                "name": s.name,
                "state": s.state,
                "kind": "pairwise" if s.design == "pairwise" else s.kind,
                "model": ", ".join(systems.models_in(s.methods)) or s.model,
                "methods": ", ".join(dict.fromkeys(systems.method_of(m) for m in s.methods)),
                "samples": s.samples_per_method,
                "items": summary["items"],
                "outputs": f"{summary['outputs']} / {expected}",
                "ready items": len(studies.ready_item_ids(store, s.id)),
                "raters": summary["raters"],
                "ratings": len(store.votes(s.id)) if s.design == "pairwise" else summary["ratings"],
                "created": organizer_dashboard.second(s.created_at),
            }
        )
    if not rows:
        return organizer_dashboard.empty_table(STUDY_COLUMNS, "no studies yet: create one above")
    return pd.DataFrame(rows, columns=STUDY_COLUMNS)


STUDY_COLUMNS = [
    "id",
    "name",
    "state",
    "kind",
    "model",
    "methods",
    "samples",
    "items",
    "outputs",
    "ready items",
    "raters",
    "ratings",
    "created",
]


def invite_base(request: Any) -> str | None:
    """The base of invite links: ARENA_PUBLIC_URL when set, else the address the organizer's own
    request came to (arena/clients.py: forwarded headers only from trusted proxies); None for the
    relative link when neither is known."""
    return current_settings().public_url or clients.base_url(request) or None


def invite_links_html(made: list[invites.Invite]) -> str:
    """The new invite links, each with a Copy button (HTML; every name and link escaped)."""
    if not made:
        return ""
    rows = "".join(
        f'<li><span class="arena-invite-rater">{html.escape(i.rater)}</span> '
        f"<code>{html.escape(i.link)}</code> "
        f'<button type="button" class="arena-copy" data-copy="{html.escape(i.link, quote=True)}" '
        f'aria-label="Copy the invite link of {html.escape(i.rater, quote=True)}">Copy link</button></li>'
        for i in made
    )
    return f'<ul class="arena-invite-links">{rows}</ul>'


def study_options(ctx: AppContext) -> list[tuple[str, int]]:
    return [(f"#{s.id} {s.name}", int(s.id)) for s in store_for(ctx).list_studies(kind="study")]


def quick_line(ctx: AppContext) -> str:
    """How many quick ratings from Compare exist (they are not listed; they expire on their own)."""
    n = len(store_for(ctx).list_studies(kind="adhoc"))
    if not n:
        return "Unlocked."
    hours = current_settings().quick_study_hours
    return (
        f'Unlocked. {n} quick rating{"s" if n != 1 else ""} from Compare ("Rate these blind") '
        f"{'are' if n != 1 else 'is'} not listed; each is deleted {hours:g} h after it was made."
    )


def _study_id(value: Any) -> int:
    return parse_study_id(value)


def _forget_cached_scores() -> None:
    SCORES.forget()


def delete_study(ctx: AppContext, password: Any, study: Any, typed_name: Any, request: Any = None) -> studies.Deletion:
    """The danger zone's "Delete this study": password, then the study's exact name, then a copy, then
    the deletion. Raises UserError with the reason when it refuses (nothing is deleted then)."""
    _check(ctx, password, request)
    deletion = studies.delete_study(store_for(ctx), study, typed_name)
    _forget_cached_scores()
    return deletion


def delete_rater_ratings(
    ctx: AppContext, password: Any, study: Any, rater: Any, typed_name: Any, request: Any = None
) -> studies.Deletion:
    """The danger zone's "Delete this rater's ratings": as `delete_study`, for one rater in one study."""
    _check(ctx, password, request)
    return studies.delete_rater_ratings(store_for(ctx), study, rater, typed_name)


def _locked(columns: list[str]) -> pd.DataFrame:
    return organizer_dashboard.empty_table(columns, "enter the organizer password above")


def build(ctx: AppContext) -> None:
    gr.Markdown(english("organizer_intro"))
    loaded = loaded_default()  # the model's device, if it is loaded (a rating-only app may not load it)
    for banner in (storage_banner(), hardware_banner(loaded.device if loaded is not None else None)):
        if banner:
            gr.Markdown(banner, elem_classes=["arena-banner"])
    password = gr.Textbox(label="Organizer password", type="password", max_lines=1)
    status = gr.Markdown("")

    with gr.Accordion("Create a study", open=True):
        gr.Markdown("Raters see the study's name: keep method names out of it.")
        with gr.Row():
            name = gr.Textbox(label="Study name", max_lines=1)
            source = gr.Radio(list(SOURCES), value=SOURCES[0], label="Prompts")
            language = gr.Dropdown(["all", "en", "zh"], value="all", label="Built-in scenarios: language")
        pasted = gr.Textbox(label="Pasted prompts (one per line)", lines=4)
        upload = gr.File(
            label=english("organizer_prompt_file"),
            file_types=[".csv", ".jsonl", ".txt"],
        )
        with gr.Row():
            methods = gr.CheckboxGroup(decoders.names(), value=list(decoders.DEFAULT_METHODS), label="Methods")
            samples = gr.Number(
                1, precision=0, minimum=1, maximum=studies.MAX_SAMPLES, label="Samples per stochastic method"
            )
            max_new = gr.Number(
                DEFAULT_MAX_NEW_TOKENS,
                precision=0,
                minimum=MAX_NEW_TOKENS_RANGE[0],
                maximum=MAX_NEW_TOKENS_RANGE[1],
                label="max_new_tokens",
            )
            # A text box, not gr.Number: a Number shows and sends 0 when left empty, and a study made
            # without touching it got the public base seed 0 (issue 32).
            seed = gr.Textbox(
                "",
                label=english("organizer_base_seed"),
                placeholder="empty: secret and random",
                max_lines=1,
            )
        # Models (ui/organizer_models.py): the app's alone = a study of methods, as before.
        model_names = model_choices(current_settings().model)
        with gr.Row():
            models_box = gr.CheckboxGroup(
                model_names,
                value=model_names[:1],
                label=organizer_models.MODELS_LABEL,
                info=organizer_models.MODELS_INFO,
                visible=len(model_names) > 1,
                elem_id="organizer-models",
                scale=3,
            )
            scorer = gr.Dropdown(
                organizer_models.scorer_choices(model_names),
                value=organizer_models.SCORER_FIRST,
                label=organizer_models.SCORER_LABEL,
                visible=len(model_names) > 1,
                elem_id="organizer-scorer",
                scale=1,
            )
        for note in organizer_models.model_notes(model_names) if len(model_names) > 1 else []:
            gr.Markdown(note, elem_classes=["organizer-model-note"])
        guidelines = gr.Textbox(label=english("organizer_guidelines_box"), lines=4)
        guess = gr.Dropdown(
            GUESS_CHOICES,
            value="off",
            # No method is named here: this text is in the translation table every page gets, the
            # rating page included (tests/test_blind_routes_live.py route 8).
            label=english("organizer_measure_blind"),
        )
        design_choice = gr.Radio(
            list(DESIGNS),
            value=next(iter(DESIGNS)),
            label=english("organizer_design"),
            elem_id="organizer-design",
        )
        with gr.Accordion("The default guidelines", open=False):
            gr.Markdown(DEFAULT_GUIDELINES)
        preview_line = gr.Markdown("", elem_id="organizer-preview")  # "N prompts × M methods = K outputs, about T min"
        create = gr.Button("Create study and generate its outputs", variant="primary")

    with gr.Accordion("Studies and progress", open=True):
        with gr.Row():
            # filled once the password is given; any value is re-checked on the server
            chosen = gr.Dropdown(choices=[], label="Study", scale=3, allow_custom_value=True)
            refresh = gr.Button("Refresh", scale=0)
            resume = gr.Button("Resume generation", scale=1)
        table = gr.Dataframe(value=_locked(["studies"]), label="Studies", interactive=False)
        per_rater = gr.Dataframe(
            value=_locked(organizer_dashboard.RATER_COLUMNS),
            label="Progress per rater (chosen study)",
            interactive=False,
        )
        flag_list = gr.Dataframe(
            value=_locked(organizer_dashboard.FLAG_COLUMNS),
            label="Flags from raters (chosen study): problems they reported",
            interactive=False,
            wrap=True,
        )
        with gr.Row():
            open_btn = gr.Button("Open for rating")
            close_btn = gr.Button("Close rating")
            publish_btn = gr.Button("Publish results")
        gr.Markdown(english("organizer_lifecycle"))
        with gr.Row():
            invite_names = gr.Textbox(
                label="Invite raters (names, comma or line separated; display only)", lines=2, scale=3
            )
            invite_btn = gr.Button("Create invite codes", scale=1)
            revoke_name = gr.Textbox(label="Revoke a rater's code", max_lines=1, scale=2)
            revoke_btn = gr.Button("Revoke", variant="stop", scale=1)
        invite_table = gr.Dataframe(
            value=organizer_dashboard.empty_table(["rater", "code", "link"], "no new codes yet"),
            label=english("organizer_new_codes"),
            interactive=False,
            wrap=True,
        )
        # The CSV goes from the handler's answer straight into a download in the browser: no file on the
        # server (a file in Gradio's folder would download for anyone with its address).
        invite_links = gr.HTML("", elem_id="organizer-invite-links", js_on_load=COPY_JS)
        invite_csv = gr.Textbox(visible=False)
        invite_download = gr.Button("Download the new invite codes (CSV)", size="sm")
        enrolled = gr.Dataframe(
            value=_locked(organizer_dashboard.ENROLMENT_COLUMNS),
            label="Enrolled raters (chosen study)",
            interactive=False,
        )
        with gr.Row():
            balance = gr.Dataframe(
                value=_locked(["position balance"]),
                label=english("organizer_position_balance"),
                interactive=False,
            )
            blocks = gr.Dataframe(
                value=_locked(["balanced blocks"]), label="Balanced blocks per rater", interactive=False
            )
        with gr.Row():
            reveal_btn = gr.Button("Reveal the blind mapping")
            export_csv = gr.Button("Export ratings (CSV)")
            export_jsonl = gr.Button("Export ratings (JSONL)")
            export_votes = gr.Button("Export votes (pairwise, closed)")
            export_pairs = gr.Button("Export preference pairs (DPO JSONL, closed)")
        mapping = gr.Dataframe(
            value=organizer_dashboard.empty_table(["label"], "not revealed: press the button above"),
            label="Blind mapping: which method stood behind each label",
            interactive=False,
        )
        export_data = gr.Textbox(visible=False)
        gr.Markdown(english("organizer_export_note"))
        with gr.Row():
            import_file = gr.File(label="Import an export (.csv or .jsonl)", file_types=[".csv", ".jsonl"])
            import_btn = gr.Button("Import")

    with gr.Accordion("Danger zone: delete a study or one rater's ratings", open=False):
        gr.Markdown(english("organizer_delete_note"))
        with gr.Row():
            del_study = gr.Dropdown(choices=[], label="Study", scale=2, allow_custom_value=True)
            del_confirm = gr.Textbox(label="Type the study's exact name to confirm", max_lines=1, scale=2)
            del_rater = gr.Textbox(label="Rater (only to delete one rater's ratings)", max_lines=1, scale=2)
        with gr.Row():
            del_study_btn = gr.Button("Delete this study", variant="stop")
            del_rater_btn = gr.Button("Delete this rater's ratings in this study", variant="stop")
        del_files = gr.File(
            label="Export written before deleting", file_count="multiple", interactive=False, visible=False
        )

    # form check before rating, blinding index after close
    organizer_blinding.build(ctx, password, chosen)
    organizer_stats.build(ctx, password)  # raters' diagnostics, position effect, power planner

    def guarded(fn):
        return organizer_auth.guarded(ctx, fn)

    def overview(selected: Any = None):
        options = study_options(ctx)
        value = selected if selected in [v for _, v in options] else (options[0][1] if options else None)
        rater_table = (
            organizer_dashboard.rater_table(store_for(ctx), value)
            if value is not None
            else organizer_dashboard.empty_table(organizer_dashboard.RATER_COLUMNS, "no study yet: create one above")
        )
        return (
            gr.update(choices=options, value=value),
            studies_table(ctx),
            rater_table,
            quick_line(ctx),
            gr.update(choices=options),
        )

    def unlock(selected: Any = None):
        """`overview`, and a one-time ticket the page trades for its organizer session (arena/sessions.py)."""
        return (*overview(selected), sessions.organizer.ticket())

    def design(selected: Any):
        if selected in (None, ""):  # unlocked with no study yet: say so, no "choose a study" toast
            return (
                organizer_dashboard.empty_table(organizer_dashboard.ENROLMENT_COLUMNS, "choose a study above"),
                organizer_dashboard.empty_table(["position balance"], "choose a study above"),
                organizer_dashboard.empty_table(["balanced blocks"], "choose a study above"),
            )
        sid = _study_id(selected)
        store = store_for(ctx)
        people = organizer_dashboard.enrolment_table(store, sid)
        by_method, per_rater = blind.position_balance(store, sid)
        return people, by_method, per_rater

    def flags_of(selected: Any):
        if selected in (None, ""):  # no study chosen yet: an empty table, not an error
            return organizer_dashboard.empty_table(organizer_dashboard.FLAG_COLUMNS, "choose a study above")
        return organizer_dashboard.flag_table(store_for(ctx), _study_id(selected))

    def do_state(action):
        def run(selected):
            sid = _study_id(selected)
            action(store_for(ctx), sid)
            choice, table_value, raters, _, danger = overview(sid)
            state = store_for(ctx).get_study(sid).state
            return choice, table_value, raters, f"Study #{sid} is now **{state}**.", danger

        return run

    def do_invite(selected, names, request=None):
        sid = _study_id(selected)
        wanted = [n for n in str(names or "").replace("\n", ",").split(",") if n.strip()]
        made = invites.invite(store_for(ctx), sid, wanted, base_url=invite_base(request))
        table_value = pd.DataFrame([{"rater": i.rater, "code": i.code, "link": i.link} for i in made])
        return (
            table_value,
            invite_links_html(made),
            invites.invites_csv(made),
            *design(sid),
            organizer_dashboard.rater_table(store_for(ctx), sid),  # the new raters, "not started"
            f"{len(made)} invite code{'s' if len(made) != 1 else ''} created for study #{sid}. They are shown "
            "only now: download the CSV or copy the links.",
            "",
        )

    def do_revoke(selected, name):
        sid = _study_id(selected)
        done = invites.revoke(store_for(ctx), sid, name)
        message = "Code revoked; their ratings stay." if done else "That rater had no live code in this study."
        return (*design(sid), message)

    def do_create(
        study_name,
        src,
        lang,
        pasted_text,
        upload_value,
        method_list,
        n_samples,
        max_new_tokens,
        base_seed,
        guideline_text,
        guess_choice=None,
        design_label=None,
        models_chosen=None,
        scorer_choice=None,
        progress=gr.Progress(),
    ):
        store = store_for(ctx)
        lm = ctx.model()
        specs = prompts_from(src, lang, pasted_text, upload_value)
        chosen = organizer_models.study_models(models_chosen, model_names)
        sid = studies.create_study(
            store,
            study_name,
            specs,
            methods=method_list or [],
            samples_per_method=n_samples,
            max_new_tokens=max_new_tokens,
            base_seed=base_seed,
            model=lm.name,
            lm=lm,
            guidelines=guideline_text,
            guess_methods=organizer_models.guess_targets(guess_choice, chosen),
            design=DESIGNS.get(design_label or "", "scores"),
            models=chosen,
            scorer_model=organizer_models.scorer_model(scorer_choice, chosen, model_names),
        )
        report = _generate(store, lm, sid, progress)
        choice, table_value, raters, _, danger = overview(sid)
        # Nothing is rated yet: the one moment (with the study closed) when the organizer may see it.
        form = "\n".join(f"- {md_text(line)}" for line in form_cues.summary_lines(form_cues.check_study(store, sid)))
        message = f"Study #{sid} created: {report}\n\n**Form check** (before inviting raters):\n{form}"
        if (made := store.get_study(sid)) is not None and made.state == "open":  # every output is stored
            progress(None, desc="Replay check: running a few items again with fresh seeds")
            replay = "\n".join(f"- {md_text(line)}" for line in replay_check.check_study(store, sid, lm).lines())
            message += f"\n\n**Replay check** (can a rater reproduce a response at home?):\n{replay}"
        return choice, table_value, raters, message, danger

    def _generate(store, lm, sid, progress) -> str:
        # Done / total and the time left from this run's finished outputs (arena/eta.py), from the first one.
        clock = GenerationEta(prior=organizer_dashboard.throughput(store, lm))

        def tick(done: int, total: int, what: str) -> None:
            progress((done, total), desc=f"Generating: {what} · {clock.snapshot().line()}", unit="outputs")

        def load(setting: str):
            # a study over models: the app's own is the loaded one; the others through the model
            # cache, loaded on the compute thread as Compare's grid loads them
            return lm if setting == model_names[0] else load_on_compute(setting)

        report = studies.generate_study(store, lm, sid, progress=tick, eta=clock, load=load)
        return f"{report} {clock.snapshot().line()}."

    def do_resume(selected, progress=gr.Progress()):
        sid = _study_id(selected)
        store = store_for(ctx)
        if store.get_study(sid) is None:
            raise UserError("that study does not exist")
        message = _generate(store, ctx.model(), sid, progress)
        choice, table_value, raters, _, danger = overview(sid)
        return choice, table_value, raters, f"Study #{sid}: {message}", danger

    def do_reveal(selected):
        return blind.reveal(store_for(ctx), _study_id(selected)), "Mapping shown (organizer only)."

    def do_export(fmt: str):
        def run():
            text, n = export.export_text(store_for(ctx), fmt, blind=True)
            return text, f"Exported {n} rows (downloaded as ratings.{fmt})."

        return run

    def do_export_votes(selected):
        """The chosen pairwise study's votes as `python -m evaluation.pairwise` reads them (closed only)."""
        sid = _study_id(selected)
        out = io.StringIO()
        n = pair_export.write_votes_csv(pair_export.vote_rows(store_for(ctx), sid), out)
        return out.getvalue(), f"Exported {n} votes of study #{sid} (downloaded as votes-study-{sid}.csv)."

    def do_export_pairs(selected):
        """The chosen pairwise study's decisive votes as {prompt, chosen, rejected} lines (closed only)."""
        sid = _study_id(selected)
        out = io.StringIO()
        n = write_preference_jsonl(preference_pairs(pair_export.preference_rows(store_for(ctx), sid)), out)
        return out.getvalue(), f"Exported {n} preference pairs of study #{sid} (downloaded as pairs.jsonl)."

    def do_import(upload_value):
        path = _file_path(upload_value)
        if not path:
            raise UserError("upload an export file first")
        try:
            counts = export.import_file(store_for(ctx), path)
        finally:
            Path(path).unlink(missing_ok=True)  # the upload has served its purpose; nothing stays behind
        choice, table_value, raters, _, danger = overview()
        return (
            choice,
            table_value,
            raters,
            (
                f"Imported {counts['ratings']} ratings ({counts['studies']} new studies, "
                f"{counts['items']} items, {counts['outputs']} outputs)."
            ),
            danger,
        )

    def after_deletion(deletion: studies.Deletion, selected: Any, was_blind: bool):
        choice, table_value, raters, _, danger = overview(selected)
        danger = gr.update(choices=danger["choices"], value=None)
        message = md_text(deletion.message())
        files = [str(p) for p in deletion.files]
        if was_blind:
            # The copy names the method of every rating: while the study was open the organizer is
            # blind too, so it stays on the server and is not offered for download.
            where = deletion.kept_in or deletion.files[0].parent
            head = deletion.message().split(" Their ratings were exported first")[0]
            head = head.split(" The study was exported first")[0]
            message = md_text(
                f"{head} It was copied first, but the study was still open, so the copy (which names each "
                f"rating's method) is not offered for download: it is kept on the server in `{where}`."
            )
            files = []
        return shown(files), message, choice, table_value, raters, danger, ""

    def do_delete_study(request: gr.Request, pw, study, typed_name, selected):
        try:
            was_blind = still_blind(study)
            deletion = delete_study(ctx, pw, study, typed_name, request)
            return after_deletion(deletion, selected, was_blind)
        except UserError as exc:
            raise gr.Error(toast(exc), print_exception=False) from None

    def do_delete_rater(request: gr.Request, pw, study, rater, typed_name, selected):
        try:
            was_blind = still_blind(study)
            deletion = delete_rater_ratings(ctx, pw, study, rater, typed_name, request)
            return after_deletion(deletion, selected, was_blind)
        except UserError as exc:
            raise gr.Error(toast(exc), print_exception=False) from None

    def still_blind(study: Any) -> bool:
        """The study exists and is not closed yet (the deletion's own checks come after)."""
        try:
            found = store_for(ctx).get_study(_study_id(study))
        except UserError:
            return False
        return found is not None and found.state not in ("closed", "published")

    overview_outputs = [chosen, table, per_rater, status, del_study]
    private: dict[str, Any] = dict(api_visibility="private")
    ticket = gr.Textbox(visible=False)
    password.submit(guarded(unlock), [password], [*overview_outputs, ticket], **private).success(
        None, [ticket], None, js=web.TRADE_TICKET_JS, **private
    )
    refresh.click(guarded(unlock), [password, chosen], [*overview_outputs, ticket], **private).success(
        None, [ticket], None, js=web.TRADE_TICKET_JS, **private
    )
    chosen.input(guarded(overview), [password, chosen], overview_outputs, **private)
    create.click(
        guarded(do_create),
        [password, name, source, language, pasted, upload, methods, samples, max_new, seed, guidelines, guess]
        + [design_choice, models_box, scorer],  # new inputs go last: API callers' inputs keep their places
        overview_outputs,
        concurrency_limit=1,
        concurrency_id="generation",
        **private,
    )
    resume.click(
        guarded(do_resume),
        [password, chosen],
        overview_outputs,
        concurrency_limit=1,
        concurrency_id="generation",
        **private,
    )
    reveal_btn.click(guarded(do_reveal), [password, chosen], [mapping, status], **private)
    open_btn.click(guarded(do_state(studies.open_study)), [password, chosen], overview_outputs, **private)
    close_btn.click(guarded(do_state(studies.close_study)), [password, chosen], overview_outputs, **private)
    publish_btn.click(guarded(do_state(studies.publish_study)), [password, chosen], overview_outputs, **private)
    invite_btn.click(
        guarded(do_invite),
        [password, chosen, invite_names],
        [invite_table, invite_links, invite_csv, enrolled, balance, blocks, per_rater, status, invite_names],
        **private,
    ).success(None, [invite_csv], None, js=download_js("invite-codes.csv", "text/csv"), **private)
    invite_download.click(None, [invite_csv], None, js=download_js("invite-codes.csv", "text/csv"), **private)
    revoke_btn.click(
        guarded(do_revoke), [password, chosen, revoke_name], [enrolled, balance, blocks, status], **private
    )
    chosen.change(guarded(design), [password, chosen], [enrolled, balance, blocks], **private)
    chosen.change(guarded(flags_of), [password, chosen], [flag_list], **private)
    refresh.click(guarded(flags_of), [password, chosen], [flag_list], **private)
    # Pasting prompts means "use these": switch the source so they are not silently ignored.
    # (.change, not .input: text set by a script counts too; Create decides by content anyway.)
    pasted.change(
        lambda text: gr.update(value=SOURCES[1]) if str(text or "").strip() else gr.update(),
        [pasted],
        [source],
        **private,
    )
    upload.change(lambda f: gr.update(value=SOURCES[2]) if f else gr.update(), [upload], [source], **private)
    export_csv.click(guarded(do_export("csv")), [password], [export_data, status], **private).success(
        None, [export_data], None, js=download_js("ratings.csv", "text/csv"), **private
    )
    export_jsonl.click(guarded(do_export("jsonl")), [password], [export_data, status], **private).success(
        None, [export_data], None, js=download_js("ratings.jsonl", "application/x-ndjson"), **private
    )
    export_votes.click(guarded(do_export_votes), [password, chosen], [export_data, status], **private).success(
        None, [export_data], None, js=download_js("votes.csv", "text/csv"), **private
    )
    export_pairs.click(guarded(do_export_pairs), [password, chosen], [export_data, status], **private).success(
        None, [export_data], None, js=download_js("pairs.jsonl", "application/x-ndjson"), **private
    )
    import_btn.click(guarded(do_import), [password, import_file], overview_outputs, **private)
    # The password is the first input, checked in delete_study / delete_rater_ratings before anything else.
    deletion_outputs = [del_files, status, chosen, table, per_rater, del_study, del_confirm]
    del_study_btn.click(
        do_delete_study,
        [password, del_study, del_confirm, chosen],
        deletion_outputs,
        concurrency_limit=1,
        concurrency_id="deletion",
        **private,
    )
    del_rater_btn.click(
        do_delete_rater,
        [password, del_study, del_rater, del_confirm, chosen],
        deletion_outputs,
        concurrency_limit=1,
        concurrency_id="deletion",
        **private,
    )
    # Last, so the password box's first handler stays "unlock" (the preview also listens to Enter there).
    organizer_dashboard.wire_preview(
        ctx,
        preview_line,
        [source, language, pasted, upload, methods, samples, max_new, models_box],
        prompts_from,
        password,
    )
