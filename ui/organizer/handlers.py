"""The Organizer's handlers: module-level functions of plain values (the store, the app's model, the
form's values) that return named views (tuples Gradio takes as they are) or raise `UserError`. `build`
(ui/organizer/__init__.py) wires each behind the organizer password (auth.guarded); tests call them
directly (tests/test_organizer_handlers.py).
"""

from __future__ import annotations

import html
import inspect
import io
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

import gradio as gr
import pandas as pd

from arena import studies
from arena.access import clients, invites, sessions
from arena.files import export, pair_export
from arena.files.preferences import preference_pairs, write_preference_jsonl
from arena.inputs.numbers import study_id as parse_study_id
from arena.model.llm import LoadedModel
from arena.rating import blind, systems
from arena.runs.eta import GenerationEta
from arena.runs.runner import load_on_compute
from arena.settings import current as current_settings
from arena.store import Store
from common import messages
from common.errors import UserError
from evaluation import form_cues, replay_check
from evaluation.perplexity import SCORES

from ..empty import shown
from ..safe import md_text
from . import dashboard
from .forms import FIELDS, StudyForm, file_path

STUDY_COLUMNS = [
    "id", "name", "state", "kind", "model", "methods", "samples", "items", "outputs", "ready items", "raters",
    "ratings", "created",
]  # fmt: skip


class Overview(NamedTuple):
    """The studies panel: the study picker, the studies table, progress per rater, the status line and
    the danger zone's picker (`build`'s overview outputs, in this order)."""

    choice: Any
    studies: pd.DataFrame
    per_rater: pd.DataFrame
    status: str
    danger: Any


def studies_table(store: Store) -> pd.DataFrame:
    rows = []
    for s in store.list_studies(kind="study"):  # quick ratings from Compare are not the organizer's studies
        summary = store.study_summary(s.id)
        expected = (  # a study made here expects its slots; others hold what they were given
            summary["items"] * len(studies.expected_slots(s.methods, s.samples_per_method))
            if s.generated
            else summary["outputs"]
        )
        rows.append(
            {
                "id": s.id,
                "name": s.name,
                "state": s.state,
                "kind": kind_words(s),
                "model": ", ".join(systems.models_in(s.methods)) or s.model,
                "methods": ", ".join(dict.fromkeys(systems.method_of(m) for m in s.methods)),
                "samples": s.samples_per_method,
                "items": summary["items"],
                "outputs": f"{summary['outputs']} / {expected}",
                "ready items": len(studies.ready_item_ids(store, s.id)),
                "raters": summary["raters"],
                "ratings": len(store.votes(s.id)) if s.design == "pairwise" else summary["ratings"],
                "created": dashboard.second(s.created_at),
            }
        )
    if not rows:
        return dashboard.empty_table(STUDY_COLUMNS, messages.english("organizer_no_studies"))
    return pd.DataFrame(rows, columns=STUDY_COLUMNS)


def kind_words(study: Any) -> str:
    """The studies table's "kind": pairwise, study, or where an imported study's ratings came from."""
    if study.imported_from:
        return messages.text("organizer_kind_imported", file=study.imported_from)
    return messages.english("word_pairwise") if study.design == "pairwise" else study.kind


def study_options(store: Store) -> list[tuple[str, int]]:
    return [(f"#{s.id} {s.name}", int(s.id)) for s in store.list_studies(kind="study")]


def quick_line(store: Store) -> str:
    """How many quick ratings from Compare exist (they are not listed; they expire on their own)."""
    n = len(store.list_studies(kind="adhoc"))
    if not n:
        return messages.english("organizer_unlocked")
    hours = current_settings().quick_study_hours
    return messages.text("organizer_unlocked_quick", n=n, are="are" if n != 1 else "is", hours=f"{hours:g}")


