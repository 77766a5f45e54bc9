"""The pairwise side of the rating endpoints: a rater in a pairwise study sees a pair (A, B) and votes.

As for scored studies (ui/api/rating.py), each answer is the page's: `vote_pair` is the pairwise
panel's own vote handler (ui/rate/pairwise.py `on_vote`) with a session made for the pair the request
names, so the code is checked again, the vote is stored with the pair's order as recorded at first
view, and the blind holds (letters, prompt and texts only).

Applied once: the API holds no session, so it cannot tell a re-sent vote (a lost reply, a retry) from
the first by the page's rule (ui/rate/once.py: "is this still the item on screen?"). A vote names its
pair's position, and a position the rater has judged already is refused as a repeat: nothing is
written, the answer is the rater's next pair with the page's "saved already" line. A vote is never
stored on another pair than the one it names. Changing a vote is the page's (Previous, then vote).
"""

from __future__ import annotations

from typing import Any, Literal

from arena.access import invites
from arena.rating import pair_rating
from arena.store import Store
from common.errors import UserError

from ..rate import once
from ..rate import pairwise as pw
from .plain import plain_text

Answer = dict[str, Any]
Vote = Literal["A", "B", "tie", "both bad"]
# the API's words for a vote -> the store's (VOTE_WINNERS)
WINNERS: dict[str, str] = {"A": "a", "B": "b", "tie": "tie", "both bad": "bothbad"}
VOTES: dict[str, str] = {v: k for k, v in WINNERS.items()}


def is_pairwise(store: Store, enrolment: invites.Enrolment) -> bool:
    return pair_rating.is_pairwise(store.get_study(enrolment.study_id))


def session(store: Store, enrolment: invites.Enrolment, item: Any, lang: str) -> dict[str, Any]:
    """The panel's session with pair `item` (1-based) on screen (none: nothing on screen)."""
    sess: dict[str, Any] = {"study_id": enrolment.study_id, "lang": lang}
    if item in (None, "", 0):
        return sess
    view, message = pair_rating.open_for(store, enrolment, item)
    return pw.PairView.of(view, message, sess).session


def answer(store: Store, enrolment: invites.Enrolment, page: pw.PairView) -> Answer:
    """`page` as plain data: the pair's texts as stored (the page's are HTML), the rater's own vote."""
    index = page.session.get("index") if "item" in page.session else None
    view = pair_rating.open_for(store, enrolment, index)[0] if index is not None else None
    return {
        "design": "pairwise",
        "item": index,
        "of": view.total if view is not None else None,
        "rated": view.rated_items if view is not None else None,
        "prompt": view.prompt if view is not None else "",
        "responses": [{"label": k, "text": t} for k, t in zip(pair_rating.LABELS, (view.text_a, view.text_b))]
        if view is not None
        else [],
        "vote": VOTES.get(view.winner or "") if view is not None else None,
        "questions": [],
        # the blind question of a judged pair: the methods asked about, answered with a letter each
        "question": {"methods": list(page.asked), "choices": [*pair_rating.LABELS, "Don't know"]}
        if page.asked
        else None,
        "progress": plain_text(page.progress),
        "status": plain_text(page.status),
        "missing": [],
    }


def view_at(store: Store, enrolment: invites.Enrolment, item: Any, lang: str, line: str = "") -> pw.PairView:
    """The pair at position `item` (None: the rater's next pair not judged), in `lang`."""
    view, message = pair_rating.open_for(store, enrolment, item)
    return pw.PairView.of(view, message, {"study_id": enrolment.study_id, "lang": lang}, line)


def vote(
    store: Store, enrolment: invites.Enrolment, code: str, item: Any, choice: Any, reasons: Any, note: Any,
    lang: str, request: Any,
) -> Answer:  # fmt: skip
    """The vote `choice` on pair `item`, then the next pair; a pair judged already: a repeat, not applied."""
    if choice not in WINNERS:
        raise UserError(f"vote must be one of {', '.join(WINNERS)}")
    if item in (None, "", 0):
        raise UserError("give the position of the pair you vote on (item), as an answer gave it")
    named = once.named_index(item)
    view, message = pair_rating.open_for(store, enrolment, named)
    if view is not None and view.winner is not None:  # judged already: a copy of a vote applied
        # the page as it is now: this pair while its blind question is open, else the next pair
        return answer(store, enrolment, view_at(store, enrolment, named if view.guesses else None, lang, once.ALREADY))
    shown = pw.PairView.of(view, message, {"study_id": enrolment.study_id, "lang": lang})
    page = pw.on_vote(store, WINNERS[choice], code, shown.session, reasons, note or "", request, named)
    return answer(store, enrolment, page)
