"""A study's seeds: one per output, derived from the study's secret base seed and the output's slot."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from arena.runs.requests import Slot


def derive_seed(base_seed: int, item_public_id: str, method: str, sample: int) -> int:
    """The seed of one (item, method, sample): a hash of the study's secret base seed and the slot, so
    no two methods, samples or items share a seed and none can be guessed from another."""
    digest = hashlib.sha256(f"{int(base_seed)}|{item_public_id}|{method}|{int(sample)}".encode()).digest()
    # 53 bits: exact as a float too (JSON clients, the runner's whole-number check), and far beyond guessing
    return int.from_bytes(digest[:8], "big") >> 11


def slots_seed(base_seed: int, slots: Sequence[Slot]) -> int:
    """The seed of slots generated together (one method and sample index): one slot alone gets its
    own `derive_seed`; a batch gets the seed of its items' public ids joined by "+"."""
    first = slots[0]
    return derive_seed(base_seed, "+".join(s.key for s in slots), first.method, first.sample)
