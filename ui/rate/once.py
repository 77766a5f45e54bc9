"""Every answer is applied once, to the item it names: one path for every request that answers an item.

The session (server-side) moves to the next item as soon as an answer is saved. A copy of that answer
(an API client re-sending after a lost reply, a second tap while the first one saves, a late retry)
used to land on the next item, which the rater had not seen. So the page sends, as the last input of
every request that answers an item (the 1-5 Submit, the rubric Submit, a pairwise vote, the blind
question's answer, Skip and Flag, in both designs), the position of the item on screen (`item_for`, a
hidden value each reply sets); the handler calls `repeat` first and applies the request only when that
is still the item on screen, and otherwise answers with the page as it is now and `ALREADY` (no row
written, the rater stays where they are). A caller that sends no position (an older API client:
gradio_client fills the default) keeps the old rule: the item on screen. The position is the rater's
own "3 of 9", so nothing about a method reaches the page.

The page adds what the server cannot see, time: a double tap on a phone lands both taps on the same
place, and the Submit row and the vote row are fixed to the bottom of the screen, so a second tap that
comes after the reply (190 ms was measured) would name the next item, correctly as far as the server can
tell. `hold_js` disables the buttons at the click, and `release_js`, chained after the reply, gives them
back only once the new item has been on screen for SETTLE_MS: longer than a double tap's interval, far
shorter than anyone takes to read an item.
"""

from __future__ import annotations

import json
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


def repeat(sess: dict[str, Any], item_for: Any) -> bool:
    """Whether a request that sent `item_for` (the hidden value, as it came) is a copy of one applied
    already: it names another item than the one on screen. Every answering handler asks this first."""
    return stale(sess, named_index(item_for))


def split_named(values: tuple[Any, ...], form_size: int) -> tuple[tuple[Any, ...], Any]:
    """A variadic request's own values and the position it names: the one value after its `form_size`
    values, if sent (None otherwise: it names none), for `repeat`."""
    if len(values) == form_size + 1:
        return values[:-1], values[-1]
    return values, None


# A double tap's second tap comes within ~300 ms of the first (Android's double-tap timeout; iOS alike).
SETTLE_MS = 600


def hold_js(selector: str) -> str:
    """JS for the click: the buttons `selector` matches are disabled at once, so a second tap or key
    press while the request is on its way sends nothing."""
    sel = json.dumps(selector)
    return (
        "() => { const held = (window.arenaHeld = window.arenaHeld || {}); "
        f"held[{sel}] = (held[{sel}] || 0) + 1; "
        f"for (const b of document.querySelectorAll({sel})) b.disabled = true; }}"
    )


def release_js(selector: str, focus: str = "") -> str:
    """JS chained after the reply (success or error): the buttons come back SETTLE_MS after the reply is
    on screen, unless a newer click holds them again meanwhile; then `focus` (a selector) takes the
    keyboard if nothing else has it (a disabled button could not take it when the reply came)."""
    sel, first = json.dumps(selector), json.dumps(focus)
    return (
        "() => { const held = (window.arenaHeld = window.arenaHeld || {}); const mine = held[" + sel + "]; "
        "setTimeout(() => { if (held[" + sel + "] !== mine) return; "
        "for (const b of document.querySelectorAll(" + sel + ")) b.disabled = false; "
        "const idle = !document.activeElement || document.activeElement === document.body; "
        "const to = " + first + " && idle ? document.querySelector(" + first + ") : null; "
        "if (to && to.offsetParent !== null) to.focus({preventScroll: true}); }, " + str(SETTLE_MS) + "); }"
    )
