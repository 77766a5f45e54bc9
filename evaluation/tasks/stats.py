"""The success rate's interval: Wilson's score interval for a binomial proportion."""

from __future__ import annotations

import math

Z95 = 1.959963984540054


def wilson(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """95% Wilson score interval for `successes` out of `n` (NaN, NaN when n = 0).

    Unlike the normal approximation it stays inside [0, 1] and is not empty at 0 or n successes,
    which is where a small model on these tasks lives.

    >>> [round(x, 3) for x in wilson(0, 10)]
    [0.0, 0.278]
    >>> [round(x, 3) for x in wilson(5, 10)]
    [0.237, 0.763]
    """
    if n <= 0:
        return math.nan, math.nan
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)
