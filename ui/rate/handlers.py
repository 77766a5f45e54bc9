"""The Rate tab's handlers (every rubric's form, ui/rate/rubric_form.py's rows): module-level functions of plain values, each returning a named view
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

from arena import studies
from arena.access import accounts, clients, invites, sessions
from arena.rating import blind, guessing, pair_rating
from arena.store import Store
from arena.studies import quick
from common.errors import UserError
from common.messages import dimension_name, english, text
from common.rubric import Rubric

from .. import hf_signin
from ..i18n import language_of_request, t
from ..safe import md_text
from . import once, pairwise
from . import words as rater_words
from .guidelines import DEFAULT_GUIDELINES, guidelines_for
from .session import enrolled, seat_of
from .view import ROWS, SLOTS, RateView, padded

WHOLE_ITEM = "The whole item"
FORM_SIZE = SLOTS * (ROWS + 1)  # a Submit's rows and comments (view.form), before the item it names


@dataclass(frozen=True)
class Opened:
    """A study opened from an invite code: the "Rating as …" line, and either the rating form (`rate`)
    or the pairwise panel (`pair`, values for `PairPanel.outputs`) with the form's own rows hidden."""

    who: str
    rate: RateView
    pair: list[Any] = field(default_factory=pairwise.hide)
    form: bool = True  # the rating form's submit row and key help shown
    keys: str | None = None  # the key help for this study's questions (keys_line)

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
        return Opened(who, RateView.of(None, "", start), pairwise.start(store, enrolment, lang), form=False)
    view, message = blind.open_for(store, enrolment.study_id, lambda: enrolment.rater_id)
    keys = keys_line(blind.study_rubric(store, enrolment.study_id), lang)
    return Opened(who, RateView.of(view, message, start), keys=keys)


def keys_line(rubric: Rubric, lang: str) -> str:
    """The key help under the form: "1–5 score the focused row…" where every question is on 1-5 (the
    default's words), else how digits pick any point, two-digit ones included (ui/assets.py)."""
    return text("rate_keys" if rubric.one_scale == (1, 5) else "rate_keys_rubric", lang)


def _session(store: Store, code_text: Any, sess: Any, request: Any) -> tuple[invites.Enrolment, dict[str, Any]]:
    enrolment, sess = enrolled(store, code_text, sess, request)
    return enrolment, {**sess, "lang": language_of_request(request)}


def session_of(store: Store, code_text: Any, sess: Any, request: Any) -> tuple[invites.Enrolment, dict[str, Any]]:
    """The enrolment and session a handler acts on (the code checked again), for ui/rate/rubric_form.py."""
    return _session(store, code_text, sess, request)


def on_start(store: Store, code_text: Any, sess: Any, request: gr.Request) -> Opened:
    """Open the study of the code (box, else cookie), else of the signed-in Hugging Face account."""
    return opened(store, seat_of(store, code_text, request), language_of_request(request))


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
    """The answers and comments of the item on screen (`view.form`: the rows of the study's questions,
    whatever its rubric), then the next item, in one transaction. The last value, if sent, is the
    position of the item the Submit is for: a copy of one applied already is not saved again nor on
    the next item (ui/rate/once.py).

    Wired with preprocess=False and postprocess=False (the hot path under load), so the values arrive as
    the client sent them; blind.check_rubric_form checks them as Gradio would, each on its question's
    scale when saved. With an answer missing nothing is saved: the page keeps what was entered, one
    line says what is missing, and those rows are marked."""
    enrolment, sess = _session(store, code_text, sess, request)
    values, named = once.split_named(values, FORM_SIZE)
    if once.repeat(sess, named):
        return as_it_is(store, enrolment, sess)
    if "item" not in sess:
        raise UserError("there is no item on screen to rate")
    rubric = blind.study_rubric(store, enrolment.study_id)
    answers, notes = blind.check_rubric_form(values, SLOTS, rubric)
    shown = int(sess.get("shown") or 0)
    asked = [j for j, d in enumerate(rubric.dimensions) if d.required]  # a comment is optional
    empty = [(k, j) for k in range(shown) for j in asked if answers[k][j] is None]
    if shown and empty:
        view, _ = blind.open_for(store, enrolment.study_id, lambda: enrolment.rater_id, sess["index"])
        return _not_saved(RateView.of(view, "", sess), rubric, answers, notes, empty)
    view, message = blind.submit_slots_then_next(store, enrolment, sess["item"], answers, notes)
    if view is None:
        return RateView.of(None, message, sess, "Saved.")
    if view.guesses and view.item == sess["item"]:
        return RateView.of(view, english("rater_saved_one_more_question"), sess)
    return RateView.of(view, "Saved. Here is the next item.", sess)


def as_it_is(store: Store, enrolment: invites.Enrolment, sess: dict[str, Any]) -> RateView:
    """The page as it is now, for a copy of an answer that was applied already (ui/rate/once.py)."""
    index = sess.get("index") if "item" in sess else None
    view, message = blind.open_for(store, enrolment.study_id, lambda: enrolment.rater_id, index)
    if view is None:
        return RateView.of(None, message, sess, once.ALREADY)
    return RateView.of(view, once.ALREADY, sess)


