"""Measuring the blind: after scoring an item a rater may be asked "Which response do you think came
from METHOD?", for one target method or for each method in turn (a study's `guess_methods`).

The question is asked only once the item's scores (or a pair's vote) are saved, so guessing cannot
colour them, and never on an attention item (`targets_on`).
The answer is a letter the rater saw or "Don't know", and nothing a rater can reach says whether it was
right: the answer key (the position METHOD's response had for that rater) stays on the server, and the
reply to every answer is the same. Once the study is closed, `evaluation.blinding` turns the answers
into Bang's blinding index per method.

In a pairwise study (arena/rating/pair_rating.py) the question ("If one of these came from METHOD, which
one?", A, B or "Don't know") is asked after every vote, about every target, whether or not it is one
of the two on screen: a question only on the pairs holding the target would tell the rater so. Only
answers on a pair that holds the target are stored (chance 1/2).

A target method must have exactly one response on every item (a deterministic method, or one sample
per stochastic method): with two samples of METHOD on screen "which one came from METHOD" has two
right answers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from common import messages
from common.errors import UserError

LABELS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"  # the blind letters, position 0 = A (arena/rating/blind.py shows them)
DONT_KNOW = "Don't know"
EACH = "each"  # in settings and the CLI: every method of the study, in turn
DEFAULT_TARGET = "BS-4"
OFF = ("", "off", "none", "no")


def question(method: str, lang: str = "en") -> str:
    """The 1-5 page's question about METHOD, in `lang`."""
    return messages.text("guess_question", lang, method=method)


def pair_question(method: str, lang: str = "en") -> str:
    """The pairwise wording, in `lang`: fair on a pair that does not hold METHOD (asked on every pair)."""
    return messages.text("pair_guess_question", lang, method=method)


def resolve_targets(value: Any, slots: Sequence[tuple[str, int]]) -> tuple[str, ...]:
    """The methods a study asks about, from the organizer's choice: nothing ("off", None, []), "each"
    (every method of the study, in its order), a method name, or a list or comma-separated string of
    them. `slots` are the study's (method, sample) pairs, in order (`arena.studies.expected_slots`).
    Refused with the reason: a method not in the study, or one with several responses per item."""
    methods = list(dict.fromkeys(method for method, _ in slots))
    if value is None or (isinstance(value, str) and value.strip().lower() in OFF):
        return ()
    if isinstance(value, str):
        wanted = [v.strip() for v in value.split(",") if v.strip()]
    elif isinstance(value, Sequence):
        wanted = [str(v).strip() for v in value if str(v).strip()]
    else:
        raise UserError(messages.english("guess_choose_target"))
    if [w.lower() for w in wanted] == [EACH]:
        wanted = list(methods)
    unknown = [w for w in wanted if w not in methods]
    if unknown:
        key = "guess_target_unknown" if len(unknown) == 1 else "guess_targets_unknown"
        raise UserError(messages.text(key, unknown=", ".join(unknown), methods=", ".join(methods)))
    responses = {m: sum(1 for method, _ in slots if method == m) for m in methods}
    several = [m for m in wanted if responses[m] > 1]
    if several:
        raise UserError(messages.text("guess_target_samples", methods=", ".join(several), n=responses[several[0]]))
    return tuple(dict.fromkeys(wanted))


def targets_on(guess_methods: Sequence[str], attention: object) -> tuple[str, ...]:
    """The blind question's targets on one item (`attention`: the item's attention plan, None for a
    real item): none on an attention item, whose responses are identical, so that an answer there could
    only be chance and would make the blind look better than it is; else the study's."""
    return () if attention else tuple(guess_methods)


def pending(guess_methods: Sequence[str], answered: set[str]) -> list[str]:
    """The study's questions this rater has not answered yet on an item, in the study's order. (A
    pairwise study asks every target on every pair, whichever two methods are on screen:
    arena/rating/pair_rating.py.)"""
    return [m for m in guess_methods if m not in answered]


def parse_answers(answers: Mapping[str, Any], shown: int) -> list[tuple[str, int | None]]:
    """(method, position picked or None for don't know) from the rating tab's answers {method: a
    letter among the `shown` ones, or DONT_KNOW}. Every question needs an answer."""
    letters = {LABELS[p]: p for p in range(shown)}
    picked: list[tuple[str, int | None]] = []
    for method, value in answers.items():
        if value in (None, ""):
            raise UserError(messages.english("guess_answer_every"))
        if value == DONT_KNOW:
            picked.append((method, None))
        elif isinstance(value, str) and value in letters:
            picked.append((method, letters[value]))
        else:
            raise UserError(messages.text("guess_no_such_response", letter=repr(str(value)[:3])))
    return picked


def answer_key(
    picked: Sequence[tuple[str, int | None]],
    mapping: Mapping[int, int],
    method_of: Mapping[int, str],
) -> list[tuple[str, int, int | None, int]]:
    """(method, responses shown, picked position, METHOD's true position) rows for the store, from the
    rater's recorded order (`mapping`: position -> output id) and each output's method."""
    position_of = {method_of[oid]: p for p, oid in mapping.items()}
    rows = []
    for method, position in picked:
        if method not in position_of:
            raise UserError(f"this item has no response from {method}")
        rows.append((method, len(mapping), position, position_of[method]))
    return rows