def overview(store: Store, selected: Any = None, status: str | None = None) -> Overview:
    """The studies panel with `selected` chosen (else the first study)."""
    options = study_options(store)
    value = selected if selected in [v for _, v in options] else (options[0][1] if options else None)
    rater_table = (
        dashboard.rater_table(store, value)
        if value is not None
        else dashboard.empty_table(dashboard.RATER_COLUMNS, messages.english("organizer_no_study"))
    )
    line = quick_line(store) if status is None else status
    return Overview(gr.update(choices=options, value=value), studies_table(store), rater_table, line,
                    gr.update(choices=options))  # fmt: skip


def unlock(store: Store, selected: Any = None) -> tuple[Any, ...]:
    """`overview`, and a one-time ticket the page trades for its organizer session (arena/access/sessions.py)."""
    return (*overview(store, selected), sessions.organizer.ticket())


def design(store: Store, selected: Any) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """The chosen study's enrolled raters, its position balance and balanced blocks per rater."""
    if selected in (None, ""):  # unlocked with no study yet: say so, no "choose a study" toast
        choose = messages.english("organizer_choose_study")
        return (
            dashboard.empty_table(dashboard.ENROLMENT_COLUMNS, choose),
            dashboard.empty_table([messages.english("organizer_col_position_balance")], choose),
            dashboard.empty_table([messages.english("organizer_col_balanced_blocks")], choose),
        )
    sid = parse_study_id(selected)
    by_method, per_rater = blind.position_balance(store, sid)
    return dashboard.enrolment_table(store, sid), by_method, per_rater


def flags_of(store: Store, selected: Any) -> pd.DataFrame:
    if selected in (None, ""):  # no study chosen yet: an empty table, not an error
        return dashboard.empty_table(dashboard.FLAG_COLUMNS, messages.english("organizer_choose_study"))
    return dashboard.flag_table(store, parse_study_id(selected))


def set_state(store: Store, action: Callable[[Store, int], Any], selected: Any) -> Overview:
    """Open, close or publish the chosen study (`action` is arena.studies' open_study...)."""
    sid = parse_study_id(selected)
    action(store, sid)
    study = store.get_study(sid)
    state = study.state if study is not None else "deleted"
    return overview(store, sid, messages.text("organizer_now", id=sid, state=messages.english(f"word_{state}")))


# ---- invitations ---------------------------------------------------------------------------------


def invite_base(request: Any) -> str | None:
    """The base of invite links: ARENA_PUBLIC_URL when set, else the address the organizer's own
    request came to (arena/access/clients.py: forwarded headers only from trusted proxies); None for the
    relative link when neither is known."""
    return current_settings().public_url or clients.base_url(request) or None


def invite_links_html(made: list[invites.Invite], lang: str = "en") -> str:
    """The new invite links, each with a Copy button (HTML; every name and link escaped), its words in
    `lang` (the page's script shows the button's `data-done` word for a moment after a copy)."""
    if not made:
        return ""
    copy, done = messages.text("organizer_copy_link", lang), messages.text("organizer_copied", lang)
    rows = "".join(
        f'<li><span class="arena-invite-rater">{html.escape(i.rater)}</span> '
        f"<code>{html.escape(i.link)}</code> "
        f'<button type="button" class="arena-copy" data-copy="{html.escape(i.link, quote=True)}" '
        f'data-done="{html.escape(done, quote=True)}" '
        f'aria-label="{html.escape(messages.text("organizer_copy_link_of", lang, rater=i.rater), quote=True)}">'
        f"{html.escape(copy)}</button></li>"
        for i in made
    )
    return f'<ul class="arena-invite-links">{rows}</ul>'


