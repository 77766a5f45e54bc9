"""The rating endpoints of the Python API: a rater's invite code, the item's position, scores as numbers.

Each endpoint is the Rate tab's own handler (ui/rate/handlers.py) called with a session made for the
item the request names, and its answer is read back as plain data. So the code is checked again (and
wrong codes throttled per client), a score is checked on the study's scale, a guess is asked only on
an item already scored, and a request lands on the item it names, never on the next one: the page's
promises (ui/rate/once.py) hold here because it is the page's path.

The API keeps no session of its own: a request names its code and item, so a retry after a lost
reply writes the same answer to the same item again (one rating per response, as the page's
"change a rating") and `gradio_client`, curl or a fresh session per call all work the same.

What comes back is what the rater's page shows, as data: the prompt, the responses by letter with
their texts, the rubric's questions and scales, the rater's own scores. Never a method, a seed, an
output id or the item's internal id; the blind question, in a study that asks it, names the methods
asked about (as the page does), only once the item is scored, and never which response is which.
"""

from __future__ import annotations

from typing import Any

import gradio as gr

from arena.access import invites
from arena.rating import blind
from arena.store import Store
from common.errors import UserError
from common.rubric import Rubric

from ..i18n import language_of_request
from ..rate import handlers as h
from ..rate import pairwise as pw
from ..rate.session import seat_of
from ..rate.view import SLOTS, RateView, form
from . import pairwise
from .plain import plain_text

Answer = dict[str, Any]


def seated(store: Store, code: Any, item: Any, request: Any) -> tuple[invites.Enrolment, dict[str, Any]]:
    """The rater of `code` and the session the page would hold with item `item` (1-based) on screen
    (no item: nothing on screen). The code is checked as the page checks it."""
    if not isinstance(code, str) or not code.strip():
        raise UserError("give the rater's invite code (invite_code)")
    enrolment = seat_of(store, code, request)
    sess: dict[str, Any] = {"study_id": enrolment.study_id, "lang": language_of_request(request)}
    if item in (None, "", 0):
        return enrolment, sess
    if pairwise.is_pairwise(store, enrolment):  # the pairwise panel's session (ui/rate/pairwise.py)
        return enrolment, pairwise.session(store, enrolment, item, sess["lang"])
    view, message = blind.open_for(store, enrolment.study_id, lambda: enrolment.rater_id, item)
    return enrolment, RateView.of(view, message, sess).session


def answer(store: Store, enrolment: invites.Enrolment, page: RateView) -> Answer:
    """`page` as plain data, the texts as stored (the page's are HTML), the rater's own scores as numbers."""
    rubric = blind.study_rubric(store, enrolment.study_id)
    view = None
    if page.item_for is not None:
        view, _ = blind.open_for(store, enrolment.study_id, lambda: enrolment.rater_id, page.item_for)
    out: Answer = {
        "design": "scores",
        "item": page.item_for,
        "of": view.total if view is not None else None,
        "rated": view.rated_items - view.skipped_items if view is not None else None,
        "prompt": view.prompt if view is not None else "",
        "responses": responses(view),
        "questions": questions(rubric),
        "question": question(page),
        "progress": plain_text(page.progress),
        "status": plain_text(page.status),
        "missing": [[blind.LABELS[k], rubric.names[d]] for k, d in page.missing if d < len(rubric.names)],
    }
    return out


def responses(view: blind.RaterView | None) -> list[Answer]:
    if view is None:
        return []
    return [
        {"label": r.label, "text": r.text, "scores": {k: v for k, v in r.scores.items() if v is not None},
         "comment": r.comment or ""}
        for r in view.responses
    ]  # fmt: skip


