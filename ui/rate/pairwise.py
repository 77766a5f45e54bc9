"""The Rate tab's panel for pairwise studies: a thin layer over `arena.rating.pair_rating`.

The 1-5 form (ui/rate/handlers.py) opens a study from the invite code; when the study is pairwise it
hands over here (`start`). As there, only the letters, the prompt and the two texts reach the
browser; every handler checks the code again on the server, and the session state (server-side)
holds the study id and the item's random public id. In a study that measures the blind, the voted
item comes back with "If one of these came from METHOD, which one?" (A, B, Don't know) for every
target, on every pair (whether METHOD is on screen or not, so the panel says nothing about the pair),
the vote buttons hidden meanwhile so that keys 1-4 cannot vote again by mistake; the methods asked
about sit in the session, never the answer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import gradio as gr

from arena import studies
from arena.access import invites
from arena.rating import guessing, pair_rating
from arena.store import Store, vote_store
from arena.store.feedback import FLAG_REASONS, SKIP_REASONS
from common.errors import UserError
from common.messages import english

from ..handler import handler
from ..i18n import language_of_request, t, translated
from ..safe import response_html
from . import once
from .guidelines import DEFAULT_PAIR_GUIDELINES, guidelines_for
from .session import enrolled
from .words import say

WHOLE_ITEM = "The whole item"
ASKED_MAX = studies.MAX_RESPONSES  # every target of the study is asked about, on every pair
GUESS_INTRO = english("pair_guess_prompt")


@dataclass
class PairPanel:
    """The panel's components: `outputs` is what `start` and `hide` fill (the panel, its guidelines,
    then a `PairView`'s values)."""

    outputs: list[Any]


@dataclass(frozen=True)
class PairView:
    """The pair on screen (or the line shown instead of one): what every handler of the panel returns.
    `values()` is its wire format: session, progress, prompt, text A, text B, reasons, note, status,
    the vote row, the question box, then one radio per target of the blind question."""

    session: dict[str, Any]
    progress: str = ""
    prompt: str = ""
    text_a: str = ""
    text_b: str = ""
    reasons: tuple[str, ...] = ()
    note: str = ""
    status: str = ""
    asked: tuple[str, ...] = ()  # the targets of the blind question on this pair, in the radios' order

    @classmethod
    def of(cls, view: pair_rating.PairView | None, message: str, sess: dict[str, Any], line: str = "") -> PairView:
        """The view of `pair_rating`'s answer in the session's language (`message` and `line`, written
        in English below, are looked up in common/messages.py)."""
        lang = sess.get("lang", "en")
        sess = {k: v for k, v in sess.items() if k != "guess"}
        if view is None:
            shown = {k: v for k, v in sess.items() if k not in ("item", "index")}
            return cls(shown, translated(message, lang), status=translated(line, lang))
        sess = {**sess, "item": view.item, "index": view.index}
        if view.guesses:  # server-side: the targets asked, in the order of the radios
            sess["guess"] = list(view.guesses)
        head = f"**{view.progress_in(lang)}**"
        if view.winner:
            vote = say(f"pair_winner_{view.winner}", lang)
            head += say("pair_your_vote", lang, vote=vote)
        elif view.skipped:
            head += say("pair_skipped_note", lang)
        text_a, text_b = (
            response_html(k, text, say("rater_response", lang, label=k))
            for k, text in zip(pair_rating.LABELS, (view.text_a, view.text_b), strict=True)
        )
        status = translated(line or message, lang)
        return cls(sess, head, view.prompt, text_a, text_b, tuple(view.reasons), view.note, status, tuple(view.guesses))

    def values(self) -> list[Any]:
        on_screen = "item" in self.session
        return [self.session, self.progress, self.prompt, self.text_a, self.text_b, list(self.reasons), self.note,
                self.status, *asking(list(self.asked), on_screen, self.session.get("lang", "en")),
                int(self.session["index"]) if on_screen else None]  # fmt: skip


def asking(methods: list[str], on_screen: bool = True, lang: str = "en") -> list[Any]:
    """The vote row (hidden with no pair on screen: nothing to vote on), the question box and its
    radios: one question per target of the study, in `lang`."""
    radios = [
        gr.Radio(value=None, label=guessing.pair_question(methods[j], lang), visible=True)
        if j < len(methods)
        else gr.Radio(value=None, label="", visible=False)
        for j in range(ASKED_MAX)
    ]
    return [gr.Row(visible=on_screen and not methods), gr.Column(visible=bool(methods)), *radios]


