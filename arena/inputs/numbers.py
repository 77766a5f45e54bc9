"""Whole numbers typed by people: sliders, number boxes, CLI flags, environment variables, files.

One rule everywhere: an int, a float with no fraction (4.0, which JSON clients and Gradio sliders
send) or a string of either ("4", " 4 ", "4.0") is accepted; a bool, a fraction, NaN/inf, blank
text or anything else is refused. Strings of digits are read exactly, so seeds beyond 2**53 keep
every digit."""

from __future__ import annotations

import math
import operator

from common import messages
from common.errors import UserError


def parse_whole(value: object) -> int:
    """The whole number in `value`, or ValueError.

    >>> [parse_whole(v) for v in (3, 3.0, " 3 ", "-3", "3.0", "18446744073709551617")]
    [3, 3, 3, -3, 3, 18446744073709551617]
    >>> parse_whole(2.5)
    Traceback (most recent call last):
    ...
    ValueError: not a whole number: 2.5
    """
    if isinstance(value, (bool, bytes, bytearray)) or value is None:
        raise ValueError(f"not a whole number: {value!r}")
    try:
        return operator.index(value)  # type: ignore[arg-type]  # int and numpy integers, exactly
    except TypeError:
        pass
    try:
        if isinstance(value, str):
            text = value.strip()
            try:
                return int(text)
            except ValueError:
                number = float(text)
        else:
            number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"not a whole number: {value!r}") from None
    if not math.isfinite(number) or number != int(number):
        raise ValueError(f"not a whole number: {value!r}")
    return int(number)


def whole_number(value: object, what: str, lo: int | None = None, hi: int | None = None) -> int:
    """`parse_whole(value)` checked against lo..hi (either may be None), or a UserError naming `what`."""
    try:
        number = parse_whole(value)
    except ValueError:
        raise UserError(messages.text("number_not_whole", what=what, value=repr(value))) from None
    if lo is not None and hi is not None and not lo <= number <= hi:
        raise UserError(messages.text("number_between", what=what, lo=lo, hi=hi, number=number))
    if lo is not None and hi is None and number < lo:
        raise UserError(messages.text("number_at_least", what=what, lo=lo, number=number))
    if hi is not None and lo is None and number > hi:
        raise UserError(messages.text("number_at_most", what=what, hi=hi, number=number))
    return number


def study_id(value: object, message: str = messages.english("choose_a_study")) -> int:
    """A study id from a dropdown, a URL or an API call: a whole number in SQL's BIGINT range, else
    UserError(message), since an id out of range is simply a study that does not exist."""
    try:
        number = parse_whole(value)
    except ValueError:
        raise UserError(message) from None
    if not -(2**63) <= number < 2**63:
        raise UserError(message)
    return number


def cli_whole(text: str) -> int:
    """argparse's `type=` for a whole-number flag: the same rule as everywhere else ("--trials 4.0"
    is 4). On a bad value argparse prints "invalid whole number value: 'x'" and exits with code 2."""
    return parse_whole(text)


cli_whole.__name__ = "whole number"  # the name argparse puts in its error message