def questions(rubric: Rubric) -> list[Answer]:
    """The study's questions: what to send in `scores` for each. `type` is the question's type
    (common/questions/); `options` the answers it takes, each sent as its label or its value
    (a scale's are its numbers); `required` false for a comment, which takes any text;
    `can_judge` whether "can't judge" is an answer too."""
    return [
        {"name": d.name, "type": d.qtype.name, "description": d.description, "low": d.low, "high": d.high,
         "options": [{"label": label, "value": value} for label, value in d.qtype.options(d)],
         "required": d.qtype.required, "can_judge": d.qtype.can_judge}
        for d in rubric.dimensions
    ]  # fmt: skip


def sent_value(rubric: Rubric, name: str, value: Any) -> Any:
    """An answer as a client may send it: a labelled option by its label ("Yes", "off-topic"), as the
    page shows it, is its value; anything else goes to the form's checker as sent."""
    if not isinstance(value, str) or value == blind.CANT_JUDGE:
        return value
    dim = rubric.dimensions[rubric.names.index(name)]
    by_label = {label.casefold(): v for label, v in dim.qtype.options(dim) if label != str(v)}
    return by_label.get(value.strip().casefold(), value)


def question(page: RateView) -> Answer | None:
    """The blind question of a scored item (the methods asked about, in the order `answers` follows),
    or None."""
    ask = page.guess_ask
    if not ask or not ask.get("methods"):
        return None
    letters = list(blind.LABELS[: int(ask.get("shown") or 0)])
    return {"methods": list(ask["methods"]), "choices": [*letters, "Don't know"]}


# ---- the endpoints: each the page's handler for the same action -------------------------------------


def start_rating(store: Store, request: gr.Request, invite_code: str) -> Answer:
    """Open the study of the invite code: its first item the rater has not rated yet (or the line
    that says they are done)."""
    enrolment, sess = seated(store, invite_code, None, request)
    if pairwise.is_pairwise(store, enrolment):
        return pairwise.answer(store, enrolment, pairwise.view_at(store, enrolment, None, sess["lang"]))
    opened = h.on_start(store, invite_code, {}, request)
    return answer(store, enrolment, opened.rate)


def vote_pair(
    store: Store,
    request: gr.Request,
    invite_code: str,
    item: int,
    vote: pairwise.Vote,
    reasons: list[str] | None = None,
    note: str = "",
) -> Answer:
    """The vote on pair `item` (the position an answer gave) of a pairwise study: "A", "B", "tie" or
    "both bad", with the page's reasons and a note if wanted; then the next pair. A pair judged
    already is not voted on again (a re-sent vote): nothing is written and `status` says so."""
    enrolment, sess = seated(store, invite_code, None, request)
    if not pairwise.is_pairwise(store, enrolment):
        raise UserError("this study is scored, not rated in pairs: send its scores with submit_scores")
    return pairwise.vote(store, enrolment, invite_code, item, vote, reasons, note, sess["lang"], request)


def submit_scores(
    store: Store,
    request: gr.Request,
    invite_code: str,
    item: int,
    scores: dict[str, dict[str, int | str]],
    comments: dict[str, str] | None = None,
) -> Answer:
    """Answers to item `item` (the position an answer gave), per response letter and question, as
    `questions` lists them: a number on a scale, an option's label or value, a comment's text (or
    "can't judge"); then the next item. With a score missing
    nothing is saved and `missing` says which."""
    enrolment, sess = seated(store, invite_code, item, request)
    page = submit(store, enrolment, sess, invite_code, scores, comments or {}, request)
    return answer(store, enrolment, page)


