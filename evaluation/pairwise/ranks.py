"""Ranks shown only where the intervals separate.

System s is placed above t when s's interval lies wholly above t's (lower bound of s above the
upper bound of t), as Chatbot Arena ranks: what a reader sees on the chart is what the rank says.
For one pair this is stricter than a 95% test of the difference (two 95% intervals that just
touch are a test at about 99.5%), so across the pairs of a study wrong orders stay rare; the
calibration (docs/pairwise.md) measures how rare. A system's rank is then a range:

    best  = 1 + (number of systems placed above it)
    worst = (number of ranked systems) - (number of systems placed below it)

A single number where best == worst, "2-3" where the data cannot order it against its neighbours.
Systems left out of the ranking (provisional ones) do not widen the others' ranges.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence


def rank_ranges(systems: Sequence[str], above: Iterable[tuple[str, str]]) -> dict[str, tuple[int, int]]:
    """(best, worst) rank of each of `systems` given the pairs (higher, lower) that are separated.

    >>> rank_ranges(["x", "y", "z"], [("x", "y"), ("x", "z")])
    {'x': (1, 1), 'y': (2, 3), 'z': (2, 3)}
    """
    names = list(systems)
    ranked = set(names)
    over = {s: 0 for s in names}
    under = {s: 0 for s in names}
    for hi, lo in set(above):
        if hi in ranked and lo in ranked:
            over[lo] += 1
            under[hi] += 1
    return {s: (1 + over[s], len(names) - under[s]) for s in names}


def rank_label(best: int | None, worst: int | None) -> str:
    """ "1", "2–3", or "–" when the system is not ranked."""
    if best is None or worst is None:
        return "–"
    return str(best) if best == worst else f"{best}–{worst}"


def tied_groups(order: Sequence[str], ranges: dict[str, tuple[int, int]]) -> list[list[str]]:
    """`order` (systems by rating, best first) cut into groups that the data cannot order within:
    a system joins the current group when its best rank is not below the worst rank reached by the
    group, and starts a new group otherwise (so "1", "2-3", "2-3" gives [[a], [b, c]]). Systems
    without a range (not ranked) are left out.

    >>> tied_groups(["a", "b", "c"], {"a": (1, 1), "b": (2, 3), "c": (2, 3)})
    [['a'], ['b', 'c']]
    """
    groups: list[list[str]] = []
    reach = 0  # the worst rank reached by the current group
    for s in order:
        if s not in ranges:
            continue
        best, worst = ranges[s]
        if groups and best <= reach:
            groups[-1].append(s)
            reach = max(reach, worst)
        else:
            groups.append([s])
            reach = worst
    return groups