def invite(store: Store, selected: Any, names: Any, request: Any = None, lang: str = "en") -> tuple[Any, ...]:
    """New codes for the named raters: their table, links, CSV (downloaded by the page), the study's
    enrolment, balance and blocks, progress per rater, the status line, and the names box emptied."""
    sid = parse_study_id(selected)
    wanted = [n for n in str(names or "").replace("\n", ",").split(",") if n.strip()]
    made = invites.invite(store, sid, wanted, base_url=invite_base(request))
    table = pd.DataFrame([{"rater": i.rater, "code": i.code, "link": i.link} for i in made])
    line = messages.text("organizer_invited", n=len(made), id=sid)
    rater_table = dashboard.rater_table(store, sid)  # the new raters, "not started"
    links = invite_links_html(made, lang)
    return table, links, invites.invites_csv(made), *design(store, sid), rater_table, line, ""


def revoke(store: Store, selected: Any, name: Any) -> tuple[Any, ...]:
    sid = parse_study_id(selected)
    done = invites.revoke(store, sid, name)
    return (
        *design(store, sid),
        messages.english("organizer_revoked" if done else "organizer_nothing_to_revoke"),
    )


# ---- creating and generating -------------------------------------------------------------------


class Created(NamedTuple):
    """A study made by the creation form: its id, the status line (the generation's report, the form check,
    the replay check) and the generation's report."""

    sid: int
    status: str
    report: studies.GenerationReport


def made_study(
    store: Store,
    model: Callable[[], LoadedModel],
    model_names: list[str],
    form: StudyForm,
    progress: Any = gr.Progress(),
    lang: str = "en",
) -> Created:
    """Create the study of the creation form (`form`: its rubric box the study's own questions as JSON,
    empty for the default three; its attention items, how many to place among the prompts; its
    exclusion, the rules chosen now), generate its outputs, then the form check of its outputs. The
    form becomes the study's `StudySpec` (StudyForm.spec), checked before the model loads. What it
    says is in `lang`."""
    spec = form.spec(model_names).checked()
    lm = model()
    sid = studies.create_study(store, spec, model=lm.name, lm=lm)
    report, eta = generate(store, lm, model_names, sid, progress, lang)
    # Nothing is rated yet: the one moment (with the study closed) when the organizer may see it.
    cues = form_cues.summary_lines(form_cues.check_study(store, sid), lang)
    message = "\n\n".join(
        [
            messages.text("organizer_created", lang, id=sid, report=f"{report.words(lang)} {eta}"),
            messages.text("organizer_form_check_head", lang) + "\n" + bullets(cues),
        ]
    )
    if (made := store.get_study(sid)) is not None and made.state == "open":  # every output is stored
        progress(None, desc=messages.text("organizer_replay_progress", lang))
        replay = replay_check.check_study(store, sid, lm).lines(lang)
        message += "\n\n" + messages.text("organizer_replay_check_head", lang) + "\n" + bullets(replay)
    return Created(sid, message, report)


def bullets(lines: list[str]) -> str:
    """Lines as a Markdown list, each literal (method and question names are in them)."""
    return "\n".join(f"- {md_text(line)}" for line in lines)


def create(
    store: Store,
    model: Callable[[], LoadedModel],
    model_names: list[str],
    form: StudyForm,
    progress: Any = gr.Progress(),
    lang: str = "en",
) -> Overview:
    """`made_study`, then the studies panel with the new study chosen and its status line."""
    made = made_study(store, model, model_names, form, progress, lang)
    return overview(store, made.sid, made.status)


def create_beside_button(
    store: Store,
    model: Callable[[], LoadedModel],
    model_names: list[str],
    form: StudyForm,
    progress: Any = gr.Progress(),
    lang: str = "en",
) -> tuple[Any, ...]:
    """`create`, with its outcome's first line also under the button that started it: wired with the
    preview line above "Create study…" as one more output, so Gradio's progress bar (done / total, time
    left) runs there, where the organizer clicked, and the line left there says how it ended."""
    made = made_study(store, model, model_names, form, progress, lang)
    # its count only ("9 of 9 outputs stored."): the status line above has the study, the time and speed
    finished = messages.text("organizer_finished", lang, line=made.report.stored_words(lang))
    return (*overview(store, made.sid, made.status), finished)