def submit(
    store: Store, enrolment: invites.Enrolment, sess: dict[str, Any], code: str, scores: Any, comments: Any,
    request: Any,
) -> RateView:  # fmt: skip
    """The page's one Submit with its rows filled from `scores`, in the study's questions' order."""
    if not isinstance(scores, dict) or not all(isinstance(v, dict) for v in scores.values()):
        raise UserError('scores must map each response letter to its answers, e.g. {"A": {"coherence": 4}}')
    if not isinstance(comments, dict):
        raise UserError('comments must map response letters to text, e.g. {"A": "too long"}')
    letters = blind.LABELS[:SLOTS]
    unknown = (set(scores) | set(comments)) - set(letters)
    if unknown:
        raise UserError(f"no response {', '.join(sorted(map(str, unknown)))} in this item")
    rubric = blind.study_rubric(store, enrolment.study_id)
    extra = {q for given in scores.values() for q in given} - set(rubric.names)
    if extra:
        raise UserError(f"this study asks {', '.join(rubric.names)}; not {', '.join(sorted(map(str, extra)))}")
    notes = [comments.get(label, "") for label in letters]
    rows = [[sent_value(rubric, name, scores.get(label, {}).get(name)) for name in rubric.names] for label in letters]
    return h.on_submit(store, request, code, sess, *form(rows, notes), sess.get("index"))


def answer_question(store: Store, request: gr.Request, invite_code: str, item: int, answers: list[str]) -> Answer:
    """The answers to the blind question of item `item`, one per method of `question.methods`, in that
    order: a response letter or "Don't know"; then the next item."""
    enrolment, sess = seated(store, invite_code, item, request)
    if not isinstance(answers, list) or len(answers) > SLOTS:
        raise UserError('answers must be a list: one letter (or "Don\'t know") per method asked about')
    values = [*answers, *[None] * (SLOTS - len(answers))]
    if pairwise.is_pairwise(store, enrolment):
        page = pw.on_guess(store, request, invite_code, sess, *values[: pw.ASKED_MAX], sess.get("index"))
        return pairwise.answer(store, enrolment, page)
    return answer(store, enrolment, h.on_guess(store, request, invite_code, sess, *values, sess.get("index")))


def next_item(store: Store, request: gr.Request, invite_code: str, item: int | None = None) -> Answer:
    """The item after `item` (no item: the first)."""
    return move(store, invite_code, item, +1, request)


def previous_item(store: Store, request: gr.Request, invite_code: str, item: int | None = None) -> Answer:
    """The item before `item` (no item: the last), to review or change its scores."""
    return move(store, invite_code, item, -1, request)


def move(store: Store, code: str, item: Any, step: int, request: Any) -> Answer:
    enrolment, sess = seated(store, code, item, request)
    if pairwise.is_pairwise(store, enrolment):
        return pairwise.answer(store, enrolment, pw.on_move(store, step, code, sess, request))
    return answer(store, enrolment, h.on_move(store, step, code, sess, request))


def skip_item(store: Store, request: gr.Request, invite_code: str, item: int, reason: str, note: str = "") -> Answer:
    """Skip item `item` with a reason (the page's: language, unclear, unsafe, or other with a note);
    then the next item."""
    enrolment, sess = seated(store, invite_code, item, request)
    if pairwise.is_pairwise(store, enrolment):
        got = pw.on_skip(store, invite_code, sess, reason, note or "", request, sess.get("index"))
        return pairwise.answer(store, enrolment, pw.PairView(got[0], got[1], status=got[7]))
    values = h.on_skip(store, invite_code, sess, reason, note or "", request, sess.get("index"))
    return answer(store, enrolment, RateView.parse(values[:-2]))


def flag_item(
    store: Store,
    request: gr.Request,
    invite_code: str,
    item: int,
    reason: str,
    response: str | None = None,
    note: str = "",
) -> Answer:
    """Flag item `item`, or one response of it by letter (`response`), with a reason; the item stays."""
    enrolment, sess = seated(store, invite_code, item, request)
    target = h.WHOLE_ITEM if response in (None, "") else f"Response {response}"
    if pairwise.is_pairwise(store, enrolment):
        status, _ = pw.on_flag(store, invite_code, sess, target, reason, note or "", request, sess.get("index"))
        return {"item": sess.get("index"), "status": plain_text(status)}
    status, _ = h.on_flag(store, invite_code, sess, target, reason, note or "", request, sess.get("index"))
    return {"item": sess.get("index"), "status": plain_text(status)}
