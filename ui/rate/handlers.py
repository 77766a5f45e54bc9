"""The Rate tab's 1-5 handlers: module-level functions of plain values, each returning a named view
(ui/rate/view.py) or raising `UserError` (ui/handler.py makes that the one inline line). `build`
(ui/rate/__init__.py) only wires them; tests call them with a store and a stand-in request
(tests/test_rate_handlers.py).

Every handler checks the invite code again on the server (wrong codes throttled per client), since
any handler can be called straight through the HTTP API; the session state (server-side) holds the
study id and the item's random public id, never a method.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import gradio as gr

from arena import blind, clients, guessing, invites, pair_rating, sessions, studies
from arena.store import Store
from arena.studies import quick
from common.errors import UserError
from common.messages import english, text

from ..i18n import language_of_request, t
from ..safe import md_text
from . import once, pairwise
from . import words as rater_words
from .guidelines import DEFAULT_GUIDELINES, guidelines_for
from .session import code_of, enrolled
from .view import SLOTS, RateView

WHOLE_ITEM = "The whole item"
FORM_SIZE = SLOTS * (len(blind.DIMENSIONS) + 1)  # a submit's radios and comments, before the item it names


@dataclass(frozen=True)
class Opened:
    """A study opened from an invite code: the "Rating as …" line, and either the 1-5 form (`rate`)
    or the pairwise panel (`pair`, values for `PairPanel.outputs`) with the form's own rows hidden."""

    who: str
    rate: RateView
    pair: list[Any] = field(default_factory=pairwise.hide)
    form: bool = True  # the 1-5 form's submit row and key help shown
    keys: str | None = None  # the key help for this study's form (a rubric's scales are not 1-5)

    def values(self) -> list[Any]:
        keys = gr.update(visible=self.form) if self.keys is None else gr.update(visible=self.form, value=self.keys)
        return [self.who, *self.rate.laid_out(), *self.pair, gr.update(visible=self.form), keys]


def rater_line(enrolment: invites.Enrolment, store: Store, lang: str = "en") -> str:
    study = store.get_study(enrolment.study_id)
    return rater_words.rater_line(enrolment.rater, study.name if study is not None else "?", lang)


def opened(store: Store, enrolment: invites.Enrolment, lang: str = "en") -> Opened:
    """The study the enrolment names, on the form its design needs."""
    start = {"study_id": enrolment.study_id, "lang": lang}
    who = rater_line(enrolment, store, lang)
    if pair_rating.is_pairwise(store.get_study(enrolment.study_id)):
        return Opened(who, RateView.of(None, "", start), pairwise.start(store, enrolment), form=False)
    view, message = blind.open_for(store, enrolment.study_id, lambda: enrolment.rater_id)
    rubric = blind.study_rubric(store, enrolment.study_id)
    keys = text("rate_keys" if rubric is None or rubric.is_default else "rate_keys_rubric", lang)
    return Opened(who, RateView.of(view, message, start), keys=keys)


def _session(store: Store, code_text: Any, sess: Any, request: Any) -> tuple[invites.Enrolment, dict[str, Any]]:
    enrolment, sess = enrolled(store, code_text, sess, request)
    return enrolment, {**sess, "lang": language_of_request(request)}


def session_of(store: Store, code_text: Any, sess: Any, request: Any) -> tuple[invites.Enrolment, dict[str, Any]]:
    """The enrolment and session a handler acts on (the code checked again), for ui/rate/rubric_form.py."""
    return _session(store, code_text, sess, request)


def on_start(store: Store, code_text: Any, sess: Any, request: gr.Request) -> Opened:
    enrolment = invites.resolve(store, code_of(code_text, request), clients.client_of(request))
    return opened(store, enrolment, language_of_request(request))


def on_move(store: Store, step: int, code_text: Any, sess: Any, request: gr.Request) -> RateView:
    """Previous (step -1) or Next (+1); after the last item, Previous goes to the last one."""
    enrolment, sess = _session(store, code_text, sess, request)
    total = len(studies.ready_item_ids(store, sess["study_id"]))
    index = sess.get("index", 1) + step if "item" in sess else (total if step < 0 else 1)
    if not 1 <= index <= total:
        raise UserError("no earlier item" if step < 0 else "no further item: this is the last one")
    view, message = blind.open_for(store, enrolment.study_id, lambda: enrolment.rater_id, index)
    return RateView.of(view, message, sess)