def on_create(
    store: Store,
    model: Callable[[], LoadedModel],
    model_names: list[str],
    *values: Any,
    progress: Any = None,
    lang: str = "en",
) -> tuple[Any, ...]:
    """The Create button as Gradio calls it: the form's controls (`FIELDS`, one input each), then the
    progress bar, gathered here into the one `StudyForm` (`create_beside_button`). Its signature for
    Gradio is `create_signature`: named parameters, so Gradio finds where to put the progress bar."""
    given, rest = values[: len(FIELDS)], values[len(FIELDS) :]
    bar = rest[0] if rest else progress if progress is not None else gr.Progress()
    return create_beside_button(store, model, model_names, StudyForm(*given), bar, lang)


def create_signature() -> inspect.Signature:
    """`on_create`'s parameters as Gradio reads them: the deps, a parameter per form field, the progress bar,
    then the reader's language (auth.guarded fills it in; Gradio never sees it)."""
    kind = inspect.Parameter.POSITIONAL_OR_KEYWORD
    deps = [inspect.Parameter(n, kind, annotation=Any) for n in ("store", "model", "model_names")]
    given = [inspect.Parameter(n, kind, annotation=Any) for n in FIELDS]
    bar = inspect.Parameter("progress", kind, default=gr.Progress())
    return inspect.Signature([*deps, *given, bar, inspect.Parameter("lang", kind, default="en", annotation=str)])


on_create.__signature__ = create_signature()  # type: ignore[attr-defined]


def generate(
    store: Store, lm: LoadedModel, model_names: list[str], sid: int, progress: Any, lang: str = "en"
) -> tuple[studies.GenerationReport, str]:
    """Generate the study's missing outputs, with done / total and the time left in the progress bar (in
    `lang`): the generation's report and its last time line ("… took 3 min at 41 tokens/s.")."""
    clock = GenerationEta(prior=dashboard.throughput(store, lm))

    def tick(done: int, total: int, what: str) -> None:
        desc = messages.text(
            "organizer_generating", lang, what=progress_words(what, lang), eta=clock.snapshot().line(lang)
        )
        progress((done, total), desc=desc, unit="outputs")

    def load(setting: str) -> LoadedModel:
        # a study over models: the app's own is the loaded one; the others through the model cache,
        # loaded on the compute thread as Compare's grid loads them
        return lm if setting == model_names[0] else load_on_compute(setting)

    report = studies.generate_study(store, lm, sid, progress=tick, eta=clock, load=load)
    return report, clock.snapshot().line(lang) + messages.text("full_stop", lang)


def progress_words(what: str, lang: str) -> str:
    """What a generation's progress names (an engine's piece, after its model's name in a study over
    models: "gemma-3-270m: item 3, BS-4 sample 1"), in `lang`."""
    said = messages.translated(what, lang)
    if said == what and ": " in what:
        model, piece = what.split(": ", 1)
        return f"{model}: {messages.translated(piece, lang)}"
    return said


def resume(
    store: Store,
    model: Callable[[], LoadedModel],
    model_names: list[str],
    selected: Any,
    progress: Any = gr.Progress(),
    lang: str = "en",
) -> Overview:
    sid = parse_study_id(selected)
    if store.get_study(sid) is None:
        raise UserError(messages.english("study_does_not_exist"))
    report, eta = generate(store, model(), model_names, sid, progress, lang)
    return overview(store, sid, messages.text("organizer_resumed", lang, id=sid, report=f"{report.words(lang)} {eta}"))


# ---- the blind mapping, exports, import ------------------------------------------------------------


def reveal(store: Store, selected: Any) -> tuple[pd.DataFrame, str]:
    return blind.reveal(store, parse_study_id(selected)), messages.english("organizer_mapping_shown")


def export_ratings(store: Store, fmt: str) -> tuple[str, str]:
    """Every study's ratings as the file's text (the page downloads it) and the status line."""
    text, n = export.export_text(store, fmt)  # an open study's rows sealed, as in every export
    return text, messages.text("organizer_exported_rows", n=n, fmt=fmt)


