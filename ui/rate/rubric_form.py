"""The Rate tab's form for a study with its own rubric (common/rubric.py): the study's questions, in
its order, each on its own scale, under each response, in the same slots as the 1-5 form.

Each response slot holds RUBRIC_ROWS spare radio groups, hidden until a study with its own rubric is
opened; then `on_refresh` (chained after Start, Previous, Next, Skip, the blind question and every
change of layout) shows the rubric's rows with their names, descriptions, anchors and scale, hides the
three 1-5 rows and swaps the Submit button for this form's. A study with the default rubric never
touches these components (`on_refresh` answers with `gr.skip()`), so the 1-5 form's hot path is
unchanged. Short scales (up to SHORT_SCALE points) are a row of buttons, and a digit key picks the
button that shows it (ui/assets.py); longer ones (1-10, 0-10) are a compact grid of buttons
(`rate-long-scale` in ui/assets.py: two rows on a phone), chosen by click, tap, or arrow keys.
"""

from __future__ import annotations

from typing import Any

import gradio as gr

from arena import blind
from arena.store import Store
from common.errors import UserError
from common.messages import english
from common.rubric import MAX_DIMENSIONS, Dimension, Rubric

from . import handlers as h
from . import words as rater_words
from .view import SLOTS, RateView

RUBRIC_ROWS = MAX_DIMENSIONS
SHORT_SCALE = 7  # points; longer scales get the compact grid
LONG_CLASS = "rate-long-scale"


def rows() -> list[gr.Radio]:
    """One slot's spare rows: hidden, without choices, until a rubric study fills them."""
    return [gr.Radio([], value=None, label="", visible=False, elem_classes=["rate-rubric"]) for _ in range(RUBRIC_ROWS)]


def choices(d: Dimension) -> list[int | str]:
    return [*d.values, blind.CANT_JUDGE]


def label(d: Dimension, letter: str) -> str:
    """ "quality (1-10): how good is it? (A)": what to judge, on which scale, for which response."""
    about = f": {d.description}" if d.description else ""
    return f"{d.name} ({d.scale_words}){about} ({letter})"


def anchors(d: Dimension) -> str:
    """The anchor texts under a question: "1 = unreadable · 10 = as good as it gets"."""
    return " · ".join(f"{point} = {text}" for point, text in d.anchors)


def classes(d: Dimension, missing: bool = False) -> list[str]:
    return ["rate-rubric", *([LONG_CLASS] if d.points > SHORT_SCALE else []), *(["rate-missing"] if missing else [])]


def laid_out(rubric: Rubric, view: blind.RaterView | None) -> list[Any]:
    """Every spare row of every slot for the item on screen: the rubric's questions with the rater's
    answers so far, the rest hidden."""
    out: list[Any] = []
    for k in range(SLOTS):
        given = view.responses[k].scores if view is not None and k < len(view.responses) else None
        for j in range(RUBRIC_ROWS):
            if given is None or j >= len(rubric.dimensions):
                out.append(gr.update(visible=False, value=None))
                continue
            d = rubric.dimensions[j]
            out.append(
                gr.update(
                    visible=True,
                    choices=choices(d),
                    value=given.get(d.name),
                    label=label(d, blind.LABELS[k]),
                    info=anchors(d) or None,
                    elem_classes=classes(d),
                )
            )
    return out


def n_outputs() -> int:
    """What `on_refresh` fills: the flag, the 1-5 rows, the spare rows, the two Submit buttons."""
    return 1 + SLOTS * len(blind.DIMENSIONS) + SLOTS * RUBRIC_ROWS + 2


