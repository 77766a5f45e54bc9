"""Decoded output text that ends on a whole character.

A byte-level tokenizer (GPT-2's, Qwen's, Gemma's byte fallback) may split one UTF-8 character over
two or three tokens. When generation stops at `max_new_tokens` between them, decoding turns the
dangling bytes into U+FFFD ("…也可以满�"). Raters read that as a broken output and may mark it down,
which biases a study against whichever method happened to be cut mid-character. So outputs are
trimmed to their last whole character, and the output's settings record that it was
(`TRIMMED_KEY`: how many replacement characters were dropped); the token ids stay as generated.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

REPLACEMENT = "\ufffd"
TRIMMED_KEY = "trimmed_partial_character"


def whole_characters(text: str) -> tuple[str, int]:
    """`text` without the replacement characters at its end, and how many were dropped.

    >>> whole_characters("也可以满\\ufffd")
    ('也可以满', 1)
    >>> whole_characters("done.")
    ('done.', 0)
    """
    kept = text.rstrip(REPLACEMENT)
    return kept, len(text) - len(kept)


def decode_whole(tokenizer: Any, ids: Sequence[int]) -> tuple[str, int]:
    """`ids` decoded without special tokens, trimmed to the last whole character (see the module)."""
    return whole_characters(tokenizer.decode(list(ids), skip_special_tokens=True))


def with_trim(settings: Mapping[str, Any], dropped: int) -> dict[str, Any]:
    """`settings` plus the trim record when characters were dropped (unchanged otherwise)."""
    out = dict(settings)
    if dropped:
        out[TRIMMED_KEY] = int(dropped)
    return out
