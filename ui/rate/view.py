"""What the Rate tab shows of an item, and the one wire format of it.

`RateView` is what every rating handler returns; its `values()` is what goes over the wire, in the
order of the tab's outputs (`VALUE_OUTPUTS` in ui/rate/__init__.py):

    session, layout (the number of responses shown), progress, prompt,
    then per response slot A..H: text, the answers to the study's questions (ROWS rows, in the
    rubric's order, None past its last question), comment,
    then guess_ask, status, missing, item_for

so slot k's text is value `4 + PER_SLOT * k`. A Submit sends the same rows: `form` lays them out. Start, Previous and Next send the same, with each slot's box
and the prompt's visibility (`laid_out()`); Submit sends plain values only (each `gr.update` costs the
server a component rebuild), and a change of `layout` re-lays out the page. Clients that read these
values (benchmarks/bench_load.py, the live tests) take the positions from here: `text_index`,
`parse`. gradio_client leaves the two `gr.State` values (session, layout) out of what it returns;
`states=False` reads such a reply.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import gradio as gr

from arena import studies
from arena.rating import blind
from common.rubric import MAX_DIMENSIONS

from ..i18n import translated
from ..safe import response_html
from . import words as rater_words

SLOTS = studies.MAX_RESPONSES
ROWS = MAX_DIMENSIONS  # question rows under each response: as many as a rubric may ask
PER_SLOT = ROWS + 2  # text, the rows, comment
HEAD = ("session", "layout", "progress", "prompt")
STATES = 2  # session and layout: gr.State, which gradio_client does not return
EMPTY_SCORES: tuple[Any, ...] = (None,) * ROWS


def form(rows: Sequence[Sequence[Any]] = (), notes: Sequence[Any] = ()) -> list[Any]:
    """A Submit's values, as the page sends them: per slot its answers in the rubric's order (ROWS,
    padded with None), then a comment per slot. `rows[k]` is response k's answers.

    >>> len(form([[5, 4, 3]])) == SLOTS * ROWS + SLOTS
    True
    """
    cells = [v for k in range(SLOTS) for v in padded(rows[k] if k < len(rows) else ())]
    return [*cells, *notes, *[None] * (SLOTS - len(notes))]


def padded(answers: Sequence[Any]) -> tuple[Any, ...]:
    """One response's answers as its ROWS rows."""
    return (*answers, *[None] * (ROWS - len(answers)))


@dataclass(frozen=True)
class Slot:
    text: str = ""  # the response as safe HTML, "" for an unused slot
    scores: tuple[Any, ...] = EMPTY_SCORES
    comment: str | None = ""


@dataclass(frozen=True)
class RateView:
    """The item on screen (or the line shown instead of one), for one rater's tab session."""

    session: dict[str, Any]
    shown: int  # responses on screen; 0 = none
    progress: str
    prompt: str = ""
    slots: tuple[Slot, ...] = (Slot(),) * SLOTS
    guess_ask: dict[str, Any] | None = None  # the blind question's methods, once the item is scored
    status: str = ""
    missing: list[list[int]] = field(default_factory=list)  # (slot, dimension) left empty at a submit

    @classmethod
    def of(cls, view: blind.RaterView | None, message: str, sess: dict[str, Any], status: str = "") -> RateView:
        """The view of `blind`'s answer in the session's language: `message` takes the progress line
        when there is no item; `status` is the line under the form."""
        lang = sess.get("lang", "en")
        if view is None:
            sess = {k: v for k, v in sess.items() if k != "item"}
            return cls(sess, 0, translated(message, lang), status=translated(status, lang))
        sess = {k: v for k, v in sess.items() if k != "guess"}
        sess = {**sess, "item": view.item, "index": view.index, "shown": len(view.responses)}
        if view.guesses:  # the methods asked about on this item, in the order of the answer boxes
            sess["guess"] = list(view.guesses)
        slots = [
            Slot(
                response_html(r.label, r.text, rater_words.say("rater_response", lang, label=r.label)),
                padded(list(r.scores.values())),  # the rubric's order (arena/rating/blind.py)
                r.comment,
            )
            for r in view.responses
        ]
        slots += [Slot()] * (SLOTS - len(slots))
        if view.skipped:
            note = rater_words.say("rater_skipped_note", lang, reason=rater_words.skip_reason(view.skipped, lang))
        else:
            note = rater_words.say("rater_already_rated", lang) if view.complete else ""
        ask = {"methods": list(view.guesses), "shown": len(view.responses)} if view.guesses else None
        progress = f"**{rater_words.progress(view, lang)}**{note}"
        return cls(sess, len(view.responses), progress, view.prompt, tuple(slots), ask, translated(message, lang))

    def values(self) -> list[Any]:
        """The wire format: plain values only (Submit, Guess, Skip)."""
        per_slot = [v for s in self.slots for v in (s.text, *s.scores, s.comment)]
        return [
            self.session,
            self.shown,
            self.progress,
            self.prompt,
            *per_slot,
            self.guess_ask,
            self.status,
            self.missing,
            self.item_for,
        ]

    def laid_out(self) -> list[Any]:
        """The same with each slot's box and the prompt shown or hidden (Start, Previous, Next), no `missing`."""
        per_slot: list[Any] = []
        for k, s in enumerate(self.slots):
            visible = k < self.shown
            per_slot += [gr.update(visible=visible), gr.update(value=s.text, visible=visible), *s.scores, s.comment]
        prompt = gr.update(value=self.prompt, visible=self.shown > 0)
        return [self.session, self.shown, self.progress, prompt, *per_slot, self.guess_ask, self.status, self.item_for]

    @property
    def item_for(self) -> int | None:
        """The position of the item on screen, which the next Submit names (ui/rate/once.py); None when none."""
        return int(self.session["index"]) if "item" in self.session and "index" in self.session else None

    @staticmethod
    def text_index(k: int, states: bool = True) -> int:
        """Where slot k's text is in a reply of `values()` (without the gr.State values: `states=False`)."""
        return len(HEAD) - (0 if states else STATES) + PER_SLOT * k

    @classmethod
    def parse(cls, data: list[Any], states: bool = True) -> RateView:
        """A reply of `values()` (or of Start's, whose form comes first) read back. Without `states`
        (gradio_client leaves out every gr.State: session, layout, guess_ask, missing) the session is {}
        and there is no question. Values after the form's (Start's pairwise panel) are not read."""
        plain = [v.get("value") if isinstance(v, dict) and "value" in v else v for v in data]
        if not states:
            plain = [{}, None, *plain[: 2 + PER_SLOT * SLOTS], None, plain[2 + PER_SLOT * SLOTS], []]
        start, after = len(HEAD), len(HEAD) + PER_SLOT * SLOTS
        cells = [plain[start + PER_SLOT * k : start + PER_SLOT * (k + 1)] for k in range(SLOTS)]
        slots = tuple(Slot(str(text or ""), tuple(scores), comment) for text, *scores, comment in cells)
        tail = plain[after + 2] if len(plain) > after + 2 else None
        missing: list[list[int]] = [list(m) for m in tail] if isinstance(tail, list) else []
        return cls(plain[0] or {}, sum(1 for s in slots if s.text), str(plain[2] or ""), str(plain[3] or ""), slots,
                   plain[after], str(plain[after + 1] or ""), missing)  # fmt: skip