def on_refresh(store: Store, code_text: Any, sess: Any, rubric_on: Any, request: gr.Request) -> list[Any]:
    """After the page shows an item: a study with its own rubric gets its questions (outputs: whether
    the rubric form is on, the 1-5 rows, the spare rows, the 1-5 Submit, this form's Submit)."""
    # The code is checked as every rating handler checks it, so this endpoint answers nobody without one;
    # but a page with no code typed and no study open (a layout change on load) has nothing to lay out,
    # and a toast there would be an error the visitor never caused.
    try:
        enrolment, sess = h.session_of(store, code_text, sess, request)
    except UserError:
        if str(code_text or "").strip() or (isinstance(sess, dict) and sess.get("study_id")):
            raise
        return [gr.skip()] * n_outputs()
    rubric = blind.study_rubric(store, sess["study_id"])
    if rubric is None or rubric.is_default:
        if not rubric_on:
            return [gr.skip()] * n_outputs()  # the 1-5 form as built: nothing to change
        return [False, *[gr.update(visible=True)] * (SLOTS * len(blind.DIMENSIONS)),
                *[gr.update(visible=False, value=None)] * (SLOTS * RUBRIC_ROWS),
                gr.update(visible=True), gr.update(visible=False)]  # fmt: skip
    view = None
    if "item" in sess:
        view, _ = blind.open_for(store, enrolment.study_id, lambda: enrolment.rater_id, sess.get("index"))
    return [True, *[gr.update(visible=False)] * (SLOTS * len(blind.DIMENSIONS)), *laid_out(rubric, view),
            gr.update(visible=False), gr.update(visible=True)]  # fmt: skip


def on_submit(store: Store, request: gr.Request, code_text: Any, sess: Any, *values: Any) -> list[Any]:
    """This form's Submit: the answers on the study's rubric and the comments, then the next item, in
    one transaction (as the 1-5 Submit). Outputs: the 1-5 Submit's (`RateView.values`), then every
    spare row. With an answer missing nothing is saved and the empty rows are marked."""
    enrolment, sess = h.session_of(store, code_text, sess, request)
    if "item" not in sess:
        raise UserError("there is no item on screen to rate")
    rubric = blind.study_rubric(store, enrolment.study_id)
    answers, notes = blind.check_rubric_form(values, SLOTS, rubric)
    shown = int(sess.get("shown") or 0)
    empty = {(k, j) for k in range(shown) for j in range(len(rubric.dimensions)) if answers[k][j] is None}
    if empty:
        lang = sess.get("lang", "en")
        where = ", ".join(f"{blind.LABELS[k]} · {rubric.dimensions[j].name}" for k, j in sorted(empty))
        needed = shown * len(rubric.dimensions)
        line = rater_words.say("rater_not_saved_yet", lang, scored=needed - len(empty), needed=needed, where=where)
        return [*[gr.skip()] * len(RateView({}, 0, "").values()[:-3]), line, [], gr.skip(),
                *_marks(rubric, shown, empty)]  # fmt: skip
    view, message = blind.submit_slots_then_next(store, enrolment, sess["item"], answers, notes)
    if view is None:
        page = RateView.of(None, message, sess, "Saved.")
    elif view.guesses and view.item == sess["item"]:
        page = RateView.of(view, english("rater_saved_one_more_question"), sess)
    else:
        page = RateView.of(view, "Saved. Here is the next item.", sess)
    return [*page.values(), *_values(rubric, view)]


def _values(rubric: Rubric, view: blind.RaterView | None) -> list[Any]:
    """The spare rows' answers for the next item (their questions stay as laid out), marks cleared."""
    out: list[Any] = []
    for k in range(SLOTS):
        given = view.responses[k].scores if view is not None and k < len(view.responses) else {}
        for j in range(RUBRIC_ROWS):
            d = rubric.dimensions[j] if j < len(rubric.dimensions) else None
            out.append(gr.update(value=given.get(d.name), elem_classes=classes(d)) if d else gr.skip())
    return out


def _marks(rubric: Rubric, shown: int, empty: set[tuple[int, int]]) -> list[Any]:
    """The spare rows marked where an answer is missing (what the rater entered stays)."""
    return [
        gr.update(elem_classes=classes(rubric.dimensions[j], (k, j) in empty))
        if k < shown and j < len(rubric.dimensions)
        else gr.skip()
        for k in range(SLOTS)
        for j in range(RUBRIC_ROWS)
    ]