def on_submit(store: Store, request: gr.Request, code_text: Any, sess: Any, *values: Any) -> RateView:
    """The scores and comments of the item on screen, then the next item, in one transaction.

    Wired with preprocess=False and postprocess=False (the hot path under load), so the values arrive as
    the client sent them; blind.check_form checks them as Gradio would. With a score missing nothing is
    saved: the page keeps what was entered, one line says what is missing, and those rows are marked."""
    enrolment, sess = _session(store, code_text, sess, request)
    values, named = once.split_named(values, FORM_SIZE)
    if once.stale(sess, named):
        return as_it_is(store, enrolment, sess)
    if "item" not in sess:
        raise UserError("there is no item on screen to rate")
    triples, notes = blind.check_form(values, SLOTS)
    shown = int(sess.get("shown") or 0)
    empty = [(k, d) for k in range(shown) for d in range(len(blind.DIMENSIONS)) if triples[k][d] is None]
    if shown and empty:
        view, _ = blind.open_for(store, enrolment.study_id, lambda: enrolment.rater_id, sess["index"])
        return _not_saved(RateView.of(view, "", sess), triples, notes, empty)
    view, message = blind.submit_slots_then_next(store, enrolment, sess["item"], triples, notes)
    if view is None:
        return RateView.of(None, message, sess, "Saved.")
    if view.guesses and view.item == sess["item"]:
        return RateView.of(view, english("rater_saved_one_more_question"), sess)
    return RateView.of(view, "Saved. Here is the next item.", sess)


def as_it_is(store: Store, enrolment: invites.Enrolment, sess: dict[str, Any]) -> RateView:
    """The page as it is now, for a copy of a submit that was applied already (ui/rate/once.py)."""
    index = sess.get("index") if "item" in sess else None
    view, message = blind.open_for(store, enrolment.study_id, lambda: enrolment.rater_id, index)
    if view is None:
        return RateView.of(None, message, sess, once.ALREADY)
    return RateView.of(view, once.ALREADY, sess)


def _not_saved(page: RateView, triples: list[Any], notes: list[Any], empty: list[tuple[int, int]]) -> RateView:
    """`page` with what the rater entered kept, the missing rows named and marked."""
    lang = page.session.get("lang", "en")
    slots = tuple(
        type(s)(s.text, tuple(triples[k]), notes[k] or "") for k, s in enumerate(page.slots)
    )  # fmt: skip
    where = ", ".join(f"{blind.LABELS[k]} · {rater_words.dimension(d, lang)}" for k, d in empty)
    shown = page.shown
    line = rater_words.say("rater_not_saved_yet", lang, scored=3 * shown - len(empty), needed=3 * shown, where=where)
    return RateView(page.session, shown, page.progress, page.prompt, slots, page.guess_ask, line,
                    [list(m) for m in empty])  # fmt: skip


def on_guess(store: Store, request: gr.Request, code_text: Any, sess: Any, *values: Any) -> RateView:
    """The answer to "Which response do you think came from METHOD?", then the next item. The reply
    is the same whatever the answer: nothing on the page says whether it was right."""
    enrolment, sess = _session(store, code_text, sess, request)
    if "item" not in sess:
        raise UserError("there is no item on screen")
    if len(values) != SLOTS:
        raise UserError("malformed request")
    asked = sess.get("guess") or []
    view, message = blind.guess_then_next(store, enrolment, sess["item"], dict(zip(asked, values)))
    if view is None:
        return RateView.of(None, message, sess, "Thank you.")
    return RateView.of(view, "Thank you. Here is the next item.", sess)


def on_skip(store: Store, code_text: Any, sess: Any, reason: Any, note: Any, request: gr.Request) -> list[Any]:
    """Skip the item on screen with a reason and move to the next one (what was entered on it is not
    saved: a skipped item has no scores); the skip's reason and note are emptied."""
    enrolment, sess = _session(store, code_text, sess, request)
    if "item" not in sess:
        raise UserError("there is no item on screen to skip")
    if reason in (None, ""):
        raise UserError("choose a reason to skip this item")
    view, message = blind.skip_then_next(
        store, enrolment, sess["item"], reason, note if isinstance(note, str) else None
    )
    page = (
        RateView.of(None, message, sess, "Skipped.")
        if view is None
        else RateView.of(view, "Skipped. Here is the next item.", sess)
    )
    return [*page.values(), None, ""]


def on_flag(
    store: Store, code_text: Any, sess: Any, target: Any, reason: Any, note: Any, request: gr.Request
) -> tuple[str, str]:
    """Flag the item or one response of it: the status line, and the note emptied (every score on
    screen stays as it is)."""
    enrolment, sess = _session(store, code_text, sess, request)
    if "item" not in sess:
        raise UserError("there is no item on screen to flag")
    if reason in (None, ""):
        raise UserError("choose a reason for the flag")
    label = None
    if target not in (None, "", WHOLE_ITEM):
        if not isinstance(target, str) or not target.startswith("Response "):
            raise UserError("choose what to flag: the whole item or one response")
        label = target.removeprefix("Response ")
    new = blind.flag_for(store, enrolment, sess["item"], label, reason, note if isinstance(note, str) else None)
    lang = sess.get("lang", "en")
    what = rater_words.say("rater_this_item", lang) if label is None else rater_words.say(
        "rater_response_lower", lang, label=label
    )  # fmt: skip
    why = md_text(rater_words.flag_reason(reason, lang))
    if new:
        return rater_words.say("rater_flagged", lang, what=what, reason=why), ""
    return rater_words.say("rater_already_flagged", lang, what=what), ""