def export_votes(store: Store, selected: Any) -> tuple[str, str]:
    """The chosen pairwise study's votes as `python -m evaluation.pairwise` reads them (closed only)."""
    sid = parse_study_id(selected)
    out = io.StringIO()
    n = pair_export.write_votes_csv(pair_export.vote_rows(store, sid), out)
    return out.getvalue(), messages.text("organizer_exported_votes", n=n, id=sid)


def export_pairs(store: Store, selected: Any) -> tuple[str, str]:
    """The chosen pairwise study's decisive votes as {prompt, chosen, rejected} lines (closed only)."""
    sid = parse_study_id(selected)
    out = io.StringIO()
    n = write_preference_jsonl(preference_pairs(pair_export.preference_rows(store, sid)), out)
    return out.getvalue(), messages.text("organizer_exported_pairs", n=n, id=sid)


def import_ratings(store: Store, upload_value: Any) -> Overview:
    path = file_path(upload_value)
    if not path:
        raise UserError(messages.english("organizer_upload_first"))
    try:
        counts = export.import_file(store, path)
    finally:
        Path(path).unlink(missing_ok=True)  # the upload has served its purpose; nothing stays behind
    line = messages.text(
        "organizer_imported", ratings=counts["ratings"], studies=counts["studies"], items=counts["items"],
        outputs=counts["outputs"], study_word="study" if counts["studies"] == 1 else "studies",
    )  # fmt: skip
    return overview(store, None, line)


# ---- the danger zone -------------------------------------------------------------------------------


class DeletionView(NamedTuple):
    """After a deletion: the copy's files (when they may be downloaded), the status line, the studies
    panel, and the confirmation box emptied."""

    files: Any
    status: str
    choice: Any
    studies: pd.DataFrame
    per_rater: pd.DataFrame
    danger: Any
    confirm: str


def still_blind(store: Store, study: Any) -> bool:
    """The study exists and is not closed yet (the deletion's own checks come after)."""
    try:
        found = store.get_study(parse_study_id(study))
    except UserError:
        return False
    return found is not None and found.state not in ("closed", "published")


def after_deletion(
    store: Store, deletion: studies.Deletion, selected: Any, was_blind: bool, lang: str = "en"
) -> DeletionView:
    panel = overview(store, selected)
    message = md_text(deletion.message(lang))
    files = [str(p) for p in deletion.files]
    if was_blind:
        # The copy names the method of every rating: while the study was open the organizer is blind
        # too, so it stays on the server and is not offered for download.
        where = deletion.kept_in or deletion.files[0].parent
        message = md_text(messages.text("organizer_deleted_blind", lang, head=deletion.head(lang), where=where))
        files = []
    danger = gr.update(choices=panel.danger["choices"], value=None)
    return DeletionView(shown(files), message, panel.choice, panel.studies, panel.per_rater, danger, "")


def delete_study(store: Store, study: Any, typed_name: Any, selected: Any, lang: str = "en") -> DeletionView:
    """The danger zone's "Delete this study": the study's exact name, then a copy, then the deletion
    (UserError with the reason when it refuses: nothing is deleted then)."""
    was_blind = still_blind(store, study)
    deletion = studies.delete_study(store, study, typed_name)
    SCORES.forget()  # the Results tab's cached perplexities of its outputs
    return after_deletion(store, deletion, selected, was_blind, lang)


def delete_rater_ratings(
    store: Store, study: Any, rater: Any, typed_name: Any, selected: Any, lang: str = "en"
) -> DeletionView:
    """The danger zone's "Delete this rater's ratings": as `delete_study`, for one rater in one study."""
    was_blind = still_blind(store, study)
    deletion = studies.delete_rater_ratings(store, study, rater, typed_name)
    return after_deletion(store, deletion, selected, was_blind, lang)