def start(store: Store, enrolment: invites.Enrolment, lang: str = "en") -> list[Any]:
    """The panel shown, with the study's guidelines and its first pair, in `lang`: values for
    `PairPanel.outputs`."""
    view, message = pair_rating.open_for(store, enrolment)
    text = guidelines_for(store, enrolment.study_id, DEFAULT_PAIR_GUIDELINES)
    sess = {"study_id": enrolment.study_id, "lang": lang}
    # the default guidelines in the browser's language; a study's own as written
    return [gr.Column(visible=True), t(text), *PairView.of(view, message, sess).values()]


def hide() -> list[Any]:
    """The panel hidden and emptied (a 1-5 study is on screen): values for `PairPanel.outputs`."""
    return [gr.Column(visible=False), gr.update(), *PairView({}).values()]


# ---- the handlers: module-level, of plain values (tests/test_rate_handlers.py calls them) ------------


def seated(store: Store, code_text: Any, sess: Any, request: Any) -> tuple[invites.Enrolment, dict[str, Any]]:
    """`enrolled`, with the session's language set from this request (the browser's, as at Start)."""
    enrolment, sess = enrolled(store, code_text, sess, request)
    return enrolment, {**sess, "lang": language_of_request(request)}


def on_vote(
    store: Store, winner: str, code_text: Any, sess: Any, why: Any, text: Any, request: gr.Request, item_for: Any = None
) -> PairView:
    """The vote on the pair on screen, then the next pair. `item_for`: the position of the pair the
    vote is for; a copy of a vote applied already gets the page as it is now (ui/rate/once.py)."""
    enrolment, sess = seated(store, code_text, sess, request)
    if once.repeat(sess, item_for):
        return as_it_is(store, enrolment, sess)
    if "item" not in sess:
        raise UserError(english("pair_no_item_to_vote"))
    view, message = pair_rating.vote_then_next(store, enrolment, sess["item"], winner, why, text)
    if view is not None and view.guesses and view.item == sess["item"]:
        return PairView.of(view, message, sess, english("pair_saved_one_more_question"))
    return PairView.of(view, message, sess, english("rater_saved" if view is None else "rater_saved_next"))


def as_it_is(store: Store, enrolment: invites.Enrolment, sess: dict[str, Any]) -> PairView:
    """The pair on screen as it is now, for a copy of an answer applied already (ui/rate/once.py)."""
    view, message = pair_rating.open_for(store, enrolment, sess.get("index") if "item" in sess else None)
    return PairView.of(view, message, sess, once.ALREADY)  # in the session's language: rater_saved_already


def on_move(store: Store, step: int, code_text: Any, sess: Any, request: gr.Request) -> PairView:
    enrolment, sess = seated(store, code_text, sess, request)
    total = len(studies.ready_item_ids(store, sess["study_id"]))
    index = sess.get("index", 1) + step if "item" in sess else (total if step < 0 else 1)
    if not 1 <= index <= total:
        raise UserError(english("rater_no_earlier_item" if step < 0 else "rater_no_further_item"))
    view, message = pair_rating.open_for(store, enrolment, index)
    return PairView.of(view, message, sess)


def on_guess(store: Store, request: gr.Request, code_text: Any, sess: Any, *values: Any) -> PairView:
    """The answer(s), then the next item; the reply is the same whatever the answer. The last value,
    if sent, is the position of the pair the answers are for (ui/rate/once.py)."""
    enrolment, sess = seated(store, code_text, sess, request)
    values, named = once.split_named(values, ASKED_MAX)
    if once.repeat(sess, named):
        return as_it_is(store, enrolment, sess)
    if "item" not in sess:
        raise UserError(english("rater_no_item_on_screen"))
    answers = dict(zip(sess.get("guess") or [], values, strict=False))
    view, message = pair_rating.guess_then_next(store, enrolment, sess["item"], answers)
    return PairView.of(view, message, sess, english("rater_thank_you" if view is None else "rater_thank_you_next"))


