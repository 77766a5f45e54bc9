"""Which two systems a rater compares on each item of a pairwise study, and which stands left.

A block is every ordered pair of the n systems once: n(n - 1) items, in which every pair of systems
meets twice (once each way round) and every system stands left n - 1 times and right n - 1 times.
Item k of a rater's list uses pair perm_b[k mod B] of block b = k // B, where the rater's secret
`order_seed` (drawn once, server-side, as for the 1-5 design in arena/rating/blind.py) gives a permutation
of the systems onto the pair list's symbols and a shuffle of the pairs within each block. So over
each complete block, per rater, the design is balanced, and summed over raters it is balanced
overall; nothing is shared between raters or blocks, so a pair one rater unblinds says nothing
about anyone else's pairs nor about their other blocks.

    >>> from types import SimpleNamespace as O
    >>> outs = [O(id=10, method="X", sample_index=0), O(id=11, method="Y", sample_index=0)]
    >>> sorted(pair_order(outs, 7, 0) + pair_order(outs, 7, 1))
    [10, 10, 11, 11]
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any


def ordered_pairs(n: int) -> list[tuple[int, int]]:
    """Every ordered pair (left, right) of n symbols, left != right: one block of the design."""
    if n < 2:
        raise ValueError("a pairwise study needs at least two systems")
    return [(i, j) for i in range(n) for j in range(n) if i != j]


def pair_block_size(n: int) -> int:
    """Items per balanced block for n systems: n(n - 1)."""
    return n * (n - 1)


def pair_order(output_rows: Sequence[Any], order_seed: int, item_ordinal: int) -> list[int]:
    """[left output id, right output id] for one rater's `order_seed` and one item.

    `output_rows` are the item's outputs (id, method, sample_index); the systems are (method, sample)."""
    by_key = {(o.method, int(o.sample_index)): int(o.id) for o in output_rows}
    systems = sorted(by_key)
    symbols = list(systems)
    random.Random(f"pair-systems|{order_seed}|{systems!r}").shuffle(symbols)
    pairs = ordered_pairs(len(systems))
    block, within = divmod(int(item_ordinal), len(pairs))
    perm = list(range(len(pairs)))
    random.Random(f"pair-block|{order_seed}|{len(pairs)}|{block}").shuffle(perm)
    left, right = pairs[perm[within]]
    return [by_key[symbols[left]], by_key[symbols[right]]]
