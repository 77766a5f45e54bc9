"""A Submit or a vote is applied once, to the item it names.

The session (server-side) moves to the next item as soon as a submit is saved. A copy of that submit
(an API client re-sending after a lost reply, a second tap while the first one saves) used to land
on the next item, which the rater had not seen. So the page sends, with every Submit and vote, the
position of the item on screen (`item_for`, a hidden value each reply sets); the handler applies it
only when that is still the item on screen, and otherwise answers with the page as it is now and
`ALREADY`. A caller that sends no position (an older API client: gradio_client fills the default, 0)
keeps the old rule: the item on screen. The position is the rater's own "3 of 9", so nothing about a method reaches the page.
"""

from __future__ import annotations

from typing import Any

from common.errors import UserError

ALREADY = "That was saved already; nothing changed."


def named_index(value: Any) -> int | None:
    """The position a request names (1-based), or None when it names none (empty, or 0: the hidden
    value's default, which gradio_client sends for a caller that leaves it out).

    >>> named_index(3.0), named_index(""), named_index(None), named_index(0)
    (3, None, None, None)
    """
    if value is None or (isinstance(value, str) and not value.strip()) or (not isinstance(value, str) and value == 0):
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise UserError("malformed request: the item it is for is not a number") from None
    if number != int(number) or number < 1:
        raise UserError("malformed request: the item it is for is not a position")
    return int(number)


def stale(sess: dict[str, Any], named: int | None) -> bool:
    """Whether a request naming `named` is for another item than the one on screen (a copy of one
    that was applied already). Naming none is never stale."""
    if named is None:
        return False
    return "item" not in sess or int(sess.get("index") or 0) != named


def split_named(values: tuple[Any, ...], form_size: int) -> tuple[tuple[Any, ...], int | None]:
    """A 1-5 submit's form values and the position it names (the one value after the form, if sent)."""
    if len(values) == form_size + 1:
        return values[:-1], named_index(values[-1])
    return values, None