def on_skip(
    store: Store, code_text: Any, sess: Any, reason: Any, text: Any, request: gr.Request, item_for: Any = None
) -> list[Any]:
    """The next pair, and the skip's reason and note emptied."""
    enrolment, sess = seated(store, code_text, sess, request)
    if once.repeat(sess, item_for):
        return [*as_it_is(store, enrolment, sess).values(), None, ""]
    if "item" not in sess:
        raise UserError(english("rater_no_item_to_skip"))
    if reason in (None, ""):
        raise UserError(english("rater_choose_skip_reason"))
    note = text if isinstance(text, str) else None
    view, message = pair_rating.skip_then_next(store, enrolment, sess["item"], reason, note)
    return [*PairView.of(view, message, sess, english("rater_skipped")).values(), None, ""]


def on_flag(
    store: Store,
    code_text: Any,
    sess: Any,
    target: Any,
    reason: Any,
    text: Any,
    request: gr.Request,
    item_for: Any = None,
) -> tuple[str, str]:
    """The status line and the flag's note emptied; the pair on screen stays as it is. A flag that
    names a pair no longer on screen flags nothing and says so, its note kept (ui/rate/once.py)."""
    enrolment, sess = seated(store, code_text, sess, request)
    lang = sess.get("lang", "en")
    if once.repeat(sess, item_for):
        return say("rater_flag_moved_on", lang), text if isinstance(text, str) else ""
    if "item" not in sess:
        raise UserError(english("rater_no_item_to_flag"))
    if reason in (None, ""):
        raise UserError(english("rater_choose_flag_reason"))
    if target not in (None, "", WHOLE_ITEM, "Response A", "Response B"):
        raise UserError(english("rater_choose_flag_target"))
    label = None if target in (None, "", WHOLE_ITEM) else str(target).removeprefix("Response ")
    new = pair_rating.flag(store, enrolment, sess["item"], label, reason, text if isinstance(text, str) else None)
    what = say("rater_this_item", lang) if label is None else say("rater_response_lower", lang, label=label)
    return (say("pair_flagged", lang, what=what) if new else say("pair_already_flagged", lang)), ""


# The vote buttons are disabled from the click until the next pair has been on screen a moment
# (ui/rate/once.py): an extra tap or key press while a vote saves, or a double tap's second tap just
# after the reply, is not sent at all (the server ignores a copy anyway).
VOTES = "#pair-votes button"
GUESS_SEND = "#pair-guess-send"

FOCUS_JS = """
() => {
  const question = document.querySelector('#pair-guess');
  if (question && question.offsetParent !== null) {  // asked after this vote: keys 1, 2, 0 answer it
    question.scrollIntoView({block: 'start'});
    const choice = question.querySelector('fieldset input[type=radio]');
    if (choice) { choice.focus({preventScroll: true}); return; }
  }
  const box = document.querySelector('#pair-prompt');
  if (box) { box.scrollIntoView({block: 'start'}); }
  const first = document.querySelector('#pair-vote-a');
  if (first) first.focus({preventScroll: true});
}
"""


