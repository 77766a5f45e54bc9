"""The Rate tab's question rows: a study's questions (common/rubric.py), in its order, each on its own
scale, under each response. One form for every rubric, the mission's three 1-5 questions included.

Each response slot holds ROWS radio groups (as many as a rubric may ask). They are built laid out for
the default rubric, so a study that asks the default questions needs no change of layout; any other
rubric is laid out by `on_refresh` (chained after Start, Previous, Next, Skip, the blind question and
every change of layout; `gr.skip()` when the page already shows the study's questions). Whatever the
rubric, the values go over the wire in the rows (ui/rate/view.py) and one Submit sends them
(ui/rate/handlers.py `on_submit`). Short scales (up to SHORT_SCALE points) are a row of buttons; longer
ones (1-10, 0-10) a compact grid (`rate-long-scale` in ui/assets.py); on a phone every row is a grid
of buttons at least 44 px each way, "Can't judge" on a line of its own. A digit key
picks the button that shows it, a two-digit point takes its two digits (ui/assets.py).

Each question's control follows its type (common/questions/): a type with values is a row of its
options (yes/no and a choice are labelled buttons that a digit picks by place, 1 = the first:
`BY_POSITION`); a text question is asked in each response's comment box, relabelled with it, and is
optional (the counter and the missing marks count required questions only).
"""

from __future__ import annotations

from typing import Any

import gradio as gr

from arena.rating import blind
from arena.store import Store
from common.errors import UserError
from common.messages import english
from common.rubric import DEFAULT_RUBRIC, Dimension, Rubric

from . import handlers as h
from .view import ROWS, SLOTS

RUBRIC_ROWS = ROWS
SHORT_SCALE = 7  # points; longer scales get the compact grid
LONG_CLASS = "rate-long-scale"
BY_POSITION = "rate-by-position"  # labelled options: a digit key picks the k-th (ui/assets.py)


def rows(letter: str) -> list[gr.Radio]:
    """One slot's rows, laid out for the default rubric (the rest hidden until a rubric asks more)."""
    return [gr.Radio(value=None, **spec) for spec in row_specs(DEFAULT_RUBRIC, letter)]


def row_specs(rubric: Rubric, letter: str) -> list[dict[str, Any]]:
    """What each of one slot's rows shows for `rubric`: its question, or hidden."""
    specs: list[dict[str, Any]] = []
    for j in range(ROWS):
        if j >= len(rubric.dimensions) or not rubric.dimensions[j].values:  # a text question: the comment box
            specs.append(dict(visible=False, choices=[], label="", info=None, elem_classes=["rate-rubric"]))
            continue
        d = rubric.dimensions[j]
        specs.append(
            dict(visible=True, choices=choices(d), label=label(d, letter), info=anchors(d) or None,
                 elem_classes=classes(d))
        )  # fmt: skip
    return specs


def choices(d: Dimension) -> list[Any]:
    if d.kind == "scale":
        return [*d.values, blind.CANT_JUDGE]  # the buttons show their values
    cant = [(blind.CANT_JUDGE, blind.CANT_JUDGE)] if d.qtype.can_judge else []
    return [*d.options(), *cant]


def text_question(rubric: Rubric) -> Dimension | None:
    """The rubric's text question (at most one: it takes the comment box's place), if any."""
    return next((d for d in rubric.dimensions if not d.values), None)


def comment_label(rubric: Rubric, letter: str) -> str:
    """The comment box's label: the rubric's text question, or the page's own comment."""
    d = text_question(rubric)
    if d is None:
        return f"Comment on {letter} (optional)"
    about = f": {d.description}" if d.description else ""
    return f"{d.name}{about} ({letter}, optional)"


def comment_labels(rubric: Rubric) -> list[Any]:
    return [gr.update(label=comment_label(rubric, blind.LABELS[k])) for k in range(SLOTS)]


def label(d: Dimension, letter: str) -> str:
    """ "quality (1-10): how good is it? (A)": what to judge, on which scale, for which response. The
    mission's own questions keep the words the page always had ("Coherence: logical, consistent, on
    topic (A)"), which the browser translates."""
    if d in DEFAULT_RUBRIC.dimensions:
        return f"{english(f'dimension_label_{d.name}')} ({letter})"
    about = f": {d.description}" if d.description else ""
    return f"{d.name} ({d.scale_words}){about} ({letter})"


def anchors(d: Dimension) -> str:
    """The anchor texts under a question: "1 = unreadable · 10 = as good as it gets"."""
    return " · ".join(f"{point} = {text}" for point, text in d.anchors)


def classes(d: Dimension | None, missing: bool = False) -> list[str]:
    shape = [] if d is None else [BY_POSITION] if d.kind != "scale" else [LONG_CLASS] if d.points > SHORT_SCALE else []
    return ["rate-rubric", *shape, *(["rate-missing"] if missing else [])]


def laid_out(rubric: Rubric, view: blind.RaterView | None) -> list[Any]:
    """Every row of every slot for `rubric`, with the rater's answers so far on the item on screen."""
    out: list[Any] = []
    for k in range(SLOTS):
        given = view.responses[k].scores if view is not None and k < len(view.responses) else {}
        for j, spec in enumerate(row_specs(rubric, blind.LABELS[k])):
            name = rubric.dimensions[j].name if j < len(rubric.dimensions) and rubric.dimensions[j].values else None
            out.append(gr.update(value=given.get(name) if name else None, **spec))
    return out


def n_outputs() -> int:
    """What `on_refresh` fills: the rubric laid out, every row, then the comment boxes' labels."""
    return 1 + SLOTS * ROWS + SLOTS


def on_refresh(store: Store, code_text: Any, sess: Any, laid: Any, request: gr.Request) -> list[Any]:
    """After the page shows an item: the study's questions in the rows, unless the page shows them
    already (`laid`: the JSON of the rubric laid out; the page is built with the default's). Outputs:
    the rubric now laid out, every row, then the comment boxes' labels."""
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
    if rubric.to_json() == (laid or DEFAULT_RUBRIC.to_json()):
        return [gr.skip()] * n_outputs()  # the rows ask these questions already: nothing to change
    view = None
    if "item" in sess:
        view, _ = blind.open_for(store, enrolment.study_id, lambda: enrolment.rater_id, sess.get("index"))
    return [rubric.to_json(), *laid_out(rubric, view), *comment_labels(rubric)]


def on_missing(store: Store, marked: Any, sess: Any) -> list[Any]:
    """Mark the rows left empty at the last Submit in place (and clear earlier marks), every row
    keeping its scale's classes."""
    marked = {tuple(m) for m in marked} if isinstance(marked, list) else set()
    sid = sess.get("study_id") if isinstance(sess, dict) else None
    rubric = blind.study_rubric(store, sid) if sid else DEFAULT_RUBRIC
    return [
        gr.update(elem_classes=classes(rubric.dimensions[j], (k, j) in marked))
        if j < len(rubric.dimensions) and rubric.dimensions[j].values
        else gr.skip()
        for k in range(SLOTS)
        for j in range(ROWS)
    ]