def opened_or_line(store: Store, code: Any, lang: str, client: Any = None) -> tuple[bool, list[Any]]:
    """`opened` for the hand-off from Compare and for an invite link's cookie: (True, its values), or
    (False, the refusal in the progress line and the form emptied)."""
    try:
        enrolment = invites.resolve(store, code, client) if client is not None else invites.resolve(store, code)
        return True, opened(store, enrolment, lang).values()
    except UserError as exc:
        return False, ["", *RateView.of(None, str(exc), {"lang": lang}).laid_out(), *pairwise.hide(),
                       *[gr.update(visible=True)] * 2]  # fmt: skip


def on_handoff(store: Store, handoff: Any, sess: Any, request: gr.Request) -> list[Any]:
    """Compare's "Send these to the Rate tab": the quick study it made opens here (outputs: code, then `Opened`)."""
    if not isinstance(handoff, dict) or "code" not in handoff:
        return [gr.update()] * (1 + n_opened())
    ok, shown = opened_or_line(store, handoff["code"], language_of_request(request))
    return [handoff["code"] if ok else gr.update(), *shown]


def on_load(store: Store, tabs: bool, sess: Any, request: gr.Request) -> list[Any]:
    """An invite link opens the study from its cookie (ui/web.py made it from the link). Never a code in
    a request's address: a proxy's log of query strings would hold it (issue 32). The code box stays
    empty; with `tabs`, the Rate tab is selected."""
    given = clients.cookie(request, sessions.RATER_COOKIE)
    if not given:
        return [gr.update()] * (1 + n_opened() + tabs)
    _, shown = opened_or_line(store, given, language_of_request(request), clients.client_of(request))
    return [gr.update(), *shown, *[gr.Tabs(selected="rating")] * tabs]


def n_opened() -> int:
    """How many outputs `Opened.values` fills: who, the laid-out form, the pairwise panel, two rows."""
    return len(Opened("", RateView({}, 0, "")).values())


def on_rate(
    store: Store, model: Callable[[], Any], request: gr.Request, prompt_text: Any, raw: Any, last_run: Any
) -> list[Any]:
    """Compare's "Send these to the Rate tab": a quick study of the last run, handed to this tab (its code goes
    only to the session's server-side state). `last_run` is this browser tab's state: only the tab that
    ran the Compare has results there, and pressing again reopens the same quick study."""
    run = dict(last_run) if isinstance(last_run, dict) else {"prompt": prompt_text, "raw": raw, "results": last_run}
    code = run.get("quick_code")
    if not code:
        _, code = quick.create(
            store, model().name, run.get("prompt") or "", run.get("results") or [], bool(run.get("raw", False)),
            clients.client_of(request),
        )  # fmt: skip
        run["quick_code"] = code
    # a fresh value each time, so that pressing again reopens the study
    return [{"code": code, "at": time.monotonic()}, run, gr.Tabs(selected="rating")]


# ---- layout: what the page shows around the values (no store access beyond the guidelines) ---------


def on_layout(store: Store, shown: Any, sess: Any) -> list[Any]:
    """Show the slots in use, and the study's guidelines above them (open in full on a rater's first
    item): prompt, guidelines box, guidelines, slot boxes, slot texts, feedback box, flag target."""
    shown = shown if isinstance(shown, int) and 0 <= shown <= SLOTS else 0
    visible = [gr.update(visible=k < shown) for k in range(SLOTS)]
    sess = dict(sess) if isinstance(sess, dict) else {}
    first = sess.get("index") == 1 and shown > 0
    text = guidelines_for(store, sess["study_id"]) if sess.get("study_id") else DEFAULT_GUIDELINES
    targets = [WHOLE_ITEM] + [f"Response {blind.LABELS[k]}" for k in range(shown)]
    return [
        gr.update(visible=shown > 0),
        gr.Accordion(visible=shown > 0, open=first),
        t(text),  # the default guidelines in the browser's language; a study's own as written
        *visible,
        *visible,
        gr.Accordion(visible=shown > 0),
        gr.Dropdown(choices=targets, value=WHOLE_ITEM),
    ]


def on_missing(marked: Any) -> list[Any]:
    """Mark the empty score rows in place (and clear earlier marks)."""
    marked = {tuple(m) for m in marked} if isinstance(marked, list) else set()
    return [
        gr.update(elem_classes=["rate-missing"] if (k, d) in marked else [])
        for k in range(SLOTS)
        for d in range(len(blind.DIMENSIONS))
    ]


def on_guess_layout(ask: Any) -> list[Any]:
    """Show the question(s) of the item on screen, with its letters and "Don't know", in the responses'
    place (the responses hidden meanwhile, so the question is on the first screen); hide them otherwise."""
    methods = list(ask.get("methods") or []) if isinstance(ask, dict) else []
    shown = int(ask.get("shown") or 0) if isinstance(ask, dict) else 0
    choices = [*blind.LABELS[:shown], guessing.DONT_KNOW]
    radios = [
        gr.Radio(choices=choices, value=None, label=guessing.question(methods[j]), visible=True)
        if j < len(methods)
        else gr.Radio(value=None, label="", visible=False)
        for j in range(SLOTS)
    ]
    return [gr.Column(visible=bool(methods)), *radios, gr.Row(visible=not methods)]