def build(store: Store, code: gr.Textbox) -> PairPanel:
    """The panel (hidden until a pairwise study is opened) and its wiring."""
    session = gr.State({})
    with gr.Column(visible=False, elem_id="pair-panel") as panel:
        progress = gr.Markdown("", elem_id="pair-progress")
        prompt = gr.Textbox(label="Prompt", interactive=False, lines=3, elem_id="pair-prompt")
        with gr.Accordion("How to vote (guidelines)", open=False):
            guide = gr.Markdown(DEFAULT_PAIR_GUIDELINES, elem_id="pair-guide")
        # The question after a vote stands above the pair, on the first screen, the keyboard on its
        # first choice (FOCUS_JS); the pair stays below it to look at again.
        with gr.Column(visible=False, elem_id="pair-guess") as guess_box:
            gr.Markdown(GUESS_INTRO)
            guess_radios = [
                gr.Radio([*pair_rating.LABELS, guessing.DONT_KNOW], value=None, label="", visible=False)
                for _ in range(ASKED_MAX)
            ]
            guess_btn = gr.Button("Send answer and go on", variant="primary", elem_id="pair-guess-send")
        with gr.Row(elem_id="pair-responses"):
            text_a = gr.HTML("", elem_id="pair-a")
            text_b = gr.HTML("", elem_id="pair-b")
        # (label, key): the page shows the label (translated where the browser asks), the server gets the key
        reasons = gr.CheckboxGroup(
            [(v, k) for k, v in vote_store.REASONS.items()], label="Why (optional)", elem_id="pair-reasons"
        )
        note = gr.Textbox(label="Anything else about your choice (optional)", max_lines=2, elem_id="pair-note")
        with gr.Row(elem_id="pair-votes") as vote_row:
            buttons = {
                w: gr.Button(
                    f"{label} ({k})", variant="primary" if w in ("a", "b") else "secondary", elem_id=f"pair-vote-{w}"
                )
                for k, (w, label) in enumerate(pair_rating.WINNER_LABELS.items(), start=1)
            }
        with gr.Row():
            prev_btn = gr.Button("← Previous")
            next_btn = gr.Button("Next →")
        skip, flag = _feedback_row()
        status = gr.Markdown("", elem_id="pair-status")
        # the position of the pair on screen, which a vote names (ui/rate/once.py)
        item_for = gr.Number(None, precision=0, visible=False, elem_id="pair-item-for")
    views = [
        session, progress, prompt, text_a, text_b, reasons, note, status, vote_row, guess_box, *guess_radios, item_for,
    ]  # fmt: skip
    wire = PairView.values
    private: dict[str, Any] = dict(api_visibility="private")
    for winner, button in buttons.items():
        button.click(None, None, None, js=once.hold_js(VOTES), **private)
        voted = button.click(
            handler(on_vote, store, winner, wire=wire), [code, session, reasons, note, item_for], views,
            api_name=f"pair_vote_{winner}", api_visibility="undocumented",
        )  # fmt: skip
        voted.then(None, None, None, js=FOCUS_JS)
        voted.then(None, None, None, js=once.release_js(VOTES, "#pair-vote-a"))
    guess_btn.click(None, None, None, js=once.hold_js(GUESS_SEND), **private)
    guess = handler(on_guess, store, wire=wire)
    guessed = guess_btn.click(
        guess, [code, session, *guess_radios, item_for], views, api_name="pair_guess", api_visibility="undocumented"
    )
    guessed.then(None, None, None, js=FOCUS_JS)
    guessed.then(None, None, None, js=once.release_js(GUESS_SEND))
    for button, step, name in ((prev_btn, -1, "pair_previous"), (next_btn, +1, "pair_next")):
        move = handler(on_move, store, step, wire=wire)
        button.click(move, [code, session], views, api_name=name, api_visibility="undocumented")
    skip_reason, skip_note, skip_btn = skip
    skip_btn.click(
        handler(on_skip, store), [code, session, skip_reason, skip_note, item_for], [*views, skip_reason, skip_note],
        api_name="pair_skip", api_visibility="undocumented",
    )  # fmt: skip
    flag_target, flag_reason, flag_note, flag_btn = flag
    flag_btn.click(
        handler(on_flag, store), [code, session, flag_target, flag_reason, flag_note, item_for], [status, flag_note],
        api_name="pair_flag", api_visibility="undocumented",
    )  # fmt: skip
    return PairPanel([panel, guide, *views])


def _feedback_row() -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    """The skip and flag controls: (reason, note, button) and (target, reason, note, button)."""
    with gr.Accordion("Skip this item, or flag a problem", open=False):
        with gr.Row():
            skip_reason = gr.Dropdown(
                [(v, k) for k, v in SKIP_REASONS.items()], value=None, label="Reason to skip this item", scale=2
            )
            skip_note = gr.Textbox(label="Skip: say why (needed for Other)", max_lines=2, scale=3)
            skip_btn = gr.Button("Skip this item", scale=1)
        with gr.Row():
            flag_target = gr.Dropdown([WHOLE_ITEM, "Response A", "Response B"], value=WHOLE_ITEM, label="Flag", scale=2)
            flag_reason = gr.Dropdown(
                [(v, k) for k, v in FLAG_REASONS.items()], value=None, label="Flag reason", scale=2
            )
            flag_note = gr.Textbox(label="Flag note (optional; needed for Other)", max_lines=2, scale=3)
            flag_btn = gr.Button("Flag", scale=1)
    return (skip_reason, skip_note, skip_btn), (flag_target, flag_reason, flag_note, flag_btn)
