"""What a study may hold: how many prompts, samples and side-by-side responses, which slots an
item gets, and a name that gives no method away."""

from __future__ import annotations

from collections.abc import Sequence

import decoders

from .. import systems
from ..text import folded

MAX_ITEMS = 1000
MAX_SAMPLES = 10
MAX_RESPONSES = 8  # responses per item a rater sees at once (A..H)


def expected_slots(methods: Sequence[str], samples_per_method: int) -> list[tuple[str, int]]:
    """(method, sample_index) every item gets: one output of a deterministic method, n of a stochastic one."""
    return [(m, s) for m in methods for s in range(samples_per_method if systems.decoder(m).stochastic else 1)]


def _letters(text: str) -> str:
    """Lower-case letters and digits only: "BS-4", "bs 4" and "Bs_4" all read "bs4"."""
    return "".join(ch for ch in folded(text) if ch.isalnum())


def method_names_in(name: str) -> list[str]:
    """Registered method names that a study name gives away, ignoring case, spaces and punctuation."""
    letters = _letters(name)
    return [m for m in decoders.names() if _letters(m) and _letters(m) in letters]
