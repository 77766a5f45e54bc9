"""The Rate tab's panel for pairwise studies: a thin layer over `arena.pair_rating`.

The 1-5 form (ui/rating.py) opens a study from the invite code; when the study is pairwise it hands
over here (`PairPanel.start`). As there, only the letters, the prompt and the two texts reach the
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

from arena import guessing, invites, pair_rating, studies
from arena.store import Store, vote_store
from arena.store.feedback import FLAG_REASONS, SKIP_REASONS
from common.errors import UserError
from common.messages import english

from . import rater_session
from .safe import response_html

WHOLE_ITEM = "The whole item"
ASKED_MAX = studies.MAX_RESPONSES  # every target of the study is asked about, on every pair
GUESS_INTRO = english("pair_guess_prompt")
DEFAULT_PAIR_GUIDELINES = english("pair_guidelines")


@dataclass
class PairPanel:
    """The panel's components and how the 1-5 form's Start shows or hides it."""

    outputs: list[Any]  # what `start` and `hide` fill: session, panel, then the view's values
    start: Any  # (store, enrolment) -> values for `outputs`
    hide: Any  # () -> values for `outputs`


FOCUS_JS = """
() => {
  const box = document.querySelector('#pair-prompt');
  if (box) { box.scrollIntoView({block: 'start'}); }
  const first = document.querySelector('#pair-vote-a');
  if (first) first.focus({preventScroll: true});
}
"""


def build(store: Store, code: gr.Textbox, code_of: Any) -> PairPanel:
    """The panel (hidden until a pairwise study is opened); `code_of(typed, request)` gives the code."""
    session = gr.State({})
    with gr.Column(visible=False, elem_id="pair-panel") as panel:
        progress = gr.Markdown("", elem_id="pair-progress")
        prompt = gr.Textbox(label="Prompt", interactive=False, lines=3, elem_id="pair-prompt")
        with gr.Accordion("How to vote (guidelines)", open=False):
            guide = gr.Markdown(DEFAULT_PAIR_GUIDELINES, elem_id="pair-guide")
        with gr.Row(elem_id="pair-responses"):
            text_a = gr.HTML("", elem_id="pair-a")
            text_b = gr.HTML("", elem_id="pair-b")
        # (label, key): the page shows the label (translated where the browser asks), the server gets the key
        reasons = gr.CheckboxGroup(
            [(v, k) for k, v in vote_store.REASONS.items()], label="Why (optional)", elem_id="pair-reasons"
        )
        note = gr.Textbox(label="Anything else about your choice (optional)", max_lines=2, elem_id="pair-note")
        with gr.Column(visible=False, elem_id="pair-guess") as guess_box:
            gr.Markdown(GUESS_INTRO)
            guess_radios = [
                gr.Radio([*pair_rating.LABELS, guessing.DONT_KNOW], value=None, label="", visible=False)
                for _ in range(ASKED_MAX)
            ]
            guess_btn = gr.Button("Send answer and go on", variant="primary", elem_id="pair-guess-send")
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
        with gr.Accordion("Skip this item, or flag a problem", open=False):
            with gr.Row():
                skip_reason = gr.Dropdown(
                    [(v, k) for k, v in SKIP_REASONS.items()], value=None, label="Reason to skip this item", scale=2
                )
                skip_note = gr.Textbox(label="Skip: say why (needed for Other)", max_lines=2, scale=3)
                skip_btn = gr.Button("Skip this item", scale=1)
            with gr.Row():
                flag_target = gr.Dropdown(
                    [WHOLE_ITEM, "Response A", "Response B"], value=WHOLE_ITEM, label="Flag", scale=2
                )
                flag_reason = gr.Dropdown(
                    [(v, k) for k, v in FLAG_REASONS.items()], value=None, label="Flag reason", scale=2
                )
                flag_note = gr.Textbox(label="Flag note (optional; needed for Other)", max_lines=2, scale=3)
                flag_btn = gr.Button("Flag", scale=1)
        status = gr.Markdown("", elem_id="pair-status")

    view_outputs = [
        session,
        progress,
        prompt,
        text_a,
        text_b,
        reasons,
        note,
        status,
        vote_row,
        guess_box,
        *guess_radios,
    ]

    def asking(methods: list[str]) -> list[Any]:
        """The vote row, the question box and its radios: one question per target of the study."""
        radios = [
            gr.Radio(value=None, label=guessing.pair_question(methods[j]), visible=True)
            if j < len(methods)
            else gr.Radio(value=None, label="", visible=False)
            for j in range(ASKED_MAX)
        ]
        return [gr.Row(visible=not methods), gr.Column(visible=bool(methods)), *radios]

    def render(view: pair_rating.PairView | None, message: str, sess: dict[str, Any], line: str = "") -> list[Any]:
        sess = {k: v for k, v in sess.items() if k != "guess"}
        if view is None:
            sess = {k: v for k, v in sess.items() if k not in ("item", "index")}
            return [sess, message, "", "", "", [], "", line, *asking([])]
        sess = {**sess, "item": view.item, "index": view.index}
        if view.guesses:  # server-side: the targets asked, in the order of the radios
            sess["guess"] = list(view.guesses)
        head = f"**{view.progress}**"
        if view.winner:
            head += f" · your vote: {pair_rating.WINNER_LABELS[view.winner]} (voting again replaces it)"
        elif view.skipped:
            head += " · you skipped this item; voting replaces the skip"
        return [
            sess,
            head,
            view.prompt,
            response_html("A", view.text_a),
            response_html("B", view.text_b),
            list(view.reasons),
            view.note,
            line or message,
            *asking(view.guesses),
        ]

    def start(store_: Store, enrolment: invites.Enrolment) -> list[Any]:
        view, message = pair_rating.open_for(store_, enrolment)
        study = store_.get_study(enrolment.study_id)
        text = ((study.guidelines if study is not None else None) or "").strip() or DEFAULT_PAIR_GUIDELINES
        return [gr.Column(visible=True), text, *render(view, message, {"study_id": enrolment.study_id})]

    def hide() -> list[Any]:
        return [gr.Column(visible=False), gr.update(), {}, "", "", "", "", [], "", "", *asking([])]

    def fail(exc: UserError):
        raise gr.Error(str(exc), print_exception=False) from None

    def session_of(code_text: Any, sess: Any, request: Any) -> tuple[invites.Enrolment, dict[str, Any]]:
        return rater_session.enrolled(store, code_text, sess, request)

    def on_vote(winner: str):
        def cast(code_text: Any, sess: Any, why: Any, text: Any, request: gr.Request):
            try:
                enrolment, sess = session_of(code_text, sess, request)
                if "item" not in sess:
                    raise UserError("there is no item on screen to vote on")
                view, message = pair_rating.vote_then_next(store, enrolment, sess["item"], winner, why, text)
            except UserError as exc:
                fail(exc)
            if view is not None and view.guesses and view.item == sess["item"]:
                return render(view, message, sess, "Saved. One more question about this item.")
            return render(view, message, sess, "Saved." if view is None else "Saved. Here is the next item.")

        return cast

    def on_move(step: int):
        def move(code_text: Any, sess: Any, request: gr.Request):
            try:
                enrolment, sess = session_of(code_text, sess, request)
                total = len(studies.ready_item_ids(store, sess["study_id"]))
                index = sess.get("index", 1) + step if "item" in sess else (total if step < 0 else 1)
                if not 1 <= index <= total:
                    raise UserError("no earlier item" if step < 0 else "no further item: this is the last one")
                view, message = pair_rating.open_for(store, enrolment, index)
            except UserError as exc:
                fail(exc)
            return render(view, message, sess)

        return move

    def on_guess(request: gr.Request, code_text: Any, sess: Any, *values: Any):
        """The answer(s), then the next item; the reply is the same whatever the answer."""
        try:
            enrolment, sess = session_of(code_text, sess, request)
            if "item" not in sess:
                raise UserError("there is no item on screen")
            answers = dict(zip(sess.get("guess") or [], values, strict=False))
            view, message = pair_rating.guess_then_next(store, enrolment, sess["item"], answers)
        except UserError as exc:
            fail(exc)
        return render(view, message, sess, "Thank you." if view is None else "Thank you. Here is the next item.")

    def on_skip(code_text: Any, sess: Any, reason: Any, text: Any, request: gr.Request):
        try:
            enrolment, sess = session_of(code_text, sess, request)
            if "item" not in sess:
                raise UserError("there is no item on screen to skip")
            if reason in (None, ""):
                raise UserError("choose a reason to skip this item")
            view, message = pair_rating.skip_then_next(
                store, enrolment, sess["item"], reason, text if isinstance(text, str) else None
            )
        except UserError as exc:
            fail(exc)
        return [*render(view, message, sess, "Skipped."), None, ""]

    def on_flag(code_text: Any, sess: Any, target: Any, reason: Any, text: Any, request: gr.Request):
        try:
            enrolment, sess = session_of(code_text, sess, request)
            if "item" not in sess:
                raise UserError("there is no item on screen to flag")
            if reason in (None, ""):
                raise UserError("choose a reason for the flag")
            if target not in (None, "", WHOLE_ITEM, "Response A", "Response B"):
                raise UserError("choose what to flag: the whole item or one response")
            label = None if target in (None, "", WHOLE_ITEM) else str(target).removeprefix("Response ")
            new = pair_rating.flag(
                store, enrolment, sess["item"], label, reason, text if isinstance(text, str) else None
            )
        except UserError as exc:
            fail(exc)
        what = "this item" if label is None else f"response {label}"
        return (f"Flagged {what}. The organizer will see it; go on voting." if new else "Already flagged."), ""

    for winner, button in buttons.items():
        button.click(
            on_vote(winner), [code, session, reasons, note], view_outputs, api_name=f"pair_vote_{winner}"
        ).then(None, None, None, js=FOCUS_JS)
    guess_btn.click(on_guess, [code, session, *guess_radios], view_outputs, api_name="pair_guess").then(
        None, None, None, js=FOCUS_JS
    )
    prev_btn.click(on_move(-1), [code, session], view_outputs, api_name="pair_previous")
    next_btn.click(on_move(+1), [code, session], view_outputs, api_name="pair_next")
    skip_btn.click(
        on_skip, [code, session, skip_reason, skip_note], [*view_outputs, skip_reason, skip_note], api_name="pair_skip"
    )
    flag_btn.click(
        on_flag, [code, session, flag_target, flag_reason, flag_note], [status, flag_note], api_name="pair_flag"
    )
    return PairPanel([panel, guide, *view_outputs], start, hide)