def _not_saved(
    page: RateView, rubric: Rubric, answers: list[Any], notes: list[Any], empty: list[tuple[int, int]]
) -> RateView:
    """`page` with what the rater entered kept, the missing rows named and marked."""
    lang = page.session.get("lang", "en")
    # A text question's answer came from the comment box (blind.check_rubric_form): it goes back there.
    texts = [j for j, d in enumerate(rubric.dimensions) if not d.values]
    slots = tuple(
        type(s)(s.text, padded([None if j in texts else v for j, v in enumerate(answers[k])]),
                next((answers[k][j] for j in texts if answers[k][j]), None) or notes[k] or "")
        for k, s in enumerate(page.slots)
    )  # fmt: skip
    where = ", ".join(f"{blind.LABELS[k]} · {dimension_name(rubric.names[j], lang)}" for k, j in empty)
    shown, needed = page.shown, page.shown * sum(1 for d in rubric.dimensions if d.required)
    line = rater_words.say("rater_not_saved_yet", lang, scored=needed - len(empty), needed=needed, where=where)
    return RateView(page.session, shown, page.progress, page.prompt, slots, page.guess_ask, line,
                    [list(m) for m in empty])  # fmt: skip


def on_guess(store: Store, request: gr.Request, code_text: Any, sess: Any, *values: Any) -> RateView:
    """The answer to "Which response do you think came from METHOD?", then the next item. The reply
    is the same whatever the answer: nothing on the page says whether it was right."""
    enrolment, sess = _session(store, code_text, sess, request)
    values, named = once.split_named(values, SLOTS)
    if once.repeat(sess, named):
        return as_it_is(store, enrolment, sess)
    if "item" not in sess:
        raise UserError("there is no item on screen")
    if len(values) != SLOTS:
        raise UserError("malformed request")
    asked = sess.get("guess") or []
    view, message = blind.guess_then_next(store, enrolment, sess["item"], dict(zip(asked, values)))
    if view is None:
        return RateView.of(None, message, sess, "Thank you.")
    return RateView.of(view, "Thank you. Here is the next item.", sess)


def on_skip(
    store: Store, code_text: Any, sess: Any, reason: Any, note: Any, request: gr.Request, item_for: Any = None
) -> list[Any]:
    """Skip the item on screen with a reason and move to the next one (what was entered on it is not
    saved: a skipped item has no scores); the skip's reason and note are emptied. `item_for`: the
    position the skip names (ui/rate/once.py)."""
    enrolment, sess = _session(store, code_text, sess, request)
    if once.repeat(sess, item_for):
        return [*as_it_is(store, enrolment, sess).values(), None, ""]
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
    store: Store,
    code_text: Any,
    sess: Any,
    target: Any,
    reason: Any,
    note: Any,
    request: gr.Request,
    item_for: Any = None,
) -> tuple[str, str]:
    """Flag the item or one response of it: the status line, and the note emptied (every score on
    screen stays as it is). A flag that names an item no longer on screen (it raced a Submit) flags
    nothing and says so, its note kept (ui/rate/once.py)."""
    enrolment, sess = _session(store, code_text, sess, request)
    if once.repeat(sess, item_for):
        return rater_words.say("rater_flag_moved_on", sess.get("lang", "en")), note if isinstance(note, str) else ""
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


def opened_or_line(
    store: Store, code: Any, lang: str, client: Any = None, account: accounts.Account | None = None
) -> tuple[bool, list[Any]]:
    """`opened` for the hand-off from Compare, for an invite link's cookie and for a signed-in
    account (`account`, with no code): (True, its values), or (False, the refusal in the progress
    line and the form emptied)."""
    try:
        if account is not None and not code:
            enrolment = accounts.resolve(store, account)
        else:
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
    """An invite link opens the study from its cookie (ui/web.py made it from the link), else a
    signed-in Hugging Face account opens its own. Never a code in a request's address: a proxy's log
    of query strings would hold it (issue 32). The code box stays empty; with `tabs`, the Rate tab is
    selected (for an account, only when a study opened: a signed-in visitor may have come to Compare)."""
    given = clients.cookie(request, sessions.RATER_COOKIE)
    account = None if given else hf_signin.account_of(request)
    if not given and account is None:
        return [gr.update()] * (1 + n_opened() + tabs)
    ok, shown = opened_or_line(store, given, language_of_request(request), clients.client_of(request), account)
    rate_tab = gr.Tabs(selected="rating") if ok or account is None else gr.update()
    return [gr.update(), *shown, *[rate_tab] * tabs]


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


def on_guess_layout(ask: Any, request: gr.Request | None = None) -> list[Any]:
    """Show the question(s) of the item on screen, with its letters and "Don't know", in the responses'
    place (the responses hidden meanwhile, so the question is on the first screen); hide them otherwise.
    The question in the browser's language (its choices are translated in the browser)."""
    methods = list(ask.get("methods") or []) if isinstance(ask, dict) else []
    shown = int(ask.get("shown") or 0) if isinstance(ask, dict) else 0
    choices = [*blind.LABELS[:shown], guessing.DONT_KNOW]
    lang = language_of_request(request)
    radios = [
        gr.Radio(choices=choices, value=None, label=guessing.question(methods[j], lang), visible=True)
        if j < len(methods)
        else gr.Radio(value=None, label="", visible=False)
        for j in range(SLOTS)
    ]
    return [gr.Column(visible=bool(methods)), *radios, gr.Row(visible=not methods)]
